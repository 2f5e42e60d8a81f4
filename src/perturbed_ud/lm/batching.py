"""Rows of token ids scored in length-sorted batches under a token budget.

A row is one model input (a sentence with some pieces masked, or a whole sentence for a
causal LM). Rows from many sentences share a batch; batches are planned over the sorted
lengths to trade padding against the number of forward passes. The budget counts rows ×
padded length and halves on out-of-memory, so one setting runs on any device. Results do not
depend on the batching: padding uses explicit position ids and attention masks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from ..settings import check_declared, setting
from .loading import DEVICE_MAPS, DTYPES, Loading
from .models import (
    LanguageModel,
    log_probs_at,
    next_token_log_probs,
    position_scores,
    word_states,
)


def max_tokens_setting(default: int = 16384, why: str = "") -> Any:
    """The token budget of a forward pass; tasks that keep every layer's states give a
    smaller default. ``auto``: the largest budget that fits the device (`initial_budget`,
    halved on out-of-memory), recorded as the run's ``max_tokens``."""
    return setting(f"Rows × padded length per forward pass{why}, or auto (the largest that "
                   "fits the device).", default=default, minimum=1, auto=True)  # fmt: skip


def every_layer_max_tokens() -> Any:
    """The budget of the tasks that keep every layer's hidden states for a batch."""
    return max_tokens_setting(4096, " (every layer's states are kept)")


@dataclass(frozen=True, kw_only=True)
class BatchSettings:
    """How rows are batched; every task's settings extend these."""

    max_tokens: int | str = max_tokens_setting()
    max_rows: int | None = setting("Rows per forward pass, on top of the token budget.",
                                   default=None, minimum=1)  # fmt: skip
    padding_side: str = setting("Where padding goes.", default="right",
                                choices=("right", "left"))  # fmt: skip
    dtype: str = setting("The dtype the weights are read in: auto (the checkpoint's own), bf16, "
                         "fp16 or fp32 (log-softmax stays fp32).", default="auto",
                         choices=DTYPES)  # fmt: skip
    device_map: str | None = setting(
        "Shard the model over the GPUs this process sees, and offload what does not fit to CPU "
        "memory and disk (accelerate): auto, balanced, balanced_low_0 or sequential "
        "(default: the whole model on --device).", default=None, choices=DEVICE_MAPS,
    )  # fmt: skip
    max_memory: tuple[str, ...] = setting(
        "With --device-map: the memory each device may hold, DEVICE=SIZE "
        "(cuda:0=70GiB,cpu=100GiB).", default=(),
    )  # fmt: skip
    offload_folder: str | None = setting(
        "With --device-map: the folder for weights that fit in no device's memory.", default=None
    )  # fmt: skip
    trust_remote_code: bool = setting(
        "Run the model code a checkpoint brings (refused without it).", default=False
    )  # fmt: skip
    adapter: str | None = setting(
        "A PEFT adapter (folder or Hub id) merged over the model; its files are part of the "
        "run's identity.", default=None,
    )  # fmt: skip

    def __post_init__(self):
        check_declared(self)  # the choices and minimums of this class's fields and its subclasses'
        self.loading()  # a malformed --max-memory, or one without --device-map, is refused here

    def loading(self) -> Loading:
        """How the model's weights are loaded (`lm.loading`)."""
        return Loading(self.dtype, self.device_map, tuple(self.max_memory), self.offload_folder,
                       self.trust_remote_code, self.adapter)  # fmt: skip

    def batcher(self, lm: LanguageModel) -> Batcher:
        return Batcher(lm, self.max_tokens, self.padding_side, self.max_rows)


# `--max-tokens auto`: the budget tried first on a GPU, before halving on out-of-memory; on a
# CPU, where running out of memory may end the process rather than raise, the default.
AUTO_GPU_BUDGET = 1 << 20
AUTO_CPU_BUDGET = 16384


def initial_budget(lm: LanguageModel) -> int:
    """The first budget `--max-tokens auto` tries: the one that fitted before in this
    process, else a large one on a GPU and the default on a CPU."""
    if lm.found_budget is not None:
        return lm.found_budget
    return AUTO_GPU_BUDGET if lm.device.type == "cuda" else AUTO_CPU_BUDGET


