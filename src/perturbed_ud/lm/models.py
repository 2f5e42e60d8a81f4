"""Loading language models once per (model, device) and scoring only the positions that matter.

Masked LMs: the encoder runs on the whole padded batch (BERT-family last layers only at the
predicted position, see `last_layer`), and the LM head (hidden → vocabulary) runs only on the
one position per row being predicted: rows × V logits, not rows × L × V.
Causal LMs: the head runs over the sequence positions in slices, and only each next token's
log-probability is kept. Log-softmax is always fp32.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np
import torch

from ..errors import InputError
from ..files import file_sha256
from .last_layer import states_at
from .loading import Loading, first_device, with_adapter

# Models whose position ids start after the padding index and are derived from input ids.
_PADDING_OFFSET_POSITIONS = {"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert"}


@dataclass
class LanguageModel:
    name: str
    tokenizer: object
    model: torch.nn.Module
    device: torch.device  # where inputs go: the device of the first layer
    # `--max-tokens auto`: the largest budget that fitted, kept for the next batches
    found_budget: int | None = None

    @property
    def mask_id(self) -> int:
        return self.tokenizer.mask_token_id

    @property
    def pad_id(self) -> int:
        pad = self.tokenizer.pad_token_id
        return pad if pad is not None else 0

    @property
    def max_length(self) -> int:
        return longest_input(self.model.config)


# Where configs keep the longest input, by name (the text model's config of a composite one).
_CONTEXT_ATTRIBUTES = ("max_position_embeddings", "n_positions", "n_ctx", "seq_length")


def longest_input(config) -> int:
    """Longest input the position embeddings cover (RoBERTa-style positions start after the
    padding index); 512 where the config names none."""
    text = config.get_text_config()
    found = (getattr(text, name, None) for name in _CONTEXT_ATTRIBUTES)
    length = int(next((value for value in found if isinstance(value, int)), 512))
    if config.model_type in _PADDING_OFFSET_POSITIONS:
        length -= config.pad_token_id + 1
    return length


def describe_model(
    name: str,
    revision: str | None,
    loading: Loading | None = None,
    kind: str | None = None,
    choosable: bool = True,
) -> dict:
    """What makes two runs comparable: model, revision, tokenizer, the dtype its weights are
    read in, remote code, an adapter and its files (no weights are loaded). Given the
    ``kind`` the run asks for, a model that cannot be read as one (`checked_model`) is
    refused here, before any data is read."""
    from transformers import AutoConfig

    loading = loading or Loading()
    remote = loading.trust_remote_code
    if kind is None:
        config = pretrained(AutoConfig, name, revision, trust_remote_code=remote)
        tokenizer = checked_tokenizer(name, revision, config, remote)
    else:
        config, tokenizer = checked_model(name, revision, kind, choosable, remote)
    identity = {
        "model": name,
        "revision": getattr(config, "_commit_hash", None) or local_revision(name) or revision,
        "model_type": config.model_type,
        "tokenizer": type(tokenizer).__name__,
        "vocab_size": len(tokenizer),
        "dtype": loading.weights_dtype(config),  # the weights', and so the matrix products'
        "trust_remote_code": remote,
    }
    if loading.adapter:  # its files are the model's as much as the base's
        identity["adapter"] = loading.adapter
        identity["adapter_revision"] = local_revision(loading.adapter) or "default"
    return identity


def pretrained(auto, name: str, revision: str | None, **options):
    """``auto.from_pretrained(name)``: a model that is missing, unreachable, damaged or of
    another kind is the user's to fix, so it is an `InputError` naming the model."""
    from safetensors import SafetensorError

    try:
        return auto.from_pretrained(name, revision=revision, **options)
    except SafetensorError as err:
        raise InputError(f"cannot load {name}: {_damaged_weights(name)} ({err})") from err
    except (OSError, ValueError) as err:
        if "trust_remote_code" in str(err) and not options.get("trust_remote_code"):
            raise InputError(
                f"{name} runs code of its own (its config names classes transformers does not "
                "have): add --trust-remote-code if you trust that code"
            ) from err
        raise InputError(_not_loaded(name, err)) from err


