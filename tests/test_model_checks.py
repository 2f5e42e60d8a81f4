"""A model the command cannot score meaningfully is refused with one readable error: missing
or foreign tokenizer files, the wrong ``--kind``, a checkpoint without the head the task needs
(a sequence classifier read as a masked LM), damaged weights, a folder that does not exist, a
device torch cannot use. Each case is a tiny model folder with files removed, swapped,
truncated or edited; every command that reads a model or a tokenizer makes the same checks."""

from __future__ import annotations

import shutil

import pytest
import torch
from click.testing import CliRunner
from conftest import UD_ROOT
from tiny_models import altered_copy, bert_classifier
from transformers import AutoModelForMaskedLM, AutoTokenizer

from perturbed_ud.cli import main
from perturbed_ud.errors import InputError
from perturbed_ud.lm.models import (
    checked_model,
    describe_model,
    load_causal_lm,
    load_lm,
    load_masked_lm,
)

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


@pytest.fixture(scope="module")
def spud(spud_en5):
    return spud_en5


@pytest.fixture(scope="module")
def pud(tmp_path_factory):
    out = tmp_path_factory.mktemp("data")
    args = ["build", "perturbed-ud", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1",
            "--limit", "5", "--scrambles", "head", "--out", out]  # fmt: skip
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out / "perturbed-ud"


@pytest.fixture(scope="module")
def classifier(tiny_bert, tmp_path_factory):
    """A fine-tuned sequence classifier in miniature: BERT's encoder, no masked-LM head."""
    return bert_classifier(tiny_bert, tmp_path_factory.mktemp("classifier") / "cls")


@pytest.fixture(scope="module")
def no_tokenizer(tiny_bert, tmp_path_factory):
    """The tiny BERT without its tokenizer files, as a copy of the weights alone leaves it."""
    return altered_copy(tiny_bert, tmp_path_factory.mktemp("notok") / "bert", drop=TOKENIZER_FILES)


def fails_readably(*args) -> str:
    """The command's output, asserting it ended as one ``error:`` line with status 1."""
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    return errors[0]


@pytest.mark.parametrize(
    ("model", "load"),
    [("tiny_bert", load_masked_lm), ("tiny_xlmr", load_masked_lm), ("tiny_gpt2", load_causal_lm)],
)
def test_a_folder_without_tokenizer_files_is_refused(request, tmp_path, model, load):
    # transformers would build a tokenizer of its special tokens only: every word [UNK]
    folder = altered_copy(request.getfixturevalue(model), tmp_path / "m", drop=TOKENIZER_FILES)
    with pytest.raises(InputError, match="has no tokenizer files"):
        load(str(folder))
    with pytest.raises(InputError, match="has no tokenizer files"):
        describe_model(str(folder), None, None)


def test_the_run_stops_before_scoring_without_tokenizer_files(tmp_path, tiny_bert, spud):
    folder = altered_copy(tiny_bert, tmp_path / "m", drop=TOKENIZER_FILES)
    error = fails_readably("evaluate", "score", "--dataset", spud, "--model", folder,
                           "--out", tmp_path / "run")  # fmt: skip
    assert "has no tokenizer files" in error
    assert not (tmp_path / "run" / "run.json").exists()


def swapped_tokenizer(model, tokenizer_of, folder):
    altered_copy(model, folder, drop=TOKENIZER_FILES)
    for name in TOKENIZER_FILES:
        shutil.copy(tokenizer_of / name, folder / name)
    return folder


def test_a_tokenizer_smaller_than_the_embeddings_is_refused(tmp_path, tiny_bert, tiny_gpt2):
    folder = swapped_tokenizer(tiny_bert, tiny_gpt2, tmp_path / "m")  # 1,000 tokens, 1,500 rows
    with pytest.raises(InputError, match="1000 tokens for the model's 1500 embeddings"):
        load_masked_lm(str(folder))