@dataclass
class Batcher:
    lm: LanguageModel
    max_tokens: int | str = 16384
    padding_side: str = "right"
    max_rows: int | None = None

    def __post_init__(self):
        self.auto = self.max_tokens == "auto"
        if self.auto:
            self.max_tokens = initial_budget(self.lm)

    def _run(self, rows: list[list[int]], score: Callable[[list[int]], list]) -> list:
        """``score(batch of row indices)`` over all rows; results in row order. On running
        out of memory the budget halves and the rows not yet scored are planned again; with
        ``auto`` the budget that fitted is kept on the model for the next batches."""
        try:
            return self._scored(rows, score)
        finally:
            if self.auto:
                self.lm.found_budget = self.max_tokens

    def _scored(self, rows: list[list[int]], score: Callable[[list[int]], list]) -> list:
        out: list = [None] * len(rows)
        todo = list(range(len(rows)))
        while todo:
            plan = plan_batches([len(rows[r]) for r in todo], self.max_tokens, self.max_rows)
            scored: set[int] = set()
            for batch in ([todo[i] for i in batch] for batch in plan):
                try:
                    results = score(batch)
                except (torch.cuda.OutOfMemoryError, RuntimeError) as err:
                    if len(batch) == 1 or not _out_of_memory(err):
                        raise
                    if torch.cuda.is_available():
                        torch.cuda.empty_cache()
                    self.max_tokens = max(1, self.max_tokens // 2)
                    break
                for r, result in zip(batch, results, strict=True):
                    out[r] = result
                scored.update(batch)
            todo = [r for r in todo if r not in scored]
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
            log_probs = torch.log_softmax(logits, dim=-1)
            if banned:
                log_probs[:, banned] = float("-inf")
            best = log_probs.topk(k, dim=-1)
            return list(zip(best.values.tolist(), best.indices.tolist(), strict=True))

        return self._run(rows, lambda batch: self._masked(rows, positions, batch, top))

    def gold_log_probs(
        self, rows: list[list[int]], positions: list[int], golds: list[int]
    ) -> list[float]:
        """Masked LM: log p(gold piece) at one position per row."""

        def score(batch):
            wanted = torch.tensor([golds[r] for r in batch], device=self.lm.device)

            def gold(logits, first):
                return log_probs_at(logits, wanted[first : first + len(logits)]).tolist()

            return self._masked(rows, positions, batch, gold)

        return self._run(rows, score)

    def word_states(
        self, rows: list[list[int]], word_ids: list[list[int | None]], n_words: list[int]
    ) -> list[torch.Tensor]:
        """Every layer's state of each UD word (the mean of its pieces), per row."""

        def states(batch):
            picked = ([seq[r] for r in batch] for seq in (rows, word_ids, n_words))
            return word_states(self.lm, *picked, self.padding_side)

        return self._run(rows, states)

    def next_token_log_probs(self, rows: list[list[int]]) -> list[list[float]]:
        """Causal LM: log p(token_i | tokens_<i) for every token after the first, per row."""
        return self._run(
            rows,
            lambda batch: next_token_log_probs(
                self.lm, [rows[r] for r in batch], self.padding_side
            ),  # fmt: skip
        )


# A forward pass costs about as much as this many more (padding) tokens: kernel launches on a
# GPU, Python and framework overhead on a CPU.
FORWARD_COST_TOKENS = 512


def plan_batches(lengths: list[int], max_tokens: int, max_rows: int | None = None):
    """Batches of indices into ``lengths`` with rows × longest row ≤ ``max_tokens``, chosen to
    minimise padded tokens plus ``FORWARD_COST_TOKENS`` per batch.

    Rows are sorted by length and cut into runs of neighbouring lengths (dynamic programming
    over the distinct lengths); a run larger than the budget is split into equal-length
    batches of as many rows as fit. Few, nearly unpadded batches result.
    """
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    groups: list[list[int]] = []  # [length, rows] per distinct length, ascending
    for i in order:
        if groups and groups[-1][0] == lengths[i]:
            groups[-1][1] += 1
        else:
            groups.append([lengths[i], 1])

    def fit(longest: int) -> int:
        rows = max(1, max_tokens // max(1, longest))
        return rows if max_rows is None else min(rows, max_rows)

    best = [0.0] + [float("inf")] * len(groups)
    cut = [0] * (len(groups) + 1)
    for end in range(1, len(groups) + 1):
        longest, per_batch, rows = groups[end - 1][0], fit(groups[end - 1][0]), 0
        for start in range(end - 1, -1, -1):
            rows += groups[start][1]
            cost = best[start] + -(-rows // per_batch) * FORWARD_COST_TOKENS + rows * longest
            if cost < best[end]:
                best[end], cut[end] = cost, start
    runs, end = [], len(groups)
    while end:
        runs.append((cut[end], end))
        end = cut[end]
    batches, first = [], 0
    for start, end in reversed(runs):
        size = sum(count for _, count in groups[start:end])
        per_batch = fit(groups[end - 1][0])
        run = order[first : first + size]
        batches.extend(run[i : i + per_batch] for i in range(0, size, per_batch))
        first += size
    return batches


def _out_of_memory(err: Exception) -> bool:
    """CUDA's OutOfMemoryError, or the RuntimeError a CPU allocation failure raises."""
    message = str(err)
    return isinstance(err, torch.cuda.OutOfMemoryError) or (
        "out of memory" in message or "can't allocate memory" in message
    )
