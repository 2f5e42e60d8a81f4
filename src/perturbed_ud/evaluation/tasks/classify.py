"""The ``classify`` task: a fine-tuned sequence classifier on perturbed texts (Clouâtre et al.
2022, local_structure datasets).

Every split of every config is one perturbation setting; the classifier reads its text column
(single texts) or two text columns (text pairs, as NLI premise and hypothesis) and its
prediction is compared with the label column. Per config and setting: accuracy with a Wilson
95 % interval, and the mean chrF, IDC and compression of the texts it read (averaged over the
text columns). Across settings: Spearman's ρ of accuracy with each measure, per language and
per script, and the paper's figures of accuracy against chrF and against IDC.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from ...errors import InputError
from ...files import atomic_path
from ...lm.batching import BatchSettings, initial_budget, plan_batches
from ...lm.loading import Loading
from ...lm.models import LanguageModel, cached_model, checked_model, device_for
from ...registry import TASKS
from ..finetune import check_columns, label_column_setting, row_texts, text_columns_setting
from ..measures.structure_measures import (
    CORRELATION_KEYS,
    SETTING_KEYS,
    setting_rows,
    write_comparison,
)
from ..reporting.statistics import WILSON, wilson_interval
from ..reporting.tables import write_table
from ..running.datasets_io import config_names, dataset_content, load_config
from ..running.runner import records
from ..running.task import EvaluationTask, Outputs, Scored


@dataclass(frozen=True, kw_only=True)
class ClassifySettings(BatchSettings):
    text_columns: tuple[str, ...] = text_columns_setting()
    label_column: str = label_column_setting()

    def __post_init__(self):
        super().__post_init__()
        check_columns(self)


def _pad_token(tokenizer, config) -> None:
    """A tokenizer without a pad token takes the config's, so that texts can be batched."""
    if tokenizer.pad_token_id is None and config.pad_token_id is not None:
        tokenizer.pad_token = tokenizer.convert_ids_to_tokens(config.pad_token_id)


def load_classifier(
    name: str, device: str, loading: Loading | None, revision: str | None
) -> LanguageModel:
    """`from_pretrained` a sequence classifier and its tokenizer, once per process and device;
    its config and tokenizer are checked before the weights are read."""
    return cached_model(name, "classifier", device, loading, revision,
                        complete_tokenizer=_pad_token)  # fmt: skip


def check_label_names(dataset, configs, dataset_revision, column: str, name: str, config):
    """Refuse a ClassLabel column whose class names are not the model's labels in the same
    order (an NLI set ordered entailment, neutral, contradiction against a model fine-tuned
    the other way round): ids that mean different classes would be compared. A model whose
    labels are unnamed (LABEL_0, ...) cannot be checked. The first config's features come
    from its card where it records them (every build here does), so no data is read or
    hashed before the run; otherwise from its data."""
    from datasets import ClassLabel, load_dataset_builder

    first = (configs or config_names(dataset, dataset_revision))[0]
    features = load_dataset_builder(dataset, first, revision=dataset_revision).info.features
    if features is None:
        splits = load_config(dataset, first, dataset_revision, dataset_content(dataset))
        features = next(iter(splits.values())).features
    feature = features.get(column)
    id2label = config.id2label
    labels = [str(id2label[i]) for i in sorted(id2label)]
    if not isinstance(feature, ClassLabel) or all(re.fullmatch(r"LABEL_\d+", x) for x in labels):
        return
    if [n.lower() for n in feature.names] != [x.lower() for x in labels]:
        raise InputError(
            f"label column {column} names its classes {', '.join(feature.names)}, but the "
            f"labels of {name} are {', '.join(labels)}: their ids would mean different classes"
        )


def checked_labels(values: list, num_labels: int, column: str, name: str) -> list[int]:
    """The labels as label ids of the model: ints in [0, num_labels)."""
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InputError(
                f"label column {column}: {value!r} is not a label id (an int); `evaluate "
                "classify` compares the model's label ids with the data's"
            )
        if not 0 <= value < num_labels:
            raise InputError(
                f"label column {column}: label {value} is outside the {num_labels} labels of "
                f"{name} (0 to {num_labels - 1}); unlabelled rows (-1) cannot be scored"
            )
    return [int(v) for v in values]