def _not_loaded(name: str, err: Exception) -> str:
    """A name that exists nowhere is reported as a missing folder where it can only be a path
    (huggingface_hub would only say that it is not a valid repo id), and as both a missing
    folder and a Hub id where it could be either (``namespace/repo``); on one line."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    err = " ".join(str(err).split())  # the library's lines, as one line of ours
    if Path(name).exists():
        return f"cannot load {name}: {err}"
    try:
        validate_repo_id(name)
    except HFValidationError:
        return f"cannot load {name}: there is no such folder (and it is not a Hub model id)"
    if "/" in name:
        return f"cannot load {name}: there is no such local folder, and as a Hub model id: {err}"
    return f"cannot load {name}: {err}"


def _damaged_weights(name: str) -> str:
    """Which of a local folder's safetensors files are truncated or corrupt (the library's
    error names none); a Hub model's files are in the cache."""
    from safetensors import SafetensorError, safe_open

    folder = Path(name)
    if not folder.is_dir():
        return (
            "a weight file in the Hugging Face cache is damaged: delete the model from the "
            "cache to download it again"
        )
    damaged = []
    for path in sorted(folder.glob("*.safetensors")):
        try:
            with safe_open(path, "pt"):
                pass
        except SafetensorError:
            damaged.append(str(path))
    files = ", ".join(damaged) or f"a .safetensors file in {name}"
    return f"damaged weight file ({files}): copy or download it again"


# The files of a checkpoint folder that decide its scores: weights, and the configuration and
# tokenizer files (JSON, vocabularies, merges, sentencepiece models) read with them.
MODEL_FILES = ("*.safetensors", "*.bin", "*.json", "*.txt", "*.model")


def local_revision(name: str) -> str | None:
    """sha256 of a local checkpoint's files (each name and content), standing in for a Hub
    commit: an edited config or tokenizer is another model, as edited weights are."""
    path = Path(name)
    if not path.is_dir():
        return None
    digest = hashlib.sha256()
    for file in sorted({f for pattern in MODEL_FILES for f in path.glob(pattern) if f.is_file()}):
        digest.update(file.name.encode() + b"\0")
        digest.update(bytes.fromhex(file_sha256(file)))  # streamed: shards may be GBs
    return "sha256:" + digest.hexdigest()[:16]


# Checkpoints may pad their embedding matrix beyond the tokenizer for speed, by a few percent at
# most (Qwen2-7B: 152,064 rows for 151,646 tokens; Phi-3-mini: 32,064 for 32,011); mBERT,
# XLM-R, RoBERTa and GPT-2 have exactly one row per token. A tokenizer that reaches fewer than
# 90 % of the rows belongs to another model, or is what transformers builds from a config alone.
_MIN_ROWS_COVERED = 0.9


def checked_tokenizer(name: str, revision: str | None, config=None, remote_code: bool = False):
    """The tokenizer of ``name``, refused where it cannot be the model's own (``config``, where
    a model is read with it): a mismatched tokenizer does not fail, it makes every score and
    every subword meaningless. Commands that read a tokenizer alone call it without a
    config."""
    from transformers import AutoTokenizer

    tokenizer = pretrained(AutoTokenizer, name, revision, trust_remote_code=remote_code)
    folder = Path(name)
    if folder.is_dir():
        # With none of the files it reads its vocabulary from, transformers builds a tokenizer
        # of special tokens only, and every word becomes unknown.
        files = sorted({"tokenizer.json", *type(tokenizer).vocab_files_names.values()})
        if not any((folder / file).is_file() for file in files):
            raise InputError(
                f"{name} has no tokenizer files (none of {', '.join(files)}): save the model's "
                "tokenizer into that folder (tokenizer.save_pretrained)"
            )
    if config is None:
        return tokenizer
    rows = getattr(config.get_text_config(), "vocab_size", None)
    if rows is None:
        return tokenizer
    size = len(tokenizer)
    if size > rows:
        raise InputError(
            f"{name}: its tokenizer has {size} tokens but the model only {rows} embeddings "
            f"(ids from {rows} on have none): not the model's tokenizer"
        )
    if size < _MIN_ROWS_COVERED * rows:
        raise InputError(
            f"{name}: its tokenizer has {size} tokens for the model's {rows} embeddings "
            f"(fewer than {_MIN_ROWS_COVERED:.0%}): not the model's tokenizer"
        )
    return tokenizer


