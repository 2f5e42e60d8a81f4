"""Benchmark of sentence scoring (``evaluate score``) on CPU: ours against minicons.

Part 1, throughput at equal results. The same tiny, randomly initialised models (built by
``tests/tiny_models.py``: a BERT with a cased WordPiece vocabulary and a GPT-2 with a
byte-level BPE vocabulary, both trained on UD text) score the same sentences: the first
``--n-sentences`` English EWT test sentences of 4-18 words whose words are alphabetic or a
single character, so that minicons' whitespace words are the UD words.

(a) masked, PPPL-l2r   ours ``pseudo_log_likelihoods(Batcher(lm), words, "within_word_l2r")``
                       against minicons ``MaskedLMScorer.token_score(PLL_metric=...)``
(a') masked, PPPL      the same with ``"original"``
(b) causal             ours ``causal_log_likelihoods(Batcher(lm), words, bos="prepend")``
                       against minicons ``IncrementalLMScorer.token_score(bos_token=True)``
(c) masked, PPPL-l2r, large vocabulary   the same as (a) on the first ``--vocab-sentences``
                       sentences with the model of part 2, whose LM head dominates the cost
(d) causal, large vocabulary   the same as (b) with a GPT-2 of GPT-2's vocabulary size
                       (50,257)

The large-vocabulary models have 2 layers and hidden size 64 by default; ``--large-shape
base`` gives them the shapes of bert-base-multilingual-cased and gpt2 (12 layers, hidden
768). ``--device cuda`` runs part 1 on a GPU, both sides (part 2 measures CPU memory, so add
``--skip-memory``):

    python scripts/bench_score.py --device cuda --large-shape base --skip-memory

For (a) and (a'), the table also times our rows, in our batches, through our encoder path
alone (inputs built beforehand; the last layer at the masked position only): the part of our
time that tokenization, row building, the LM head and bookkeeping do not explain.

Both sides start from their natural inputs (word lists for ours, strings for minicons), so
tokenization is timed; models are loaded before timing. minicons is run at several batch
sizes (sentences per call) and the fastest is compared. Each method runs once to warm up,
then 3 times; the median is reported. Every token log-probability is compared (max |Δ|).

Part 2, memory. A randomly initialised masked LM with the vocabulary size of
bert-base-multilingual-cased (119,547) but hidden size 64 and 2 layers, with the tiny BERT's
tokenizer (its ids are all below the model's vocabulary size), scores the first N sentences
for N in ``--memory-batches``: minicons in one ``token_score`` call of N sentences, ours in
one ``pseudo_log_likelihoods`` call with the default token budget. A last input of many
two-word sentences fills our token budget with the most rows per forward pass. Each
measurement runs in a fresh process under an address-space limit (``RLIMIT_AS``,
``--memory-limit-gib``); the report gives whether it finished or failed for lack of memory,
and its peak RSS twice: the child's own high-water mark (``VmHWM``) and ``ru_maxrss`` from
``wait4``, which on Linux also counts the parent's RSS at fork.

    python scripts/bench_score.py                    # about 5 minutes on one core
    python scripts/bench_score.py --json bench.json  # and keep the numbers
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import (
    REPEATS,
    REPO_ROOT,
    benchmark_parser,
    measure,
    minicons_peer,
    proc_status,
    torch_machine,
)

MBERT_VOCAB = 119_547
GPT2_VOCAB = 50_257
# (BERT shape, GPT-2 shape) of the large-vocabulary models
LARGE_SHAPES = {
    "small": (
        {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
         "intermediate_size": 128},
        {"n_embd": 64, "n_layer": 2, "n_head": 2},
    ),
    "base": (
        {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
         "intermediate_size": 3072},
        {"n_embd": 768, "n_layer": 12, "n_head": 12},
    ),
}  # fmt: skip
EWT_TEST = "UD_English-EWT/en_ewt-ud-test.conllu"


def parse_args(argv=None) -> argparse.Namespace:
    parser = benchmark_parser(__doc__)
    parser.add_argument("--n-sentences", type=int, default=300, help="sentences for part 1")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument(
        "--device", default="cpu", help="cpu or cuda: where both sides run in part 1"
    )
    parser.add_argument(
        "--large-shape",
        choices=sorted(LARGE_SHAPES),
        default="small",
        help="shape of the large-vocabulary models: small (2 layers, hidden 64) or base "
        "(bert-base-multilingual-cased's and gpt2's 12 layers, hidden 768)",
    )
    parser.add_argument(
        "--minicons-batches",
        default="1,4,16,64",
        help="sentences per minicons call to try in part 1 (the fastest is compared)",
    )
    parser.add_argument(
        "--vocab-sentences",
        type=int,
        default=40,
        help="sentences for PPPL-l2r with the mBERT-vocabulary model in part 1 (0: skip)",
    )
    parser.add_argument(
        "--vocab-minicons-batches",
        default="1,4",
        help="sentences per minicons call with the mBERT-vocabulary model",
    )
    parser.add_argument(
        "--memory-batches", default="1,4,16,32,64,256", help="sentences per call in part 2"
    )
    parser.add_argument(
        "--short-sentences",
        type=int,
        default=4000,
        help="part 2 also scores this many copies of the two-word sentence 'Yes .' (0: skip)",
    )
    parser.add_argument(
        "--memory-limit-gib",
        type=float,
        default=6.0,
        help="address-space limit of each part-2 process",
    )
    parser.add_argument("--skip-throughput", action="store_true", help="run part 2 only")
    parser.add_argument("--skip-memory", action="store_true", help="run part 1 only")
    parser.add_argument("--json", type=Path, help="write the results here")
    return parser.parse_args(argv)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def set_threads(threads: int) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("RAYON_NUM_THREADS", str(threads))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)


def select_sentences(ud_root: Path, n: int) -> list[list[str]]:
    """Real EWT sentences whose UD words are whitespace words without inner punctuation."""
    from perturbed_ud.ud.conllu_io import read_conllu

    picked = []
    for s in read_conllu(ud_root / EWT_TEST):
        if 4 <= len(s.forms) <= 18 and all(w.isalpha() or len(w) == 1 for w in s.forms):
            picked.append(list(s.forms))
        if len(picked) == n:
            return picked
    raise SystemExit(f"only {len(picked)} suitable sentences in {EWT_TEST}; lower the count")


# --- part 1: throughput at equal results ----------------------------------------------------


def run_minicons(scorer, texts: list[str], batch_size: int, **options) -> list:
    out = []
    for start in range(0, len(texts), batch_size):
        out.extend(scorer.token_score(texts[start : start + batch_size], **options))
    return out


def compare(tokenizer, ours, theirs, causal: bool) -> dict:
    """Token by token: same pieces, and the largest absolute log-probability difference."""
    same_pieces, delta, tokens = 0, 0.0, 0
    for mine, reference in zip(ours, theirs, strict=True):
        if causal:
            # minicons lists the prepended BOS, unscored, with 0.0
            reference = reference[1:]
            pieces = tokenizer.convert_ids_to_tokens(mine.pieces)
        else:
            pieces = [tokenizer.decode([x]).strip() for x in mine.pieces]
        same_pieces += pieces == [t for t, _ in reference]
        if len(reference) != len(mine.log_probs):
            delta = float("inf")
            continue
        tokens += len(reference)
        for a, (_, b) in zip(mine.log_probs, reference, strict=True):
            delta = max(delta, abs(a - b))
    return {"sentences_same_pieces": same_pieces, "tokens_compared": tokens, "max_abs_delta": delta}


def compare_methods(name, sentences, ours_fn, peer_fn, batches, tokenizer, causal) -> dict:
    """Ours once, minicons at each batch size: timings and the token-by-token check."""
    ours, times = measure(ours_fn)
    entry = {
        "sentences": len(sentences),
        "tokens": sum(len(s.log_probs) for s in ours),
        "ours": {"runs_s": times, "median_s": statistics.median(times)},
        "minicons": {},
        "checks": {},
    }
    print(f"{name} ours: {entry['ours']['median_s']:.3f} s", file=sys.stderr)
    for batch in batches:
        theirs, times = measure(lambda b=batch: peer_fn(b))
        entry["minicons"][batch] = {"runs_s": times, "median_s": statistics.median(times)}
        entry["checks"][batch] = compare(tokenizer, ours, theirs, causal)
        print(
            f"{name} minicons batch {batch}: {statistics.median(times):.3f} s, "
            f"{entry['checks'][batch]}",
            file=sys.stderr,
        )
    best = min(entry["minicons"], key=lambda b: entry["minicons"][b]["median_s"])
    entry["best_minicons_batch"] = best
    entry["speedup"] = entry["minicons"][best]["median_s"] / entry["ours"]["median_s"]
    entry["max_abs_delta"] = max(c["max_abs_delta"] for c in entry["checks"].values())
    return entry


def throughput(args, work: Path) -> dict:
    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from minicons import scorer as minicons_scorer
    from tiny_models import byte_level_gpt2

    from perturbed_ud.evaluation.measures.sentence_scores import (
        causal_log_likelihoods,
        pseudo_log_likelihoods,
    )
    from perturbed_ud.lm.batching import Batcher
    from perturbed_ud.lm.models import load_causal_lm, load_masked_lm

    ud_root = args.ud_root.resolve()
    sentences = select_sentences(ud_root, args.n_sentences)
    texts = [" ".join(words) for words in sentences]
    bert = str(tiny_bert(ud_root, work))
    gpt2 = str(byte_level_gpt2(ud_root, work / "tiny-gpt2"))
    device = args.device
    masked, causal = load_masked_lm(bert, device), load_causal_lm(gpt2, device)
    masked_peer = minicons_peer(minicons_scorer.MaskedLMScorer, bert, device)
    causal_peer = minicons_peer(minicons_scorer.IncrementalLMScorer, gpt2, device)
    batches = _ints(args.minicons_batches)

    def masked_task(lm, peer, words, metric, sizes):
        strings = [" ".join(w) for w in words]
        return (
            words,
            lambda: pseudo_log_likelihoods(Batcher(lm), words, metric),
            lambda b: run_minicons(peer, strings, b, PLL_metric=metric),
            sizes,
            lm.tokenizer,
            False,
        )

    def causal_task(lm, peer, sizes):
        return (
            sentences,
            lambda: causal_log_likelihoods(Batcher(lm), sentences, bos="prepend"),
            lambda b: run_minicons(peer, texts, b, bos_token=True),
            sizes,
            lm.tokenizer,
            True,
        )

    tasks = {
        "pppl_l2r": masked_task(masked, masked_peer, sentences, "within_word_l2r", batches),
        "pppl": masked_task(masked, masked_peer, sentences, "original", batches),
        "causal": causal_task(causal, causal_peer, batches),
    }
    if args.vocab_sentences:
        large = str(mbert_sized_model(ud_root, work, args.large_shape))
        tasks["pppl_l2r_mbert_vocab"] = masked_task(
            load_masked_lm(large, device),
            minicons_peer(minicons_scorer.MaskedLMScorer, large, device),
            sentences[: args.vocab_sentences],
            "within_word_l2r",
            _ints(args.vocab_minicons_batches),
        )
        large = str(gpt2_vocab_model(ud_root, work, args.large_shape))
        tasks["causal_gpt2_vocab"] = causal_task(
            load_causal_lm(large, device),
            minicons_peer(minicons_scorer.IncrementalLMScorer, large, device),
            batches,
        )
    results = {name: compare_methods(name, *task) for name, task in tasks.items()}
    for name, metric in (("pppl_l2r", "within_word_l2r"), ("pppl", "original")):
        _, times = measure(encoder_alone(masked, sentences, metric))
        results[name]["encoder_alone"] = {"runs_s": times, "median_s": statistics.median(times)}
    pieces = [len(masked.tokenizer(t)["input_ids"]) for t in texts]
    return {
        "sentences": len(sentences),
        "words": sum(map(len, sentences)),
        "masked_pieces_with_specials": sum(pieces),
        "masked_max_length": max(pieces),
        "causal_scored_tokens": results["causal"]["tokens"],
        "large_shape": {
            "name": args.large_shape,
            "bert": LARGE_SHAPES[args.large_shape][0],
            "gpt2": LARGE_SHAPES[args.large_shape][1],
        },  # fmt: skip
        "results": results,
    }


def encoder_alone(lm, sentences: list[list[str]], metric: str):
    """Our masked rows, in our batches, through our encoder path alone (inputs built
    beforehand): what is left of our time when tokenization, row building, the LM head and
    bookkeeping are taken away."""
    import torch

    from perturbed_ud.evaluation.measures.sentence_scores import masked_rows
    from perturbed_ud.lm.batching import BatchSettings, plan_batches
    from perturbed_ud.lm.encodings import masked_encodings
    from perturbed_ud.lm.last_layer import states_at
    from perturbed_ud.lm.models import padded_inputs

    rows, positions = [], []
    for ids, _, groups in masked_encodings(lm.tokenizer, sentences):
        for row, position, _ in masked_rows(ids, groups, lm.mask_id, metric):
            rows.append(row)
            positions.append(position)
    inputs = []
    for batch in plan_batches([len(row) for row in rows], BatchSettings().max_tokens):
        ids, mask, position_ids, offsets = padded_inputs(lm, [rows[r] for r in batch], "right")
        at = [offsets[i] + positions[r] for i, r in enumerate(batch)]
        at = torch.tensor(at, device=lm.device)
        model_inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": position_ids}
        inputs.append((model_inputs, torch.arange(len(batch), device=lm.device), at))

    def run():
        with torch.inference_mode():
            for model_inputs, index, at in inputs:
                states_at(lm.model, model_inputs, index, at)
        if lm.device.type == "cuda":
            torch.cuda.synchronize()

    return run


# --- part 2: memory at growing batch sizes --------------------------------------------------


def memory_child(argv: list[str]) -> None:
    """One measurement: load the model, score the sentences in one call, report."""
    parser = argparse.ArgumentParser(prog="bench_score.py --memory-child")
    parser.add_argument("--model", required=True)
    parser.add_argument("--sentences", type=Path, required=True)
    parser.add_argument("--method", choices=["ours", "minicons"], required=True)
    parser.add_argument("--limit-bytes", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--result", type=Path, required=True)
    args = parser.parse_args(argv)
    resource.setrlimit(resource.RLIMIT_AS, (args.limit_bytes, args.limit_bytes))
    set_threads(args.threads)
    sentences = json.loads(args.sentences.read_text(encoding="utf-8"))
    result = {"status": "finished", "error": None}
    if args.method == "ours":
        from perturbed_ud.evaluation.measures.sentence_scores import pseudo_log_likelihoods
        from perturbed_ud.lm.batching import Batcher
        from perturbed_ud.lm.models import load_masked_lm

        lm = load_masked_lm(args.model)

        def score():
            return pseudo_log_likelihoods(Batcher(lm), sentences, "within_word_l2r")
    else:
        from minicons import scorer as minicons_scorer

        peer = minicons_peer(minicons_scorer.MaskedLMScorer, args.model)
        texts = [" ".join(words) for words in sentences]

        def score():
            return peer.token_score(texts, PLL_metric="within_word_l2r")

    result["rss_before_kib"] = proc_status("VmRSS")
    start = time.perf_counter()
    try:
        out = score()
        result["tokens"] = sum(len(s.log_probs) if args.method == "ours" else len(s) for s in out)
    except (MemoryError, RuntimeError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        out_of_memory = isinstance(error, MemoryError) or any(
            marker in message.lower() for marker in ("out of memory", "can't allocate")
        )
        result["status"] = "out of memory" if out_of_memory else "error"
        result["error"] = f"{type(error).__name__}: {message[:160]}"
    result["seconds"] = time.perf_counter() - start
    result["peak_rss_kib"] = proc_status("VmHWM")
    args.result.write_text(json.dumps(result), encoding="utf-8")


def tiny_bert(ud_root: Path, work: Path) -> Path:
    """The tiny BERT of the tests, built once per run."""
    from tiny_models import wordpiece_bert

    folder = work / "tiny-bert"
    return folder if folder.is_dir() else wordpiece_bert(ud_root, folder)


def mbert_sized_model(ud_root: Path, work: Path, shape: str = "small") -> Path:
    """A random masked LM with mBERT's vocabulary size, the tiny BERT's tokenizer and a
    ``LARGE_SHAPES`` shape; built once per run."""
    from transformers import BertConfig, BertForMaskedLM

    tokenizer_folder = tiny_bert(ud_root, work)
    return large_vocabulary_model(
        BertForMaskedLM, BertConfig, MBERT_VOCAB, tokenizer_folder, work / f"mbert-vocab-{shape}",
        max_position_embeddings=512, **LARGE_SHAPES[shape][0],
    )  # fmt: skip


def gpt2_vocab_model(ud_root: Path, work: Path, shape: str = "small") -> Path:
    """A random causal LM with GPT-2's vocabulary size, the tiny GPT-2's tokenizer and a
    ``LARGE_SHAPES`` shape; built once per run."""
    from tiny_models import byte_level_gpt2
    from transformers import GPT2Config, GPT2LMHeadModel

    folder = work / "tiny-gpt2"
    tokenizer_folder = folder if folder.is_dir() else byte_level_gpt2(ud_root, folder)
    return large_vocabulary_model(
        GPT2LMHeadModel, GPT2Config, GPT2_VOCAB, tokenizer_folder, work / f"gpt2-vocab-{shape}",
        n_positions=256, **LARGE_SHAPES[shape][1],
    )  # fmt: skip


def large_vocabulary_model(model_class, config_class, vocab, tokenizer_folder, folder, **shape):
    """A model whose output layer has ``vocab`` rows with a small tokenizer's vocabulary,
    padded to ``vocab`` entries with pieces no text splits into (so the tokenizer is the
    model's size, as a real one is, and tokenizes as the small one does): enough to measure
    what the vocabulary size costs."""
    import torch
    from transformers import AutoTokenizer

    if folder.is_dir():
        return folder
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_folder))
    torch.manual_seed(0)
    config = config_class(vocab_size=vocab, pad_token_id=tokenizer.pad_token_id, **shape)
    folder.mkdir(parents=True)
    model_class(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    path = folder / "tokenizer.json"
    spec = json.loads(path.read_text(encoding="utf-8"))
    pieces = spec["model"]["vocab"]
    first = max(pieces.values()) + 1
    pieces |= {f"<filler{i}>": first + i for i in range(vocab - len(tokenizer))}
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    assert len(AutoTokenizer.from_pretrained(str(folder))) == vocab
    return folder


def expected_sizes(tokenizer, sentences: list[list[str]]) -> dict:
    """What one minicons call materialises: every masked copy × padded length × V logits."""
    lengths = [len(tokenizer(" ".join(words))["input_ids"]) for words in sentences]
    rows = sum(length - 2 for length in lengths)  # one masked copy per non-special piece
    return {
        "scored_tokens": rows,
        "max_length": max(lengths),
        "minicons_logits_gib": rows * max(lengths) * MBERT_VOCAB * 4 / 2**30,
    }


def memory_run(stem: Path, model: Path, source: Path, method: str, limit: int, args) -> dict:
    """One measurement in a fresh process under the address-space limit."""
    result_file, log = stem.with_suffix(".json"), stem.with_suffix(".log")
    cmd = [
        sys.executable, str(Path(__file__).resolve()), "--memory-child",
        "--model", str(model), "--sentences", str(source), "--method", method,
        "--limit-bytes", str(limit), "--threads", str(args.threads), "--result", str(result_file),
    ]  # fmt: skip
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=REPO_ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if result_file.is_file():
        child = json.loads(result_file.read_text(encoding="utf-8"))
    else:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        child = {"status": f"crashed (exit {code})", "error": tail[-1] if tail else None}
    peak = child.get("peak_rss_kib")
    return {
        **child,
        "peak_rss_mib": None if peak is None else peak / 1024,
        "ru_maxrss_mib": usage.ru_maxrss / 1024,
        "exit_code": code,
    }


def memory(args, work: Path) -> dict:
    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from transformers import AutoTokenizer

    ud_root = args.ud_root.resolve()
    batches = _ints(args.memory_batches)
    sentences = select_sentences(ud_root, max(batches))
    model = mbert_sized_model(ud_root, work)
    tokenizer = AutoTokenizer.from_pretrained(str(model))
    limit = int(args.memory_limit_gib * 2**30)
    inputs = [(str(batch), sentences[:batch]) for batch in batches]
    if args.short_sentences:
        # many short rows: the most rows the token budget lets into one forward pass
        inputs.append((f"{args.short_sentences} × 'Yes .'", [["Yes", "."]] * args.short_sentences))
    rows = []
    for k, (label, chunk) in enumerate(inputs):
        source = work / f"sentences-{k}.json"
        source.write_text(json.dumps(chunk), encoding="utf-8")
        sizes = expected_sizes(tokenizer, chunk)
        for method in ("minicons", "ours"):
            row = {"batch": label, "method": method, **sizes}
            row |= memory_run(work / f"memory-{method}-{k}", model, source, method, limit, args)
            rows.append(row)
            print(
                f"memory {method} {label}: {row['status']}, VmHWM {_fmt(row['peak_rss_mib'])}"
                f" MiB, ru_maxrss {row['ru_maxrss_mib']:.0f} MiB, "
                f"{row.get('seconds', float('nan')):.1f} s {row.get('error') or ''}",
                file=sys.stderr,
            )
    return {"limit_gib": args.memory_limit_gib, "vocab_size": MBERT_VOCAB, "rows": rows}


# --- report ---------------------------------------------------------------------------------

NAMES = {
    "pppl_l2r": "masked, PPPL-l2r (`within_word_l2r`)",
    "pppl": "masked, PPPL (`original`)",
    "causal": 'causal (`bos="prepend"` / `bos_token=True`)',
    "pppl_l2r_mbert_vocab": "masked, PPPL-l2r, vocabulary 119,547",
    "causal_gpt2_vocab": "causal, vocabulary 50,257",
}


def _fmt(value, spec: str = ",.0f") -> str:
    return "" if value is None else format(value, spec)


def throughput_table(part: dict) -> str:
    lines = [
        "| task | sentences | tokens | method | median s | sentences/s | tokens/s "
        "| × best minicons | max abs Δ |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for key, entry in part["results"].items():
        n, tokens = entry["sentences"], entry["tokens"]
        best = entry["minicons"][entry["best_minicons_batch"]]["median_s"]
        median = entry["ours"]["median_s"]
        lines.append(
            f"| {NAMES[key]} | {n} | {tokens:,} | **ours** | {median:.3f} | {n / median:,.0f} | "
            f"{tokens / median:,.0f} | **{best / median:.1f}** | |"
        )
        if "encoder_alone" in entry:
            median = entry["encoder_alone"]["median_s"]
            lines.append(
                f"| | | | ours, encoder part only | {median:.3f} | {n / median:,.0f} | "
                f"{tokens / median:,.0f} | ({best / median:.1f}) | |"
            )
        for batch, timing in entry["minicons"].items():
            median = timing["median_s"]
            lines.append(
                f"| | | | minicons, {batch} per call | {median:.3f} | {n / median:,.0f} | "
                f"{tokens / median:,.0f} | {best / median:.2f} | "
                f"{entry['checks'][batch]['max_abs_delta']:.1e} |"
            )
    return "\n".join(lines)


def memory_table(part: dict) -> str:
    lines = [
        "| sentences per call | scored tokens | max length | minicons logits GiB (estimate) "
        "| method | result | RSS MiB before scoring | peak RSS MiB (VmHWM) | ru_maxrss MiB | s |",
        "|---:|---:|---:|---:|---|---|---:|---:|---:|---:|",
    ]
    for row in part["rows"]:
        lines.append(
            f"| {row['batch']} | {row['scored_tokens']:,} | {row['max_length']} | "
            f"{row['minicons_logits_gib']:.2f} | {row['method']} | {row['status']} | "
            f"{_fmt(row.get('rss_before_kib') and row['rss_before_kib'] / 1024)} | "
            f"{_fmt(row['peak_rss_mib'])} | {row['ru_maxrss_mib']:,.0f} | "
            f"{_fmt(row.get('seconds'), '.1f')} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    if sys.argv[1:2] == ["--memory-child"]:
        memory_child(sys.argv[2:])
        return
    args = parse_args(argv)
    if args.device != "cpu" and not args.skip_memory:
        raise SystemExit("part 2 measures CPU memory under RLIMIT_AS; add --skip-memory")
    set_threads(args.threads)
    payload: dict = {"machine": torch_machine(args.threads, args.device), "repeats": REPEATS}
    with tempfile.TemporaryDirectory(prefix="bench-score-") as tmp:
        # memory first, while this process is small: Linux counts the parent's RSS at fork
        # in a child's ru_maxrss
        if not args.skip_memory:
            payload["memory"] = memory(args, Path(tmp))
        if not args.skip_throughput:
            payload["throughput"] = throughput(args, Path(tmp))
    info = payload["machine"]
    print(
        f"\n{info['cpu']}, {info['logical_cpus']} logical CPUs, torch threads "
        f"{info['torch_threads']}; torch {info['torch']}, transformers {info['transformers']}, "
        f"minicons {info['minicons']}, Python {info['python']}; device {info['device']}"
        + (f" ({info['gpu']})" if info["gpu"] else "")
    )
    if "throughput" in payload:
        part = payload["throughput"]
        print(
            f"\n{part['sentences']} en EWT test sentences, {part['words']} words, "
            f"{part['masked_pieces_with_specials']} BERT pieces with [CLS]/[SEP] (longest "
            f"{part['masked_max_length']}); median of {REPEATS} after a warm-up\n"
        )
        print(f"large-vocabulary models: {part['large_shape']}\n")
        print(throughput_table(part))
        for key, entry in part["results"].items():
            checks = entry["checks"][entry["best_minicons_batch"]]
            print(
                f"- {key}: {entry['tokens']} tokens, speed-up {entry['speedup']:.1f}× over "
                f"minicons at {entry['best_minicons_batch']} per call; max |Δ| over all batch "
                f"sizes {entry['max_abs_delta']:.1e}; same pieces in "
                f"{checks['sentences_same_pieces']}/{entry['sentences']} sentences"
            )
    if "memory" in payload:
        part = payload["memory"]
        print(
            f"\nmasked LM with vocabulary {part['vocab_size']:,}, hidden 64, 2 layers; "
            f"address-space limit {part['limit_gib']} GiB per process\n"
        )
        print(memory_table(part))
    if args.json:
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
