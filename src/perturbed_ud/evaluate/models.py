"""Loading language models once per (model, device) and scoring only the positions that matter.

Masked LMs: the encoder runs on the whole padded batch (BERT-family last layers only at the
predicted position, see `last_layer`), and the LM head (hidden → vocabulary) runs only on the
one position per row being predicted: rows × V logits, not rows × L × V.
Causal LMs: the head runs over the sequence positions in slices, and only each next token's
log-probability is kept. Log-softmax is always fp32.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
import torch

from ..errors import InputError
from .last_layer import states_at

# Models whose position ids start after the padding index and are derived from input ids.
_PADDING_OFFSET_POSITIONS = {"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert"}


@dataclass
class LanguageModel:
    name: str
    tokenizer: object
    model: torch.nn.Module
    device: torch.device
    dtype: torch.dtype | None  # autocast dtype, None for full precision

    @property
    def mask_id(self) -> int:
        return self.tokenizer.mask_token_id

    @property
    def pad_id(self) -> int:
        pad = self.tokenizer.pad_token_id
        return pad if pad is not None else 0

    @property
    def max_length(self) -> int:
        """Longest input the position embeddings cover (RoBERTa-style positions start after
        the padding index)."""
        config = self.model.config
        length = int(getattr(config, "max_position_embeddings", 512))
        if config.model_type in _PADDING_OFFSET_POSITIONS:
            length -= config.pad_token_id + 1
        return length


def describe_model(name: str, revision: str | None, dtype: str | None) -> dict:
    """What makes two runs comparable: model, revision, tokenizer, precision (no weights
    are loaded)."""
    from transformers import AutoConfig, AutoTokenizer

    config = pretrained(AutoConfig, name, revision)
    tokenizer = pretrained(AutoTokenizer, name, revision)
    return {
        "model": name,
        "revision": getattr(config, "_commit_hash", None) or _local_revision(name) or revision,
        "model_type": config.model_type,
        "tokenizer": type(tokenizer).__name__,
        "vocab_size": len(tokenizer),
        "dtype": dtype or "float32",
    }


def pretrained(auto, name: str, revision: str | None):
    """``auto.from_pretrained(name)``: a model that is missing, unreachable or of another kind
    is the user's to fix, so it is an `InputError` naming the model."""
    try:
        return auto.from_pretrained(name, revision=revision)
    except (OSError, ValueError) as err:
        raise InputError(f"cannot load {name}: {err}") from err


def _local_revision(name: str) -> str | None:
    """sha256 of a local checkpoint's weight files, standing in for a Hub commit."""
    path = Path(name)
    if not path.is_dir():
        return None
    digest = hashlib.sha256()
    for weights in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        digest.update(weights.read_bytes())
    return "sha256:" + digest.hexdigest()[:16]


_CACHE: dict[tuple, LanguageModel] = {}


def device_for(device: str, rank: int | None) -> str:
    """``cuda`` in a `datasets.map` worker of rank r means GPU r (modulo the GPU count)."""
    if device == "cuda" and torch.cuda.device_count() > 0:
        return f"cuda:{(rank or 0) % torch.cuda.device_count()}"
    return device


def _load(name: str, causal: bool, device: str, dtype: str | None, revision: str | None):
    key = (name, causal, device, dtype, revision)
    if key not in _CACHE:
        from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

        tokenizer = pretrained(AutoTokenizer, name, revision)
        if not causal and tokenizer.mask_token_id is None:
            raise InputError(f"{name} has no mask token: not a masked language model")
        model = pretrained(AutoModelForCausalLM if causal else AutoModelForMaskedLM, name, revision)
        model.to(device).eval()
        autocast = {"bf16": torch.bfloat16, "fp16": torch.float16, None: None}[dtype]
        _CACHE[key] = LanguageModel(name, tokenizer, model, torch.device(device), autocast)
    return _CACHE[key]


def load_masked_lm(
    name: str, device: str = "cpu", dtype: str | None = None, revision: str | None = None
) -> LanguageModel:
    """`from_pretrained` a masked LM and its tokenizer, once per process and device."""
    return _load(name, False, device, dtype, revision)


MODEL_KINDS = ("masked", "causal")


