"""Loading masked LMs once per (model, device) and scoring only the positions that matter.

The encoder runs on the whole padded batch, but the LM head (hidden → vocabulary) runs only
on the one position per row being predicted: rows × V logits instead of rows × L × V.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import torch

# Models whose position ids start after the padding index and are derived from input ids.
_PADDING_OFFSET_POSITIONS = {"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert"}


@dataclass
class MaskedLM:
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

    config = AutoConfig.from_pretrained(name, revision=revision)
    tokenizer = AutoTokenizer.from_pretrained(name, revision=revision)
    return {
        "model": name,
        "revision": getattr(config, "_commit_hash", None) or _local_revision(name) or revision,
        "model_type": config.model_type,
        "tokenizer": type(tokenizer).__name__,
        "vocab_size": len(tokenizer),
        "dtype": dtype or "float32",
    }


def _local_revision(name: str) -> str | None:
    """sha256 of a local checkpoint's weight files, standing in for a Hub commit."""
    path = Path(name)
    if not path.is_dir():
        return None
    digest = hashlib.sha256()
    for weights in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        digest.update(weights.read_bytes())
    return "sha256:" + digest.hexdigest()[:16]


_CACHE: dict[tuple, MaskedLM] = {}


def load_masked_lm(
    name: str, device: str = "cpu", dtype: str | None = None, revision: str | None = None
) -> MaskedLM:
    """`from_pretrained` a masked LM and its tokenizer, once per process and device."""
    key = (name, device, dtype, revision)
    if key not in _CACHE:
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(name, revision=revision)
        if tokenizer.mask_token_id is None:
            raise ValueError(f"{name} has no mask token: not a masked language model")
        model = AutoModelForMaskedLM.from_pretrained(name, revision=revision)
        model.to(device).eval()
        autocast = {"bf16": torch.bfloat16, "fp16": torch.float16, None: None}[dtype]
        _CACHE[key] = MaskedLM(name, tokenizer, model, torch.device(device), autocast)
    return _CACHE[key]


def _lm_head(model: torch.nn.Module):
    for attribute in ("cls", "lm_head"):
        head = getattr(model, attribute, None)
        if head is not None:
            return head
    return None


def position_log_probs(
    lm: MaskedLM, rows: list[list[int]], positions: list[int], padding_side: str = "right"
) -> torch.Tensor:
    """Log-probabilities (fp32, rows × vocabulary) at one position per row.

    Rows are padded to a common length on ``padding_side`` with explicit position ids, so a
    row's result does not depend on which rows share its batch.
    """
    length = max(map(len, rows))
    ids = torch.full((len(rows), length), lm.pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), length), dtype=torch.long)
    at = []
    for r, (row, position) in enumerate(zip(rows, positions, strict=True)):
        offset = length - len(row) if padding_side == "left" else 0
        ids[r, offset : offset + len(row)] = torch.tensor(row)
        mask[r, offset : offset + len(row)] = 1
        at.append(offset + position)
    position_ids = (mask.cumsum(-1) - 1).clamp(min=0)
    config = lm.model.config
    if config.model_type in _PADDING_OFFSET_POSITIONS:
        position_ids = (position_ids + config.pad_token_id + 1) * mask + config.pad_token_id * (
            1 - mask
        )
    ids, mask, position_ids = (t.to(lm.device) for t in (ids, mask, position_ids))
    index = torch.arange(len(rows), device=lm.device)
    at = torch.tensor(at, device=lm.device)
    head = _lm_head(lm.model)
    with (
        torch.inference_mode(),
        torch.autocast(lm.device.type, dtype=lm.dtype, enabled=lm.dtype is not None),
    ):
        if head is None:
            logits = lm.model(input_ids=ids, attention_mask=mask, position_ids=position_ids).logits[
                index, at
            ]
        else:
            hidden = lm.model.base_model(
                input_ids=ids, attention_mask=mask, position_ids=position_ids
            ).last_hidden_state
            logits = head(hidden[index, at])
    return torch.log_softmax(logits.float(), dim=-1)