def model_kind_of(config) -> tuple[str, str] | None:
    """``("masked" | "causal", why)`` for a checkpoint, from its config alone; None where the
    config cannot tell (an encoder-decoder, or a type with neither head).

    A type with only one of the two heads is of that kind. BERT-like types have both
    (``BertLMHeadModel``, ``BertForMaskedLM``), and their attention is causal exactly when
    ``is_decoder`` is set, so that decides: either head on the other attention scores
    nonsense without failing."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    model_type = config.model_type
    causal = model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    masked = model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES
    if causal != masked:
        return ("causal" if causal else "masked"), f"model type {model_type}"
    both = causal and not getattr(config, "is_encoder_decoder", False)
    if both and hasattr(config, "is_decoder"):
        decoder = bool(config.is_decoder)
        return ("causal" if decoder else "masked"), f"{model_type} with is_decoder={decoder}"
    return None


# The transformers class a model of each kind is read as, and what the kind is called.
AUTO_CLASSES = {
    "masked": "AutoModelForMaskedLM",
    "causal": "AutoModelForCausalLM",
    "classifier": "AutoModelForSequenceClassification",
}
KIND_NAMES = {
    "masked": "a masked language model",
    "causal": "a causal language model",
    "classifier": "a sequence classifier",
}


def _architectures(config) -> list[str]:
    return list(getattr(config, "architectures", None) or ())


def is_sequence_classifier(config) -> bool:
    """Whether the config names a sequence-classification architecture (a fine-tuned
    checkpoint records the class it was saved from)."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES,
    )

    known = set(MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES.values())
    named = _architectures(config)
    return any(a in known or a.endswith("ForSequenceClassification") for a in named)


def check_kind(name: str, config, kind: str, choosable: bool) -> None:
    """Refuse a model of another kind than the one asked for (``masked``, ``causal`` or
    ``classifier``), from its config; ``choosable``: the command has a ``--kind`` option to
    name in the message. A sequence classifier read as a language model, or a language model
    read as a classifier, would get a head of random weights and score nonsense without
    failing."""
    architectures = ", ".join(_architectures(config)) or "none named"
    if kind == "classifier":
        _check_classifier(name, config, architectures)
        return
    if is_sequence_classifier(config):
        raise InputError(
            f"{name} is a sequence classifier ({architectures}), not a {kind} language model: "
            f"read as one, its {kind} LM head would be random weights; name a language model "
            "checkpoint (evaluate classify reads sequence classifiers)"
        )
    found = model_kind_of(config)
    if found is None or found[0] == kind:
        return
    actual, why = found
    fix = f"use --kind {actual}" if choosable else f"this task scores {kind} language models only"
    raise InputError(f"{name} is a {actual} language model ({why}), not a {kind} one: {fix}")


def _check_classifier(name: str, config, architectures: str) -> None:
    """A sequence classifier of at least two labels."""
    if not is_sequence_classifier(config):
        raise InputError(
            f"{name} is not a sequence classifier (model type {config.model_type}, "
            f"architectures: {architectures}): `evaluate classify` needs a fine-tuned "
            "AutoModelForSequenceClassification checkpoint"
        )
    if config.num_labels < 2 or getattr(config, "problem_type", None) == "regression":
        raise InputError(
            f"{name} is a regression model ({config.num_labels} output): `evaluate classify` "
            "needs a classifier of at least two labels"
        )


def check_head(name: str, revision: str | None, kind: str, remote_code: bool = False) -> None:
    """Refuse a checkpoint that lacks weights a model of ``kind`` has (the LM head of an
    encoder saved alone, or of a classifier whose config names no architecture): transformers
    would initialise them at random, with a warning only. The model is built on the meta
    device, so the checkpoint's tensor names are read, not its weights."""
    import transformers

    auto = getattr(transformers, AUTO_CLASSES[kind])
    with quiet_libraries():
        _, loading = pretrained(auto, name, revision, device_map="meta", output_loading_info=True,
                                trust_remote_code=remote_code)  # fmt: skip
    missing = sorted(loading["missing_keys"])
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise InputError(
            f"{name} has no weights for {', '.join(missing[:3])}{more}: read as "
            f"{KIND_NAMES[kind]}, they would be random; name a checkpoint saved with that head"
        )


def checked_model(
    name: str, revision: str | None, kind: str, choosable: bool = False, remote_code: bool = False
):
    """The one check of a model before its weights are read, made by every command that
    reads one: that its config is of ``kind`` (`check_kind`), that its tokenizer is its own
    (`checked_tokenizer`; a masked LM's has a mask token), and that the checkpoint holds
    every weight of that kind's model (`check_head`). Returns the config and the
    tokenizer."""
    from transformers import AutoConfig

    config = pretrained(AutoConfig, name, revision, trust_remote_code=remote_code)
    check_kind(name, config, kind, choosable)
    tokenizer = checked_tokenizer(name, revision, config, remote_code)
    if kind == "masked" and tokenizer.mask_token_id is None:
        raise InputError(f"{name} has no mask token: not a masked language model")
    check_head(name, revision, kind, remote_code)
    return config, tokenizer


