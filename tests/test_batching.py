"""Token-budget batching: order, budget, and back-off when memory runs out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perturbed_ud.lm.batching import Batcher, plan_batches


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


@given(
    lengths=st.lists(st.integers(1, 60), max_size=300),
    max_tokens=st.integers(1, 2000),
    max_rows=st.one_of(st.none(), st.integers(1, 50)),
)
def test_plan_covers_every_row_once_within_the_budget(lengths, max_tokens, max_rows):
    batches = plan_batches(lengths, max_tokens, max_rows)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        longest = max(lengths[i] for i in batch)
        assert len(batch) == 1 or len(batch) * longest <= max_tokens
        assert max_rows is None or len(batch) <= max_rows


def test_plan_keeps_very_different_lengths_apart_when_padding_would_cost_more():
    lengths = [10] * 100 + [200] * 10
    batches = plan_batches(lengths, max_tokens=100_000)
    assert sorted(len(b) for b in batches) == [10, 100]  # not one batch padded to 200
    assert plan_batches([10, 11, 12], max_tokens=100_000) == [[0, 1, 2]]
