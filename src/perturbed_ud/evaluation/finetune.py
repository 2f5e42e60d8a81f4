"""Fine-tuning a sequence classifier for `evaluate classify`: the first half of Clouâtre et al.
(2022), who fine-tune a model on a task and then test it on perturbed copies of its test set.

A plain training loop (AdamW, linear decay, as `transformers.Trainer` does by default) over
one split of a Hugging Face dataset, without `accelerate`: on CPU the same seed gives the
same weights. The model and its tokenizer are saved with `save_pretrained`, the dataset's
class names as the model's labels, so that `classify` checks them against the data it reads.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import InputError
from ..files import guard_output, write_text
from ..settings import check_declared, setting

# Marks a folder written here: --overwrite replaces only such folders.
RECORD = "finetune.json"


def text_columns_setting():
    """The columns a classifier reads, the same for fine-tuning and for `classify`."""
    return setting(
        "The text column (single texts) or two (text pairs: premise,hypothesis).",
        default=("text",),
    )


def label_column_setting():
    """The column of the classes, the same for fine-tuning and for `classify`."""
    return setting(
        "Label ids (ints from 0, or a ClassLabel) of the classifier's labels.", default="label"
    )


def row_texts(columns: list[list]) -> list[tuple[str, ...]]:
    """Each row's text (or text pair) from its columns, a missing text as empty: what a
    classifier reads, the same in fine-tuning and in `classify`."""
    return [tuple("" if t is None else str(t) for t in row) for row in zip(*columns, strict=True)]


def check_columns(settings) -> None:
    """One text column or two different ones, and a label column that is neither; the text
    columns made a tuple (the Python API may give a list)."""
    object.__setattr__(settings, "text_columns", tuple(settings.text_columns))
    columns = settings.text_columns
    if len(columns) not in (1, 2) or len(set(columns)) != len(columns):
        raise InputError(
            f"--text-columns names one column (single texts) or two different ones (text "
            f"pairs), not {','.join(columns) or 'none'}"
        )
    if settings.label_column in columns:
        raise InputError(f"the label column {settings.label_column} is also a text column")


@dataclass(frozen=True, kw_only=True)
class FinetuneSettings:
    """What the classifier is trained on and how."""

    dataset_config: str | None = setting("The dataset's configuration.", default=None)
    split: str = setting("The split trained on.", default="train")
    text_columns: tuple[str, ...] = text_columns_setting()
    label_column: str = label_column_setting()
    seed: int = setting("Seed of the new head's weights, dropout and the order of rows.",
                        default=1)  # fmt: skip
    epochs: int = setting("Passes over the split.", default=3, minimum=1)
    learning_rate: float = setting("AdamW's peak learning rate, decaying linearly to 0.",
                                   default=2e-5)  # fmt: skip
    batch_size: int = setting("Rows per training step.", default=16, minimum=1)
    max_length: int = setting("Tokens kept of each text (or pair); longer ones are cut.",
                              default=128, minimum=1)  # fmt: skip

    def __post_init__(self):
        check_declared(self)
        check_columns(self)
        if not self.learning_rate > 0:
            raise InputError(f"--learning-rate must be above 0, not {self.learning_rate}")


@dataclass(frozen=True)
class TrainingData:
    """The rows of the split: their texts (or pairs), label ids and class names."""

    texts: list[tuple[str, ...]]
    labels: list[int]
    names: list[str] | None  # a ClassLabel's names; None for plain ints


def label_names(ds, column: str) -> tuple[list[int], list[str] | None]:
    """Label ids and, for a ClassLabel column, its class names; unlabelled rows (-1), strings
    and any other value are refused, since a classifier predicts ids from 0."""
    from datasets import ClassLabel

    if column not in ds.features:
        raise InputError(f"no label column {column!r} (the columns are {', '.join(ds.features)})")
    feature = ds.features[column]
    values = ds[column]
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(
                f"label column {column}: {value!r} is not a label id (an int from 0; a "
                "ClassLabel column's ids with its names)"
            )
    return list(values), feature.names if isinstance(feature, ClassLabel) else None


def training_data(dataset: str, settings: FinetuneSettings) -> TrainingData:
    """The split read as `build local_structure --hf-dataset` reads it, its text columns
    checked."""
    from ..data.local_folder import load_source

    ds = load_source(dataset, settings.dataset_config, settings.split)
    for column in settings.text_columns:
        if column not in ds.features:
            have = ", ".join(ds.features)
            raise InputError(f"{dataset} has no text column {column!r} (it has {have})")
    labels, names = label_names(ds, settings.label_column)
    texts = row_texts([ds[c] for c in settings.text_columns])
    return TrainingData(texts, labels, names)


def new_classifier(model: str, data: TrainingData, tokenizer):
    """The base model with a sequence-classification head of the data's labels (a new head
    where the checkpoint has another); a tokenizer without a pad token pads with its end of
    text, as GPT-2's does, and the model is told which id that is."""
    from transformers import AutoModelForSequenceClassification

    from ..lm.models import pretrained

    count = len(data.names) if data.names else max(data.labels) + 1
    named = {"id2label": dict(enumerate(data.names))} if data.names else {}
    classifier = pretrained(
        AutoModelForSequenceClassification, model, None,
        num_labels=count, ignore_mismatched_sizes=True, **named,
    )  # fmt: skip
    if named:
        classifier.config.label2id = {name: i for i, name in enumerate(data.names)}
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is None:
            raise InputError(f"the tokenizer of {model} has neither a pad nor an end token")
        tokenizer.pad_token = tokenizer.eos_token
    classifier.config.pad_token_id = tokenizer.pad_token_id
    return classifier