@contextmanager
def quiet_libraries(quiet: bool = True) -> Iterator[None]:
    """Inside the block, the libraries' own progress bars and info logging ("Loading
    weights", "Generating split") are off: the run's one progress bar says what happens.
    After it, each is as the caller had it."""
    if not quiet:
        yield
        return
    import datasets
    import huggingface_hub
    import transformers
    from huggingface_hub.utils import are_progress_bars_disabled

    before = (
        datasets.logging.get_verbosity(), datasets.is_progress_bar_enabled(),
        transformers.logging.get_verbosity(),
        transformers.utils.logging.is_progress_bar_enabled(), are_progress_bars_disabled(),
    )  # fmt: skip
    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    huggingface_hub.utils.disable_progress_bars()
    try:
        yield
    finally:
        datasets_level, datasets_bars, transformers_level, transformers_bars, hub_off = before
        datasets.logging.set_verbosity(datasets_level)
        if datasets_bars:
            datasets.enable_progress_bars()
        transformers.logging.set_verbosity(transformers_level)
        if transformers_bars:
            transformers.utils.logging.enable_progress_bar()
        if not hub_off:
            huggingface_hub.utils.enable_progress_bars()


_CACHE: dict[tuple, LanguageModel] = {}  # the model last loaded, for the chunks after


def device_for(device: str, rank: int | None) -> str:
    """``cuda`` in a `datasets.map` worker of rank r means GPU r (modulo the GPU count)."""
    if device == "cuda" and torch.cuda.device_count() > 0:
        return f"cuda:{(rank or 0) % torch.cuda.device_count()}"
    return device


def resolved_device(device: str) -> str:
    """``auto``: the GPUs if any are visible (``cuda``: one per worker, or the model sharded
    over them with a device map), else the CPU; any other name as it is."""
    if device != "auto":
        return device
    return "cuda" if torch.cuda.is_available() and torch.cuda.device_count() else "cpu"


def checked_device(device: str) -> torch.device:
    """The device to load onto, checked first: torch reports a device it cannot use with an
    assertion or a CUDA error, and only once the model is loaded."""
    try:
        checked = torch.device(device)
    except RuntimeError as err:
        raise InputError(f"device {device!r}: {err}") from None
    if checked.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            why = (
                f"torch {torch.__version__} is built without CUDA"
                if torch.version.cuda is None
                else "no GPU is visible"
            )
            raise InputError(f"device {device}: CUDA is not available ({why}); use --device cpu")
        if (checked.index or 0) >= count:
            raise InputError(
                f"device {device}: {count} GPU(s) visible (cuda:0 to cuda:{count - 1})"
            )
    return checked


def cached_model(
    name: str,
    kind: str,
    device: str,
    loading: Loading | None,
    revision: str | None,
    choosable: bool = False,
    complete_tokenizer: Callable = lambda tokenizer, config: None,
) -> LanguageModel:
    """`from_pretrained` a model of ``kind`` and its tokenizer as ``loading`` says, kept for
    the calls after it until another model is asked for. The device and the model
    (`checked_model`) are checked before the weights are read; ``complete_tokenizer`` may add
    what the tokenizer lacks. With a device map, accelerate places the weights (over the
    GPUs, CPU memory and disk) and inputs go to the device of the first layer."""
    loading = loading or Loading()
    key = (name, kind, device, loading, revision)
    if key not in _CACHE:
        import transformers

        _CACHE.clear()  # one model per process: a run reads one, and a worker keeps it
        checked = checked_device(device)
        remote = loading.trust_remote_code
        config, tokenizer = checked_model(name, revision, kind, choosable, remote)
        complete_tokenizer(tokenizer, config)
        auto = getattr(transformers, AUTO_CLASSES[kind])
        model = pretrained(auto, name, revision, **loading.options(config, str(checked)))
        if loading.adapter:
            model = with_adapter(model, loading.adapter)
        if loading.device_map is None:
            model.to(checked)
        model.eval()
        where = checked if loading.device_map is None else first_device(model)
        _CACHE[key] = LanguageModel(name, tokenizer, model, where)
    return _CACHE[key]


