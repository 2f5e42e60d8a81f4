"""The local_structure family (Clouâtre et al. 2022): the perturbations as permutations, IDC,
the paper's settings, and builds from real UD sentences and from a Hugging Face dataset
whose every row is re-scored here with sacrebleu and the tokenizer."""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
from itertools import pairwise

import pyarrow.parquet as pq
import pytest
import sacrebleu
from click.testing import CliRunner
from conftest import UD_ROOT
from datasets import ClassLabel, Dataset, load_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

from perturbed_ud.cli import main
from perturbed_ud.perturb.local_structure import (
    PAPER_RHOS,
    character_permutation,
    full_shuffle,
    idc,
    neighbour_flip,
    neighbour_flip_swap,
    paper_settings,
    phrase_shuffle,
)
from perturbed_ud.rng import KeyedDraws
from perturbed_ud.ud.selection import sampled

LIMIT = 60  # sentences of each treebank
RHO_FUNCTIONS = [phrase_shuffle, neighbour_flip, neighbour_flip_swap]


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def build_args(tokenizer, out, *extra):
    return ["build", "local_structure", "--ud-root", UD_ROOT, "--langs", "en,fr", "--seeds", "1",
            "--treebank", "fr=UD_French-GSD", "--limit", LIMIT, "--tokenizer", tokenizer,
            "--out", out, *extra]  # fmt: skip


def read_split(folder, config, split) -> list[dict]:
    return pq.read_table(next((folder / config).glob(f"{split}-*.parquet"))).to_pylist()


def manifest(folder) -> dict:
    return json.loads((folder / "build.json").read_text(encoding="utf-8"))


def rho(split: str) -> float:
    return float(split.rsplit("_", 1)[1].replace("p", "."))


@pytest.fixture(scope="module")
def built(tiny_bert, tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    cli(*build_args(tiny_bert, out))
    return out / "local_structure"


@pytest.fixture(scope="module")
def tokenizer(tiny_bert):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_bert)


# ---------------------------------------------------------------------------------------------
# The perturbations and IDC


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.floats(0, 1), st.integers(0, 10**9))
def test_every_perturbation_is_a_permutation(n, p, seed):
    units = list(range(n))
    assert sorted(full_shuffle(units, random.Random(seed))) == units
    for function in RHO_FUNCTIONS:
        assert sorted(function(units, p, random.Random(seed))) == units, function.__name__


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 60), st.integers(0, 10**9))
def test_the_ends_of_the_rho_range(n, seed):
    units, identity = ["u"] * n, list(range(n))
    # One phrase at ρ = 0: nothing moves.
    assert phrase_shuffle(units, 0, random.Random(seed)) == identity
    # Alg. 3 as printed: at ρ = 1 every draw (in [0, 1)) releases the held unit, so nothing
    # moves; at ρ = 0 none does, and the first unit is carried to the end.
    assert neighbour_flip(units, 1, random.Random(seed)) == identity
    assert neighbour_flip(units, 0, random.Random(seed)) == [*identity[1:], *identity[:1]]
    # The swap reading: ρ is the probability of a swap.
    assert neighbour_flip_swap(units, 0, random.Random(seed)) == identity
    pairs = [i ^ 1 if i ^ 1 < n else i for i in identity]
    assert neighbour_flip_swap(units, 1, random.Random(seed)) == pairs


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 60), st.floats(0, 1), st.integers(0, 10**9))
def test_the_swap_reading_moves_no_unit_more_than_one_step(n, p, seed):
    perm = neighbour_flip_swap(list(range(n)), p, random.Random(seed))
    assert all(abs(i - k) <= 1 for i, k in enumerate(perm))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=30), st.integers(0, 10**9))
def test_a_subword_permutation_moves_whole_subwords_of_characters(lengths, seed):
    perm = full_shuffle(lengths, random.Random(seed))
    chars = character_permutation(perm, lengths)
    assert sorted(chars) == list(range(sum(lengths)))
    text = "".join(chr(97 + k % 26) * n for k, n in enumerate(lengths))
    pieces = [text[sum(lengths[:k]) : sum(lengths[: k + 1])] for k in range(len(lengths))]
    assert "".join(text[c] for c in chars) == "".join(pieces[k] for k in perm)
    assert character_permutation(range(len(lengths)), lengths) == list(range(sum(lengths)))


