"""Masked word prediction on tiny WordPiece and SentencePiece models: batching invariance,
agreement with the one-sentence loop, scoring modes, drops, runs that resume, balancing."""

from __future__ import annotations

import json
from dataclasses import asdict

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from datasets import load_dataset
from reference_beam import naive_beam_search

from perturbed_ud.builders.balance import balance_dataset
from perturbed_ud.builders.engine import build
from perturbed_ud.cli import main
from perturbed_ud.errors import RunError
from perturbed_ud.evaluation.tasks.masked_word.items import ITEM_COLUMNS
from perturbed_ud.evaluation.tasks.masked_word.task import (
    MaskedWord,
    MaskedWordSettings,
    score_batch,
)
from perturbed_ud.lm.batching import Batcher
from perturbed_ud.lm.beam import beam_search
from perturbed_ud.lm.masking import mask_target, target_pieces
from perturbed_ud.lm.matching import normalize_word, words_match
from perturbed_ud.lm.models import load_masked_lm
from perturbed_ud.ud.selection import Selection
from perturbed_ud.ud.sources import resolve


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    treebanks = resolve(["en", "de"], split="test", ud_root=str(UD_ROOT))
    out = tmp_path_factory.mktemp("data")
    return build("perturbed-ud", out, treebanks=treebanks, seeds=[1], selection=Selection(limit=40))


@pytest.fixture(scope="module")
def rows(dataset):
    table = pq.read_table(dataset / "en_full_seed1/full-00000-of-00001.parquet")
    return table.slice(0, 24).to_pydict()


@pytest.fixture(params=["tiny_bert", "tiny_xlmr"])
def model_path(request):
    return str(request.getfixturevalue(request.param))


def run(batch, model, **settings):
    options = asdict(MaskedWordSettings(**settings))
    return score_batch(batch, None, model=model, revision=None, device="cpu", settings=options)


def test_results_do_not_depend_on_batch_size_or_padding_side(rows, model_path):
    reference = run(rows, model_path, max_rows=1)
    for settings in ({"max_rows": 7}, {"max_rows": 64}, {"max_rows": 64, "padding_side": "left"}):
        other = run(rows, model_path, **settings)
        assert other["top_k_predictions"] == reference["top_k_predictions"], settings
        assert other["status"] == reference["status"]
        for mine, theirs in zip(other["top_k_logprobs"], reference["top_k_logprobs"], strict=True):
            assert mine == pytest.approx(theirs, abs=1e-5)


def test_batched_search_equals_the_one_sentence_loop(rows, model_path):
    lm = load_masked_lm(model_path)
    banned = list(lm.tokenizer.all_special_ids)
    items = []
    for words, target in zip(rows["words"], rows["target_index"], strict=True):
        item = mask_target(
            lm.tokenizer, words, target, scoring="paper", max_span_pieces=6, max_length=256
        )
        if not isinstance(item, str):
            items.append(item)
    assert any(len(item.span) > 1 for item in items), "multi-piece targets are exercised"
    batched = beam_search(Batcher(lm, max_tokens=4096), items, beam=8, banned=banned)
    for item, beams in zip(items, batched, strict=True):
        naive = naive_beam_search(lm, item, beam=8, banned=banned)
        assert [pieces for pieces, _ in beams] == [pieces for pieces, _ in naive]
        assert [s for _, s in beams] == pytest.approx([s for _, s in naive], abs=1e-5)


def test_every_piece_of_the_target_is_masked_and_specials_kept(rows, model_path):
    lm = load_masked_lm(model_path)
    tok = lm.tokenizer
    words, target = rows["words"][0], rows["target_index"][0]
    item = mask_target(tok, words, target, scoring="paper", max_span_pieces=6, max_length=256)
    ids, span, _ = target_pieces(tok, words, target, "paper")
    assert [item.ids[k] for k in span] == [tok.mask_token_id] * len(span)
    assert item.gold_pieces == [ids[k] for k in span]
    assert item.ids[0] == tok.cls_token_id, "the model gets its normal special tokens"
    legacy = mask_target(tok, words, target, scoring="lrec2026", max_span_pieces=6, max_length=256)
    assert tok.cls_token_id not in legacy.ids and tok.sep_token_id not in legacy.ids