def ran_with() -> dict:
    """What the model this process loaded ran as: device, dtype of its weights and of its
    matrix products, its class and its tokenizer's ({} where none was loaded). Recorded from
    the process that scored, not from what was asked."""
    if not _CACHE:
        return {}
    lm = next(iter(_CACHE.values()))
    sizes: dict[str, int] = {}  # a model may keep some modules in fp32: the dtype of most
    for parameter in lm.model.parameters():
        name = str(parameter.dtype).removeprefix("torch.")
        sizes[name] = sizes.get(name, 0) + parameter.numel()
    weights = max(sizes, key=sizes.get)
    placed = getattr(lm.model, "hf_device_map", None)
    return {
        "device": str(lm.device),
        "device_map": sorted({str(d) for d in placed.values()}) if placed else None,
        "dtype": weights,
        "model_class": type(lm.model).__name__,
        "tokenizer": type(lm.tokenizer).__name__,
        "max_tokens": lm.found_budget,
    }


def load_masked_lm(
    name: str, device: str = "cpu", loading: Loading | None = None, revision: str | None = None
) -> LanguageModel:
    """`from_pretrained` a masked LM and its tokenizer, once per process and device."""
    return cached_model(name, "masked", device, loading, revision)


MODEL_KINDS = ("masked", "causal")


def load_lm(kind: str, name: str, device: str, loading: Loading | None, revision: str | None):
    """A masked or a causal LM, by kind (a command's ``--kind``)."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"model kind must be one of {MODEL_KINDS}, not {kind!r}")
    return cached_model(name, kind, device, loading, revision, choosable=True)


def load_causal_lm(
    name: str, device: str = "cpu", loading: Loading | None = None, revision: str | None = None
) -> LanguageModel:
    """`from_pretrained` a causal LM and its tokenizer, once per process and device."""
    return cached_model(name, "causal", device, loading, revision)


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
    with torch.inference_mode():
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

    The model reads each row but its last token (which predicts nothing), so a row may be one
    token longer than the model's positions, as in lm-evaluation-harness. The states of every
    position read are gathered from all rows, and the output layer runs on ``slice_rows`` of
    them at a time, so memory holds a slice of the vocabulary-sized logits, never
    rows × L × V.
    """
    if all(len(row) < 2 for row in rows):  # nothing to predict: the model is not run
        return [[] for _ in rows]
    read = [row[:-1] or row or [lm.pad_id] for row in rows]  # a row of < 2 predicts nothing
    ids, mask, position_ids, _ = padded_inputs(lm, read, padding_side)
    head = lm.model.get_output_embeddings()
    inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": position_ids}
    targets = torch.tensor([t for row in rows for t in row[1:]], device=lm.device)
    predicts = mask.bool()  # row-major: row by row, left to right
    predicts[[r for r, row in enumerate(rows) if len(row) < 2]] = False
    with torch.inference_mode():
        states = lm.model.base_model(**inputs).last_hidden_state[predicts]
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


def word_states(
    lm: LanguageModel,
    rows: list[list[int]],
    word_ids: list[list[int | None]],
    n_words: list[int],
    padding_side: str = "right",
) -> list[torch.Tensor]:
    """Every layer's state of each UD word, the mean of its pieces' states (fp32), per row:
    (layers + 1, words, hidden); layer 0 is the embeddings. ``word_ids`` gives each
    piece's word (None for special tokens); a word without pieces gets zeros."""
    ids, mask, position_ids, offsets = padded_inputs(lm, rows, padding_side)
    inputs = {"input_ids": ids, "attention_mask": mask, "position_ids": position_ids}
    with torch.inference_mode():
        hidden = lm.model.base_model(**inputs, output_hidden_states=True).hidden_states
    stacked = torch.stack(hidden, dim=1).float()  # rows × layers × positions × hidden
    out = []
    for r, (words, offset, n) in enumerate(zip(word_ids, offsets, n_words, strict=True)):
        index = torch.tensor([n if w is None else w for w in words], device=stacked.device)
        states = stacked[r, :, offset : offset + len(words)]
        layers, _, width = states.shape
        sums = states.new_zeros(layers, n + 1, width).index_add_(1, index, states)
        counts = torch.bincount(index, minlength=n + 1)[:n].clamp(min=1)
        out.append((sums[:, :n] / counts[None, :, None]).cpu())
    return out


def log_probs_at(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log-softmax of each row of ``logits`` at its target (the fused log-softmax kernel is
    faster on CPU than a separate logsumexp)."""
    return torch.log_softmax(logits, dim=-1).gather(-1, targets[:, None]).squeeze(-1)