def test_idc_of_the_identity_is_zero_and_of_a_full_shuffle_averages_a_third():
    for n in range(6):
        assert idc(list(range(n))) == 0.0
    assert idc([1, 0]) == 0.5 and idc([2, 1, 0]) == pytest.approx(4 / 9)
    for n in (2, 7, 40):
        draws = [idc(full_shuffle(range(n), random.Random(f"{n}-{k}"))) for k in range(4000)]
        expected = (n * n - 1) / (3 * n * n)
        error = statistics.stdev(draws) / len(draws) ** 0.5
        assert abs(statistics.mean(draws) - expected) < 4 * error, n


def test_the_named_settings_are_those_the_paper_prints():
    """App. A prints 42 settings although it counts 43 (27 character-level, of which it lists
    26): the 43rd is named nowhere in the paper, so it is not invented."""
    names = [p.name for p in paper_settings()]
    assert len(names) == len(set(names)) == 42
    assert all(re.fullmatch(r"\w+", name) for name in names)
    subword = [n for n in names if n.startswith("subword_")]
    char = [n for n in names if n.startswith("char_")]
    assert (len(subword), len(char), names[0]) == (15, 26, "unperturbed")
    printed = {
        "subword_phrase_shuffle": "0.9, 0.8, 0.65, 0.5, 0.35, 0.2, 0.1",
        "subword_neighbour_flip": "0.9, 0.8, 0.6, 0.5, 0.4, 0.2, 0.1",
        "char_phrase_shuffle": "0.975, 0.95, 0.9, 0.8, 0.65, 0.5, 0.4, 0.3, 0.2, 0.15, 0.1, "
        "0.075, 0.05",
        "char_neighbour_flip": "0.8, 0.65, 0.5, 0.4, 0.3, 0.2, 0.1, 0.075, 0.05, 0.035, 0.025, "
        "0.01",
    }
    for grid, values in printed.items():
        assert ", ".join(map(str, PAPER_RHOS[grid])) == values
        assert [rho(n) for n in names if n.startswith(grid + "_")] == list(PAPER_RHOS[grid])
    assert "char_phrase_shuffle_0p975" in names and "subword_full_shuffle" in names


# ---------------------------------------------------------------------------------------------
# A build from UD treebanks, with the tiny BERT's WordPiece tokenizer


def test_every_setting_is_a_split_of_every_config(built):
    m = manifest(built)
    names = [p.name for p in paper_settings()]
    assert list(m["configs"]) == ["en_seed1", "fr_seed1"]
    assert [p["split"] for p in m["perturbations"]] == names
    for config in ("en_seed1", "fr_seed1"):
        assert m["configs"][config]["splits"] == dict.fromkeys(names, LIMIT)
        assert sorted(p.name.split("-")[0] for p in (built / config).iterdir()) == sorted(names)
    assert m["resources"]["chrf_signature"] == "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|" \
        f"version:{sacrebleu.__version__}"  # fmt: skip
    card = (built / "README.md").read_text(encoding="utf-8")
    assert m["resources"]["chrf_signature"] in card and "neighbour_flip_swap" in card
    loaded = load_dataset(str(built), "fr_seed1", split="subword_phrase_shuffle_0p5")
    assert loaded.num_rows == LIMIT and loaded[0]["setting"] == "subword_phrase_shuffle_0p5"


def test_every_row_is_rescored_the_same_by_sacrebleu_and_the_tokenizer(built, tokenizer):
    for config in ("en_seed1", "fr_seed1"):
        originals = None
        for p in paper_settings():
            rows = read_split(built, config, p.name)
            texts = [r["text_original"] for r in rows]
            assert originals is None or texts == originals, "aligned by row"
            originals = texts
            for r in rows:
                original, text = r["text_original"], r["text"]
                chrf = sacrebleu.sentence_chrf(text, [r["text_reference"]], char_order=6,
                                               word_order=0, beta=2).score  # fmt: skip
                assert r["text_chrf"] == chrf
                if p.unit == "subword":
                    ids = tokenizer(original, add_special_tokens=False)["input_ids"]
                    assert r["text_token_ids"] == [ids[i] for i in r["text_permutation"]]
                    assert tokenizer.decode(r["text_token_ids"]) == text
                    assert r["text_reference"] == tokenizer.decode(ids)
                    tokens = len(tokenizer(original)["input_ids"])
                    # IDC on characters: a subword carries the text from its start to the next's
                    spans = tokenizer(original, add_special_tokens=False,
                                      return_offsets_mapping=True)["offset_mapping"]  # fmt: skip
                    starts = [0] + [start for start, _ in spans[1:]]
                    lengths = [b - a for a, b in pairwise([*starts, len(original)])]
                    chars = character_permutation(r["text_permutation"], lengths)
                    assert r["text_idc"] == idc(chars)
                else:
                    assert "".join(original[i] for i in r["text_permutation"]) == text
                    assert r["text_idc"] == idc(r["text_permutation"])
                    assert r["text_reference"] == original and r["text_token_ids"] is None
                    tokens = len(tokenizer(text)["input_ids"])
                assert r["text_compression"] == len(original) / tokens
                if p.unit is None:
                    assert text == original and r["text_idc"] == 0 and r["text_chrf"] == 100


