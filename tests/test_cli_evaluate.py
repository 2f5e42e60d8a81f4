"""The evaluate-side commands end to end: summarize on the released items, masked-word and
balance on a fresh build with a tiny model, and score on a fresh spud build."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import REFERENCE, UD_ROOT, needs_reference
from scipy.stats import wilcoxon

from perturbed_ud.cli import main
from perturbed_ud.evaluation.measures.sentence_scores import (
    causal_log_likelihoods,
    pseudo_log_likelihoods,
)
from perturbed_ud.evaluation.tasks.masked_word.statistics import effects_table
from perturbed_ud.lm.batching import Batcher
from perturbed_ud.lm.models import load_causal_lm, load_masked_lm

RELEASED = REFERENCE / "wordprediction/bert-base-multilingual-cased"


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


@needs_reference
def test_summarize_reproduces_the_released_summaries_and_their_effects(tmp_path):
    invoke("summarize", RELEASED / "results_items_seed123.jsonl.gz", "--out", tmp_path,
           "--bootstrap", "50")  # fmt: skip
    for kind in ("balanced", "unbalanced"):
        ours = (tmp_path / f"summary_{kind}.csv").read_bytes()
        assert ours == (RELEASED / f"summary_{kind}_seed123.csv").read_bytes(), kind
    # S and I as the released balanced summary implies them (formulas of the paper)
    implied = effects_table(pd.read_csv(RELEASED / "summary_balanced_seed123.csv"))
    reported = pd.read_csv(tmp_path / "sensitivity_ci.csv").merge(
        pd.read_csv(tmp_path / "interaction_ci.csv"), on=["model_name", "lang"]
    )
    merged = implied.merge(reported, on=["model_name", "lang"], suffixes=("", "_reported"))
    assert len(merged) == 6
    for name in ("S_full", "S_part", "S_head", "S_L", "I_full", "I_part"):
        assert merged[name].to_numpy() == pytest.approx(
            merged[f"{name}_reported"].to_numpy(), abs=1e-12, nan_ok=True
        ), name


def test_build_evaluate_balance_from_the_command_line(tmp_path, tiny_bert):
    invoke("build", "perturbed-ud", "--ud-root", UD_ROOT, "--langs", "de", "--seeds", "1",
           "--limit", "25", "--out", tmp_path)  # fmt: skip
    data = tmp_path / "perturbed-ud"
    run = tmp_path / "run"
    # the folder given to --out holds the dataset: refused, naming the dataset's own path
    given = ["--model", str(tiny_bert), "--out", str(tmp_path / "r")]
    parent = CliRunner().invoke(main, ["evaluate", "masked-word", "--dataset", str(tmp_path),
                                       *given])  # fmt: skip
    assert parent.exit_code == 1 and f"use --dataset {data}" in parent.output, parent.output
    nested = tmp_path / "project" / "word-order" / "perturbed-ud"  # two levels down
    shutil.copytree(data, nested)
    above = CliRunner().invoke(main, ["evaluate", "masked-word", "--dataset",
                                      str(tmp_path / "project"), *given])  # fmt: skip
    assert above.exit_code == 1 and f"use --dataset {nested}" in above.output, above.output
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "plan.md").write_text("nothing to score\n", encoding="utf-8")
    notes = CliRunner().invoke(main, ["evaluate", "masked-word", "--dataset",
                                      str(tmp_path / "notes"), *given])  # fmt: skip
    assert notes.exit_code == 1 and "is not a dataset folder" in notes.output, notes.output
    invoke("evaluate", "masked-word", "--dataset", data, "--config", "de_head_seed1",
           "--model", tiny_bert, "--max-span-pieces", "3", "--out", run)  # fmt: skip
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["rows"] == 100 and manifest["configs"] == ["de_head_seed1"]
    summary = pd.read_csv(run / "summary_unbalanced.csv")
    assert set(summary["condition"]) == {
        "Original", "Original+Lemma", "HeadScrambled", "HeadScrambled+Lemma"
    }  # fmt: skip
    assert summary["N"].sum() == manifest["scored"]
    assert (run / "accuracy.png").stat().st_size > 0 or list(run.glob("*.png"))
    invoke("balance", "--dataset", data, "--tokenizer", tiny_bert, "--max-span-pieces", "3",
           "--out", tmp_path / "balanced")  # fmt: skip
    balanced = json.loads((tmp_path / "balanced/build.json").read_text())
    sizes = set(balanced["configs"]["de_head_seed1"]["splits"].values())
    assert len(sizes) == 1 and sizes.pop() <= 25


def test_the_default_build_from_the_packaged_sample_evaluates(tmp_path, tiny_xlmr):
    invoke("build", "perturbed-ud", "--langs", "en,zh", "--seeds", "1", "--scrambles", "part",
           "--limit", "20", "--out", tmp_path)  # fmt: skip
    run = tmp_path / "run"
    invoke("evaluate", "masked-word", "--dataset", tmp_path / "perturbed-ud", "--model",
           tiny_xlmr, "--out", run)  # fmt: skip
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["configs"] == ["en_part_seed1", "zh_part_seed1"]
    items = pd.read_parquet(run / "items.parquet")
    assert set(items["sent_id"].str.startswith("n")) == {True}, "PUD sentence ids"
    assert len(items) == manifest["scored"] > 0


def test_commands_fail_readably(tmp_path):
    args = ["evaluate", "masked-word", "--dataset", str(tmp_path), "--model", str(tmp_path)]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "r")])
    assert result.exit_code == 1 and result.output.startswith("error:")


@pytest.mark.parametrize(
    ("kind", "grouping"), [("masked", "ud"), ("masked", "tokenizer"), ("causal", "ud")]
)
def test_build_spud_and_score_nonce_against_orig(tmp_path, kind, grouping, tiny_bert, tiny_gpt2):
    invoke("build", "spud", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1",
           "--limit", "25", "--out", tmp_path)  # fmt: skip
    model = tiny_bert if kind == "masked" else tiny_gpt2
    run = tmp_path / "run"
    invoke("evaluate", "score", "--dataset", tmp_path / "spud", "--model", model,
           "--kind", kind, "--word-grouping", grouping, "--out", run)  # fmt: skip
    manifest = json.loads((run / "run.json").read_text())
    assert (manifest["sentences"], manifest["paired"], manifest["too_long"]) == (50, 25, 0)

    scores = pd.read_parquet(run / "scores.parquet")
    assert scores["perplexity"].to_numpy() == pytest.approx(
        np.exp(-scores["log_prob"] / scores["n_tokens"]).to_numpy()
    )
    # the command's scores are the library's, sentence by sentence
    lm = (load_masked_lm if kind == "masked" else load_causal_lm)(str(model))
    sentences = [list(words) for words in scores["forms"]]
    if kind == "masked":
        direct = pseudo_log_likelihoods(Batcher(lm), sentences, grouping=grouping)
    else:
        direct = causal_log_likelihoods(Batcher(lm), sentences)
    assert scores["log_prob"].to_numpy() == pytest.approx(
        [sum(s.log_probs) for s in direct], abs=1e-4
    )

    paired = pd.read_parquet(run / "nonce_ratios.parquet").set_index("sent_id")
    perplexity = scores.assign(split=scores["split_key"].str.split("/").str[1])
    perplexity = perplexity.pivot(index="sent_id", columns="split", values="perplexity")
    assert paired["ratio"].to_numpy() == pytest.approx(
        (perplexity["nonce"] / perplexity["orig"]).loc[paired.index].to_numpy()
    )
    summary = pd.read_csv(run / "nonce_ratio_summary.csv").iloc[0]
    assert summary["N"] == 25
    assert summary["ratio_median"] == pytest.approx(paired["ratio"].median())
    test = wilcoxon(np.log(paired["nonce"]) - np.log(paired["orig"]))
    assert summary["wilcoxon_p"] == pytest.approx(test.pvalue)
    assert (run / "nonce_ratio.png").stat().st_size > 0


def test_a_run_folder_resumes_only_on_the_data_it_began_with(tmp_path, tiny_bert):
    def build(limit, *extra):
        invoke("build", "spud", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1",
               "--limit", limit, "--out", tmp_path, *extra)  # fmt: skip

    def score():
        args = ["evaluate", "score", "--dataset", tmp_path / "spud", "--model", tiny_bert,
                "--out", tmp_path / "run"]  # fmt: skip
        return CliRunner().invoke(main, [str(a) for a in args])

    build(10)
    assert score().exit_code == 0
    first = (tmp_path / "run" / "scores.parquet").read_bytes()
    assert score().exit_code == 0  # the same data: the finished chunks are reused
    assert (tmp_path / "run" / "scores.parquet").read_bytes() == first
    build(12, "--overwrite")
    again = score()
    assert again.exit_code != 0 and "other settings or data" in again.output
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["sentences"] == 20 and manifest["dataset_content_sha256"]