def test_a_tokenizer_larger_than_the_embeddings_is_refused(tmp_path, tiny_bert, tiny_gpt2):
    folder = swapped_tokenizer(tiny_gpt2, tiny_bert, tmp_path / "m")  # ids up to 1,499
    with pytest.raises(InputError, match="1500 tokens but the model only 1000 embeddings"):
        load_causal_lm(str(folder))


def test_embeddings_padded_beyond_the_tokenizer_are_accepted(tmp_path, tiny_bert):
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert)
    model.resize_token_embeddings(1500 + 128)  # as checkpoints pad to a multiple for speed
    model.save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(tiny_bert).save_pretrained(tmp_path)
    assert load_masked_lm(str(tmp_path)).model.get_input_embeddings().num_embeddings == 1628


def test_a_masked_lm_is_not_scored_as_causal(tiny_bert):
    # BertLMHeadModel would load it, attending to both sides: perplexities without meaning
    with pytest.raises(InputError, match=r"is a masked language model .*: use --kind masked"):
        load_lm("causal", str(tiny_bert), "cpu", None, None)


def test_a_causal_lm_is_not_scored_as_masked(tiny_gpt2):
    with pytest.raises(InputError, match=r"is a causal language model .*: use --kind causal"):
        load_lm("masked", str(tiny_gpt2), "cpu", None, None)
    with pytest.raises(InputError, match="this task scores masked language models only"):
        load_masked_lm(str(tiny_gpt2))  # masked-word has no --kind to suggest


def test_a_decoder_bert_is_causal(tmp_path, tiny_bert):
    decoder = {"is_decoder": True, "architectures": ["BertLMHeadModel"]}
    folder = altered_copy(tiny_bert, tmp_path / "m", config=decoder)
    with pytest.raises(InputError, match="bert with is_decoder=True.*use --kind causal"):
        load_lm("masked", str(folder), "cpu", None, None)
    assert load_lm("causal", str(folder), "cpu", None, None).model.config.is_decoder


def test_the_kind_is_checked_from_the_config_before_the_weights(tmp_path, tiny_gpt2):
    folder = altered_copy(tiny_gpt2, tmp_path / "m", truncate=["model.safetensors"])
    with pytest.raises(InputError, match="use --kind causal"):
        load_lm("masked", str(folder), "cpu", None, None)
    with pytest.raises(InputError, match="use --kind causal"):
        describe_model(str(folder), None, None, kind="masked")


@pytest.mark.parametrize(
    ("model", "options", "advice"),
    [("tiny_bert", ["--kind", "causal", "--bos", "none"], "use --kind masked"),
     ("tiny_gpt2", ["--kind", "masked"], "use --kind causal")],
)  # fmt: skip
def test_the_wrong_kind_fails_the_command_readably(request, tmp_path, spud, model, options, advice):
    model = request.getfixturevalue(model)
    error = fails_readably("evaluate", "score", "--dataset", spud, "--model", model, *options,
                           "--out", tmp_path / "run")  # fmt: skip
    assert advice in error


def test_truncated_weights_are_named(tmp_path, tiny_bert):
    folder = altered_copy(tiny_bert, tmp_path / "m", truncate=["model.safetensors"])
    with pytest.raises(InputError, match=r"damaged weight file \(.*model.safetensors\)"):
        load_masked_lm(str(folder))


def test_a_missing_folder_is_reported_as_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="./models/nope: there is no such folder"):
        load_masked_lm("./models/nope")
    # namespace/repo: a relative folder or a Hub id, so both are named
    with pytest.raises(InputError, match="no such local folder, and as a Hub model id"):
        load_masked_lm("models/nope")


def test_a_missing_folder_fails_the_command_readably(tmp_path, monkeypatch, spud):
    monkeypatch.chdir(tmp_path)
    error = fails_readably("evaluate", "score", "--dataset", spud, "--model", "./models/nope",
                           "--out", tmp_path / "run")  # fmt: skip
    assert "there is no such folder" in error


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)


