"""The contract every evaluation task meets.

A task is one module: a frozen settings dataclass whose fields carry their documentation
and defaults (`settings.setting`), the columns it reads from each row, the dataset
families it reads besides those that name it (`DatasetFamily.tasks`), and a `run` that
scores a dataset into a run folder through `runner.run_task` and writes its summaries. It
registers itself in `TASKS` and names its module in the ``perturbed_ud.tasks`` entry point;
the command line's ``evaluate <task>`` and ``perturbed_ud.evaluate(task, ...)`` are made
from the registration, so a new task touches no other file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import click

from ...registry import FAMILIES, TASKS

# Options of every run, not of a task's settings: what is read, by which model, where to.
RUN_OPTIONS = ("dataset", "model", "out", "configs", "splits", "limit", "revision",
               "dataset_revision", "device", "num_proc", "overwrite", "rank_timeout")  # fmt: skip
# Seconds rank 0 of a torchrun or accelerate launch waits for the other ranks' chunks.
RANK_TIMEOUT = 3600


class EvaluationTask:
    """An evaluation task: what it reads, its settings, and its run. The class docstring's
    first paragraph is the command's help."""

    name: ClassVar[str]  # the `evaluate` subcommand and short registry name
    settings_class: ClassVar[type]
    # The run: (dataset, model, out, *, settings, configs, splits, limit, device …) -> the
    # run folder; an `runner.evaluation` function.
    evaluate: ClassVar[Callable[..., Path]]
    read_columns: ClassVar[tuple[str, ...]] = ()  # what it reads from every row
    reads: ClassVar[tuple[str, ...]] = ()  # dataset families, besides those naming the task

    @classmethod
    def columns(cls, settings: Any) -> tuple[str, ...]:
        """The columns the task reads from every row under ``settings``."""
        return cls.read_columns

    @classmethod
    def run_parameters(cls) -> list[click.Option]:
        """Options of the run beyond `RUN_OPTIONS` that are no settings (where a probe's
        training treebank comes from); their names are keywords of `run`."""
        return []

    @classmethod
    def run(cls, dataset: str, model: str, out: str | Path, *, settings: Any, **run) -> Path:
        """Score ``dataset`` with ``model`` into the run folder ``out``; return it."""
        return cls.evaluate(dataset, model, out, settings=settings, **run)


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


def tasks_reading_columns(names: list[str]) -> list[str]:
    """The tasks whose (default) columns are all among ``names``."""
    found = []
    for name in TASKS.short_names():
        task = TASKS.get(name)
        needed = task.columns(task.settings_class())
        if needed and set(needed) <= set(names):
            found.append(name)
    return found
