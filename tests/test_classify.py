"""`evaluate classify`: a sequence classifier on a local_structure dataset built from an
NLI-style Parquet folder of UD sentences; accuracy per setting against a recomputation,
independent of the batching, correlations and figures written; a language model refused."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import torch
import yaml
from click.testing import CliRunner
from conftest import ud_sentences
from datasets import Dataset, load_dataset
from tiny_models import bert_classifier

from perturbed_ud.cli import main
from perturbed_ud.evaluation.measures.structure_measures import script_of, setting_correlations
from perturbed_ud.evaluation.reporting.statistics import wilson_interval

ROWS = 24
MAX_LENGTH = 128  # shuffled characters make long token sequences: some are truncated


def cli(*args, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def classifier(tiny_bert, tmp_path_factory):
    """A BERT sequence classifier of three labels with random weights, and its tokenizer."""
    folder = tmp_path_factory.mktemp("tiny-classifier")
    # logits that differ from text to text: accuracy varies
    return bert_classifier(tiny_bert, folder, max_length=MAX_LENGTH, initializer_range=0.5)


@pytest.fixture(scope="module")
def dataset(tiny_bert, tmp_path_factory):
    """An NLI dataset in miniature from UD sentences, built into a local_structure dataset."""
    sentences = ud_sentences(ROWS + 1)
    rows = {
        "premise": sentences[:ROWS],
        "hypothesis": sentences[1 : ROWS + 1],
        "label": [i % 3 for i in range(ROWS)],
    }
    root = tmp_path_factory.mktemp("nli")
    (root / "ud-nli" / "data").mkdir(parents=True)
    Dataset.from_dict(rows).to_parquet(root / "ud-nli" / "data" / "validation.parquet")
    cli("build", "local_structure", "--hf-dataset", root / "ud-nli", "--hf-split", "validation",
        "--text-columns", "premise,hypothesis", "--langs", "en", "--seeds", "1",
        "--tokenizer", tiny_bert, "--units", "char,subword",
        "--rhos", "char_phrase_shuffle=0.5,0.2", "--rhos", "char_neighbour_flip=0.5",
        "--rhos", "subword_phrase_shuffle=0.5", "--rhos", "subword_neighbour_flip=0.2",
        "--out", root / "built")  # fmt: skip
    return root / "built" / "local_structure"


def classify(dataset, model, out, *extra, code: int = 0):
    return cli("evaluate", "classify", "--dataset", dataset, "--model", model,
               "--text-columns", "premise,hypothesis", "--out", out, *extra, code=code)  # fmt: skip


@pytest.fixture(scope="module")
def run(dataset, classifier, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "classify"
    classify(dataset, classifier, out)
    return out


def recomputed_accuracy(dataset, classifier, config: str, split: str) -> tuple[float, list]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(classifier)
    model = AutoModelForSequenceClassification.from_pretrained(classifier).eval()
    ds = load_dataset(str(dataset), config, split=split)
    predictions = []
    with torch.inference_mode():
        for premise, hypothesis in zip(ds["premise"], ds["hypothesis"], strict=True):
            inputs = tokenizer(
                premise, hypothesis, truncation=True, max_length=MAX_LENGTH, return_tensors="pt"
            )
            predictions.append(int(model(**inputs).logits[0].argmax()))
    correct = [p == y for p, y in zip(predictions, ds["label"], strict=True)]
    return sum(correct) / len(correct), predictions


def test_accuracy_of_every_setting_is_recomputed_alike(run, dataset, classifier):
    built = json.loads((dataset / "build.json").read_text(encoding="utf-8"))
    splits = built["configs"]["ud_nli_seed1"]["splits"]
    assert len(splits) == 8 and "unperturbed" in splits
    table = pd.read_csv(run / "classify_accuracy.csv")
    assert sorted(table["split"]) == sorted(splits)
    assert (table["N"] == ROWS).all() and set(table["lang"]) == {"en"}
    assert set(table["script"]) == {"Latin"}
    types = {"unperturbed"} | {f"{u} {m}" for u in ("char", "subword")
                               for m in ("full", "phrase", "neighbour")}  # fmt: skip
    assert set(table["type"]) == types
    predictions = pd.read_parquet(run / "predictions.parquet")
    for row in table.itertuples():
        expected, predicted = recomputed_accuracy(dataset, classifier, row.config, row.split)
        assert row.accuracy == pytest.approx(expected)
        mine = predictions[predictions["split_key"] == f"{row.config}/{row.split}"]
        assert mine["prediction"].tolist() == predicted
        lo, hi = wilson_interval(row.accuracy, row.N)
        assert (row.accuracy_lo, row.accuracy_hi) == pytest.approx((float(lo), float(hi)))
        ds = load_dataset(str(dataset), row.config, split=row.split)
        chrf = (sum(ds["premise_chrf"]) + sum(ds["hypothesis_chrf"])) / (2 * ROWS)
        assert row.chrf == pytest.approx(chrf)
    unperturbed = table.set_index("split").loc["unperturbed"]
    assert unperturbed["chrf"] == pytest.approx(100) and unperturbed["idc"] == 0
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    assert results["task"] == "classify" and len(results["metrics"]["accuracy"]) == 8
    assert (run / "classify_accuracy.md").is_file()


def test_results_do_not_depend_on_the_batching(run, dataset, classifier, tmp_path):
    out = tmp_path / "small-batches"
    classify(dataset, classifier, out, "--max-tokens", 40)
    columns = ["config", "split", "N", "correct", "accuracy", "chrf", "idc", "compression"]
    a = pd.read_csv(run / "classify_accuracy.csv")[columns]
    b = pd.read_csv(out / "classify_accuracy.csv")[columns]
    pd.testing.assert_frame_equal(a, b)
    pa, pb = (pd.read_parquet(r / "predictions.parquet") for r in (run, out))
    assert pa["prediction"].tolist() == pb["prediction"].tolist()
    for x, y in zip(pa["logits"], pb["logits"], strict=True):
        assert list(x) == pytest.approx(list(y), abs=1e-4)  # padding moves floats a hair


def test_correlations_and_figures_are_written(run):
    correlations = pd.read_csv(run / "correlations.csv")
    assert set(correlations["level"]) == {"all", "language", "script"}
    assert set(correlations["measure"]) == {"chrf", "idc", "compression"}
    assert set(correlations["group"]) == {"all", "en", "Latin"}
    assert (correlations["settings"] == 8).all()
    table = pd.read_csv(run / "classify_accuracy.csv")
    from scipy.stats import spearmanr

    expected = spearmanr(table["accuracy"], table["idc"]).statistic
    got = correlations.query("level == 'language' and measure == 'idc'")["spearman_rho"].item()
    assert got == pytest.approx(expected, nan_ok=True)
    for name in ("performance_vs_chrf.png", "performance_vs_idc.png"):
        assert (run / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_spearman_per_language_and_script():
    table = pd.DataFrame(
        {
            "lang": ["en"] * 4 + ["ru"] * 4 + ["xx"] * 2,
            "accuracy": [0.9, 0.8, 0.6, 0.5, 0.7, 0.6, 0.5, 0.4, 0.5, 0.4],
            "chrf": [100, 80, 60, 40, 100, 70, 50, 30, 100, 50],
            "idc": [0, 0.1, 0.05, 0.3, 0, 0.2, 0.1, 0.3, 0, 0.3],
            "compression": [4.0] * 10,
        }
    )
    table["script"] = table["lang"].map(script_of)
    rows = setting_correlations(table, "accuracy").set_index(["level", "group", "measure"])
    assert rows.loc[("language", "en", "chrf"), "spearman_rho"] == pytest.approx(1.0)
    assert rows.loc[("script", "Cyrillic", "chrf"), "spearman_rho"] == pytest.approx(1.0)
    assert rows.loc[("language", "en", "idc"), "spearman_rho"] == pytest.approx(-0.8)
    assert pd.isna(rows.loc[("script", "unknown", "chrf"), "spearman_rho"])  # two settings
    assert pd.isna(rows.loc[("all", "all", "compression"), "spearman_rho"])  # constant
    assert [script_of(x) for x in ("zh", "he", "hi", "ar", "fr_gsd", None)] == [
        "Han", "Hebrew", "Devanagari", "Arabic", "Latin", "unknown",
    ]  # fmt: skip


def test_a_language_model_is_refused_before_anything_is_written(dataset, tiny_gpt2, tmp_path):
    out = tmp_path / "run"
    result = classify(dataset, tiny_gpt2, out, code=1)
    assert "is not a sequence classifier" in result.output
    assert "GPT2LMHeadModel" in result.output
    assert not out.exists()


def test_text_columns_the_dataset_lacks_are_refused_leaving_no_folder(
    dataset, classifier, tmp_path
):
    out = tmp_path / "run"  # the default --text-columns is text; these rows are pairs
    result = cli("evaluate", "classify", "--dataset", dataset, "--model", classifier,
                 "--out", out, code=1)  # fmt: skip
    assert result.stderr.startswith("error: ") and "text" in result.stderr
    assert not out.exists()


def test_labels_out_of_the_models_range_are_refused(dataset, classifier, tmp_path):
    result = cli("evaluate", "classify", "--dataset", dataset, "--model", classifier,
                 "--text-columns", "premise", "--label-column", "premise_idc",
                 "--out", tmp_path / "run", code=1)  # fmt: skip
    assert "is not a label id" in result.output


def test_score_reads_local_structure_texts_and_sets_perplexity_against_the_measures(
    dataset, tiny_gpt2, tmp_path
):
    """`evaluate score` on texts: each text's causal log-probability is that of its words
    rejoined by single spaces; each setting's perplexity pools its texts' tokens."""
    from perturbed_ud.evaluation.measures.sentence_scores import causal_log_likelihoods
    from perturbed_ud.lm.models import load_causal_lm

    out = tmp_path / "score"
    cli("evaluate", "score", "--dataset", dataset, "--model", tiny_gpt2, "--kind", "causal",
        "--words-column", "premise", "--out", out)  # fmt: skip
    scores = pd.read_parquet(out / "scores.parquet")
    table = pd.read_csv(out / "score_by_setting.csv").set_index("split")
    assert len(table) == 8 and (table["N"] == ROWS).all()
    for split, group in scores.groupby(scores["split_key"].str.split("/").str[1]):
        kept = group[~group["too_long"]]
        expected = np.exp(-kept["log_prob"].sum() / kept["n_tokens"].sum())
        assert table.loc[split, "perplexity"] == pytest.approx(expected)
    assert table.loc["unperturbed", "chrf"] == pytest.approx(100.0)

    from perturbed_ud.lm.batching import BatchSettings

    lm = load_causal_lm(str(tiny_gpt2))
    ds = load_dataset(str(dataset), "ud_nli_seed1", split="char_phrase_shuffle_0p5")
    first = scores[scores["split_key"].str.endswith("/char_phrase_shuffle_0p5")].iloc[0]
    (again,) = causal_log_likelihoods(BatchSettings().batcher(lm), [ds[0]["premise"].split()])
    assert first["log_prob"] == pytest.approx(sum(again.log_probs), abs=1e-4)
    correlations = pd.read_csv(out / "correlations.csv")
    assert set(correlations["performance"]) == {"perplexity"}
    assert (correlations["settings"] == 8).all()
    for name in ("performance_vs_chrf.png", "performance_vs_idc.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_class_names_in_another_order_than_the_models_are_refused(classifier, tmp_path):
    """An NLI set whose ClassLabel reads entailment, neutral, contradiction against a model
    whose labels run the other way: refused before the run folder exists; the same names in
    the same order run."""
    from datasets import ClassLabel, Features, Value
    from transformers import AutoConfig

    names = ["entailment", "neutral", "contradiction"]
    features = Features({"premise": Value("string"), "label": ClassLabel(names=names)})
    source = tmp_path / "nli" / "data"
    source.mkdir(parents=True)
    rows = {"premise": ud_sentences(6), "label": [i % 3 for i in range(6)]}
    Dataset.from_dict(rows, features=features).to_parquet(source / "validation.parquet")
    cli("build", "local_structure", "--hf-dataset", source.parent, "--hf-split", "validation",
        "--text-columns", "premise", "--langs", "en", "--units", "char",
        "--out", tmp_path / "built")  # fmt: skip
    built = tmp_path / "built" / "local_structure"
    for order, code in ((names[::-1], 1), (names, 0)):
        model = tmp_path / "-".join(order)
        config = AutoConfig.from_pretrained(classifier)
        config.id2label = dict(enumerate(order))
        config.label2id = {name: i for i, name in enumerate(order)}
        for path in classifier.iterdir():
            (model / path.name).parent.mkdir(exist_ok=True)
            (model / path.name).write_bytes(path.read_bytes())
        config.save_pretrained(model)
        out = tmp_path / f"run-{code}"
        result = cli("evaluate", "classify", "--dataset", built, "--model", model,
                     "--text-columns", "premise", "--splits", "unperturbed", "--out", out,
                     code=code)  # fmt: skip
        if code:
            assert "names its classes entailment, neutral, contradiction, but the labels" in (
                result.output
            )
            assert "contradiction, neutral, entailment: their ids would mean" in result.output
            assert not out.exists()
        else:
            assert (out / "results.json").is_file()
    # a card without dataset_info (a dataset built elsewhere): the features come from the data
    bare = tmp_path / "bare"
    shutil.copytree(built, bare)
    _, header, body = (bare / "README.md").read_text(encoding="utf-8").split("---\n", 2)
    data = yaml.safe_load(header)
    del data["dataset_info"]
    (bare / "README.md").write_text(f"---\n{yaml.safe_dump(data)}---\n{body}", encoding="utf-8")
    reversed_model = tmp_path / "-".join(names[::-1])
    result = cli("evaluate", "classify", "--dataset", bare, "--model", reversed_model,
                 "--text-columns", "premise", "--out", tmp_path / "run-bare", code=1)  # fmt: skip
    assert "names its classes entailment, neutral, contradiction, but the labels" in result.output
