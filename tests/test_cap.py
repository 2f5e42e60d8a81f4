"""Capped subsets: at most N rows of each split of each config, drawn by seed, as MultiBLiMP
caps each phenomenon at 100 pairs; the cap in the signature, the manifest and the card."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT, tree_digest

import perturbed_ud
from perturbed_ud.cli import main


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    return perturbed_ud.build("ud_agreement", tmp_path_factory.mktemp("data"), ud_root=UD_ROOT,
                              langs=["en", "de"])  # fmt: skip


def cap(dataset, out, per_split, seed=1):
    args = ["cap", "--dataset", str(dataset), "--per-split", str(per_split), "--seed", str(seed),
            "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return out


def split_rows(folder, config, split):
    return pq.read_table(next((folder / config).glob(f"{split}-*.parquet"))).to_pylist()


def test_every_split_is_capped_and_the_cap_is_recorded(pairs, tmp_path):
    source = json.loads((pairs / "build.json").read_text())
    capped = cap(pairs, tmp_path / "capped", 3)
    manifest = json.loads((capped / "build.json").read_text())
    assert manifest["capped"] == {"per_split": 3, "seed": 1, "source_signature":
                                  source["signature"]}  # fmt: skip
    assert manifest["signature"] == f"{source['signature']}|capped:3:seed1"
    assert "at most 3 rows of each split" in (capped / "README.md").read_text()
    for config, entry in source["configs"].items():
        for split, n in entry["splits"].items():
            rows = split_rows(capped, config, split)
            assert len(rows) == min(n, 3) == manifest["configs"][config]["splits"][split]
            original = [row["pair_id"] for row in split_rows(pairs, config, split)]
            kept = [row["pair_id"] for row in rows]
            assert kept == [p for p in original if p in set(kept)]  # the source's order
        over = sum(max(0, n - 3) for n in entry["splits"].values())
        assert manifest["configs"][config]["row_drops"].get("cap:over_cap", 0) == over
    assert any(n > 3 for e in source["configs"].values() for n in e["splits"].values())


def test_the_draw_is_the_seeds_and_nothing_else(pairs, tmp_path):
    first = cap(pairs, tmp_path / "a", 2, seed=1)
    again = cap(pairs, tmp_path / "b", 2, seed=1)
    other = cap(pairs, tmp_path / "c", 2, seed=2)
    assert tree_digest(first) == tree_digest(again)
    assert tree_digest(first) != tree_digest(other)


def test_conditions_of_one_sentence_keep_the_same_sentences(tmp_path):
    """Every condition of a config, and the orig split the configs of a language and seed
    share (masked-word scores it once), keep the same sentences."""
    built = perturbed_ud.build("perturbed-ud", tmp_path / "data", ud_root=UD_ROOT, langs=["en"],
                               seeds=[1], scrambles=["full", "part"], limit=30)  # fmt: skip
    capped = cap(built, tmp_path / "capped", 7)

    def kept(config, split):
        return {(row["treebank"], row["sent_id"]) for row in split_rows(capped, config, split)}

    full = [kept("en_full_seed1", s) for s in ("orig", "full", "orig_lemma", "full_lemma")]
    assert len(full[0]) == 7 and all(k == full[0] for k in full)
    assert kept("en_part_seed1", "orig") == full[0] == kept("en_part_seed1", "orig_lemma")
    # part holds fewer sentences (some have no part to scramble): its own seven, lemma alike
    assert kept("en_part_seed1", "part") == kept("en_part_seed1", "part_lemma")


def test_a_capped_dataset_is_scored_as_its_source(pairs, tmp_path, tiny_gpt2):
    capped = cap(pairs, tmp_path / "capped", 2)
    run = perturbed_ud.evaluate("minimal-pair", dataset=str(capped), model=str(tiny_gpt2),
                                out=str(tmp_path / "run"))  # fmt: skip
    assert run["dataset"]["build"]["signature"].endswith("|capped:2:seed1")
    assert all(row["N"] <= 2 for row in run["metrics"]["accuracy"])
