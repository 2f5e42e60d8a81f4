"""Rows of token ids scored in length-sorted batches under a token budget.

A row is one model input (a sentence with some pieces masked, or a whole sentence for a
causal LM). Rows from many sentences share a batch; the budget counts rows × padded length
and halves on out-of-memory, so one setting runs on any device. Results do not depend on the
batching: padding uses explicit position ids and attention masks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from .models import LanguageModel, next_token_log_probs, position_scores


@dataclass(frozen=True, kw_only=True)
class BatchSettings:
    """How rows are batched; every task's settings extend these."""

    max_tokens: int = 16384  # rows × padded length per forward pass
    max_rows: int | None = None  # rows per forward pass, on top of the token budget
    padding_side: str = "right"
    dtype: str | None = None  # autocast on GPU: bf16 or fp16; log-softmax stays fp32

    def __post_init__(self):
        if self.padding_side not in ("left", "right"):
            raise ValueError("padding_side must be left or right")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be positive")

    def batcher(self, lm: LanguageModel) -> Batcher:
        return Batcher(lm, self.max_tokens, self.padding_side, self.max_rows)


@dataclass
class Batcher:
    lm: LanguageModel
    max_tokens: int = 16384
    padding_side: str = "right"
    max_rows: int | None = None

    def _run(self, rows: list[list[int]], score: Callable[[list[int]], list]) -> list:
        """``score(batch of row indices)`` over all rows; results in row order."""
        order = sorted(range(len(rows)), key=lambda r: len(rows[r]))
        out: list = [None] * len(rows)
        start = 0
        while start < len(order):
            end = start + 1
            while (
                end < len(order)
                and (end - start + 1) * len(rows[order[end]]) <= self.max_tokens
                and (self.max_rows is None or end - start < self.max_rows)
            ):
                end += 1
            batch = order[start:end]
            try:
                results = score(batch)
            except (torch.cuda.OutOfMemoryError, RuntimeError) as err:
                if len(batch) == 1 or not _out_of_memory(err):
                    raise
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                self.max_tokens = max(1, self.max_tokens // 2)
                continue
            for r, result in zip(batch, results, strict=True):
                out[r] = result
            start = end
        return out

    def _masked(self, rows, positions, batch, reduce) -> list:
        picked = [rows[r] for r in batch]
        where = [positions[r] for r in batch]
        return position_scores(self.lm, picked, where, reduce, self.padding_side)

    def top_log_probs(
        self, rows: list[list[int]], positions: list[int], k: int, banned: list[int] | None = None
    ) -> list[tuple[list[float], list[int]]]:
        """Masked LM: the ``k`` most probable pieces at one position per row, as (log-probs,
        ids); ``banned`` pieces are never proposed (the distribution still covers them)."""

        def top(logits, _first):
            normaliser = torch.logsumexp(logits, dim=-1, keepdim=True)
            if banned:
                logits[:, banned] = float("-inf")
            best = logits.topk(k, dim=-1)
            values = (best.values - normaliser).tolist()
            return list(zip(values, best.indices.tolist(), strict=True))

        return self._run(rows, lambda batch: self._masked(rows, positions, batch, top))

    def gold_log_probs(
        self, rows: list[list[int]], positions: list[int], golds: list[int]
    ) -> list[float]:
        """Masked LM: log p(gold piece) at one position per row."""

        def score(batch):
            wanted = torch.tensor([golds[r] for r in batch], device=self.lm.device)

            def gold(logits, first):
                chosen = logits.gather(-1, wanted[first : first + len(logits), None]).squeeze(-1)
                return (chosen - torch.logsumexp(logits, dim=-1)).tolist()

            return self._masked(rows, positions, batch, gold)

        return self._run(rows, score)

    def next_token_log_probs(self, rows: list[list[int]]) -> list[list[float]]:
        """Causal LM: log p(token_i | tokens_<i) for every token after the first, per row."""
        return self._run(
            rows,
            lambda batch: next_token_log_probs(
                self.lm, [rows[r] for r in batch], self.padding_side
            ),  # fmt: skip
        )


def _out_of_memory(err: Exception) -> bool:
    """CUDA's OutOfMemoryError, or the RuntimeError a CPU allocation failure raises."""
    message = str(err)
    return isinstance(err, torch.cuda.OutOfMemoryError) or (
        "out of memory" in message or "can't allocate memory" in message
    )
