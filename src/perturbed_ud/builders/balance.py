"""Subsets of a built dataset, each a dataset folder of its own with the same configs, ready
for ``push``, built by the one engine (`builders.engine.write_dataset`) from a family derived
from the built dataset (`Derived`):

- `Balanced`: the items a given tokenizer can score in every condition of a config. Which
  targets exceed the span cap depends on the tokenizer (a form and its lemma split
  differently), so a balanced subset is model-specific and lives beside the base dataset. It
  lives here, above the builders, because what it keeps is decided by the masked-word task:
  its columns, scoring modes and span cap.
- `Capped`: at most N rows of each split of each config (each phenomenon of each language,
  in the minimal-pair families), drawn by a seeded, keyed draw, as MultiBLiMP caps each
  phenomenon at 100 pairs. The same sentences are kept in every split of a config that pairs
  splits by sentence.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from datasets import Features

from ..data.card import CardText
from ..data.task_columns import require_columns
from ..data.writer import ParquetSplitWriter, read_build_manifest, split_files
from ..errors import InputError
from ..lm.masking import span_problem, target_pieces
from ..options import published_name
from ..registry import manifest_family
from ..rng import KeyedDraws
from .engine import write_dataset
from .family import DatasetFamily

# What balancing reads: the items of `evaluate masked-word`.
BALANCED_COLUMNS = ("item_id", "words", "target_index")


class Derived(DatasetFamily):
    """A subset of a built dataset, as a family the engine runs.

    It is derived, not registered: it keeps the source's names, version, features (read from
    its Parquet files), conditions and card sections, so the subset reads like its source
    wherever a dataset is read, and only its signature and its record (``balanced``,
    ``capped``) tell them apart. Each job is one source config: its splits are read, the rows
    a subclass leaves out (`leave_out`) dropped, the kept rows written. The manifest entries
    are the source's, each config with its kept ``splits`` and its row drops (a config left
    with no row is dropped), plus the record; the signature is the source's with the record's
    part appended. Folder, writer, manifest frame and card are the engine's, as for every
    build, so a change there reaches subsets too.
    """

    record_name = ""  # the manifest key of what the subset adds, and its signature part
    drop_prefix = ""  # of the reasons its row drops are counted under (``balance:…``)

    def __init__(self, source: str | Path, settings):
        self.source = Path(source)
        keys = ("dataset", "pretty_name", "version", "signature", "configs", "parameters")
        self.built = read_build_manifest(self.source, keys, InputError)
        self.name = self.built["dataset"]
        self.source_family = manifest_family(self.built, self.source)
        if self.source_family is None:
            raise InputError(
                f"{self.source} is a {self.name} dataset ({self.built.get('family')}), of a "
                "family not installed here: install it to take subsets of its datasets"
            )
        self.registered_name = self.source_family.registered_name
        self.pretty_name = self.built["pretty_name"]
        first, config = next(iter(self.built["configs"].items()))
        schema = pq.read_schema(split_files(self.source, first, next(iter(config["splits"])))[0])
        self.features = Features.from_arrow_schema(schema)
        super().__init__(settings)

    def inputs(self) -> list[Path]:
        return [self.source]

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
        kept, drops = {}, Counter()
        for split, (rows, dropped) in self.leave_out(job, tables).items():
            drops.update(dropped)
            if rows.num_rows:  # an empty split would break its whole config
                writer.write(job, split, rows)
                kept[split] = rows.num_rows
        return job, kept, {f"{self.drop_prefix}:{k}": n for k, n in sorted(drops.items())}

    def leave_out(self, job: str, tables: dict[str, pa.Table]) -> dict:
        """Per split: the rows kept, and how many were left out by reason."""
        raise NotImplementedError

    def record(self) -> dict:
        """What the subset adds to its source, in its manifest."""
        raise NotImplementedError

    def signature_part(self) -> str:
        raise NotImplementedError

    def manifest(self, results: list) -> dict:
        configs = {}
        for name, kept, drops in results:
            if kept:
                config = self.built["configs"][name]
                drops = config.get("row_drops", {}) | drops  # a family may count none
                configs[name] = config | {"splits": kept, "row_drops": drops}
        record = self.record() | {"source_signature": self.built["signature"]}
        return self.built | {"configs": configs, self.record_name: record}  # the engine's frame

    def signature(self, manifest: dict) -> str:
        return f"{self.built['signature']}|{self.record_name}:{self.signature_part()}"

    def card_text(self, manifest: dict) -> CardText:
        """The source family's sections, rendered from the subset's manifest."""
        return self.source_family.card_text(manifest)


@dataclass(frozen=True)
class BalanceSettings:
    """What a balanced subset adds to its source; its version is the source's."""

    version: str
    tokenizer: str
    revision: str | None
    max_span_pieces: int
    scoring: str