def phrase_means(configs: list[dict], grid: str) -> list[float]:
    """Mean chrF of a grid's phrase shuffles over the configs (seeds), ρ rising."""
    splits = sorted((s for s in configs[0]["means"] if s.startswith(grid)), key=rho)
    return [statistics.mean(c["means"][s]["text"]["chrf"] for c in configs) for s in splits]


def falling(values: list[float]) -> bool:
    return all(a > b for a, b in pairwise(values))


def test_phrase_shuffle_chrf_falls_as_rho_rises(built, tmp_path):
    """Subwords on the English build above; characters, whose steps at high ρ are small, on
    every sentence of the English EWT test excerpt with three seeds."""
    subword = phrase_means([manifest(built)["configs"]["en_seed1"]], "subword_phrase_shuffle")
    assert len(subword) == 7 and falling(subword), subword
    cli("build", "local_structure", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1,2,3",
        "--rhos", "char_neighbour_flip=", "--out", tmp_path)  # fmt: skip
    configs = list(manifest(tmp_path / "local_structure")["configs"].values())
    assert configs[0]["splits"]["unperturbed"] == 323  # the whole excerpt
    char = phrase_means(configs, "char_phrase_shuffle")
    assert len(char) == 13 and falling(char), char


@pytest.mark.subprocess
def test_a_rebuild_in_another_process_with_two_workers_is_byte_identical(built, tiny_bert,
                                                                         tmp_path):  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "perturbed_ud", *map(str, build_args(tiny_bert, tmp_path)),
         "--workers", "2"],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "11"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    ours, again = manifest(built), manifest(tmp_path / "local_structure")
    assert ours["content_sha256"] == again["content_sha256"]
    assert ours["signature"] == again["signature"]


def test_a_row_does_not_depend_on_the_rest_of_the_build(built, tmp_path):
    cli("build", "local_structure", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1",
        "--limit", 5, "--units", "char", "--out", tmp_path)  # fmt: skip
    for split in ("char_full_shuffle", "char_neighbour_flip_0p5"):
        alone = read_split(tmp_path / "local_structure", "en_seed1", split)
        among = read_split(built, "en_seed1", split)[:5]
        drop = ("text_compression",)  # no tokenizer in the small build
        assert [{k: v for k, v in r.items() if k not in drop} for r in alone] == [
            {k: v for k, v in r.items() if k not in drop} for r in among
        ]


