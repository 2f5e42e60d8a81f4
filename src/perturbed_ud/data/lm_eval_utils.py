"""The ``utils.py`` of a task folder written by `lm_eval_tasks`: what its tasks' ``!function``
tags name. It needs only ``datasets``.

``load_data`` reads a task's split from the Parquet copies in ``data/`` beside this file, so
the folder works wherever it is moved, and leaves out the rows the folder was told a model
cannot read whole (``--max-length-of``: their keys are in the task's ``dataset_kwargs``).

``process_docs`` makes orig-vs-perturbed documents for a perturbed-ud dataset. The harness
hands it one split, but a sentence's original and perturbed orders live in two (``orig`` and
``full``, or ``orig_lemma`` and ``full_lemma``), so each task loads both into one split and
this pairs every perturbed row with the reference row of the same sentence (treebank and
sent_id). Both choices are rendered from the rows' words (``perturbed_text``), so they hold the
same words and differ only in order.
"""

from pathlib import Path

from datasets import Dataset, DatasetDict, load_dataset


def load_data(data_files: dict, leave_out: dict | None = None, **_metadata) -> DatasetDict:
    """The task's splits from the copies in ``data/`` (``data_files``: file names by split);
    without the rows whose ``leave_out["columns"]`` values, joined by tabs, are among its
    ``keys``. The harness passes the task's metadata too, which this does not need."""
    folder = Path(__file__).parent / "data"
    files = {split: [str(folder / name) for name in names] for split, names in data_files.items()}
    dataset = load_dataset("parquet", data_files=files)
    if not leave_out:
        return dataset
    columns, keys = leave_out["columns"], set(leave_out["keys"])
    return dataset.filter(lambda row: "\t".join(str(row[c]) for c in columns) not in keys)


REFERENCES = ("orig", "orig_lemma")  # the unscrambled conditions
COLUMNS = ["item_id", "treebank", "sent_id", "condition", "perturbed_text"]


def process_docs(dataset: Dataset) -> Dataset:
    """One document per perturbed row, in the split's order: its sentence in the reference
    order and in the perturbed order, as ``choices`` (the reference first, the gold)."""
    references, perturbed = {}, []
    for row in dataset.select_columns(COLUMNS).to_list():
        key = (row["treebank"], row["sent_id"])
        if row["condition"] not in REFERENCES:
            perturbed.append(row)
        elif key in references:
            raise ValueError(f"two reference rows for sentence {key}")
        else:
            references[key] = row
    docs = []
    for row in perturbed:
        key = (row["treebank"], row["sent_id"])
        if key not in references:
            raise ValueError(f"no reference row for {row['condition']} sentence {key}")
        original = references[key]["perturbed_text"]
        docs.append(
            {
                "item_id": row["item_id"],
                "sent_id": row["sent_id"],
                "condition": row["condition"],
                "orig_text": original,
                "perturbed_text": row["perturbed_text"],
                "choices": [original, row["perturbed_text"]],
            }
        )
    return Dataset.from_list(docs)
