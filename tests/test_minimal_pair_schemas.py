"""Minimal pairs of other datasets through `evaluate minimal-pair --pair-columns`: local
datasets in BLiMP's and MultiBLiMP's published schemas (written here, nothing downloaded),
scored pair by pair as the real lm-evaluation-harness scores them."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner

import perturbed_ud
from perturbed_ud.cli import main
from perturbed_ud.evaluation.measures.sentence_scores import pseudo_log_likelihoods
from perturbed_ud.lm.batching import Batcher
from perturbed_ud.lm.models import load_masked_lm

lm_eval = pytest.importorskip("lm_eval")

# BLiMP (Warstadt et al. 2020): one row per pair, the phenomenon in UID.
BLIMP = [
    ("The cats annoy Tim.", "The cats annoys Tim.", "regular_plural_subject_verb_agreement_1"),
    ("The dog near the houses barks.", "The dog near the houses bark.",
     "distractor_agreement_relational_noun"),
    ("Every teacher was laughing.", "Every teacher were laughing.",
     "regular_plural_subject_verb_agreement_1"),
    ("These actors have left.", "These actors has left.", "distractor_agreement_relational_noun"),
]  # fmt: skip
# MultiBLiMP (Jumelet et al. 2025): sen / wrong_sen, with phenomenon and lang.
MULTIBLIMP = [
    ("Die Kinder spielen im Garten .", "Die Kinder spielt im Garten .", "SV-#", "deu"),
    ("Ich komme morgen .", "Ich kommt morgen .", "SV-P", "deu"),
    ("Les enfants jouent dehors .", "Les enfants joue dehors .", "SV-#", "fra"),
    ("Nous partons demain .", "Nous partez demain .", "SV-P", "fra"),
    ("Elle est partie .", "Elle est parti .", "SP-G", "fra"),
]


def blimp(folder):
    rows = [
        {"sentence_good": g, "sentence_bad": b, "UID": uid, "field": "morphology",
         "linguistics_term": "subject_verb_agreement", "pair_id": i}
        for i, (g, b, uid) in enumerate(BLIMP)
    ]  # fmt: skip
    return write(folder, rows)


def multiblimp(folder):
    rows = [
        {"sen": g, "wrong_sen": b, "phenomenon": p, "lang": lang, "verb": g.split()[1],
         "wrong_verb": b.split()[1]}
        for g, b, p, lang in MULTIBLIMP
    ]  # fmt: skip
    return write(folder, rows)


def write(folder, rows):
    folder.mkdir()
    pd.DataFrame(rows).to_parquet(folder / "train-00000-of-00001.parquet", index=False)
    return folder


def harness(folder, good: str, bad: str, model, tmp_path) -> list[dict]:
    """The harness's samples on a multiple-choice task over the folder's Parquet file."""
    from lm_eval.tasks import TaskManager

    tasks = tmp_path / "tasks"
    tasks.mkdir()
    task = {
        "task": "pairs", "dataset_path": "parquet",
        "dataset_kwargs": {"data_files": {"train": [str(next(folder.glob("*.parquet")))]}},
        "test_split": "train", "output_type": "multiple_choice", "doc_to_text": "",
        "target_delimiter": "", "doc_to_target": 0,
        "doc_to_choice": f"{{{{[{good}, {bad}]}}}}", "metric_list": [{"metric": "acc"}],
    }  # fmt: skip
    (tasks / "pairs.yaml").write_text(yaml.safe_dump(task), encoding="utf-8")
    results = lm_eval.simple_evaluate(
        model="hf", model_args={"pretrained": str(model), "dtype": "float32", "device": "cpu"},
        tasks=["pairs"], task_manager=TaskManager(include_path=str(tasks), include_defaults=False),
        log_samples=True, batch_size=8,
    )  # fmt: skip
    return results["samples"]["pairs"]


@pytest.mark.peer
@pytest.mark.parametrize(
    "make, mapping, good, bad, groups",
    [
        (blimp, "phenomenon=UID", "sentence_good", "sentence_bad",
         {("und", "distractor_agreement_relational_noun"),
          ("und", "regular_plural_subject_verb_agreement_1")}),
        (multiblimp, "good=sen,bad=wrong_sen,phenomenon=phenomenon,language=lang", "sen",
         "wrong_sen", {("deu", "SV-#"), ("deu", "SV-P"), ("fra", "SV-#"), ("fra", "SV-P"),
                       ("fra", "SP-G")}),
    ],
)  # fmt: skip
def test_published_schemas_score_as_the_harness_does(
    make, mapping, good, bad, groups, tiny_gpt2, tmp_path
):
    data = make(tmp_path / "data")
    run = tmp_path / "run"
    args = ["evaluate", "minimal-pair", "--dataset", str(data), "--model", str(tiny_gpt2),
            "--pair-columns", mapping, "--out", str(run)]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "| lang | macro_accuracy" in result.output  # the headline table, printed
    pairs = pd.read_parquet(run / "pairs.parquet").set_index(good)
    table = pd.read_csv(run / "accuracy.csv")
    assert set(zip(table["lang"], table["construction"], strict=True)) == groups
    assert table["N"].sum() == len(pairs) and (table["unscored"] == 0).all()
    samples = harness(data, good, bad, tiny_gpt2, tmp_path)
    assert len(samples) == len(pairs)
    for sample in samples:
        (good_score, _), (bad_score, _) = sample["filtered_resps"]
        ours = pairs.loc[sample["doc"][good]]
        assert ours["good_score"] == pytest.approx(float(good_score), abs=1e-4)
        assert ours["bad_score"] == pytest.approx(float(bad_score), abs=1e-4)
    by_language = pd.read_csv(run / "accuracy_by_language.csv")
    assert set(by_language["lang"]) == {lang for lang, _ in groups}
    assert (by_language["macro_accuracy_lo"] < by_language["macro_accuracy_hi"]).all()


def test_a_masked_lm_compares_whole_sentences_where_no_words_are_named(tiny_bert, tmp_path):
    data = multiblimp(tmp_path / "data")
    run = perturbed_ud.evaluate(
        "minimal-pair", dataset=str(data), model=str(tiny_bert), out=str(tmp_path / "run"),
        pair_columns=["good=sen", "bad=wrong_sen", "phenomenon=phenomenon", "language=lang"],
    )  # fmt: skip
    assert run["counts"]["pairs"] == len(MULTIBLIMP)
    pairs = pd.read_parquet(tmp_path / "run" / "pairs.parquet")
    lm = load_masked_lm(str(tiny_bert))
    sentences = [s.split(" ") for s in pairs["sen"]]
    expected = [sum(s.log_probs) for s in pseudo_log_likelihoods(Batcher(lm), sentences)]
    assert list(pairs["good_score"]) == pytest.approx(expected, abs=1e-4)
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["settings"]["pair_columns"] == [
        "good=sen", "bad=wrong_sen", "phenomenon=phenomenon", "language=lang"
    ]  # fmt: skip


@pytest.mark.parametrize(
    "mapping, message",
    [("good", "give ROLE=COLUMN"), ("sentence=sen", "give ROLE=COLUMN"),
     ("good=nothere", "'train' of config 'default' of"),
     ("good=nothere", "lacks the columns ['nothere', 'sentence_bad', 'construction']")],
)  # fmt: skip
def test_a_bad_mapping_is_refused_before_anything_runs(mapping, message, tiny_gpt2, tmp_path):
    data = multiblimp(tmp_path / "data")
    args = ["evaluate", "minimal-pair", "--dataset", str(data), "--model", str(tiny_gpt2),
            "--pair-columns", mapping, "--out", str(tmp_path / "run")]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and message in result.output, result.output
    assert not (tmp_path / "run" / "chunks").exists()


def test_a_pair_without_a_language_or_phenomenon_is_counted_not_lost(tiny_gpt2, tmp_path):
    data = multiblimp(tmp_path / "data")
    path = next(data.glob("*.parquet"))
    rows = pd.read_parquet(path)
    rows.loc[0, "lang"], rows.loc[1, "phenomenon"] = None, None
    rows.to_parquet(path, index=False)
    run = perturbed_ud.evaluate(
        "minimal-pair", dataset=str(data), model=str(tiny_gpt2), out=str(tmp_path / "run"),
        pair_columns=["good=sen", "bad=wrong_sen", "phenomenon=phenomenon", "language=lang"],
    )  # fmt: skip
    table = pd.DataFrame(run["metrics"]["accuracy"])
    assert table["N"].sum() == len(MULTIBLIMP)
    assert ("und", "SV-#") in set(zip(table["lang"], table["construction"], strict=True))
    assert "(none)" in set(table["construction"])
