"""Token-budget batching: order, budget, and back-off when memory runs out."""

from __future__ import annotations

import pytest

from perturbed_ud.evaluate.batching import Batcher


def test_budget_halves_on_out_of_memory_and_results_stay_in_row_order():
    rows = [[1] * n for n in (5, 3, 8, 2, 7, 4)]
    seen = []

    def score(batch):
        if len(batch) > 2:  # what a CPU allocation failure looks like
            raise RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried ...")
        seen.append(len(batch))
        return [len(rows[r]) for r in batch]

    batcher = Batcher(lm=None, max_tokens=64)
    assert batcher._run(rows, score) == [5, 3, 8, 2, 7, 4]
    assert batcher.max_tokens < 64 and max(seen) <= 2


def test_other_errors_are_not_taken_for_out_of_memory():
    def score(batch):
        raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        Batcher(lm=None, max_tokens=64)._run([[1], [1, 2]], score)


def test_rows_are_grouped_by_length_under_the_budget():
    rows = [[0] * n for n in (9, 1, 9, 1, 5)]
    batches = []

    def score(batch):
        batches.append([len(rows[r]) for r in batch])
        return batch

    Batcher(lm=None, max_tokens=18, max_rows=3)._run(rows, score)
    assert batches == [[1, 1, 5], [9, 9]]
    assert all(len(b) * max(b) <= 18 for b in batches)