def test_span_cap_drops_long_targets_with_a_reason(rows, tiny_bert):
    out = run(rows, str(tiny_bert), max_span_pieces=1)
    lm = load_masked_lm(str(tiny_bert))
    for k, status in enumerate(out["status"]):
        _, span, _ = target_pieces(lm.tokenizer, rows["words"][k], rows["target_index"][k], "paper")
        assert status == ("scored" if len(span) == 1 else "span_too_long")
    assert "span_too_long" in out["status"]


def test_lrec2026_scoring_uses_decoded_gold_and_lowercase_match(rows, tiny_bert):
    out = run(rows, str(tiny_bert), scoring="lrec2026")
    lm = load_masked_lm(str(tiny_bert))
    for k, status in enumerate(out["status"]):
        if status != "scored":
            continue
        words, target = rows["words"][k], rows["target_index"][k]
        ids, span, ends = target_pieces(lm.tokenizer, words, target, "lrec2026")
        assert ends == (0, 0)  # the released code adds no special tokens
        gold = lm.tokenizer.decode([ids[i] for i in span], skip_special_tokens=True).strip()
        assert out["gold_word"][k] == gold
        assert len(out["top_k_predictions"][k]) <= 5
        expected = out["reconstructed_prediction"][k].lower() == gold.lower()
        assert out["word_level_match"][k] == expected


def test_word_matching_normalises_unicode_case_and_punctuation():
    assert normalize_word("Ｃａｆé") == "café"
    assert words_match("n ' t", "n't")
    assert words_match("STRASSE", "straße")
    assert not words_match("cat", "cats")
    assert words_match("...", "...") and not words_match("", "...")
    assert not words_match("Cat", "cat.", scoring="lrec2026")


def test_a_run_writes_the_released_schema_and_resumes(dataset, tiny_bert, tmp_path):
    out = tmp_path / "run"
    settings = MaskedWordSettings(max_span_pieces=2)
    MaskedWord.run(
        str(dataset), str(tiny_bert), out, configs=["en_full_seed1", "en_part_seed1"],
        settings=settings,
    )  # fmt: skip
    manifest = json.loads((out / "run.json").read_text())
    items = pd.read_parquet(out / "items.parquet")
    jsonl = pd.read_json(out / "items.jsonl", lines=True)
    assert list(items.columns[: len(ITEM_COLUMNS)]) == list(ITEM_COLUMNS)
    assert len(jsonl) == len(items) == manifest["scored"]
    assert manifest["rows"] - manifest["scored"] == sum(manifest["drops"].values()) > 0
    # orig splits are shared by the family configs and scored once
    assert set(items["condition"]) == {
        "Original", "Original+Lemma", "FullyScrambled", "FullyScrambled+Lemma",
        "PartiallyScrambled", "PartiallyScrambled+Lemma",
    }  # fmt: skip
    n_orig = pq.read_metadata(dataset / "en_full_seed1/orig-00000-of-00001.parquet").num_rows
    orig_drops = sum(n for k, n in manifest["drops"].items() if k.startswith("en_ewt/orig:"))
    assert (items["condition"] == "Original").sum() == n_orig - orig_drops
    assert manifest["model_identity"]["revision"].startswith("sha256:")
    chunks = sorted((out / "chunks").rglob("*.parquet"))
    stamps = [c.stat().st_mtime_ns for c in chunks]
    chunks[0].unlink()
    MaskedWord.run(
        str(dataset), str(tiny_bert), out, configs=["en_full_seed1", "en_part_seed1"],
        settings=settings,
    )  # fmt: skip
    assert [c.stat().st_mtime_ns for c in chunks[1:]] == stamps[1:], "finished chunks reused"
    assert pd.read_parquet(out / "items.parquet").equals(items)
    with pytest.raises(RunError):
        MaskedWord.run(
            str(dataset), str(tiny_bert), out, configs=["en_full_seed1"],
            settings=MaskedWordSettings(beam=6),
        )  # fmt: skip


