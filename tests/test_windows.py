"""Inputs longer than the model's context: strided windows for causal LMs, the context around
the masked pieces for masked LMs. Invariants of the cuts (hypothesis), and the causal scores
against the transformers perplexity guide's loop, run here on the model directly."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from perturbed_ud.evaluation.measures.sentence_scores import (
    causal_log_likelihoods,
    pseudo_log_likelihoods,
)
from perturbed_ud.lm.batching import Batcher
from perturbed_ud.lm.models import load_causal_lm, load_masked_lm
from perturbed_ud.lm.windows import causal_windows, masked_window, special_ends, stride_of

SENTENCE = ("the committee said on Tuesday that its members would meet again before the vote , "
            "and that no one had asked for more time")  # fmt: skip
LONG = SENTENCE.split(" ")


@given(n=st.integers(1, 400), limit=st.integers(2, 64))
def test_causal_windows_score_every_token_once_with_enough_context(n, limit):
    ids = list(range(n))
    windows = causal_windows(ids, limit)
    scored = []
    for window, new in windows:
        assert 1 <= len(window) <= limit and new <= len(window) - 1
        first = len(window) - new
        for k in range(first, len(window)):
            token, context = window[k], k
            scored.append(token)
            assert context <= limit - 1
            assert context >= min(token, limit - stride_of(limit))
        assert window == ids[window[0] : window[0] + len(window)]  # contiguous
    assert scored == ids[1:]  # every token after the first, once, in order
    if n <= limit:
        assert windows == [(ids, n - 1)]


@given(
    n=st.integers(3, 300),
    limit=st.integers(4, 40),
    lead=st.integers(0, 2),
    trail=st.integers(0, 2),
    data=st.data(),
)
def test_a_masked_window_keeps_the_ends_and_centres_the_span(n, limit, lead, trail, data):
    row = [-1] * lead + list(range(n)) + [-2] * trail
    first = data.draw(st.integers(lead, lead + n - 1))
    last = data.draw(st.integers(first, min(lead + n - 1, first + 5)))
    positions = list(range(first, last + 1))
    cut = masked_window(row, positions, limit, (lead, trail))
    room = limit - lead - trail
    if len(row) <= limit:
        assert cut == (row, 0)
        return
    if room < len(positions):
        assert cut is None
        return
    window, shift = cut
    assert len(window) == limit
    assert window[:lead] == row[:lead] and window[len(window) - trail :] == row[len(row) - trail :]
    assert all(window[p - shift] == row[p] for p in positions)
    # as much context on each side as the room and the sentence allow
    spare = room - len(positions)
    before, after = first - lead, lead + n - 1 - last
    assert first - shift - lead >= min(before, spare // 2)
    assert (lead + room - 1) - (last - shift) >= min(after, spare // 2)


def test_special_ends_are_the_pieces_of_no_word():
    assert special_ends([None, 0, 0, 1, None]) == (1, 1)
    assert special_ends([0, 1]) == (0, 0)
    assert special_ends([None, None]) == (2, 0)


def test_unknown_words_are_words_not_ends(trained_bert):
    """A long sentence of characters the vocabulary lacks is all [UNK]: each is a word of
    the sentence, scored in its window, not an end kept in every window."""
    lm = load_masked_lm(str(trained_bert))
    (scores,) = pseudo_log_likelihoods(Batcher(lm), [["\U00013000"] * 300])
    assert scores.windowed and len(scores.log_probs) == 300 and not scores.too_long


def guide_log_probs(model, ids: list[int], limit: int, stride: int) -> list[float]:
    """The transformers perplexity guide's loop over one sequence, token by token: windows
    of ``limit`` tokens begin every ``stride`` tokens and score what the previous window did
    not. The model reads a window but its last token, which only the labels need."""
    out, previous_end = [], 0
    for begin in range(0, len(ids), stride):
        end = min(begin + limit, len(ids))
        new = end - previous_end
        with torch.no_grad():
            logits = model(torch.tensor([ids[begin : end - 1]])).logits[0].float()
        log_probs = torch.log_softmax(logits, dim=-1)
        targets = torch.tensor(ids[begin + 1 : end])
        values = log_probs.gather(-1, targets[:, None]).squeeze(-1).tolist()
        out.extend(values[len(values) - min(new, len(values)) :])
        previous_end = end
        if end == len(ids):
            break
    return out


def test_causal_windows_equal_the_perplexity_guide(tiny_gpt2):
    lm = load_causal_lm(str(tiny_gpt2))
    limit = lm.max_length + 1  # windows of the model's positions and the token they predict
    stride = stride_of(limit)
    words = LONG * 30
    ids = lm.tokenizer(" ".join(words))["input_ids"]
    # the guide's last window starts on the stride; ours ends on the text: the same windows
    # where the text is the context plus whole strides
    while (len(ids) + 1 - limit) % stride:
        words = words[:-1]
        ids = lm.tokenizer(" ".join(words))["input_ids"]
    assert len(ids) + 1 > 2 * limit
    (scores,) = causal_log_likelihoods(Batcher(lm, max_tokens=1024), [words], "prepend")
    expected = guide_log_probs(lm.model, [lm.tokenizer.bos_token_id, *ids], limit, stride)
    assert scores.windowed and len(scores.log_probs) == len(ids)
    assert scores.log_probs == pytest.approx(expected, abs=1e-4)


def test_windowed_pseudo_log_likelihoods_do_not_depend_on_batching(tiny_bert):
    lm = load_masked_lm(str(tiny_bert))
    sentences = [LONG, LONG * 25, LONG[:7]]
    one = pseudo_log_likelihoods(Batcher(lm, max_rows=1), sentences)
    many = pseudo_log_likelihoods(Batcher(lm, max_tokens=8192, padding_side="left"), sentences)
    assert [s.windowed for s in one] == [False, True, False]
    n_pieces = len(lm.tokenizer(LONG * 25, is_split_into_words=True)["input_ids"]) - 2
    assert len(one[1].log_probs) == n_pieces  # every piece scored, none truncated
    for a, b in zip(one, many, strict=True):
        assert a.log_probs == pytest.approx(b.log_probs, abs=1e-5)


def test_empty_and_one_token_sentences_are_not_sent_to_the_model(tiny_gpt2):
    lm = load_causal_lm(str(tiny_gpt2))
    scores = causal_log_likelihoods(Batcher(lm), [[""], ["a"]], "none")
    assert [s.log_probs for s in scores] == [[], []]
