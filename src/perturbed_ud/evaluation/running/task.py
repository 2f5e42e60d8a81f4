"""The contract every evaluation task meets.

A task is one module: a frozen settings dataclass whose fields carry their documentation
and defaults (`settings.setting`), and one `EvaluationTask` class that declares its name,
version, the columns it reads from each row, the dataset families it reads besides those
that name it (`DatasetFamily.tasks`), its `datasets.map` scoring function, the
`outputs` it writes of the scored rows and the key columns of its metrics; the runner does
the rest. It
registers itself in `TASKS` and names its module in the ``perturbed_ud.tasks`` entry point;
the command line's ``evaluate <task>`` and ``perturbed_ud.evaluate(task, ...)`` are made
from the registration, so a new task touches no other file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ...registry import FAMILIES, TASKS

if TYPE_CHECKING:
    import pandas as pd

# Options of every run, not of a task's settings: what is read, by which model, where to.
RUN_OPTIONS = ("dataset", "model", "out", "configs", "splits", "limit", "revision",
               "dataset_revision", "device", "num_proc", "overwrite", "rank_timeout")  # fmt: skip
# Seconds rank 0 of a torchrun or accelerate launch waits for the other ranks' chunks.
RANK_TIMEOUT = 3600


@dataclass(frozen=True)
class Scored:
    """What a task's `EvaluationTask.outputs` reads once every chunk is scored."""

    folder: Path  # the run folder, where the outputs go
    rows: pd.DataFrame  # every scored row: the columns read, the task's, and its split_key
    settings: Any
    model: str
    dataset: str
    plan: dict  # what `EvaluationTask.plan` returned


@dataclass
class Outputs:
    """What a run reports: ``metrics`` and ``counts`` go to results.json (counts to run.json
    too), ``headline`` is the table the command prints at the end."""

    metrics: dict
    headline: pd.DataFrame | None = None
    counts: dict = field(default_factory=dict)


class EvaluationTask:
    """An evaluation task: what it reads, its settings, the `datasets.map` function that
    scores a batch of rows, and what it writes of the scored rows. The class docstring's
    first paragraph is the command's help.

    The runner (`runner.evaluate_task`) owns the rest of a run: the checks of dataset,
    model and device, the lock on the run folder, the chunks and their resume, the ranks of
    a launch (only rank 0 calls `outputs`), the atomic writes of run.json and results.json.
    """

    name: ClassVar[str]  # the `evaluate` subcommand and short registry name
    # Signed by every run; bumped whenever the task's outputs for the same inputs change, so
    # that no run resumes across the change (tests/test_golden_outputs.py holds it).
    version: ClassVar[str]
    settings_class: ClassVar[type]
    # The `datasets.map` function: (batch, rank, *, model, revision, device, settings as a
    # dict, and what `plan`'s ``prepare`` returns) -> the task's columns.
    score: ClassVar[Callable[..., dict]]
    kinds: ClassVar[tuple[str, ...]] = ("masked", "causal")  # () reads no language model
    read_columns: ClassVar[tuple[str, ...]] = ()  # what it reads from every row
    reads: ClassVar[tuple[str, ...]] = ()  # dataset families, besides those naming the task
    skip_splits: ClassVar[tuple[str, ...]] = ()  # splits it never scores (distance: orig)
    # The columns of its metrics rows that say which condition a number is of, in the order
    # `report` names them (config, layer, metric); every other number of a row is a metric,
    # its count or its interval. Recorded in results.json, so a report reads them there.
    key_columns: ClassVar[tuple[str, ...]] = ()
    # Options of the run beyond `RUN_OPTIONS` that are no settings (where a probe's training
    # treebank comes from): a dataclass of `setting` fields; `plan` takes them out of the run.
    run_parameters_class: ClassVar[type | None] = None

    @classmethod
    def columns(cls, settings: Any) -> tuple[str, ...]:
        """The columns the task reads from every row under ``settings``."""
        return cls.read_columns

    @staticmethod
    def split_key(config: str, split: str, row: dict) -> str:
        """Under which key a split's rows are scored: splits of one key are scored once."""
        return f"{config}/{split}"

    @classmethod
    def check_model(cls, model: str, revision, dataset: str, settings, configs,
                    dataset_revision) -> None:  # fmt: skip
        """A task that reads no language model (``kinds`` empty) checks its model here,
        before anything is written."""

    @classmethod
    def plan(cls, dataset: str, model: str, settings: Any, run: dict) -> dict:
        """Work before any chunk is scored, once the inputs are checked: checks that read the
        dataset or model, and adjustments of the run's options in ``run``. Its keys
        ``inputs`` (what else the scores depend on, signed: a probe's treebanks) and
        ``prepare`` (``(run folder, header) -> more keywords of score``) reach the runner;
        all of it reaches `outputs` as `Scored.plan`."""
        return {}

    @classmethod
    def outputs(cls, scored: Scored) -> Outputs:
        """Write the task's tables and figures into ``scored.folder``; return what the run
        reports."""
        raise NotImplementedError

    @classmethod
    def run(cls, dataset: str, model: str, out: str | Path, *, settings: Any = None, **run) -> Path:
        """Score ``dataset`` with ``model`` into the run folder ``out`` (``settings`` None:
        the defaults); return it."""
        from .runner import evaluate_task

        return evaluate_task(cls, dataset, model, out, settings=settings, **run)


def with_config_and_split(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the two parts of their split key as ``config`` and ``split``: under the
    default `EvaluationTask.split_key`, the dataset config and split each row was read from."""
    parts = rows["split_key"].str.extract(r"(?P<config>[^/]*)/(?P<split>.*)")
    return rows.assign(config=parts["config"], split=parts["split"])


def task_families(task: str) -> list[str]:
    """The dataset families (short names) that ``task`` reads."""
    reads = set(TASKS.get(task).reads)
    return [f for f in FAMILIES.short_names() if task in FAMILIES.get(f).tasks or f in reads]


def tasks_of_family(family: str) -> list[str]:
    """The tasks that read a family's datasets: those it names, in its order, then those
    naming it."""
    named = list(FAMILIES.get(family).tasks)
    return named + [
        t for t in TASKS.short_names() if t not in named and family in TASKS.get(t).reads
    ]