def classify_texts(lm: LanguageModel, texts: list[tuple[str, ...]], settings: ClassifySettings):
    """Logits and token counts of each text (or pair), batched by the token budget; texts
    longer than the model allows are truncated (and said to be)."""
    tokenizer = lm.tokenizer
    encoded = [tokenizer(*text, truncation=True, max_length=lm.max_length) for text in texts]
    full = [len(tokenizer(*text)["input_ids"]) for text in texts]
    lengths = [len(e["input_ids"]) for e in encoded]
    rows = settings.max_rows if tokenizer.pad_token_id is not None else 1
    logits: list = [None] * len(texts)
    budget = initial_budget(lm) if settings.max_tokens == "auto" else settings.max_tokens
    for batch in plan_batches(lengths, budget, rows):
        tokenizer.padding_side = settings.padding_side
        inputs = tokenizer.pad([encoded[i] for i in batch], return_tensors="pt")
        inputs = {k: v.to(lm.device) for k, v in inputs.items()}
        with torch.inference_mode():
            out = lm.model(**inputs).logits.float().cpu()
        for i, row in zip(batch, out, strict=True):
            logits[i] = row.tolist()
    return logits, lengths, [f > n for f, n in zip(full, lengths, strict=True)]


def classify_batch(batch, rank=None, *, model: str, revision, device: str, settings: dict):
    """`datasets.map` function: the classifier's logits, prediction and correctness per row."""
    options = ClassifySettings(**settings)
    lm = load_classifier(model, device_for(device, rank), options.loading(), revision)
    labels = checked_labels(
        batch[options.label_column], lm.model.config.num_labels, options.label_column, model
    )
    texts = row_texts([batch[c] for c in options.text_columns])
    logits, n_tokens, truncated = classify_texts(lm, texts, options)
    predictions = [int(np.argmax(row)) for row in logits]
    return {
        "logits": logits,
        "prediction": predictions,
        "correct": [p == y for p, y in zip(predictions, labels, strict=True)],
        "n_tokens": n_tokens,
        "truncated": truncated,
    }


def setting_table(scored: pd.DataFrame, model_name: str, text_columns) -> pd.DataFrame:
    """Per setting: accuracy with its Wilson interval, beside the setting's measures."""

    def accuracy(group: pd.DataFrame) -> dict:
        n, correct = len(group), int(group["correct"].sum())
        lo, hi = wilson_interval(correct / n, n) if n else (float("nan"),) * 2
        return {"model_name": model_name, "N": n, "correct": correct,
                "accuracy": correct / n if n else float("nan"), "accuracy_lo": float(lo),
                "accuracy_hi": float(hi), "truncated": int(group["truncated"].sum())}  # fmt: skip

    return setting_rows(scored, text_columns, accuracy).assign(interval=WILSON)


@TASKS.register("classify.v1")
class Classify(EvaluationTask):
    """Accuracy of a fine-tuned sequence classifier on every setting (local_structure), its
    Spearman correlations with chrF, IDC and compression, and accuracy-vs-chrF/IDC figures."""

    name = "classify"
    version = "1.0.0"
    settings_class = ClassifySettings
    score = staticmethod(classify_batch)
    kinds = ()  # a sequence classifier, checked by `check_model`
    key_columns = (*SETTING_KEYS, *CORRELATION_KEYS)

    @classmethod
    def columns(cls, settings: ClassifySettings) -> tuple[str, ...]:
        return (*settings.text_columns, settings.label_column)

    @classmethod
    def check_model(cls, model, revision, dataset, settings, configs, dataset_revision) -> None:
        """The checkpoint is a sequence classifier (`checked_model`) whose labels are the
        dataset's classes."""
        config, _ = checked_model(model, revision, "classifier",
                                  remote_code=settings.trust_remote_code)  # fmt: skip
        check_label_names(dataset, configs, dataset_revision, settings.label_column, model, config)

    @classmethod
    def outputs(cls, scored: Scored) -> Outputs:
        """Per-row predictions, accuracy per config and setting, its Spearman correlations
        with chrF, IDC and compression, and the figures."""
        rows, run, model = scored.rows, scored.folder, scored.model
        with atomic_path(run / "predictions.parquet") as tmp:
            rows.to_parquet(tmp, index=False)
        table = setting_table(rows, model, scored.settings.text_columns)
        write_table(table, run / "classify_accuracy.csv", markdown=True)
        correlations = write_comparison(table, "accuracy", model, run)
        metrics = {"accuracy": records(table), "correlations": records(correlations)}
        counts = {"rows": len(rows), "truncated": int(rows["truncated"].sum())}
        return Outputs(metrics, table, counts)