@pytest.mark.parametrize("device", ["cuda", "cuda:0"])
def test_cuda_without_a_gpu_is_refused(no_gpu, tiny_bert, device):
    with pytest.raises(InputError, match=f"device {device}: CUDA is not available"):
        load_masked_lm(str(tiny_bert), device=device)


def test_a_gpu_beyond_the_visible_ones_is_refused(monkeypatch, tiny_bert):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(InputError, match=r"device cuda:1: 1 GPU\(s\) visible"):
        load_masked_lm(str(tiny_bert), device="cuda:1")


def test_an_unknown_device_is_refused(tiny_bert):
    with pytest.raises(InputError, match="device 'gpu'"):
        load_masked_lm(str(tiny_bert), device="gpu")


# Each command that reads a model or a tokenizer, as arguments given the model and --out.
MASKED_LM_COMMANDS = {
    "evaluate score": lambda data, model, out: [
        "evaluate", "score", "--dataset", data["spud"], "--model", model, "--out", out],
    "evaluate masked-word": lambda data, model, out: [
        "evaluate", "masked-word", "--dataset", data["pud"], "--config", "en_head_seed1",
        "--model", model, "--out", out],
    "build substitution coco": lambda data, model, out: [
        "build", "substitution", "--ud-root", UD_ROOT, "--langs", "en", "--limit", "5",
        "--methods", "coco", "--model", model, "--out", out],
}  # fmt: skip
TOKENIZER_COMMANDS = {
    "build local_structure": lambda data, model, out: [
        "build", "local_structure", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1",
        "--limit", "5", "--tokenizer", model, "--out", out],
    "balance": lambda data, model, out: [
        "balance", "--dataset", data["pud"], "--tokenizer", model, "--out", out],
}  # fmt: skip


@pytest.fixture
def data(spud, pud):
    return {"spud": spud, "pud": pud}


@pytest.mark.parametrize("command", MASKED_LM_COMMANDS)
def test_a_sequence_classifier_is_not_read_as_a_masked_lm(tmp_path, data, classifier, command):
    # its masked-LM head would be initialised at random: predictions without meaning, exit 0
    out = tmp_path / "out"
    error = fails_readably(*MASKED_LM_COMMANDS[command](data, classifier, out))
    assert "is a sequence classifier (BertForSequenceClassification)" in error
    assert not out.exists()


@pytest.mark.parametrize("command", {**MASKED_LM_COMMANDS, **TOKENIZER_COMMANDS})
def test_every_command_refuses_a_model_without_tokenizer_files(
    tmp_path, data, no_tokenizer, command
):
    # transformers would build a tokenizer of special tokens only: every word [UNK], exit 0
    out = tmp_path / "out"
    commands = {**MASKED_LM_COMMANDS, **TOKENIZER_COMMANDS}
    error = fails_readably(*commands[command](data, no_tokenizer, out))
    assert "has no tokenizer files" in error
    assert not out.exists()


@pytest.mark.parametrize(
    ("kind", "config"),
    [("masked", {"architectures": None}),  # the config cannot tell: the weights can
     ("masked", {"architectures": ["BertModel"]}),  # the encoder alone
     ("classifier", {"architectures": ["BertForSequenceClassification"]})],
)  # fmt: skip
def test_a_checkpoint_without_the_heads_weights_is_refused(tmp_path, tiny_bert, classifier, kind,
                                                           config):  # fmt: skip
    model = classifier if kind == "masked" else tiny_bert
    folder = altered_copy(model, tmp_path / "m", config=config)
    with pytest.raises(InputError, match=r"has no weights for .* would be random"):
        checked_model(str(folder), None, kind)


def test_a_classifier_without_tokenizer_files_is_refused(tmp_path, classifier):
    # evaluate classify reads it through the same check
    folder = altered_copy(classifier, tmp_path / "m", drop=TOKENIZER_FILES)
    with pytest.raises(InputError, match="has no tokenizer files"):
        checked_model(str(folder), None, "classifier")
