"""Benchmark of masked word prediction on CPU: items per second against two baselines.

The same tiny, randomly initialised BERT (cased WordPiece vocabulary trained on UD text, built
by ``tests/tiny_models.py``) scores the same items, taken from the ``orig`` and ``full``
splits of a small perturbed-ud build of English EWT (test, seed 1):

(a) naive loop      ``naive_beam_search``, one item and one beam at a time, full logits
(b) ours            ``score_batch`` over all items (default settings: beam 8, token budget)
(c) minicons        ``MaskedLMScorer.token_score(PLL_metric="within_word_l2r")`` on the
                    sentences, the target's pieces picked out (it scores every piece)
(c') minicons, target only  ``conditional_score`` with the target as the stimulus, so that
                    only the target's pieces are scored
(d) ours, gold scoring  log-probabilities of the gold pieces under the same masking as (c):
                    left to right, later pieces of the word masked, everything else visible,
                    with special tokens; ``Batcher.gold_log_probs`` over (item, piece) rows in
                    token-budget batches

Every method starts from the word lists (tokenization is timed) and the model is loaded
before timing. Each is run once to warm up, then timed 3 times; the median is reported.
The per-piece log-probabilities of (d), (c) and (c') are compared on the items whose
tokenizations agree (same ids, and the tokenizer's word for the target is the UD word).

    python scripts/bench_masked_word.py                   # a few minutes on one core
    python scripts/bench_masked_word.py --json bench.json # and keep the numbers
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from benchlib import REPEATS, REPO_ROOT, benchmark_parser, measure, minicons_peer, torch_machine


def parse_args(argv=None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__)
    parser.add_argument(
        "--n-items",
        type=int,
        default=500,
        help="items in all, half from the orig split and half from the full split",
    )
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument(
        "--minicons-batch", type=int, default=16, help="sentences per minicons call"
    )
    parser.add_argument("--json", type=Path, help="write the results here")
    return parser.parse_args(argv)


# --- inputs --------------------------------------------------------------------------------


def build_inputs(ud_root: Path, work: Path, n_items: int):
    """The tiny BERT and the items: (words, target_index, target, split) per item."""
    import pyarrow.parquet as pq

    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from tiny_models import wordpiece_bert

    from perturbed_ud.builders.engine import build
    from perturbed_ud.evaluation.tasks.masked_word.task import MaskedWordSettings
    from perturbed_ud.lm.masking import mask_target
    from perturbed_ud.lm.models import load_masked_lm
    from perturbed_ud.ud.selection import Selection
    from perturbed_ud.ud.sources import resolve

    model_dir = wordpiece_bert(ud_root, work / "tiny-bert")
    treebanks = resolve(["en"], split="test", ud_root=str(ud_root))
    dataset = build(
        "perturbed-ud", work / "data", treebanks=treebanks, seeds=[1], scrambles=["full"],
        selection=Selection(limit=max(n_items, 100)),
    )  # fmt: skip
    lm = load_masked_lm(str(model_dir))
    settings = MaskedWordSettings()
    records, dropped = [], {}
    per_split = {"orig": n_items // 2, "full": n_items - n_items // 2}
    for split, wanted in per_split.items():
        table = pq.read_table(dataset / "en_full_seed1" / f"{split}-00000-of-00001.parquet")
        rows = table.select(["words", "target_index", "target"]).to_pylist()
        taken = 0
        for row in rows:
            if taken == wanted:
                break
            item = mask_target(
                lm.tokenizer, row["words"], row["target_index"], scoring=settings.scoring,
                max_span_pieces=settings.max_span_pieces, max_length=lm.max_length,
            )  # fmt: skip
            if isinstance(item, str):
                dropped[item] = dropped.get(item, 0) + 1
                continue
            records.append((row["words"], row["target_index"], row["target"], split))
            taken += 1
        if taken < wanted:
            raise SystemExit(f"only {taken} scorable {split} items; lower --n-items")
    return str(model_dir), records, dropped


# --- the methods ---------------------------------------------------------------------------


def run_naive(lm, records, beam: int):
    from reference_beam import naive_beam_search

    from perturbed_ud.lm.masking import mask_target

    banned = list(lm.tokenizer.all_special_ids)
    out = []
    for words, target, _, _ in records:
        item = mask_target(
            lm.tokenizer, words, target, scoring="paper", max_span_pieces=6,
            max_length=lm.max_length,
        )  # fmt: skip
        out.append(naive_beam_search(lm, item, beam, banned))
    return out


def run_ours(model_dir: str, records, settings: dict):
    from perturbed_ud.evaluation.tasks.masked_word.task import score_batch

    batch = {
        "words": [r[0] for r in records],
        "target_index": [r[1] for r in records],
        "target": [r[2] for r in records],
    }
    return score_batch(batch, None, model=model_dir, revision=None, device="cpu", settings=settings)


def run_ours_gold(lm, records, max_tokens: int):
    """Per item, the log-probability of each gold piece, left to right, later pieces masked."""
    from perturbed_ud.lm.batching import Batcher
    from perturbed_ud.lm.masking import mask_target

    rows, positions, gold, sizes = [], [], [], []
    for words, target, _, _ in records:
        item = mask_target(
            lm.tokenizer, words, target, scoring="paper", max_span_pieces=6,
            max_length=lm.max_length,
        )  # fmt: skip
        for step, position in enumerate(item.span):
            row = list(item.ids)
            for k in range(step):
                row[item.span[k]] = item.gold_pieces[k]
            rows.append(row)
            positions.append(position)
            gold.append(item.gold_pieces[step])
        sizes.append(len(item.span))
    picked = Batcher(lm, max_tokens).gold_log_probs(rows, positions, gold)
    out, start = [], 0
    for size in sizes:
        out.append(picked[start : start + size])
        start += size
    return out


def run_minicons_tokens(scorer, sentences, batch_size: int):
    out = []
    for start in range(0, len(sentences), batch_size):
        out.extend(
            scorer.token_score(sentences[start : start + batch_size], PLL_metric="within_word_l2r")
        )
    return out


def run_minicons_target(scorer, records, batch_size: int):
    out = []
    for start in range(0, len(records), batch_size):
        chunk = records[start : start + batch_size]
        out.extend(
            scorer.conditional_score(
                [" ".join(words[:target]) for words, target, _, _ in chunk],
                [words[target] for words, target, _, _ in chunk],
                [" ".join(words[target + 1 :]) for words, target, _, _ in chunk],
                reduction=lambda x: x.tolist(),
                PLL_metric="within_word_l2r",
            )
        )
    return out


# --- checks --------------------------------------------------------------------------------


def alignment(tokenizer, records):
    """Per item: (our unmasked ids, our target span, whether minicons sees the same)."""
    from perturbed_ud.lm.masking import target_pieces

    out = []
    for words, target, _, _ in records:
        ids, span, _ = target_pieces(tokenizer, words, target, "paper")
        encoding = tokenizer(" ".join(words))
        word_ids = encoding.word_ids()
        same = list(encoding["input_ids"]) == ids and word_ids[span[0]] is not None
        if same:
            word = word_ids[span[0]]
            same = [k for k, w in enumerate(word_ids) if w == word] == span
        out.append((ids, span, same))
    return out


def max_abs_delta(pairs) -> float:
    return max((abs(a - b) for mine, theirs in pairs for a, b in zip(mine, theirs, strict=True)),
               default=float("nan"))  # fmt: skip


def checks(lm, records, naive, ours, gold, tokens, target):
    aligned = alignment(lm.tokenizer, records)
    agree = [k for k, (_, _, same) in enumerate(aligned) if same]
    token_pairs, target_pairs, length_mismatch = [], [], 0
    for k in agree:
        _, span, _ = aligned[k]
        # token_score lists every non-special piece: piece at position p is entry p - 1
        token_pairs.append((gold[k], [tokens[k][p - 1][1] for p in span]))
        if len(target[k]) == len(span):
            target_pairs.append((gold[k], target[k]))
        else:
            length_mismatch += 1
    best = [beams[0][1] for beams in naive]
    return {
        "items": len(records),
        "tokenizations_agree": len(agree),
        "max_abs_delta_gold_vs_minicons_token_score": max_abs_delta(token_pairs),
        "max_abs_delta_gold_vs_minicons_conditional_score": max_abs_delta(target_pairs),
        "conditional_score_length_mismatches": length_mismatch,
        "best_word_same_as_naive": sum(
            lm.tokenizer.decode(list(beams[0][0]), skip_special_tokens=True).strip() == word
            for beams, word in zip(naive, ours["reconstructed_prediction"], strict=True)
        ),
        "max_abs_delta_best_logprob_ours_vs_naive": max(
            abs(a - b) for a, b in zip(best, ours["prediction_logprob"], strict=True)
        ),
        "gold_pieces": sum(len(span) for _, span, _ in aligned),
        "multi_piece_targets": sum(len(span) > 1 for _, span, _ in aligned),
        "sentence_pieces": sum(len(ids) for ids, _, _ in aligned),
    }


# --- report --------------------------------------------------------------------------------

METHODS = [
    ("naive", "(a) naive loop", "beam search, one item and one beam per forward"),
    ("ours", "(b) ours, `score_batch`", "beam search, batched over items and beams"),
    ("minicons", "(c) minicons `token_score`", "gold pieces, within_word_l2r, whole sentence"),
    ("minicons_target", "(c') minicons `conditional_score`", "gold pieces of the target only"),
    ("ours_gold", "(d) ours, gold scoring", "gold pieces of the target only"),
]


def table(results: dict, n: int) -> str:
    naive = results["naive"]["median_s"]
    peer = results["minicons"]["median_s"]
    target = results["minicons_target"]["median_s"]
    lines = [
        "| method | computes | median s | items/s | × (a) | × (c) | × (c') |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for key, name, what in METHODS:
        median = results[key]["median_s"]
        lines.append(
            f"| {name} | {what} | {median:.3f} | {n / median:,.0f} | "
            f"{naive / median:.1f} | {peer / median:.1f} | {target / median:.1f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("RAYON_NUM_THREADS", str(args.threads))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)

    from minicons import scorer as minicons_scorer

    from perturbed_ud.evaluation.tasks.masked_word.task import MaskedWordSettings
    from perturbed_ud.lm.models import load_masked_lm

    settings = MaskedWordSettings()
    with tempfile.TemporaryDirectory(prefix="bench-masked-word-") as tmp:
        model_dir, records, dropped = build_inputs(args.ud_root.resolve(), Path(tmp), args.n_items)
        lm = load_masked_lm(model_dir)
        peer = minicons_peer(minicons_scorer.MaskedLMScorer, model_dir)
        sentences = [" ".join(words) for words, _, _, _ in records]
        n = len(records)
        runs = {
            "naive": lambda: run_naive(lm, records, settings.beam),
            "ours": lambda: run_ours(model_dir, records, asdict(settings)),
            "minicons": lambda: run_minicons_tokens(peer, sentences, args.minicons_batch),
            "minicons_target": lambda: run_minicons_target(peer, records, args.minicons_batch),
            "ours_gold": lambda: run_ours_gold(lm, records, settings.max_tokens),
        }
        outputs, results = {}, {}
        for key, fn in runs.items():
            outputs[key], times = measure(fn)
            median = statistics.median(times)
            results[key] = {"runs_s": times, "median_s": median, "items_per_s": n / median}
            print(f"{key}: {median:.3f} s ({n / median:,.0f} items/s)", file=sys.stderr)
        check = checks(
            lm, records, outputs["naive"], outputs["ours"], outputs["ours_gold"],
            outputs["minicons"], outputs["minicons_target"],
        )  # fmt: skip
    info = torch_machine(args.threads)
    splits = {s: sum(r[3] == s for r in records) for s in ("orig", "full")}
    print(
        f"\n{info['cpu']}, {info['logical_cpus']} logical CPUs, torch threads "
        f"{info['torch_threads']}; torch {info['torch']}, transformers {info['transformers']}, "
        f"minicons {info['minicons']}, Python {info['python']}"
    )
    print(
        f"{n} items (orig {splits['orig']}, full {splits['full']}), en EWT test, seed 1; "
        f"beam {settings.beam}, max_tokens {settings.max_tokens}, "
        f"minicons batch {args.minicons_batch} sentences; median of {REPEATS} after a warm-up\n"
    )
    print(table(results, n))
    print()
    for key, value in check.items():
        print(f"- {key}: {value}")
    if args.json:
        payload = {
            "machine": info,
            "items": n,
            "splits": splits,
            "dropped_before_selection": dropped,
            "settings": asdict(settings) | {"minicons_batch": args.minicons_batch},
            "repeats": REPEATS,
            "results": results,
            "checks": check,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
