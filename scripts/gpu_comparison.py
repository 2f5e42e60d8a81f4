"""The GPU comparison: ours against minicons, lm-eval and the one-sentence beam loop, with
model FLOP utilisation and the largest batch each tool finishes.

Models are built from configs on the machine (nothing is downloaded): a randomly initialised
masked LM of ``bert-base-multilingual-cased``'s shape (12 layers, hidden 768, 12 heads,
intermediate 3072, vocabulary 119,547, 512 positions) and a causal LM of ``gpt2``'s shape
(12 layers, hidden 768, 12 heads, vocabulary 50,257, 1,024 positions). Their tokenizers are the
small ones ``tests/tiny_models.py`` trains on UD text (their ids stay below the vocabulary
sizes), as in ``scripts/bench_score.py``. ``--smoke`` uses tiny shapes (2 layers, hidden 32,
vocabulary 2,048) and few sentences, so that the whole script runs on a CPU in a minute or two.

Workloads, each run by us and by the peer on the same sentences, every score compared (the
largest absolute difference is recorded and must stay under ``--atol``):

- ``pppl`` / ``pppl_l2r``: PPPL and PPPL-l2r of a spud build (en, PUD, seed 1: orig and nonce
  splits, 2,000 sentences; smoke: 30); ours ``pseudo_log_likelihoods`` (words grouped as the
  tokenizer groups them, which is what minicons does) against minicons ``MaskedLMScorer``
  at each of ``--minicons-batches`` sentences per call (the fastest is compared);
- ``causal``: sentence log-likelihoods of the same sentences; ours ``causal_log_likelihoods``
  against minicons ``IncrementalLMScorer`` (``bos_token=True``);
- ``minimal_pair``: a clams build (en); ``evaluate minimal-pair --kind causal`` against lm-eval
  running a hand-written BLiMP-style YAML task over the same pairs (empty context, the two
  sentences as choices); both end to end, per-pair log-likelihoods compared;
- ``masked_word``: beam search on ``en_full_seed1`` of a perturbed-ud build (EWT test); ours
  ``score_batch`` against the one-sentence loop of ``tests/reference_beam.py``; the best
  word must be the same and its log-probability within ``--atol``.

Model FLOP utilisation (MFU) of each of our runs: useful FLOPs / time / peak, where useful
FLOPs = 2 × parameters × tokens processed, tokens processed being the real, padded
``input_ids`` of every forward pass (counted by a hook on the model), parameters all of the
model's parameters (tied embeddings counted once), and the peak ``--peak-tflops`` (default 989,
the dense bf16 peak of an H100 SXM). On a GPU our runs are timed in fp32 and in bf16
(autocast); on a CPU in fp32 only, and the MFU is then against the same GPU peak, which says
nothing about the CPU.

Memory: the largest batch each tool finishes without running out of memory, doubling until it
does (ours: ``max_tokens`` of PPPL-l2r, our out-of-memory fallback counted as a failure;
minicons: sentences per ``token_score`` call), up to ``--memory-cap-tokens`` /
``--memory-cap-sentences`` (on a CPU in smoke mode a small cap, reported as such).

    python scripts/gpu_comparison.py --device cuda --out gpu-results   # on a GPU
    python scripts/gpu_comparison.py --smoke --device cpu --out smoke  # a minute or two
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from bench_score import compare, run_minicons
from benchlib import REPO_ROOT, benchmark_parser, minicons_peer, torch_machine

SHAPES = {
    "full": {
        "bert": {"vocab": 119_547, "hidden_size": 768, "num_hidden_layers": 12,
                 "num_attention_heads": 12, "intermediate_size": 3072,
                 "max_position_embeddings": 512},
        "gpt2": {"vocab": 50_257, "n_embd": 768, "n_layer": 12, "n_head": 12,
                 "n_positions": 1024},
    },
    "smoke": {
        "bert": {"vocab": 2048, "hidden_size": 32, "num_hidden_layers": 2,
                 "num_attention_heads": 2, "intermediate_size": 64,
                 "max_position_embeddings": 512},
        "gpt2": {"vocab": 2048, "n_embd": 32, "n_layer": 2, "n_head": 2, "n_positions": 1024},
    },
}  # fmt: skip
# (spud sentences per split, clams pairs per construction, masked-word items, peer batches)
SIZES = {"full": (None, 100, 500, "4,16,64"), "smoke": (15, 3, 12, "1,8")}


def parse_args(argv=None):
    parser = benchmark_parser(__doc__)
    parser.add_argument("--device", default="cuda", help="cuda or cpu")
    parser.add_argument("--out", type=Path, required=True, help="folder for the JSON and MD")
    parser.add_argument("--smoke", action="store_true", help="tiny models, few sentences")
    parser.add_argument("--peak-tflops", type=float, default=989.0, help="GPU bf16 dense peak")
    parser.add_argument("--atol", type=float, default=2e-3, help="equal-results tolerance")
    parser.add_argument(
        "--repeats", type=int, help="timed runs after a warm-up (default 3; smoke 1)"
    )
    parser.add_argument("--minicons-batches", help="sentences per minicons call to try")
    parser.add_argument("--memory-cap-tokens", type=int, help="largest max_tokens tried")
    parser.add_argument("--memory-cap-sentences", type=int, help="largest minicons batch tried")
    return parser.parse_args(argv)


# --- helpers ---------------------------------------------------------------------------------


class TokenCounter:
    """Counts the padded ``input_ids`` of every forward pass of a model, at its input
    embedding (ours may call the base model or its layers rather than the whole model)."""

    def __init__(self, model):
        self.tokens, self.largest = 0, 0
        model.get_input_embeddings().register_forward_pre_hook(self._hook)
        self.params = sum(p.numel() for p in model.parameters())

    def _hook(self, _module, args):
        self.tokens += args[0].numel()
        self.largest = max(self.largest, args[0].numel())


def counter_of(model) -> TokenCounter:
    """The model's one counter (models are loaded once per process and reused)."""
    if not hasattr(model, "_token_counter"):
        model._token_counter = TokenCounter(model)
    return model._token_counter


def sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timed(fn, repeats: int, device: str, counter: TokenCounter | None = None):
    """(warm-up result, timings, padded tokens of one run)."""
    result = fn()
    sync(device)
    times, tokens = [], None
    for _ in range(repeats):
        before = counter.tokens if counter else 0
        start = time.perf_counter()
        fn()
        sync(device)
        times.append(time.perf_counter() - start)
        tokens = counter.tokens - before if counter else None
    return result, times, tokens


def mfu(counter: TokenCounter, tokens: int, seconds: float, peak_tflops: float) -> dict:
    flops = 2 * counter.params * tokens
    return {
        "params": counter.params,
        "padded_tokens": tokens,
        "useful_tflop": flops / 1e12,
        "tflops": flops / seconds / 1e12,
        "mfu": flops / seconds / (peak_tflops * 1e12),
    }


def padded_tokenizer(source: Path, folder: Path, size: int) -> Path:
    """A copy of a small trained tokenizer whose vocabulary is filled up to ``size`` with
    unreachable entries (``[unusedK]``, as in BERT's own vocabulary), so that the model's
    embedding rows and the tokenizer's size agree as in a real checkpoint; what the tokenizer
    does to text does not change."""
    from transformers import AutoTokenizer

    data = json.loads((source / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    k = 0
    while len(vocab) < size:
        vocab.setdefault(f"[unused{k}]", len(vocab))
        k += 1
    folder.mkdir(parents=True)
    for file in source.iterdir():
        if file.suffix != ".safetensors" and file.name != "config.json":
            (folder / file.name).write_bytes(file.read_bytes())
    (folder / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    assert len(tokenizer) == size, (len(tokenizer), size)
    return folder


def build_models(ud_root: Path, work: Path, shape: str) -> tuple[str, str]:
    """The masked and the causal LM of ``SHAPES[shape]``, randomly initialised (seed 0)."""
    sys.path.insert(0, str(REPO_ROOT / "tests"))
    import torch
    from tiny_models import byte_level_gpt2, wordpiece_bert
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel

    bert, gpt2 = dict(SHAPES[shape]["bert"]), dict(SHAPES[shape]["gpt2"])
    folders = []
    for trained, name, model_class, config_class, shape_of, tokens in (
        (wordpiece_bert, "mbert-shaped", BertForMaskedLM, BertConfig, bert, {}),
        (byte_level_gpt2, "gpt2-shaped", GPT2LMHeadModel, GPT2Config, gpt2, {"bos": 1}),
    ):
        vocab = shape_of.pop("vocab")
        folder = padded_tokenizer(trained(ud_root, work / f"tok-{name}"), work / name, vocab)
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
        ids = {"pad_token_id": tokenizer.pad_token_id}
        if tokens:
            ids |= {"bos_token_id": tokenizer.bos_token_id, "eos_token_id": tokenizer.eos_token_id}
        torch.manual_seed(0)
        model_class(config_class(vocab_size=vocab, **ids, **shape_of)).save_pretrained(folder)
        folders.append(str(folder))
    return folders[0], folders[1]


def spud_sentences(ud_root: Path, work: Path, limit: int | None) -> list[list[str]]:
    import pyarrow.parquet as pq

    import perturbed_ud

    folder = perturbed_ud.build(
        "spud", work / "spud", langs=["en"], ud_root=str(ud_root), seeds=[1], limit=limit
    )
    sentences = []
    for split in ("orig", "nonce"):
        (path,) = (folder / "en_seed1").glob(f"{split}-*.parquet")
        sentences += [list(w) for w in pq.read_table(path, columns=["forms"])["forms"].to_pylist()]
    return sentences


# --- workloads -------------------------------------------------------------------------------


def scoring(args, masked_dir, causal_dir, sentences) -> dict:
    """PPPL, PPPL-l2r and causal log-likelihoods: ours (fp32, and bf16 on a GPU) against
    minicons at its best batch size."""
    import torch
    from minicons import scorer as minicons_scorer

    from perturbed_ud.evaluation.measures.sentence_scores import (
        causal_log_likelihoods,
        pseudo_log_likelihoods,
    )
    from perturbed_ud.lm.batching import Batcher
    from perturbed_ud.lm.loading import Loading
    from perturbed_ud.lm.models import load_causal_lm, load_masked_lm

    texts = [" ".join(words) for words in sentences]
    dtypes = ["fp32", "bf16"] if args.device.startswith("cuda") else ["fp32"]
    batches = [int(b) for b in args.minicons_batches.split(",")]
    out = {}
    for name, kind in (("pppl", "original"), ("pppl_l2r", "within_word_l2r"), ("causal", None)):
        model_dir = causal_dir if kind is None else masked_dir
        load = load_causal_lm if kind is None else load_masked_lm

        def ours_fn(lm, metric=kind):
            if metric is None:
                return lambda: causal_log_likelihoods(Batcher(lm), sentences, bos="prepend")
            return lambda: pseudo_log_likelihoods(Batcher(lm), sentences, metric, "tokenizer")

        entry = {"sentences": len(sentences), "ours": {}, "minicons": {}}
        reference = None
        for dtype in dtypes:
            lm = load(model_dir, args.device, Loading(dtype))
            counter = counter_of(lm.model)
            result, times, tokens = timed(ours_fn(lm), args.repeats, args.device, counter)
            median = statistics.median(times)
            label = dtype
            entry["ours"][label] = {"runs_s": times, "median_s": median,
                                    **mfu(counter, tokens, median, args.peak_tflops)}  # fmt: skip
            if dtype == "fp32":
                reference, tokenizer = result, lm.tokenizer
                entry["scored_tokens"] = sum(len(s.log_probs) for s in result)
            else:
                entry["ours"][label]["max_abs_delta_vs_fp32"] = max(
                    abs(a - b)
                    for x, y in zip(result, reference, strict=True)
                    for a, b in zip(x.log_probs, y.log_probs, strict=True)
                )
            print(f"{name} ours {label}: {median:.3f} s", file=sys.stderr)
        cls = (
            minicons_scorer.IncrementalLMScorer if kind is None else minicons_scorer.MaskedLMScorer
        )
        peer = minicons_peer(cls, model_dir, args.device)
        counter = TokenCounter(peer.model)
        options = {"bos_token": True} if kind is None else {"PLL_metric": kind}
        entry["minicons_out_of_memory"] = []
        for batch in batches:
            try:
                theirs, times, tokens = timed(
                    lambda b=batch, p=peer, o=options: run_minicons(p, texts, b, **o),
                    args.repeats, args.device, counter,
                )  # fmt: skip
            except (torch.cuda.OutOfMemoryError, MemoryError) as err:
                # a batch size minicons cannot run is left out of the comparison, and said
                entry["minicons_out_of_memory"].append(batch)
                print(f"{name} minicons {batch}: {type(err).__name__}", file=sys.stderr)
                if args.device.startswith("cuda"):
                    torch.cuda.empty_cache()
                continue
            median = statistics.median(times)
            check = compare(tokenizer, reference, theirs, causal=kind is None)
            figures = mfu(counter, tokens, median, args.peak_tflops)
            entry["minicons"][batch] = {"runs_s": times, "median_s": median, **check, **figures}
            print(f"{name} minicons {batch}: {median:.3f} s, {check}", file=sys.stderr)
        best = min(entry["minicons"], key=lambda b: entry["minicons"][b]["median_s"])
        entry["best_minicons_batch"] = best
        entry["speedup_fp32"] = (
            entry["minicons"][best]["median_s"] / entry["ours"]["fp32"]["median_s"]
        )
        entry["max_abs_delta"] = max(c["max_abs_delta"] for c in entry["minicons"].values())
        entry["equal_results"] = entry["max_abs_delta"] <= args.atol
        out[name] = entry
    return out


def minimal_pairs(args, causal_dir, work: Path, per_split: int) -> dict:
    """``evaluate minimal-pair --kind causal`` against lm-eval on the same clams pairs."""
    import pandas as pd

    import perturbed_ud

    dataset = perturbed_ud.build("clams", work / "clams", langs=["en"])
    start = time.perf_counter()
    perturbed_ud.evaluate(
        "minimal-pair", dataset=str(dataset), model=causal_dir, out=str(work / "run-pairs"),
        kind="causal", device=args.device, limit=per_split,
    )  # fmt: skip
    ours_s = time.perf_counter() - start
    pairs = pd.read_parquet(work / "run-pairs" / "pairs.parquet")
    entry = {"pairs": len(pairs), "ours": {"end_to_end_s": ours_s}}
    try:
        import lm_eval
    except ImportError:
        return entry | {"peer": "not run: lm-eval not installed", "equal_results": None}
    from lm_eval.tasks import TaskManager

    data = work / "pairs.jsonl"
    pairs[["pair_id", "sentence_good", "sentence_bad"]].to_json(data, orient="records", lines=True)
    tasks = work / "lm-eval-tasks"
    tasks.mkdir()
    (tasks / "clams_pairs.yaml").write_text(
        "task: clams_pairs\n"
        "dataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    test: {json.dumps(str(data))}\n"
        "test_split: test\n"
        "output_type: multiple_choice\n"
        'doc_to_text: ""\n'
        'target_delimiter: ""\n'
        'doc_to_choice: "{{[sentence_good, sentence_bad]}}"\n'
        "doc_to_target: 0\n"
        "metric_list:\n  - metric: acc\n",
        encoding="utf-8",
    )
    start = time.perf_counter()
    results = lm_eval.simple_evaluate(
        model="hf",
        model_args={"pretrained": causal_dir, "dtype": "float32", "device": args.device},
        tasks=["clams_pairs"], task_manager=TaskManager(include_path=str(tasks)),
        batch_size=64, log_samples=True,
    )  # fmt: skip
    peer_s = time.perf_counter() - start
    theirs = {}
    for sample in results["samples"]["clams_pairs"]:
        (good,), (bad,) = [r[:1] for r in sample["filtered_resps"]]
        theirs[sample["doc"]["pair_id"]] = (float(good), float(bad))
    delta = max(
        max(abs(g - theirs[p][0]), abs(b - theirs[p][1]))
        for p, g, b in zip(pairs["pair_id"], pairs["good_score"], pairs["bad_score"], strict=True)
    )
    return entry | {
        "peer": f"lm-eval {lm_eval.__version__}",
        "lm_eval": {"end_to_end_s": peer_s, "accuracy": results["results"]["clams_pairs"]},
        "max_abs_delta": delta,
        "equal_results": delta <= args.atol,
    }


def masked_word(args, masked_dir, work: Path, n_items: int) -> dict:
    """Our batched beam search against the one-sentence loop on ``en_full_seed1``."""
    from bench_masked_word import build_inputs, run_naive

    from perturbed_ud.evaluation.tasks.masked_word.task import MaskedWordSettings, score_batch
    from perturbed_ud.lm.loading import Loading
    from perturbed_ud.lm.models import load_masked_lm

    _, records, _ = build_inputs(args.ud_root.resolve(), work / "masked-word", n_items)
    settings = MaskedWordSettings()
    lm = load_masked_lm(masked_dir, args.device)
    batch = {
        key: [r[k] for r in records] for k, key in enumerate(("words", "target_index", "target"))
    }

    def ours(dtype="fp32"):
        options = asdict(settings) | {"dtype": dtype}
        return lambda: score_batch(batch, None, model=masked_dir, revision=None,
                                   device=args.device, settings=options)  # fmt: skip

    entry = {"items": len(records), "beam": settings.beam, "ours": {}}
    dtypes = ["fp32", "bf16"] if args.device.startswith("cuda") else ["fp32"]
    for dtype in dtypes:
        counter = counter_of(load_masked_lm(masked_dir, args.device, Loading(dtype)).model)
        result, times, tokens = timed(ours(dtype), args.repeats, args.device, counter)
        median = statistics.median(times)
        figures = mfu(counter, tokens, median, args.peak_tflops)
        entry["ours"][dtype] = {"runs_s": times, "median_s": median, **figures}
        if dtype == "fp32":
            mine = result
    naive, times, _ = timed(lambda: run_naive(lm, records, settings.beam), 1, args.device)
    entry["naive_loop"] = {"runs_s": times, "median_s": statistics.median(times)}
    best = [beams[0] for beams in naive]
    same = sum(
        lm.tokenizer.decode(list(pieces), skip_special_tokens=True).strip() == word
        for (pieces, _), word in zip(best, mine["reconstructed_prediction"], strict=True)
    )
    delta = max(abs(b[1] - x) for b, x in zip(best, mine["prediction_logprob"], strict=True))
    entry |= {
        "best_word_same": same,
        "max_abs_delta": delta,
        "equal_results": same == len(records) and delta <= args.atol,
        "speedup_fp32": entry["naive_loop"]["median_s"] / entry["ours"]["fp32"]["median_s"],
    }
    return entry


def memory(args, masked_dir, sentences) -> dict:
    """The largest batch each tool finishes, doubling until it runs out of memory."""
    import torch
    from minicons import scorer as minicons_scorer

    from perturbed_ud.evaluation.measures.sentence_scores import pseudo_log_likelihoods
    from perturbed_ud.lm.batching import Batcher
    from perturbed_ud.lm.models import load_masked_lm

    def attempt(fn) -> dict:
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats()
        try:
            fn()
        except (torch.cuda.OutOfMemoryError, MemoryError, RuntimeError) as err:
            if "out of memory" not in str(err).lower() and not isinstance(err, MemoryError):
                raise
            return {"status": "out of memory"}
        peak = torch.cuda.max_memory_allocated() / 2**30 if args.device != "cpu" else None
        return {"status": "finished", "peak_gib": peak}

    def cycled(n: int) -> list[list[str]]:
        """``n`` sentences, the list repeated as often as needed to fill large batches."""
        return [sentences[i % len(sentences)] for i in range(n)]

    lm = load_masked_lm(masked_dir, args.device)
    ours, budget = [], 1024
    while budget <= args.memory_cap_tokens:
        batcher = Batcher(lm, budget)

        def run(b=batcher, budget=budget):
            # enough sentences for several full batches
            pseudo_log_likelihoods(b, cycled(max(8, 4 * budget // 400)), "within_word_l2r")
            if b.max_tokens < budget:  # our fallback halved the budget: out of memory
                raise MemoryError

        ours.append({"max_tokens": budget, **attempt(run)})
        print(f"memory ours {ours[-1]}", file=sys.stderr)
        if ours[-1]["status"] != "finished":
            break
        budget *= 2
    peer = minicons_peer(minicons_scorer.MaskedLMScorer, masked_dir, args.device)
    counter = TokenCounter(peer.model)
    theirs, size = [], 1
    while size <= args.memory_cap_sentences:
        counter.largest = 0
        texts = [" ".join(words) for words in cycled(size)]
        row = attempt(lambda t=texts: peer.token_score(t, PLL_metric="within_word_l2r"))
        theirs.append({"sentences_per_call": size, "largest_forward_tokens": counter.largest} | row)
        print(f"memory minicons {theirs[-1]}", file=sys.stderr)
        if row["status"] != "finished":
            break
        size *= 2

    def largest(rows, key):
        done = [r[key] for r in rows if r["status"] == "finished"]
        return max(done) if done else None

    capped = all(r["status"] == "finished" for r in ours + theirs)
    return {
        "ours": ours, "minicons": theirs,
        "ours_largest_max_tokens": largest(ours, "max_tokens"),
        "minicons_largest_sentences_per_call": largest(theirs, "sentences_per_call"),
        "minicons_largest_forward_tokens": largest(theirs, "largest_forward_tokens"),
        "cap_tokens": args.memory_cap_tokens, "cap_sentences": args.memory_cap_sentences,
        "note": "stopped at the cap before running out of memory" if capped else "",
    }  # fmt: skip


# --- report ----------------------------------------------------------------------------------


def markdown(payload: dict) -> str:
    info, w = payload["machine"], payload["workloads"]
    lines = [
        "# GPU comparison" + (" (smoke run: tiny models, not a GPU result)" if payload["smoke"]
                              else ""),
        "",
        f"Command: `{payload['command']}`",
        "",
        f"Device {info['device']}" + (f" ({info['gpu']})" if info["gpu"] else "")
        + f"; CPU {info['cpu']}, {info['logical_cpus']} logical CPUs; torch {info['torch']}, "
        f"transformers {info['transformers']}, minicons {info['minicons']}, "
        f"lm-eval {payload['lm_eval']}; peak {payload['peak_tflops']} TFLOPS; "
        f"median of {payload['repeats']} after a warm-up; total {payload['total_s']:.0f} s.",
        "",
        "MFU = 2 × parameters × padded tokens of every forward pass / median time / peak.",
        "",
        "| workload | method | median s | padded tokens | TFLOPS | MFU | × peer | max abs Δ "
        "| equal |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]  # fmt: skip
    for name in ("pppl", "pppl_l2r", "causal"):
        e = w[name]
        best = e["minicons"][e["best_minicons_batch"]]
        for label, r in e["ours"].items():
            lines.append(
                f"| {name} ({e['sentences']} sentences) | ours {label} | {r['median_s']:.3f} | "
                f"{r['padded_tokens']:,} | {r['tflops']:.3g} | {r['mfu']:.2e} | "
                f"{best['median_s'] / r['median_s']:.1f} | "
                + (
                    f"{r['max_abs_delta_vs_fp32']:.1e} (vs ours fp32)"
                    if "max_abs_delta_vs_fp32" in r
                    else ""
                )
                + " | |"
            )
        for batch, r in e["minicons"].items():
            lines.append(
                f"| | minicons, {batch} per call | {r['median_s']:.3f} | {r['padded_tokens']:,} "
                f"| {r['tflops']:.3g} | {r['mfu']:.2e} | | {r['max_abs_delta']:.1e} | "
                f"{r['max_abs_delta'] <= payload['atol']} |"
            )
    e = w["masked_word"]
    for label, r in e["ours"].items():
        lines.append(
            f"| masked_word ({e['items']} items) | ours {label} | {r['median_s']:.3f} | "
            f"{r['padded_tokens']:,} | {r['tflops']:.3g} | {r['mfu']:.2e} | "
            f"{e['naive_loop']['median_s'] / r['median_s']:.1f} | | |"
        )
    lines.append(
        f"| | one-sentence loop | {e['naive_loop']['median_s']:.3f} | | | | | "
        f"{e['max_abs_delta']:.1e} | {e['equal_results']} |"
    )
    e = w["minimal_pair"]
    lines.append(
        f"| minimal_pair ({e['pairs']} pairs) | ours, `evaluate` end to end | "
        f"{e['ours']['end_to_end_s']:.2f} | | | | | | |"
    )
    if "lm_eval" in e:
        lines.append(
            f"| | lm-eval, end to end | {e['lm_eval']['end_to_end_s']:.2f} | | | | "
            f"{e['lm_eval']['end_to_end_s'] / e['ours']['end_to_end_s']:.1f} | "
            f"{e['max_abs_delta']:.1e} | {e['equal_results']} |"
        )
    else:
        lines.append(f"| | {e['peer']} | | | | | | | |")
    m = w["memory"]
    lines += [
        "",
        f"Memory (PPPL-l2r): ours finished up to max_tokens {m['ours_largest_max_tokens']}; "
        f"minicons up to {m['minicons_largest_sentences_per_call']} sentences per call "
        f"({m['minicons_largest_forward_tokens']} padded tokens in its largest forward pass). "
        f"Caps: {m['cap_tokens']} tokens, {m['cap_sentences']} sentences. {m['note']}",
    ]
    if payload["notes"]:
        lines += ["", *[f"- {note}" for note in payload["notes"]]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    started = time.perf_counter()
    args = parse_args(argv)
    mode = "smoke" if args.smoke else "full"
    spud_limit, pairs, items, batches = SIZES[mode]
    args.minicons_batches = args.minicons_batches or batches
    cpu = not args.device.startswith("cuda")
    if args.repeats is None:
        args.repeats = 1 if args.smoke else 3
    if args.memory_cap_tokens is None:
        args.memory_cap_tokens = 4096 if args.smoke else 2**24
    if args.memory_cap_sentences is None:
        args.memory_cap_sentences = 8 if args.smoke else 2**14
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    notes = []
    if cpu:
        notes.append("CPU run: fp32 only; MFU is against the GPU peak given, not a CPU figure.")
    if args.smoke:
        notes.append(
            "Smoke run: tiny model shapes and few sentences; memory capped at "
            f"{args.memory_cap_tokens} tokens / {args.memory_cap_sentences} sentences."
        )
    ud_root = args.ud_root.resolve()
    try:
        from importlib.metadata import version

        lm_eval_version = version("lm-eval")
    except Exception:
        lm_eval_version = None
    with tempfile.TemporaryDirectory(prefix="gpu-comparison-") as tmp:
        work = Path(tmp)
        masked_dir, causal_dir = build_models(ud_root, work, mode)
        sentences = spud_sentences(ud_root, work, spud_limit)
        workloads = scoring(args, masked_dir, causal_dir, sentences)
        workloads["minimal_pair"] = minimal_pairs(args, causal_dir, work, pairs)
        workloads["masked_word"] = masked_word(args, masked_dir, work, items)
        workloads["memory"] = memory(args, masked_dir, sentences)
    payload = {
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "smoke": args.smoke,
        "machine": torch_machine(0, args.device) | {"torch_threads": None},
        "lm_eval": lm_eval_version,
        "shapes": SHAPES[mode],
        "peak_tflops": args.peak_tflops,
        "atol": args.atol,
        "repeats": args.repeats,
        "notes": notes,
        "workloads": workloads,
        "total_s": time.perf_counter() - started,
    }
    import torch

    payload["machine"]["torch_threads"] = torch.get_num_threads()
    checks = {k: v.get("equal_results") for k, v in workloads.items() if k != "memory"}
    payload["all_equal"] = all(v is not False for v in checks.values())
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_comparison.json").write_text(
        json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8"
    )
    report = markdown(payload)
    (args.out / "gpu_comparison.md").write_text(report, encoding="utf-8")
    print(report)
    if not payload["all_equal"]:
        raise SystemExit(f"results differ: {checks}")


if __name__ == "__main__":
    main()
