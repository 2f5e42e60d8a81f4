"""Orig-vs-perturbed documents for lm-evaluation-harness tasks over a perturbed-ud dataset.

The harness hands ``process_docs`` one split, but a sentence's original and perturbed orders
live in two (``orig`` and ``full``, or ``orig_lemma`` and ``full_lemma``), so each task loads
both into one split (its ``dataset_kwargs: data_files``) and this pairs every perturbed row
with the reference row of the same sentence (treebank and sent_id). Both choices are rendered
from the rows' words (``perturbed_text``), so they hold the same words and differ only in
order. Written beside the task YAML as ``utils.py``; it needs only ``datasets``.
"""

from datasets import Dataset

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