class Balanced(Derived):
    """The balanced subset of a built dataset: the items that cannot be scored in some split
    of a config (their target spans too many of the tokenizer's pieces) dropped from all."""

    record_name, drop_prefix = "balanced", "balance"

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

        version = read_build_manifest(Path(source), ("version",), InputError)["version"]
        super().__init__(
            source, BalanceSettings(version, tokenizer, revision, max_span_pieces, scoring)
        )
        self.description = (
            f"Balanced subset of `{self.name}` for the tokenizer `{published_name(tokenizer)}`: "
            f"only items "
            f"whose target has 1 to {max_span_pieces} pieces in every split of the config "
            "are kept (drops are listed per config below).\n"
        )
        self.tokenizer = checked_tokenizer(tokenizer, revision)
        # What names the tokenizer on the Hub: a folder by its name and files' digest, a Hub
        # id at the revision given (the default branch when none is).
        self.tokenizer_revision = revision or local_revision(tokenizer) or "default"

    def inputs(self) -> list[Path]:
        """The dataset balanced, and the tokenizer when it is a folder."""
        return [self.source, Path(self.settings.tokenizer)]

    def leave_out(self, job: str, tables: dict[str, pa.Table]) -> dict:
        dropped: dict[str, str] = {}
        for split, table in tables.items():
            where = f"split {split!r} of config {job!r} of {self.source}"  # spud, clams: refused
            require_columns(table.column_names, BALANCED_COLUMNS, "balance", where)
            for item, reason in self._problems(table).items():
                dropped.setdefault(item, reason)
        dropped_ids = pa.array(sorted(dropped), type=pa.string())
        counts = Counter(dropped.values())
        out = {}
        for split, table in tables.items():
            rows = table.filter(pc.invert(pc.is_in(table["item_id"], value_set=dropped_ids)))
            out[split] = (rows, counts)
            counts = Counter()  # an item is counted once, in the first split
        return out

    def _problems(self, table: pa.Table) -> dict[str, str]:
        """item_id -> reason, for the items of one split that cannot be scored."""
        s = self.settings
        problems = {}
        for row in table.select(list(BALANCED_COLUMNS)).to_pylist():
            _, span, _ = target_pieces(self.tokenizer, row["words"], row["target_index"], s.scoring)
            if problem := span_problem(span, s.max_span_pieces):
                problems.setdefault(row["item_id"], problem)
        return problems

    def record(self) -> dict:
        s = self.settings
        return {
            "tokenizer": published_name(s.tokenizer),
            "revision": self.tokenizer_revision,
            "max_span_pieces": s.max_span_pieces,
            "scoring": s.scoring,
        }

    def signature_part(self) -> str:
        s = self.settings
        tokenizer = f"{published_name(s.tokenizer)}@{self.tokenizer_revision}"
        return f"{tokenizer}:cap{s.max_span_pieces}:{s.scoring}"

    def why_empty(self, results: list) -> str:
        return f"no item of {self.source} is scorable under {self.settings.tokenizer}"


@dataclass(frozen=True)
class CapSettings:
    """What a capped subset adds to its source; its version is the source's."""

    version: str
    per_split: int
    seed: int


# What names what a row is about, by preference: a pair (of its config), or a sentence (a
# treebank's sentence id: drawn alike in every config and split that holds it, so conditions
# of one sentence, and an orig split several configs share, keep the same sentences).
PAIR_KEY, SENTENCE_KEY = ("pair_id",), ("treebank", "sent_id")


class Capped(Derived):
    """At most ``per_split`` rows of each split of each config: the rows whose key
    (`PAIR_KEY`, `SENTENCE_KEY`) draws the lowest keyed numbers under ``seed``, in their
    order in the source."""

    record_name, drop_prefix = "capped", "cap"

    def __init__(self, source: str | Path, per_split: int, *, seed: int = 1):
        if per_split < 1:
            raise InputError(f"--per-split must be at least 1, not {per_split}")
        version = read_build_manifest(Path(source), ("version",), InputError)["version"]
        super().__init__(source, CapSettings(version, per_split, seed))
        self._draws = KeyedDraws(seed, "cap")
        self.description = (
            f"Capped subset of `{self.name}`: at most {per_split} rows of each split of each "
            f"config, drawn with seed {seed} (drops are listed per config below).\n"
        )

    def leave_out(self, job: str, tables: dict[str, pa.Table]) -> dict:
        out = {}
        for split, table in tables.items():
            keys = self._keys(job, table)
            ranked = sorted(set(keys), key=lambda key: (self._draws.key(*key), key))
            kept_keys, size = set(), Counter(keys)
            total = 0
            for key in ranked:  # whole keys: a sentence is kept with all its rows or not
                if total + size[key] > self.settings.per_split:
                    break
                kept_keys.add(key)
                total += size[key]
            kept = [r for r, key in enumerate(keys) if key in kept_keys]
            dropped = {"over_cap": table.num_rows - len(kept)} if len(kept) < table.num_rows else {}
            out[split] = (table.take(pa.array(kept, type=pa.int64())), dropped)
        return out

    @staticmethod
    def _keys(job: str, table: pa.Table) -> list[tuple]:
        """Each row's key: its pair in this config, its sentence, or else the row itself."""
        names = table.column_names
        if all(c in names for c in PAIR_KEY):
            return [(job, value) for value in table["pair_id"].to_pylist()]
        if all(c in names for c in SENTENCE_KEY):
            columns = zip(*(table[c].to_pylist() for c in SENTENCE_KEY), strict=True)
            return [tuple(map(str, values)) for values in columns]
        return [(job, "row", r) for r in range(table.num_rows)]

    def record(self) -> dict:
        return {"per_split": self.settings.per_split, "seed": self.settings.seed}

    def signature_part(self) -> str:
        return f"{self.settings.per_split}:seed{self.settings.seed}"

    def why_empty(self, results: list) -> str:
        return f"{self.source} has no rows to cap"


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


def cap_dataset(
    dataset: str | Path, per_split: int, out: str | Path, *, seed: int = 1, overwrite=False
) -> Path:
    """Write ``out``: every split of every config of ``dataset`` cut to at most ``per_split``
    rows by a seeded draw (MultiBLiMP's 100 pairs per phenomenon: ``per_split=100``)."""
    return write_dataset(Capped(dataset, per_split, seed=seed), Path(out), overwrite=overwrite)
