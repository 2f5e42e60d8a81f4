"""Tiny, randomly initialised models with tokenizers trained on real UD text.

Nothing is downloaded: the tokenizers are trained with `tokenizers` on UD sentences and the
models built from small configs, then saved so that `from_pretrained(path)` loads them exactly
as it would load a Hub checkpoint.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers.implementations import SentencePieceUnigramTokenizer
from tokenizers.trainers import WordPieceTrainer
from transformers import (
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
    BertForSequenceClassification,
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedTokenizerFast,
    XLMRobertaConfig,
    XLMRobertaForMaskedLM,
)

from perturbed_ud.ud.conllu_io import read_conllu

TRAINING_FILES = [
    "UD_English-EWT/en_ewt-ud-test.conllu",
    "UD_German-GSD/de_gsd-ud-test.conllu",
    "UD_Russian-GSD/ru_gsd-ud-test.conllu",
]


def ud_text(ud_root: Path, files=TRAINING_FILES) -> list[str]:
    return [" ".join(s.forms) for f in files for s in read_conllu(ud_root / f)]


def wordpiece_tokenizer(text: list[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A cased WordPiece tokenizer with BERT's specials and template, trained on ``text``."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(text, WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )  # fmt: skip
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]",
    )  # fmt: skip


def byte_level_tokenizer(text: list[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """GPT-2's byte-level BPE, trained on ``text``, with <|endoftext|> as BOS, EOS and pad."""
    from tokenizers.implementations import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(text, vocab_size=vocab_size, special_tokens=["<|endoftext|>"])
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
        unk_token="<|endoftext|>", pad_token="<|endoftext|>",
    )  # fmt: skip


def wordpiece_bert(ud_root: Path, folder: Path, files=TRAINING_FILES) -> Path:
    """BERT with a cased WordPiece vocabulary, like mBERT in miniature."""
    fast = wordpiece_tokenizer(ud_text(ud_root, files), 1500)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(fast), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=256, pad_token_id=fast.pad_token_id,
    )  # fmt: skip
    return _save(BertForMaskedLM(config), fast, folder)


def unigram_xlmr(ud_root: Path, folder: Path, files=TRAINING_FILES) -> Path:
    """XLM-R with a SentencePiece-style Unigram vocabulary (▁-prefixed pieces)."""
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    sp = SentencePieceUnigramTokenizer()
    sp.train_from_iterator(
        ud_text(ud_root, files), vocab_size=1500, special_tokens=specials, unk_token="<unk>"
    )
    tok = sp._tokenizer
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", bos), ("</s>", eos)],
    )  # fmt: skip
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
        pad_token="<pad>", cls_token="<s>", sep_token="</s>", mask_token="<mask>",
    )  # fmt: skip
    torch.manual_seed(0)
    config = XLMRobertaConfig(
        vocab_size=len(fast), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=260, pad_token_id=fast.pad_token_id,
        bos_token_id=bos, eos_token_id=eos,
    )  # fmt: skip
    return _save(XLMRobertaForMaskedLM(config), fast, folder)


def byte_level_gpt2(ud_root: Path, folder: Path) -> Path:
    """GPT-2 with a byte-level BPE vocabulary, for causal scoring."""
    fast = byte_level_tokenizer(ud_text(ud_root), 1000)
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(fast), n_embd=32, n_layer=2, n_head=2, n_positions=256,
        bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id,
    )  # fmt: skip
    return _save(GPT2LMHeadModel(config), fast, folder)


def bert_classifier(
    tokenizer_of: Path,
    folder: Path,
    *,
    num_labels: int = 3,
    max_length: int = 256,
    initializer_range: float = 0.02,
) -> Path:
    """A BERT sequence classifier of random weights with the tokenizer of model ``tokenizer_of``:
    a fine-tuned checkpoint in miniature, without the LM head a language model needs."""
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_of)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=max_length, num_labels=num_labels,
        initializer_range=initializer_range,
    )  # fmt: skip
    return _save(BertForSequenceClassification(config).eval(), tokenizer, folder)


def _save(model, tokenizer, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def altered_copy(
    model: Path, folder: Path, *, drop=(), truncate=(), config: dict | None = None
) -> Path:
    """A copy of a saved model with files left out, files cut to half their size or config
    values changed: what an interrupted copy or download, or a hand-made folder, leaves."""
    shutil.copytree(model, folder, ignore=shutil.ignore_patterns(*drop))
    for name in truncate:
        path = folder / name
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    if config:
        path = folder / "config.json"
        path.write_text(json.dumps(json.loads(path.read_text()) | config))
    return folder
