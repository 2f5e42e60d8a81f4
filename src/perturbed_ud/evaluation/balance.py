"""Balanced subsets: the items a given tokenizer can score in every condition of a config.

Which targets exceed the span cap depends on the tokenizer (a form and its lemma split
differently), so a balanced subset is model-specific and lives beside the base dataset, as a
dataset folder of its own with the same configs, ready for ``push``. It is built by the one
engine (`builders.engine.write_dataset`) from `Balanced`, a family derived from the built
dataset. It lives here, above the builders, because what it keeps is decided by the
masked-word task: its columns, scoring modes and span cap.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from datasets import Features

from ..builders.engine import write_dataset
from ..builders.family import DatasetFamily
from ..data.card import CardText
from ..data.writer import ParquetSplitWriter, read_build_manifest, split_files
from ..errors import InputError
from ..lm.masking import span_problem, target_pieces
from ..options import published_name
from ..registry import manifest_family
from .running.datasets_io import require_columns

# What balancing reads: the items of `evaluate masked-word`.
BALANCED_COLUMNS = ("item_id", "words", "target_index")


@dataclass(frozen=True)
class BalanceSettings:
    """What a balanced subset adds to its source; its version is the source's."""

    version: str
    tokenizer: str
    revision: str | None
    max_span_pieces: int
    scoring: str


class Balanced(DatasetFamily):
    """The balanced subset of a built dataset, as a family the engine runs.

    It is derived, not registered: it keeps the source's names, version, features (read from
    its Parquet files), conditions and card sections, so the subset reads like its source
    wherever a dataset is read, and only its signature and ``balanced`` record tell them
    apart. Each job is one source config: its splits are read, the items that cannot be
    scored in some split dropped from all, the kept rows written. The manifest entries are
    the source's, each config with its kept ``splits`` and its ``balance:`` row drops (a
    config left with no row is dropped), plus the ``balanced`` record; the signature is the
    source's with the balance part appended. Folder, writer, manifest frame and card are the
    engine's, as for every build, so a change there reaches balanced subsets too.
    """

    def __init__(
        self,
        source: str | Path,
        tokenizer: str,
        *,
        revision: str | None = None,
        max_span_pieces: int = 6,
        scoring: str = "paper",
    ):
        from ..lm.models import checked_tokenizer, local_revision

        self.source = Path(source)
        keys = ("dataset", "pretty_name", "version", "signature", "configs", "parameters")
        self.built = read_build_manifest(self.source, keys, InputError)
        self.name = self.built["dataset"]
        self.source_family = manifest_family(self.built, self.source)
        if self.source_family is None:
            raise InputError(
                f"{self.source} is a {self.name} dataset ({self.built.get('family')}), of a "
                "family not installed here: install it to balance its datasets"
            )
        self.registered_name = self.source_family.registered_name
        self.pretty_name = self.built["pretty_name"]
        self.description = (
            f"Balanced subset of `{self.name}` for the tokenizer `{published_name(tokenizer)}`: "
            f"only items "
            f"whose target has 1 to {max_span_pieces} pieces in every split of the config "
            "are kept (drops are listed per config below).\n"
        )
        first, config = next(iter(self.built["configs"].items()))
        schema = pq.read_schema(split_files(self.source, first, next(iter(config["splits"])))[0])
        self.features = Features.from_arrow_schema(schema)
        settings = BalanceSettings(
            self.built["version"], tokenizer, revision, max_span_pieces, scoring
        )
        super().__init__(settings)
        self.tokenizer = checked_tokenizer(tokenizer, revision)
        # What names the tokenizer on the Hub: a folder by its name and files' digest, a Hub
        # id at the revision given (the default branch when none is).
        self.tokenizer_revision = revision or local_revision(tokenizer) or "default"

    def inputs(self) -> list[Path]:
        """The dataset balanced, and the tokenizer when it is a folder."""
        return [self.source, Path(self.settings.tokenizer)]

    def conditions(self) -> list[str]:
        configs = self.built["configs"].values()
        return list(dict.fromkeys(split for config in configs for split in config["splits"]))

    def jobs(self) -> list[str]:
        return list(self.built["configs"])

    def write(self, job: str, writer: ParquetSplitWriter) -> tuple[str, dict, dict]:
        """Write the kept rows of the config ``job``; return its name, kept rows per split
        and row drops."""
        tables = {
            split: pa.concat_tables(pq.read_table(f) for f in split_files(self.source, job, split))
            for split in self.built["configs"][job]["splits"]
        }
        dropped: dict[str, str] = {}
        for split, table in tables.items():
            where = f"split {split!r} of config {job!r} of {self.source}"  # spud, clams: refused
            require_columns(table.column_names, BALANCED_COLUMNS, "balance", where)
            for item, reason in self._problems(table).items():
                dropped.setdefault(item, reason)
        dropped_ids = pa.array(sorted(dropped), type=pa.string())
        kept = {}
        for split, table in tables.items():
            rows = table.filter(pc.invert(pc.is_in(table["item_id"], value_set=dropped_ids)))
            if rows.num_rows:  # an empty split would break its whole config
                writer.write(job, split, rows)
                kept[split] = rows.num_rows
        drops = {f"balance:{reason}": n for reason, n in sorted(Counter(dropped.values()).items())}
        return job, kept, drops

    def _problems(self, table: pa.Table) -> dict[str, str]:
        """item_id -> reason, for the items of one split that cannot be scored."""
        s = self.settings
        problems = {}
        for row in table.select(list(BALANCED_COLUMNS)).to_pylist():
            _, span = target_pieces(self.tokenizer, row["words"], row["target_index"], s.scoring)
            if problem := span_problem(span, s.max_span_pieces):
                problems.setdefault(row["item_id"], problem)
        return problems

    def manifest(self, results: list) -> dict:
        configs = {}
        for name, kept, drops in results:
            if kept:
                config = self.built["configs"][name]
                configs[name] = config | {"splits": kept, "row_drops": config["row_drops"] | drops}
        s = self.settings
        balanced = {
            "tokenizer": published_name(s.tokenizer),
            "revision": self.tokenizer_revision,
            "max_span_pieces": s.max_span_pieces,
            "scoring": s.scoring,
            "source_signature": self.built["signature"],
        }
        return self.built | {"configs": configs, "balanced": balanced}  # the engine's frame

    def signature(self, manifest: dict) -> str:
        s = self.settings
        tokenizer = f"{published_name(s.tokenizer)}@{self.tokenizer_revision}"
        balance = f"{tokenizer}:cap{s.max_span_pieces}:{s.scoring}"
        return f"{self.built['signature']}|balanced:{balance}"

    def card_text(self, manifest: dict) -> CardText:
        """The source family's sections, rendered from the subset's manifest."""
        return self.source_family.card_text(manifest)

    def why_empty(self, results: list) -> str:
        return f"no item of {self.source} is scorable under {self.settings.tokenizer}"


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
    balanced = Balanced(
        dataset, tokenizer_name, revision=revision, max_span_pieces=max_span_pieces,
        scoring=scoring,
    )  # fmt: skip
    return write_dataset(balanced, Path(out), overwrite=overwrite)
