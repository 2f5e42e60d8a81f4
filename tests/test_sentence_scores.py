"""Sentence scoring against minicons, the scorer people use today: the same token
log-probabilities (PLL 'original' and 'within_word_l2r', causal), independent of batching."""

from __future__ import annotations

import pytest
from conftest import UD_ROOT, committed_model

from perturbed_ud.evaluation.measures.sentence_scores import (
    causal_log_likelihoods,
    pseudo_log_likelihoods,
)
from perturbed_ud.lm.batching import Batcher
from perturbed_ud.lm.models import load_causal_lm, load_masked_lm
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


@pytest.mark.peer
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


@pytest.mark.peer
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


def test_long_sentences_are_excluded_when_asked(sentences, tiny_bert, tiny_gpt2):
    long = [word for words in sentences for word in words] * 4  # over 256 pieces
    for lm, score in ((load_masked_lm(str(tiny_bert)), pseudo_log_likelihoods),
                      (load_causal_lm(str(tiny_gpt2)), causal_log_likelihoods)):  # fmt: skip
        alone = score(Batcher(lm), sentences[:2])
        mixed = score(Batcher(lm), [sentences[0], long, sentences[1]], long_inputs="exclude")
        assert mixed[1].too_long and mixed[1].log_probs == []
        assert all(total != total for total in mixed[1].word_totals(len(long)))  # NaN
        assert [s.log_probs for s in (mixed[0], mixed[2])] == [s.log_probs for s in alone]
        assert not any(s.too_long or s.windowed for s in alone)
        windowed = score(Batcher(lm), [sentences[0], long, sentences[1]])
        assert windowed[1].windowed and not windowed[1].too_long
        for mine, plain in zip((windowed[0], windowed[2]), alone, strict=True):
            assert mine.log_probs == pytest.approx(plain.log_probs, abs=1e-5)


# --- PPPL-l2r with the tokenizer's words, as minicons groups pieces ----------------------------

MULTILINGUAL = {
    "zh": "UD_Chinese-GSD/zh_gsd-ud-test.conllu",
    "fr": "UD_French-GSD/fr_gsd-ud-test.conllu",
    "he": "UD_Hebrew-IAHLTwiki/he_iahltwiki-ud-test.conllu",
}


@pytest.fixture(scope="module")
def multilingual_models(tmp_path_factory):
    """Tiny BERT and XLM-R whose vocabularies know Chinese, French and Hebrew."""
    return {
        "bert": committed_model("tiny-bert-zh-fr-he", tmp_path_factory),
        "xlmr": committed_model("tiny-xlmr-zh-fr-he", tmp_path_factory),
    }


def split_by_tokenizer(tokenizer, words: list[str]) -> bool:
    """Whether the tokenizer's words over the joined sentence differ from the UD words."""
    encoding = tokenizer(" ".join(words), add_special_tokens=False)
    return len(set(encoding.word_ids()) - {None}) != len(words)


@pytest.mark.peer
@pytest.mark.parametrize("lang", list(MULTILINGUAL))
@pytest.mark.parametrize("model", ["bert", "xlmr"])
def test_tokenizer_grouping_equals_minicons_within_word_l2r(multilingual_models, lang, model):
    """With the tokenizer's words our PPPL-l2r is minicons' token for token. BERT's
    pre-tokenizer makes every Chinese character and every punctuation mark a word, so for zh
    and fr (l', aujourd'hui, peut-être) grouping by UD words is another measure; SentencePiece
    splits words on spaces only, as the space-joined UD words are."""
    path = multilingual_models[model]
    lm = load_masked_lm(str(path))
    candidates = [s.forms for s in read_conllu(UD_ROOT / MULTILINGUAL[lang])]
    candidates = [words for words in candidates if 3 <= len(words) <= 25]
    differing = [words for words in candidates if split_by_tokenizer(lm.tokenizer, words)]
    sentences = (differing + candidates)[:8]
    ours = pseudo_log_likelihoods(Batcher(lm), sentences, "within_word_l2r", "tokenizer")
    theirs = peer(minicons.MaskedLMScorer, path).token_score(
        [" ".join(words) for words in sentences], PLL_metric="within_word_l2r"
    )
    for mine, reference in zip(ours, theirs, strict=True):
        assert mine.log_probs == pytest.approx([v for _, v in reference], abs=1e-4)
    for words, scores in zip(sentences, ours, strict=True):
        assert sum(scores.word_totals(len(words))) == pytest.approx(sum(scores.log_probs))
    by_ud = pseudo_log_likelihoods(Batcher(lm), sentences, "within_word_l2r", "ud")
    same = all(
        u.log_probs == pytest.approx(t.log_probs, abs=1e-5)
        for u, t in zip(by_ud, ours, strict=True)
    )
    if model == "bert" and lang in ("zh", "fr"):
        assert len(differing) >= 8 and not same, "UD words and BERT's words are other groups"
    elif not differing:
        assert same, "where the groupings agree, so do the scores"
