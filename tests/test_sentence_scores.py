"""Sentence scoring against minicons, the scorer people use today: the same token
log-probabilities (PLL 'original' and 'within_word_l2r', causal), independent of batching."""

from __future__ import annotations

import pytest
from conftest import UD_ROOT

from perturbed_ud.evaluate.batching import Batcher
from perturbed_ud.evaluate.models import load_causal_lm, load_masked_lm
from perturbed_ud.evaluate.sentence_scores import causal_log_likelihoods, pseudo_log_likelihoods
from perturbed_ud.ud.conllu_io import read_conllu

minicons = pytest.importorskip("minicons.scorer")


@pytest.fixture(scope="module")
def sentences():
    """Real EWT sentences whose UD words are also whitespace words without inner
    punctuation, so that minicons' word boundaries are the UD words."""
    picked = []
    for s in read_conllu(UD_ROOT / "UD_English-EWT/en_ewt-ud-test.conllu"):
        if 4 <= len(s.forms) <= 18 and all(w.isalpha() or len(w) == 1 for w in s.forms):
            picked.append(s.forms)
        if len(picked) == 12:
            break
    return picked


def peer(cls, path):
    scorer = cls(str(path), "cpu")
    type(scorer.tokenizer).batch_encode_plus = lambda self, *a, **k: self(*a, **k)
    return scorer


@pytest.mark.parametrize("metric", ["original", "within_word_l2r"])
@pytest.mark.parametrize("model", ["tiny_bert", "tiny_xlmr"])
def test_pseudo_log_likelihoods_equal_minicons(sentences, metric, model, request):
    path = request.getfixturevalue(model)
    ours = pseudo_log_likelihoods(Batcher(load_masked_lm(str(path))), sentences, metric)
    theirs = peer(minicons.MaskedLMScorer, path).token_score(
        [" ".join(words) for words in sentences], PLL_metric=metric
    )
    for mine, reference in zip(ours, theirs, strict=True):
        assert len(mine.log_probs) == len(reference)
        assert mine.log_probs == pytest.approx([v for _, v in reference], abs=1e-4)


@pytest.mark.parametrize("bos", ["prepend", "none"])
def test_causal_log_likelihoods_equal_minicons(sentences, tiny_gpt2, bos):
    ours = causal_log_likelihoods(Batcher(load_causal_lm(str(tiny_gpt2))), sentences, bos)
    theirs = peer(minicons.IncrementalLMScorer, tiny_gpt2).token_score(
        [" ".join(words) for words in sentences], bos_token=bos == "prepend"
    )
    for mine, reference in zip(ours, theirs, strict=True):
        # minicons lists the unscored first token (BOS, or the sentence's first) with 0.0
        assert mine.log_probs == pytest.approx([v for _, v in reference[1:]], abs=1e-4)


def test_scores_do_not_depend_on_batching(sentences, tiny_bert, tiny_gpt2):
    masked = load_masked_lm(str(tiny_bert))
    causal = load_causal_lm(str(tiny_gpt2))
    one = pseudo_log_likelihoods(Batcher(masked, max_rows=1), sentences)
    many = pseudo_log_likelihoods(Batcher(masked, max_tokens=4096, padding_side="left"), sentences)
    for a, b in zip(one, many, strict=True):
        assert a.log_probs == pytest.approx(b.log_probs, abs=1e-5)
    one = causal_log_likelihoods(Batcher(causal, max_rows=1), sentences)
    many = causal_log_likelihoods(Batcher(causal, max_rows=7, padding_side="left"), sentences)
    for a, b in zip(one, many, strict=True):
        assert a.log_probs == pytest.approx(b.log_probs, abs=1e-5)


def test_word_totals_follow_ud_words(sentences, tiny_bert, tiny_gpt2):
    for lm, score in ((load_masked_lm(str(tiny_bert)), pseudo_log_likelihoods),
                      (load_causal_lm(str(tiny_gpt2)), causal_log_likelihoods)):  # fmt: skip
        for words, scores in zip(sentences, score(Batcher(lm), sentences), strict=True):
            totals = scores.word_totals(len(words))
            assert sum(totals) == pytest.approx(sum(scores.log_probs))
            assert set(scores.words) <= set(range(len(words)))


def test_sentences_longer_than_the_model_are_marked_not_truncated(sentences, tiny_bert, tiny_gpt2):
    long = [word for words in sentences for word in words] * 4  # over 256 pieces
    for lm, score in ((load_masked_lm(str(tiny_bert)), pseudo_log_likelihoods),
                      (load_causal_lm(str(tiny_gpt2)), causal_log_likelihoods)):  # fmt: skip
        alone = score(Batcher(lm), sentences[:2])
        mixed = score(Batcher(lm), [sentences[0], long, sentences[1]])
        assert mixed[1].too_long and mixed[1].log_probs == []
        assert all(total != total for total in mixed[1].word_totals(len(long)))  # NaN
        assert [s.log_probs for s in (mixed[0], mixed[2])] == [s.log_probs for s in alone]
        assert not any(s.too_long for s in alone)
