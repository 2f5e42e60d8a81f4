"""Minimal-pair scoring end to end on a small clams dataset, with tiny masked and causal LMs."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict

import pandas as pd
import pyarrow.parquet as pq
import pytest
import torch

from perturbed_ud.builders.engine import build
from perturbed_ud.evaluation.measures.sentence_scores import causal_log_likelihoods
from perturbed_ud.evaluation.tasks.minimal_pair import (
    MinimalPair,
    MinimalPairSettings,
    score_pairs,
    span_rows,
    variant,
)
from perturbed_ud.lm.batching import Batcher
from perturbed_ud.lm.models import load_causal_lm, load_masked_lm

COMMON = """\
VP[3,s] works | is tall | reads
VP[3,p] work | are tall | read
N_1[3,s,anim] the doctor | the teacher
N_1[3,p,anim] the doctors | the teachers
"""
SIMPLE = """\
vary: VP[]

S[] N_1[3,s,anim] VP[3,s]
S[] N_1[3,p,anim] VP[3,p]
"""
COORD = """\
vary: VP[]

S[] N_1[3,s,anim] VP[3,s] and VP[3,s]
S[] N_1[3,p,anim] VP[3,p] and VP[3,p]
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    grammars = tmp_path_factory.mktemp("grammars")
    (grammars / "common.avg").write_text(COMMON)
    (grammars / "simple_agrmt.avg").write_text(SIMPLE)
    (grammars / "vp_coord.avg").write_text(COORD)
    out = tmp_path_factory.mktemp("data")
    return build("clams", out, grammar_dir=grammars, lang="en")


def rows(dataset, split="vp_coord"):
    return pq.read_table(next((dataset / "en").glob(f"{split}-*.parquet"))).to_pydict()


def test_masked_forms_are_scored_left_to_right_with_the_span_masked(dataset, tiny_bert):
    lm = load_masked_lm(str(tiny_bert))
    batch = rows(dataset)
    words = batch["sentence_good"][0].split(" ")
    positions = batch["good_positions"][0]
    pieces, size, problem, windowed = span_rows(lm.tokenizer, words, positions, 256, "window")
    assert size == len(pieces) >= len(positions) and problem is None and not windowed
    for i, (row, position, _) in enumerate(pieces):
        masked = [k for k, piece in enumerate(row) if piece == lm.tokenizer.mask_token_id]
        assert masked[0] == position and len(masked) == size - i
    options = asdict(MinimalPairSettings(kind="masked"))
    out = score_pairs(
        batch, None, model=str(tiny_bert), revision=None, device="cpu", settings=options
    )
    small = asdict(MinimalPairSettings(kind="masked", max_rows=1, padding_side="left"))
    one = score_pairs(
        batch, None, model=str(tiny_bert), revision=None, device="cpu", settings=small
    )
    assert out["good_score"] == pytest.approx(one["good_score"], abs=1e-5)
    assert out["bad_score"] == pytest.approx(one["bad_score"], abs=1e-5)
    for g, b, outcome in zip(out["good_score"], out["bad_score"], out["outcome"], strict=True):
        assert outcome == ("tie" if g == b else "correct" if g > b else "incorrect")


def test_causal_pairs_compare_sentence_log_probabilities(dataset, tiny_gpt2):
    batch = rows(dataset, "simple_agrmt")
    settings = MinimalPairSettings(kind="causal", bos="prepend", capitalize=True, final_period=True)
    out = score_pairs(batch, None, model=str(tiny_gpt2), revision=None, device="cpu",
                      settings=asdict(settings))  # fmt: skip
    lm = load_causal_lm(str(tiny_gpt2))
    good = [variant(s, settings) for s in batch["sentence_good"]]
    assert good[0][0][0].isupper() and good[0][-1] == "."
    expected = [sum(s.log_probs) for s in causal_log_likelihoods(Batcher(lm), good, "prepend")]
    assert out["good_score"] == pytest.approx(expected, abs=1e-5)


def test_a_run_reports_accuracy_with_ties_apart_and_coverage(dataset, tiny_bert, tmp_path):
    run = MinimalPair.run(str(dataset), str(tiny_bert), tmp_path / "run")
    table = pd.read_csv(run / "accuracy.csv")
    assert set(table["construction"]) == {"simple_agrmt", "vp_coord"}
    for row in table.itertuples():
        assert row.correct + row.incorrect + row.ties == row.N and row.unscored == 0
        assert row.accuracy_lo <= row.accuracy <= row.accuracy_hi
        assert 0 <= row.single_piece_forms <= 1
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["pairs"] == sum(table["N"]) and manifest["settings"]["kind"] == "masked"
    assert (run / "accuracy.png").stat().st_size > 0


def test_the_run_records_the_dtype_it_ran_in(dataset, tiny_gpt2, tmp_path):
    """A bf16 checkpoint runs in bf16 (transformers reads weights in their own dtype), and
    the run says so, from the process that scored; the same checkpoint in fp32 says fp32."""
    from transformers import AutoModelForCausalLM

    bf16 = tmp_path / "bf16"
    shutil.copytree(tiny_gpt2, bf16)
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2)
    model.to(torch.bfloat16).save_pretrained(bf16)
    for path, dtype in ((tiny_gpt2, "float32"), (bf16, "bfloat16")):
        run = MinimalPair.run(str(dataset), str(path), tmp_path / f"run-{dtype}",
                                     limit=4)  # fmt: skip
        results = json.loads((run / "results.json").read_text())
        assert results["model"]["dtype"] == dtype
        (ran,) = results["ran"]
        assert ran == {"device": "cpu", "device_map": None, "dtype": dtype, "max_tokens": None,
                       "model_class": "GPT2LMHeadModel", "tokenizer": ran["tokenizer"]}  # fmt: skip
        assert json.loads((run / "run.json").read_text())["ran"] == [ran]
