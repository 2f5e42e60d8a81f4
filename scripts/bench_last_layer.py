"""Does running BERT's last layer at the predicted position only pay on a full-size model?

Times `evaluate.last_layer.states_at` (the layers below as the model runs them, then the last
layer for one position per row) against the full forward pass followed by the same gather, on
a randomly initialised model of bert-base shape (12 layers, hidden 768), in batches of masked
rows whose lengths follow the English PUD sentences of the packaged sample (1.3 pieces per
word, plus [CLS] and [SEP]). Both give the same states to float rounding; the script checks it.

    python scripts/bench_last_layer.py --threads 2 --rows 256 --batch 32
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch
from benchlib import torch_machine
from transformers import BertConfig, BertForMaskedLM

from perturbed_ud.lm.last_layer import states_at
from perturbed_ud.ud.selection import all_sentences
from perturbed_ud.ud.sources import resolve

SHAPES = {
    "base": {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
             "intermediate_size": 3072},
    "large": {"hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
              "intermediate_size": 4096},
}  # fmt: skip


def batches(rows: int, batch: int, seed: int = 0) -> list[tuple[dict, torch.Tensor, torch.Tensor]]:
    """Padded batches of random ids with one masked position per row, PUD-like lengths."""
    (english,) = resolve(["en"], split="test")
    lengths = [min(round(1.3 * len(s)) + 2, 512) for s in all_sentences(english)][:rows]
    generator = torch.Generator().manual_seed(seed)
    out = []
    for start in range(0, len(lengths), batch):
        chunk = sorted(lengths[start : start + batch])
        width = chunk[-1]
        ids = torch.randint(1000, 30000, (len(chunk), width), generator=generator)
        mask = torch.zeros(len(chunk), width, dtype=torch.long)
        at = torch.empty(len(chunk), dtype=torch.long)
        for r, n in enumerate(chunk):
            mask[r, :n] = 1
            at[r] = 1 + int(torch.randint(0, n - 2, (1,), generator=generator))
        inputs = {"input_ids": ids, "attention_mask": mask}
        out.append((inputs, torch.arange(len(chunk)), at))
    return out


def full_forward(model, inputs: dict, index: torch.Tensor, at: torch.Tensor) -> torch.Tensor:
    return model.base_model(**inputs).last_hidden_state[index, at]


def timed(function, model, work, repeats: int) -> tuple[float, list[torch.Tensor]]:
    """The median wall time of `repeats` passes over every batch, and the last pass's states."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        with torch.inference_mode():
            states = [function(model, *batch) for batch in work]
        times.append(time.perf_counter() - start)
    return statistics.median(times), states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="base")
    parser.add_argument("--rows", type=int, default=256, help="masked rows")
    parser.add_argument("--batch", type=int, default=32, help="rows per forward pass")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, **SHAPES[args.shape])
    model = BertForMaskedLM(config).eval().to(args.device)
    work = [
        ({k: v.to(args.device) for k, v in inputs.items()}, index.to(args.device), at)
        for inputs, index, at in batches(args.rows, args.batch)
    ]
    timed(states_at, model, work[:1], 1)  # warm-up
    full_s, full = timed(full_forward, model, work, args.repeats)
    last_s, ours = timed(states_at, model, work, args.repeats)
    delta = max(float((a - b).abs().max()) for a, b in zip(full, ours, strict=True))
    tokens = sum(int(inputs["attention_mask"].sum()) for inputs, _, _ in work)
    result = {
        "machine": torch_machine(args.threads, args.device),
        "shape": args.shape,
        "rows": args.rows,
        "batch": args.batch,
        "tokens": tokens,
        "full_forward_s": round(full_s, 3),
        "last_layer_at_s": round(last_s, 3),
        "saving": round(1 - last_s / full_s, 4),
        "max_abs_delta": delta,
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