def encoded(classifier, tokenizer, data: TrainingData, settings: FinetuneSettings) -> list:
    """Each text (or pair) tokenised as `classify` tokenises it, cut at --max-length or at
    the longest input the model's positions cover."""
    from ..lm.models import longest_input

    length = min(settings.max_length, longest_input(classifier.config))
    return [tokenizer(*text, truncation=True, max_length=length) for text in data.texts]


def train(classifier, tokenizer, data: TrainingData, settings: FinetuneSettings, device):
    """Fine-tune in place; the mean loss of each epoch."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    rows_encoded = encoded(classifier, tokenizer, data, settings)
    order = torch.Generator().manual_seed(settings.seed)
    steps = settings.epochs * math.ceil(len(data.labels) / settings.batch_size)
    optimizer = torch.optim.AdamW(classifier.parameters(), lr=settings.learning_rate)
    schedule = get_linear_schedule_with_warmup(optimizer, 0, steps)
    classifier.to(device).train()
    losses = []
    for _ in range(settings.epochs):
        rows = torch.randperm(len(data.labels), generator=order).tolist()
        total = 0.0
        for start in range(0, len(rows), settings.batch_size):
            batch = rows[start : start + settings.batch_size]
            inputs = tokenizer.pad([rows_encoded[i] for i in batch], return_tensors="pt")
            labels = torch.tensor([data.labels[i] for i in batch])
            inputs = {k: v.to(device) for k, v in inputs.items()}
            loss = classifier(**inputs, labels=labels.to(device)).loss
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            total += loss.item() * len(batch)
        losses.append(total / len(rows))
    return losses


def finetune_classifier(
    dataset: str,
    model: str,
    out: str | Path,
    settings: FinetuneSettings | None = None,
    *,
    device: str = "cpu",
    overwrite: bool = False,
) -> Path:
    """Fine-tune ``model`` (a Hub id or folder) as a sequence classifier on a split of
    ``dataset`` and save it with its tokenizer into ``out``; return ``out``. Everything is
    read and checked before ``out`` is made, and ``out`` appears only once it is whole."""
    import torch

    from ..data.writer import atomic_folder
    from ..lm.models import checked_device, checked_tokenizer

    settings = settings or FinetuneSettings()
    out = guard_output(out, [dataset, model], replaced_whole=True)
    where = checked_device(device)
    tokenizer = checked_tokenizer(model, None)
    data = training_data(dataset, settings)
    torch.manual_seed(settings.seed)
    classifier = new_classifier(model, data, tokenizer)
    with atomic_folder(out, overwrite=overwrite, marker=RECORD) as folder:
        losses = train(classifier, tokenizer, data, settings, where)
        classifier.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        record = {"model": model, "dataset": dataset, **asdict(settings),
                  "rows": len(data.labels), "loss_per_epoch": losses}  # fmt: skip
        write_text(folder / RECORD, json.dumps(record, indent=2) + "\n")
    return out
