"""The one build engine: any registered family into an atomic, loadable dataset folder.

A family's jobs run in order or in spawned worker processes; each job writes its own
configs through its own Parquet writer, so 1 or N workers give the same bytes. The engine
then assembles the manifest (names, version, signature, content hash, the family's entries)
and writes the card. A dataset derived from a built one (a balanced subset) is such a family
too, written by `write_dataset` into the folder its user names.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from functools import partial
from pathlib import Path

from ..data.card import write_card
from ..data.writer import ParquetSplitWriter, atomic_folder, content_hash, split_files
from ..errors import InputError, Interrupted
from ..files import guard_output, left_as_found
from ..manifest import check_manifest_text
from ..progress import progress
from ..registry import FAMILIES
from ..version import __version__
from .family import DatasetFamily, config_id


def build(
    family: str | type[DatasetFamily] | DatasetFamily,
    out: str | Path,
    *,
    overwrite: bool = False,
    workers: int = 1,
    **settings,
) -> Path:
    """Build ``<out>/<family name>`` and return its path.

    ``family`` is a registered name, a family class (with its settings as keyword
    arguments), or a family instance; e.g. ``build("spud", "out", treebanks=tbs, seeds=[1])``.
    """
    if not isinstance(family, DatasetFamily):
        cls = FAMILIES.get(family) if isinstance(family, str) else family
        family = cls(cls.settings_class(**settings))
    elif settings:
        raise TypeError("settings go either into the family instance or into build(), not both")
    return write_dataset(family, Path(out) / family.name, overwrite=overwrite, workers=workers)


def write_dataset(
    family: DatasetFamily, final: Path, *, overwrite: bool = False, workers: int = 1
) -> Path:
    """Run ``family``'s jobs into the dataset folder ``final`` and return it.

    `build` names the folder after the family; a family derived from a built dataset (the
    balanced subset of `perturbed-ud balance`) is written where its user asks, so it comes here
    directly and its folder, writer, manifest frame and card are those of every build.
    """
    if workers < 1:
        raise InputError(f"workers must be at least 1, got {workers}")
    final = guard_output(final, family.inputs(), replaced_whole=True)
    try:
        with left_as_found(final.parent):
            return _write(family, final, overwrite, workers)
    except KeyboardInterrupt:
        raise Interrupted(
            f"interrupted: {final} was not written (a build is written whole or not at all)"
        ) from None


def _write(family: DatasetFamily, final: Path, overwrite: bool, workers: int) -> Path:
    """The build proper, in a temporary folder that becomes ``final`` only when complete."""
    with atomic_folder(final, overwrite=overwrite) as root:
        jobs = family.jobs()
        results = []
        with progress(f"building {final.name}", len(jobs), "jobs", transient=True) as advance:
            for result in _run(family, jobs, root, workers):
                results.append(result)
                advance(1)
        entries = family.manifest(results)
        if not entries["configs"]:
            raise InputError(family.why_empty(results))
        _check_conditions(family, entries["configs"])
        _check_counts(family, root, entries["configs"])
        signature = family.signature(entries)
        frame = {
            "dataset": family.name,
            "family": family.registered_name,
            "pretty_name": family.pretty_name,
            "version": family.settings.version,
            "toolkit_version": __version__,
            "signature": signature,
            "config_id": config_id(signature),
            "content_sha256": content_hash(root),
        }
        # The frame is the engine's alone: a family derived from a built dataset passes on
        # the source's manifest, whose frame this one replaces.
        manifest = frame | {key: value for key, value in entries.items() if key not in frame}
        check_manifest_text(manifest, final / "build.json", InputError)
        write_card(root, manifest, family.description, family.card_text(manifest))
    return final


def _check_conditions(family: DatasetFamily, configs: dict) -> None:
    """Every split written is a condition the family declares: a family bug otherwise."""
    written = {split for config in configs.values() for split in config["splits"]}
    undeclared = sorted(written - set(family.conditions()))
    if undeclared:
        raise ValueError(f"{family.name} wrote splits it does not declare: {undeclared}")


def _check_counts(family: DatasetFamily, root: Path, configs: dict) -> None:
    """The rows each split reports are the rows written, and every file written is a split's:
    build.json and the card state counts that readers trust. A family bug otherwise."""
    import pyarrow.parquet as pq

    listed = set()
    for config, entry in configs.items():
        for split, reported in entry["splits"].items():
            shards = split_files(root, config, split)
            listed.update(shards)
            written = sum(pq.ParquetFile(shard).metadata.num_rows for shard in shards)
            if written != reported:
                raise ValueError(
                    f"{family.name} reports {reported!r} rows in {config}/{split} but wrote "
                    f"{written}"
                )
    unlisted = sorted(p.relative_to(root).as_posix() for p in set(root.rglob("*.parquet")) - listed)
    if unlisted:
        raise ValueError(f"{family.name} wrote files of no split it reports: {unlisted}")


def _write_job(family: DatasetFamily, job, root: Path):
    writer = ParquetSplitWriter(root, family.features)
    try:
        return family.write(job, writer)
    finally:
        writer.close()


def _run(family: DatasetFamily, jobs: list, root: Path, workers: int):
    if workers == 1 or len(jobs) <= 1:
        yield from (_write_job(family, job, root) for job in jobs)
        return
    context = multiprocessing.get_context("spawn")
    processes = min(workers, len(jobs))
    # Leaving the block for any reason (an error, Ctrl-C, SIGTERM) terminates the workers;
    # a parent killed outright is noticed by each worker's watch (`_exit_with_parent`).
    with context.Pool(processes, initializer=_exit_with_parent, initargs=(os.getpid(),)) as pool:
        yield from pool.imap(partial(_write_job, family, root=root), jobs)


def _exit_with_parent(parent: int) -> None:
    """Stop this worker within a second of its parent's death, so that a killed build
    leaves no process behind."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