def test_subword_settings_need_a_tokenizer(tmp_path):
    result = CliRunner().invoke(
        main,
        [
            "build",
            "local_structure",
            "--ud-root",
            str(UD_ROOT),
            "--units",
            "char,subword",
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 1
    assert "subword settings need a tokenizer: --tokenizer NAME" in result.output
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------------------------------------
# A Hugging Face dataset with two text columns


@pytest.fixture
def nli_folder(tmp_path):
    """An NLI dataset in miniature, as Parquet in a folder `load_dataset` reads by path."""
    rows = {
        "premise": ["A man is sleeping on the sofa.", "Dogs bark at the mail carrier.",
                    "Der Zug fährt um acht Uhr ab.", "Same text."],
        "hypothesis": ["Someone rests.", "Cats meow loudly at night.",
                       "Der Zug fährt morgens.", "Same text."],
        "label": [0, 2, 1, 0],
        "pair_id": ["p1", "p2", "p3", "p4"],
    }  # fmt: skip
    ds = Dataset.from_dict(rows).cast_column(
        "label", ClassLabel(names=["entailment", "neutral", "contradiction"])
    )
    folder = tmp_path / "mini-nli"
    (folder / "data").mkdir(parents=True)
    ds.to_parquet(folder / "data" / "validation.parquet")
    return folder, rows


def test_a_hugging_face_dataset_with_two_text_columns(nli_folder, tiny_bert, tmp_path):
    folder, rows = nli_folder
    out = tmp_path / "out"
    cli("build", "local_structure", "--hf-dataset", folder, "--hf-split", "validation",
        "--text-columns", "premise,hypothesis", "--langs", "en", "--seeds", "1,2",
        "--tokenizer", tiny_bert, "--units", "subword,char", "--rhos", "char_phrase_shuffle=0.5",
        "--rhos", "char_neighbour_flip=", "--rhos", "subword_neighbour_flip_swap=0.3",
        "--out", out)  # fmt: skip
    built = out / "local_structure"
    m = manifest(built)
    assert list(m["configs"]) == ["mini_nli_seed1", "mini_nli_seed2"]
    assert "subword_neighbour_flip_swap_0p3" in m["configs"]["mini_nli_seed1"]["splits"]
    assert "char_phrase_shuffle_0p5" in m["configs"]["mini_nli_seed1"]["splits"]
    assert not any(
        s.startswith("char_neighbour_flip") for s in m["configs"]["mini_nli_seed1"]["splits"]
    )
    assert m["sources"][0]["split"] == "validation" and "hf:" in m["signature"]
    ds = load_dataset(str(built), "mini_nli_seed1", split="char_full_shuffle")
    assert ds.features["label"] == ClassLabel(names=["entailment", "neutral", "contradiction"])
    assert ds["label"] == rows["label"] and ds["pair_id"] == rows["pair_id"]
    for column in ("premise", "hypothesis"):
        assert ds[f"{column}_original"] == rows[column]
        assert [sorted(t) for t in ds[column]] == [sorted(t) for t in rows[column]]
    same = ds[3]  # equal texts in both columns are drawn apart: each column has its own key
    assert same["premise_permutation"] != same["hypothesis_permutation"]
    key = KeyedDraws(1, "mini_nli", "3").random("premise", "char_full_shuffle")
    assert same["premise_permutation"] == full_shuffle(rows["premise"][3], key)
    # A local folder is named by its own name (the files' sha256 in build.json), never by
    # its path, which would say nothing on the Hub; the tokenizer folder likewise.
    card = (built / "README.md").read_text(encoding="utf-8")
    assert "| mini-nli (a local folder) |" in card
    assert "|hf:mini-nli:default:en@" in m["signature"]
    assert f"|tokenizer:{tiny_bert.name}@" in m["signature"]
    for text in (card, (built / "build.json").read_text(encoding="utf-8")):
        assert str(folder) not in text and str(tiny_bert) not in text


def test_a_missing_text_column_is_named(nli_folder, tmp_path):
    folder, _ = nli_folder
    result = CliRunner().invoke(main, ["build", "local_structure", "--hf-dataset", str(folder),
                                       "--hf-split", "validation", "--text-columns", "sentence",
                                       "--out", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 1
    assert "has no text column 'sentence' (it has premise, hypothesis, label, pair_id)" in (
        result.output
    )


def test_a_missing_split_is_named_with_those_there_are(nli_folder, tmp_path):
    folder, _ = nli_folder
    result = CliRunner().invoke(main, ["build", "local_structure", "--hf-dataset", str(folder),
                                       "--hf-split", "test", "--text-columns", "premise",
                                       "--out", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 1
    assert "has no split 'test' (it has validation)" in result.output


def test_a_sample_of_dataset_rows_is_keyed_as_a_treebank_sample_is(nli_folder, tmp_path):
    folder, rows = nli_folder
    cli("build", "local_structure", "--hf-dataset", folder, "--hf-split", "validation",
        "--text-columns", "premise", "--sample", 2, "--sample-seed", 5, "--seeds", 1, "--rhos",
        "char_phrase_shuffle=", "--rhos", "char_neighbour_flip=", "--out", tmp_path)  # fmt: skip
    ds = load_dataset(str(tmp_path / "local_structure"), "mini_nli_seed1", split="unperturbed")
    keep = sampled(map(str, range(len(rows["premise"]))), 2, 5, "mini_nli")
    assert ds["item_id"] == sorted(keep, key=int) and "hypothesis" in ds.column_names
    assert ds["premise"] == [rows["premise"][int(i)] for i in ds["item_id"]]
