"""Balanced subsets: the items a given tokenizer can score in every condition of a config.

Which targets exceed the span cap depends on the tokenizer (a form and its lemma split
differently), so a balanced subset is model-specific and lives beside the base dataset, as a
dataset folder of its own with the same configs, ready for ``push``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from datasets import Features

from ..builders.family import config_id
from ..data.card import write_card
from ..data.writer import ParquetSplitWriter, atomic_folder, content_hash, split_files
from ..errors import InputError
from ..lm.masking import span_problem, target_pieces
from ..registry import FAMILIES
from .datasets_io import require_columns

# What balancing reads: the items of `evaluate masked-word`.
BALANCED_COLUMNS = ("item_id", "words", "target_index")


def _problems(tokenizer, table, scoring: str, cap: int) -> dict[str, str]:
    """item_id -> reason, for the items of one split that cannot be scored."""
    problems = {}
    columns = table.select(list(BALANCED_COLUMNS)).to_pylist()
    for row in columns:
        _, span = target_pieces(tokenizer, row["words"], row["target_index"], scoring)
        problem = span_problem(span, cap)
        if problem:
            problems.setdefault(row["item_id"], problem)
    return problems


def balance_dataset(
    dataset: str | Path,
    tokenizer_name: str,
    out: str | Path,
    *,
    max_span_pieces: int = 6,
    scoring: str = "paper",
    revision: str | None = None,
    overwrite: bool = False,
) -> Path:
    """Write ``out``: every config of ``dataset`` restricted to the items valid in all its
    splits under the tokenizer's span cap; the manifest records what was dropped and why."""
    from transformers import AutoTokenizer

    from ..lm.models import pretrained

    source = Path(dataset)
    if not (source / "build.json").is_file():
        raise InputError(f"{source} has no build.json: build it with `perturbed-ud build`")
    try:
        manifest = json.loads((source / "build.json").read_text(encoding="utf-8"))
    except ValueError as err:
        raise InputError(f"{source / 'build.json'} is not valid JSON: {err}") from None
    tokenizer = pretrained(AutoTokenizer, tokenizer_name, revision)
    final = Path(out)
    with atomic_folder(final, overwrite=overwrite) as root:
        writer = None
        for name, config in manifest["configs"].items():
            tables = {
                s: pa.concat_tables(pq.read_table(f) for f in split_files(source, name, s))
                for s in config["splits"]
            }
            dropped: dict[str, str] = {}
            for split, table in tables.items():
                where = f"split {split!r} of config {name!r} of {source}"  # spud, clams: refused
                require_columns(table.column_names, BALANCED_COLUMNS, "balance", where)
                for item, reason in _problems(tokenizer, table, scoring, max_span_pieces).items():
                    dropped.setdefault(item, reason)
            if writer is None:
                schema = next(iter(tables.values())).schema
                writer = ParquetSplitWriter(root, Features.from_arrow_schema(schema))
            dropped_ids = pa.array(sorted(dropped), type=pa.string())
            config["splits"] = {}
            for split, table in tables.items():
                kept = table.filter(pc.invert(pc.is_in(table["item_id"], value_set=dropped_ids)))
                if kept.num_rows:  # an empty split would break its whole config
                    writer.write(name, split, kept)
                    config["splits"][split] = kept.num_rows
            config["row_drops"] = dict(config["row_drops"]) | {
                f"balance:{reason}": n for reason, n in sorted(Counter(dropped.values()).items())
            }
        if writer is not None:
            writer.close()
        manifest["configs"] = {n: c for n, c in manifest["configs"].items() if c["splits"]}
        if not manifest["configs"]:
            raise InputError(f"no item of {source} is scorable under {tokenizer_name}")
        manifest["balanced"] = {
            "tokenizer": tokenizer_name,
            "revision": revision,
            "max_span_pieces": max_span_pieces,
            "scoring": scoring,
            "source_signature": manifest["signature"],
        }
        manifest["signature"] += f"|balanced:{tokenizer_name}@{revision}:cap{max_span_pieces}"
        manifest["config_id"] = config_id(manifest["signature"])
        manifest["content_sha256"] = content_hash(root)
        description = (
            f"Balanced subset of `{manifest['dataset']}` for the tokenizer `{tokenizer_name}`: "
            f"only items whose target has 1 to {max_span_pieces} pieces in every split of "
            "the config are kept (drops are listed per config below).\n"
        )
        family = FAMILIES.get(manifest["dataset"])
        write_card(root, manifest, description, family.card_text(manifest))
    return final
