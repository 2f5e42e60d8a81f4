"""`evaluate distance` on tiny BERT and GPT-2 models: per-layer distances between perturbed
copies and their originals that do not depend on batching, zero for an unchanged copy, the
worst copy per sentence as Alg. 1 takes it, and the run's outputs."""

from __future__ import annotations

import json
from dataclasses import asdict

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import perturbed_ud
from perturbed_ud.cli import main
from perturbed_ud.evaluation.tasks.distance import (
    MEASURES,
    DistanceSettings,
    sentence_distances,
    worst_copies,
)
from perturbed_ud.ud.columns import SentenceColumns
from perturbed_ud.ud.conllu_io import read_conllu

SENTENCES = [
    SentenceColumns.from_sentence(s)
    for s in read_conllu(UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu")
][:40]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    out = tmp_path_factory.mktemp("data")
    options = {"langs": ["en"], "seeds": [1], "taus": [1, 3], "copies": 2, "limit": 12}
    return perturbed_ud.build(
        "substitution", out, ud_root=UD_ROOT, methods=["copos_treebank"], **options
    )


def rows(folder, split="perturbed_1", config="en_copos_treebank_tau1_seed1") -> dict:
    import pyarrow.parquet as pq

    return pq.read_table(next((folder / config).glob(f"{split}-*.parquet"))).to_pydict()


def distances(batch, model, kind, **options):
    chosen = DistanceSettings(kind=kind, **options)
    return sentence_distances(batch, None, model=str(model), revision=None, device="cpu",
                              settings=asdict(chosen))  # fmt: skip


@pytest.mark.parametrize("name, kind", [("tiny_bert", "masked"), ("tiny_gpt2", "causal")])
def test_per_layer_distances_do_not_depend_on_batching(request, data, name, kind):
    model = request.getfixturevalue(name)
    batch = rows(data)
    default = distances(batch, model, kind)
    one_by_one = distances(batch, model, kind, max_rows=1, padding_side="left")
    small = distances(batch, model, kind, max_tokens=64)
    layers = {len(v) for v in default["l2"]}
    assert layers == {3}, "embeddings and the tiny models' two layers"
    for other in (one_by_one, small):
        for measure in MEASURES:
            for ours, theirs in zip(default[measure], other[measure], strict=True):
                assert ours == pytest.approx(theirs, abs=1e-4, nan_ok=True), measure
    assert all(v > 0 for values in default["l2"] for v in values[1:])


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, len(SENTENCES) - 1), min_size=1, max_size=6))
def test_a_copy_identical_to_its_original_is_at_distance_zero(tiny_bert, picked):
    forms = [SENTENCES[i].forms for i in picked]
    out = distances({"forms": forms, "original_forms": forms}, tiny_bert, "masked")
    for k in range(len(forms)):
        assert out["l2"][k] == pytest.approx([0.0] * 3, abs=1e-5)
        assert out["cosine"][k] == pytest.approx([1.0] * 3, abs=1e-5)
        assert out["l2_unchanged"][k] == pytest.approx([0.0] * 3, abs=1e-5)


def test_the_worst_copy_counts_per_sentence():
    scored = pd.DataFrame({
        "split_key": ["c/perturbed_1", "c/perturbed_2", "c/perturbed_1", "c/perturbed_2"],
        "sent_id": ["a", "a", "b", "b"],
        "too_long": [False] * 4,
        **{m: [[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [0.5, 9.0]] for m in MEASURES},
    })  # fmt: skip
    worst = worst_copies(scored).set_index(["sent_id", "layer"])
    assert worst.loc[("a", 0), "l2"] == 2.0 and worst.loc[("a", 1), "l2"] == 5.0
    assert worst.loc[("a", 0), "cosine"] == 1.0 and worst.loc[("b", 1), "cosine"] == 3.0


def test_a_run_writes_distances_summary_and_figure(data, tmp_path, tiny_gpt2):
    run = tmp_path / "run"
    result = CliRunner().invoke(
        main, ["evaluate", "distance", "--dataset", str(data), "--model", str(tiny_gpt2),
               "--out", str(run)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    results = json.loads((run / "results.json").read_text())
    assert results["settings"]["kind"] == "causal" and results["settings"]["max_tokens"] == 4096
    manifest = json.loads((data / "build.json").read_text())
    copies = sum(c["splits"]["orig"] * 2 for c in manifest["configs"].values())
    assert results["counts"] == {"copies": copies, "too_long": 0}
    scored = pd.read_parquet(run / "distances.parquet")
    assert len(scored) == copies and not scored["split_key"].str.endswith("/orig").any()
    summary = pd.read_csv(run / "distance_summary.csv")
    assert set(summary["tau"]) == {1, 3} and set(summary["layer"]) == {0, 1, 2}
    for config, entry in manifest["configs"].items():
        assert set(summary.loc[summary["config"] == config, "sentences"]) == {
            entry["splits"]["orig"]
        }
    assert (run / "distance_by_layer.png").stat().st_size > 0
    refused = CliRunner().invoke(
        main, ["evaluate", "score", "--dataset", str(data), "--model", str(tiny_gpt2),
               "--out", str(tmp_path / "other")],
    )  # fmt: skip
    assert refused.exit_code == 1 and "use `evaluate distance`" in refused.output
