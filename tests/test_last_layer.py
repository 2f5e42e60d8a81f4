"""The last encoder layer run at the predicted positions only gives the full forward pass's
hidden states there, whatever the padding and the attention function."""

from __future__ import annotations

import pytest
import torch
from conftest import UD_ROOT
from transformers import AutoModelForMaskedLM

from perturbed_ud.lm.last_layer import states_at
from perturbed_ud.lm.models import LanguageModel, load_causal_lm, load_masked_lm
from perturbed_ud.lm.models import padded_inputs as pad
from perturbed_ud.ud.conllu_io import read_conllu


@pytest.fixture(scope="module")
def texts():
    """Sentences of different lengths, so that every batch is padded."""
    sentences = read_conllu(UD_ROOT / "UD_English-EWT/en_ewt-ud-test.conllu")
    return [" ".join(s.forms) for s, _ in zip(sentences, range(9), strict=False)]


def both_ways(lm: LanguageModel, texts: list[str], padding_side: str):
    rows = [lm.tokenizer(text)["input_ids"] for text in texts]
    ids, mask, position_ids, offsets = pad(lm, rows, padding_side)
    inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": position_ids}
    index = torch.arange(len(rows))
    # a different position in each row, the specials included
    at = torch.tensor([offset + r % len(row) for r, (row, offset) in
                       enumerate(zip(rows, offsets, strict=True))])  # fmt: skip
    with torch.inference_mode():
        short = states_at(lm.model, inputs, index, at)
        full = lm.model.base_model(**inputs).last_hidden_state[index, at]
    return short, full


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_xlmr"])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_short_last_layer_equals_the_full_forward_pass(texts, model, padding_side, request):
    lm = load_masked_lm(str(request.getfixturevalue(model)))
    short, full = both_ways(lm, texts, padding_side)
    assert short.shape == full.shape
    assert torch.allclose(short, full, atol=1e-5)


def test_eager_attention_and_its_additive_mask_give_the_same(texts, tiny_bert):
    base = load_masked_lm(str(tiny_bert))
    eager = AutoModelForMaskedLM.from_pretrained(str(tiny_bert), attn_implementation="eager")
    lm = LanguageModel("eager", base.tokenizer, eager.eval(), base.device, None)
    short, full = both_ways(lm, texts, "right")
    assert torch.allclose(short, full, atol=1e-5)
    assert torch.allclose(short, both_ways(base, texts, "right")[0], atol=1e-5)


def test_the_forward_pass_is_whole_again_afterwards(texts, tiny_bert):
    lm = load_masked_lm(str(tiny_bert))
    both_ways(lm, texts, "right")
    assert not any(layer._forward_pre_hooks for layer in lm.model.bert.encoder.layer)


def test_other_architectures_take_the_full_forward_pass(texts, tiny_gpt2):
    lm = load_causal_lm(str(tiny_gpt2))
    short, full = both_ways(lm, texts, "right")
    assert torch.equal(short, full)