def test_balanced_subset_keeps_items_scorable_in_every_split(dataset, tiny_xlmr, tmp_path):
    folder = balance_dataset(dataset, str(tiny_xlmr), tmp_path / "balanced", max_span_pieces=2)
    lm = load_masked_lm(str(tiny_xlmr))
    manifest = json.loads((folder / "build.json").read_text())
    # A card and signature meant for the Hub name the tokenizer's folder and its files'
    # digest, not where it lay on the builder's disk, and no Python None for a revision.
    assert manifest["balanced"]["tokenizer"] == tiny_xlmr.name
    assert manifest["balanced"]["revision"].startswith("sha256:")
    assert f"|balanced:{tiny_xlmr.name}@sha256:" in manifest["signature"]
    for written in ("build.json", "README.md"):
        text = (folder / written).read_text()
        assert str(tiny_xlmr) not in text and "None" not in text
    config = "de_head_seed1"
    ds = load_dataset(str(folder), config, cache_dir=str(tmp_path / "cache"))
    ids = [set(split["item_id"]) for split in ds.values()]
    assert all(i == ids[0] for i in ids) and ids[0]
    for split in ds.values():
        for row in split:
            _, span, _ = target_pieces(lm.tokenizer, row["words"], row["target_index"], "paper")
            assert 1 <= len(span) <= 2
    dropped = manifest["configs"][config]["row_drops"]
    assert any(k.startswith("balance:") for k in dropped)
    released = balance_dataset(dataset, str(tiny_xlmr), tmp_path / "released",
                               max_span_pieces=2, scoring="lrec2026")  # fmt: skip
    other = json.loads((released / "build.json").read_text())
    assert manifest["signature"].endswith(":cap2:paper")  # the scoring decides what is kept
    assert other["signature"].endswith(":cap2:lrec2026")
    assert other["config_id"] != manifest["config_id"]


@pytest.mark.subprocess
def test_two_launched_ranks_share_the_chunks_and_rank_0_merges(dataset, tiny_bert, tmp_path):
    """As under torchrun: RANK/WORLD_SIZE split the chunks; the result equals one process."""
    import os
    import subprocess
    import sys
    import time

    options = ["--dataset", str(dataset), "--config", "de_head_seed1", "--model", str(tiny_bert)]
    single = tmp_path / "single"  # the one-process result, scored in this one
    result = CliRunner().invoke(main, ["evaluate", "masked-word", *options, "--out", str(single)])
    assert result.exit_code == 0, result.output
    args = [sys.executable, "-m", "perturbed_ud.cli", "evaluate", "masked-word", *options]
    launched = tmp_path / "launched"
    logs = [tmp_path / f"rank{rank}.stderr" for rank in (0, 1)]
    ranks = []
    for rank, log in enumerate(logs):
        with log.open("wb") as stderr:
            ranks.append(subprocess.Popen(
                [*args, "--out", str(launched)],
                env=dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank)),
                stdout=subprocess.DEVNULL, stderr=stderr,
            ))  # fmt: skip
    deadline = time.monotonic() + 300
    while any(p.poll() is None for p in ranks) and time.monotonic() < deadline:
        if any(p.poll() not in (None, 0) for p in ranks):
            break  # rank 0 would wait for a failed rank's chunks forever
        time.sleep(0.5)
    for p in ranks:
        if p.poll() is None:
            p.kill()
    codes = [p.wait() for p in ranks]
    tails = [log.read_text(encoding="utf-8", errors="replace")[-2000:] for log in logs]
    assert codes == [0, 0], "\n".join(f"rank {r} stderr:\n{t}" for r, t in enumerate(tails))
    merged = pd.read_parquet(launched / "items.parquet")
    assert merged.equals(pd.read_parquet(single / "items.parquet"))
    assert len(list((launched / "chunks").rglob("*.parquet"))) == 4