def load_lm(kind: str, name: str, device: str, dtype: str | None, revision: str | None):
    """A masked or a causal LM, by kind."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"model kind must be one of {MODEL_KINDS}, not {kind!r}")
    return _load(name, kind == "causal", device, dtype, revision)


def load_causal_lm(
    name: str, device: str = "cpu", dtype: str | None = None, revision: str | None = None
) -> LanguageModel:
    """`from_pretrained` a causal LM and its tokenizer, once per process and device."""
    return _load(name, True, device, dtype, revision)


def _lm_head(model: torch.nn.Module):
    for attribute in ("cls", "lm_head"):
        head = getattr(model, attribute, None)
        if head is not None:
            return head
    return None


def padded_inputs(lm: LanguageModel, rows: list[list[int]], padding_side: str):
    """Padded ids, attention mask, explicit position ids and each row's offset."""
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    width = int(lengths.max())
    start = width - lengths if padding_side == "left" else np.zeros_like(lengths)
    columns = np.arange(width)[None, :]
    present = (columns >= start[:, None]) & (columns < (start + lengths)[:, None])
    ids = np.full((len(rows), width), lm.pad_id, dtype=np.int64)
    ids[present] = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=lengths.sum())
    position_ids = torch.from_numpy(np.maximum(columns - start[:, None], 0))
    mask = torch.from_numpy(present.astype(np.int64))
    config = lm.model.config
    if config.model_type in _PADDING_OFFSET_POSITIONS:
        pad = config.pad_token_id
        position_ids = (position_ids + pad + 1) * mask + pad * (1 - mask)
    ids = torch.from_numpy(ids)
    return ids.to(lm.device), mask.to(lm.device), position_ids.to(lm.device), start.tolist()


def _autocast(lm: LanguageModel):
    return torch.autocast(lm.device.type, dtype=lm.dtype, enabled=lm.dtype is not None)


def position_scores(
    lm: LanguageModel,
    rows: list[list[int]],
    positions: list[int],
    reduce: Callable[[torch.Tensor, int], list],
    padding_side: str = "right",
    slice_rows: int = 256,
) -> list:
    """Scores at one position per row of a masked LM, via ``reduce(logits, first_row)``.

    The encoder runs once over the padded rows (its last layer, where the architecture allows,
    at the predicted positions only); the LM head then runs on ``slice_rows``
    positions at a time and ``reduce`` turns each fp32 logits slice (rows × vocabulary) into
    what the caller keeps (top-k, a gold log-probability), so memory holds one slice of
    vocabulary-wide logits. Rows are padded on ``padding_side`` with explicit position ids,
    so a row's result does not depend on which rows share its batch.
    """
    ids, mask, position_ids, offsets = padded_inputs(lm, rows, padding_side)
    index = torch.arange(len(rows), device=lm.device)
    at = torch.tensor([o + p for o, p in zip(offsets, positions, strict=True)], device=lm.device)
    head = _lm_head(lm.model)
    inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": position_ids}
    out: list = []
    with torch.inference_mode(), _autocast(lm):
        if head is None:
            logits = lm.model(**inputs).logits[index, at]
            return reduce(logits.float(), 0)
        hidden = states_at(lm.model, inputs, index, at)
        for start in range(0, len(rows), slice_rows):
            out.extend(reduce(head(hidden[start : start + slice_rows]).float(), start))
    return out


def next_token_log_probs(
    lm: LanguageModel, rows: list[list[int]], padding_side: str = "right", slice_rows: int = 1024
) -> list[list[float]]:
    """For each row of a causal LM, log p(token_i | tokens_<i) for i = 1 … n-1 (fp32).

    The states that predict a real next token are gathered from all rows, and the output
    layer runs on ``slice_rows`` of them at a time, so memory holds a slice of the
    vocabulary-sized logits, never rows × L × V.
    """
    ids, mask, position_ids, _ = padded_inputs(lm, rows, padding_side)
    head = lm.model.get_output_embeddings()
    inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": position_ids}
    predicts = (mask[:, :-1] * mask[:, 1:]).bool()  # row-major: row by row, left to right
    with torch.inference_mode(), _autocast(lm):
        states = lm.model.base_model(**inputs).last_hidden_state[:, :-1][predicts]
        targets = ids[:, 1:][predicts]
        scores = [
            log_probs_at(head(states[i : i + slice_rows]).float(), targets[i : i + slice_rows])
            for i in range(0, len(states), slice_rows)
        ]
    flat = torch.cat(scores).tolist() if scores else []
    out, first = [], 0
    for row in rows:
        count = max(0, len(row) - 1)
        out.append(flat[first : first + count])
        first += count
    return out


def log_probs_at(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log-softmax of each row of ``logits`` at its target (the fused log-softmax kernel is
    faster on CPU than a separate logsumexp)."""
    return torch.log_softmax(logits, dim=-1).gather(-1, targets[:, None]).squeeze(-1)
