"""`finetune-classifier`, then the seed experiment of Clouâtre et al. (2022) end to end: a
tiny BERT fine-tuned on an NLI-like set of UD sentences, its test split built into a
local_structure dataset with the classifier's tokenizer, and `evaluate classify` on it."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import ud_sentences
from datasets import ClassLabel, Dataset, Features, Value

from perturbed_ud.cli import main

NAMES = ["entailment", "neutral", "contradiction"]
TRAIN, TEST = 36, 12


def cli(*args, code: int = 0):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result


def write_split(folder, name: str, rows: dict, features=None) -> None:
    (folder / "data").mkdir(parents=True, exist_ok=True)
    Dataset.from_dict(rows, features=features).to_parquet(folder / "data" / f"{name}.parquet")


@pytest.fixture(scope="module")
def nli(tmp_path_factory):
    """Premise/hypothesis pairs of UD sentences with a three-class ClassLabel that can be
    learnt (the premise again, in capitals, or the next sentence): a train split to
    fine-tune on and a test split to perturb."""
    folder = tmp_path_factory.mktemp("nli") / "ud-nli"
    sentences = ud_sentences(TRAIN + TEST + 1)
    features = Features({"premise": Value("string"), "hypothesis": Value("string"),
                         "label": ClassLabel(names=NAMES)})  # fmt: skip
    for split, rows in (("train", range(TRAIN)), ("test", range(TRAIN, TRAIN + TEST))):
        pairs = {"premise": [sentences[i] for i in rows],
                 "hypothesis": [hypothesis(sentences, i) for i in rows],
                 "label": [i % 3 for i in rows]}  # fmt: skip
        write_split(folder, split, pairs, features)
    return folder


def hypothesis(sentences: list[str], i: int) -> str:
    """Entailed: the premise; neutral: the premise in capitals; contradicted: the next one."""
    return [sentences[i], sentences[i].upper(), sentences[i + 1]][i % 3]


def finetune(dataset, model, out, *extra, code: int = 0):
    return cli("finetune-classifier", "--dataset", dataset, "--model", model,
               "--text-columns", "premise,hypothesis", "--epochs", 2, "--batch-size", 8,
               "--learning-rate", "3e-3", "--out", out, *extra, code=code)  # fmt: skip


@pytest.fixture(scope="module")
def classifier(nli, tiny_bert, tmp_path_factory):
    out = tmp_path_factory.mktemp("finetuned") / "classifier"
    finetune(nli, tiny_bert, out)
    return out


def test_the_seed_experiment_runs_end_to_end(nli, classifier, tmp_path):
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(classifier)
    assert model.config.num_labels == 3 and model.config.id2label == dict(enumerate(NAMES))
    record = json.loads((classifier / "finetune.json").read_text(encoding="utf-8"))
    assert record["rows"] == TRAIN and len(record["loss_per_epoch"]) == 2
    cli("build", "local_structure", "--hf-dataset", nli, "--hf-split", "test",
        "--text-columns", "premise,hypothesis", "--langs", "en", "--seeds", "1",
        "--tokenizer", classifier, "--rhos", "char_phrase_shuffle=0.5",
        "--rhos", "subword_neighbour_flip=0.5", "--out", tmp_path / "built")  # fmt: skip
    run = tmp_path / "run"
    cli("evaluate", "classify", "--dataset", tmp_path / "built" / "local_structure",
        "--model", classifier, "--text-columns", "premise,hypothesis", "--out", run)  # fmt: skip
    table = pd.read_csv(run / "classify_accuracy.csv")
    assert "unperturbed" in set(table["split"]) and len(table) >= 3
    assert (table["N"] == TEST).all() and table["accuracy"].between(0, 1).all()


def test_training_lowers_the_loss(nli, tiny_bert, tmp_path):
    finetune(nli, tiny_bert, tmp_path / "c", "--epochs", 6)
    losses = json.loads((tmp_path / "c" / "finetune.json").read_text())["loss_per_epoch"]
    assert losses[-1] < losses[0]


def test_the_same_seed_gives_the_same_weights(nli, classifier, tiny_bert, tmp_path):
    weights = (classifier / "model.safetensors").read_bytes()
    finetune(nli, tiny_bert, tmp_path / "again")
    assert (tmp_path / "again" / "model.safetensors").read_bytes() == weights
    finetune(nli, tiny_bert, tmp_path / "other", "--seed", 2)
    assert (tmp_path / "other" / "model.safetensors").read_bytes() != weights


def test_a_causal_lm_without_pad_token_learns_int_labels_of_single_texts(tiny_gpt2, tmp_path):
    """GPT-2 pads with its end of text; labels without names are LABEL_0, LABEL_1; a text
    longer than the model's positions is cut at them, whatever --max-length says."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    texts = ud_sentences(8)
    texts[0] = " ".join(texts[:8] * 20)
    write_split(tmp_path / "sst", "train", {"sentence": texts, "label": [0, 1] * 4})
    out = tmp_path / "gpt2-classifier"
    cli("finetune-classifier", "--dataset", tmp_path / "sst", "--model", tiny_gpt2,
        "--text-columns", "sentence", "--epochs", 1, "--max-length", 100000,
        "--out", out)  # fmt: skip
    model = AutoModelForSequenceClassification.from_pretrained(out)
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert model.config.id2label == {0: "LABEL_0", 1: "LABEL_1"}
    assert model.config.pad_token_id == tokenizer.pad_token_id == tokenizer.eos_token_id


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        ({"premise": ["a", "b"], "hypothesis": ["c", "d"], "label": ["yes", "no"]}, [],
         "label column label: 'yes' is not a label id"),
        ({"premise": ["a", "b"], "hypothesis": ["c", "d"], "label": [0, -1]}, [],
         "label column label: -1 is not a label id"),
        ({"premise": ["a", "b"], "label": [0, 1]}, [], "has no text column 'hypothesis'"),
        ({"premise": ["a", "b"], "hypothesis": ["c", "d"], "gold": [0, 1]}, [],
         "no label column 'label'"),
        ({"premise": ["a"], "hypothesis": ["c"], "label": [0]}, ["--split", "dev"],
         "has no split 'dev'"),
        ({"premise": [], "hypothesis": [], "label": []}, [], "split train: Instruction"),
    ],
)  # fmt: skip
def test_unusable_data_is_refused_before_anything_is_written(
    rows, options, message, tiny_bert, tmp_path
):
    write_split(tmp_path / "data-set", "train", rows)
    out = tmp_path / "out" / "classifier"
    result = finetune(tmp_path / "data-set", tiny_bert, out, *options, code=1)
    assert message in result.output and result.output.startswith("error:")
    assert not (tmp_path / "out").exists()


def test_an_existing_folder_is_replaced_only_with_overwrite_and_if_it_is_ours(
    nli, tiny_bert, tmp_path
):
    out = tmp_path / "classifier"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert "exists; pass --overwrite" in finetune(nli, tiny_bert, out, code=1).output
    result = finetune(nli, tiny_bert, out, "--overwrite", code=1)
    assert "has no finetune.json" in result.output
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    shutil.rmtree(out)
    finetune(nli, tiny_bert, out)
    finetune(nli, tiny_bert, out, "--overwrite", "--seed", 3)
    assert json.loads((out / "finetune.json").read_text())["seed"] == 3


def test_out_inside_the_data_is_refused(nli, tiny_bert):
    result = finetune(nli, tiny_bert, nli / "classifier", code=1)
    assert "is inside the input" in result.output
    assert not (nli / "classifier").exists()


def test_a_model_that_does_not_load_is_refused_before_anything_is_written(nli, tmp_path):
    result = finetune(nli, tmp_path / "no-model", tmp_path / "out" / "classifier", code=1)
    assert "there is no such folder" in result.output
    assert not (tmp_path / "out").exists()
