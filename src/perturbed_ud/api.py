"""The Python API: ``build``, ``evaluate``, ``lm_eval_tasks``, ``review`` and
``review_score`` with the command line's options as keywords.

Each keyword is an option of the matching command, spelled with underscores
(``--part-fraction`` is ``part_fraction``); a list stands for a comma list or a repeated
option, ``True`` for a flag (``False`` for one that turns a default off:
``ambiguity_check=False``). Options and keywords are made from the same settings fields and
the command line calls these functions, so a call and the command it mirrors check,
default and build the same thing.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError, PerturbedUDWarning
from .files import read_json_object
from .options import check_one_line

if TYPE_CHECKING:
    from .builders.family import DatasetFamily


def build(
    family: str | type[DatasetFamily],
    out: str | Path,
    *,
    settings: Any = None,
    overwrite: bool = False,
    workers: int = 1,
    **options,
) -> Path:
    """Build a dataset as ``perturbed-ud build FAMILY --out OUT ...`` does; return its folder.

    ``build("perturbed-ud", "data", langs=["en", "de"], seeds=[1, 2], limit=50)`` is
    ``perturbed-ud build perturbed-ud --langs en,de --seeds 1,2 --limit 50 --out data``:
    keywords are the command's options (a list or a comma list for a list), or ``settings``
    gives the family's settings object whole (``SpudSettings(treebanks=…)``). The families
    are those registered, plugins' included: ``perturbed-ud build --help`` lists them
    (``registry.FAMILIES.short_names()``), ``perturbed-ud build FAMILY --help`` each one's
    options.
    """
    from .builders.engine import build as build_family
    from .registry import FAMILIES

    cls = FAMILIES.get(family) if isinstance(family, str) else family
    check_one_line(out, "--out")  # the folder's path reaches the tasks lm-eval-tasks writes
    if settings is None:
        instance = cls.from_options(options)
    elif any(value is not None for value in options.values()):
        raise InputError(f"build {cls.name}: give settings whole or as keywords, not both")
    else:
        instance = cls(settings)
    folder = build_family(instance, out, overwrite=overwrite, workers=workers)
    for warning in instance.warnings():
        warnings.warn(warning, PerturbedUDWarning, stacklevel=2)
    return folder


def evaluate(task: str, *, settings=None, verbose: bool = False, **options) -> dict:
    """Run an evaluation task as ``perturbed-ud evaluate TASK ...`` does and return the run's
    ``results.json``.

    ``evaluate("minimal-pair", dataset="data/clams", model="gpt2", out="runs/gpt2",
    limit=100)`` scores the first 100 pairs of each split; the kind of model (masked or
    causal) comes from its config unless ``kind`` names it. Keywords are the run's
    (``dataset``, ``model``, ``out``, ``configs``, ``splits``, ``limit``, ``device`` …) and
    the task's settings (``kind="causal"``, ``probes="pos,root"``), or ``settings`` gives
    the task's settings object whole. The tasks are those registered, plugins' included:
    ``perturbed-ud evaluate --help`` lists them with the families each reads. The run folder keeps
    each scored row, and a second call resumes it. The libraries' logging and progress bars
    are quiet during the run (``verbose`` keeps them) and as before after it.
    """
    folder = run_evaluation(task, settings=settings, verbose=verbose, **options)
    return read_json_object(Path(folder) / "results.json")


def run_evaluation(task: str, *, settings=None, verbose: bool = False, **options) -> Path:
    """Run a task from keywords (`evaluate`); return the run folder."""
    from .evaluation.running.task import RUN_OPTIONS
    from .lm.models import quiet_libraries
    from .registry import TASKS
    from .settings import documented_fields, option_name, settings_from

    evaluation_task = TASKS.get(task)
    settings_class = evaluation_task.settings_class
    extra = evaluation_task.run_parameters_class  # the run's options that are no settings
    extra_names = tuple(f.name for f in documented_fields(extra)) if extra else ()
    run_names = (*RUN_OPTIONS, *extra_names)
    known = {*run_names, *(f.name for f in documented_fields(settings_class))}
    if unknown := sorted(set(options) - known):
        raise InputError(
            f"evaluate {task} has no option {', '.join(unknown)}; it has: "
            f"{', '.join(sorted(known))}"
        )
    run = {name: options.pop(name) for name in run_names if name in options}
    run = {name: value for name, value in run.items() if value is not None}
    if given := {name: run[name] for name in extra_names if name in run}:
        converted = settings_from(extra, given, f"evaluate {task}")  # as its options are
        run |= {name: getattr(converted, name) for name in given}
    for name, value in run.items():  # they reach run.json, results and reports
        check_one_line(value, "--config" if name == "configs" else option_name(name))
    if missing := [name for name in ("dataset", "model", "out") if name not in run]:
        raise InputError(f"evaluate {task} needs {', '.join(missing)}")
    if settings is None:
        settings = settings_from(settings_class, options, f"evaluate {task}")
    elif any(value is not None for value in options.values()):
        raise InputError(f"evaluate {task}: give settings whole or as keywords, not both")
    dataset, model, out = str(run.pop("dataset")), str(run.pop("model")), run.pop("out")
    with quiet_libraries(not verbose):
        return evaluation_task.run(dataset, model, out, settings=settings, **run)


def lm_eval_tasks(dataset: str | Path, out: str | Path, **options) -> Path:
    """Write the task group ``perturbed-ud lm-eval-tasks DATASET --out OUT`` writes; return its
    folder (``OUT/<group>``, the group named after the dataset).

    ``lm_eval_tasks("data/clams", "tasks", hub_id="me/clams")`` points the tasks at the Hub
    repo at the tag ``v<version>`` instead of the folder; ``revision`` names another, and
    ``overwrite=True`` replaces an earlier group.
    """
    from .data.lm_eval_tasks import write_tasks

    return write_tasks(dataset, out, **options)


def review(
    dataset: str | Path,
    out: str | Path,
    *,
    sample: int = 50,
    seed: int = 1,
    configs: list[str] | None = None,
    overwrite: bool = False,
) -> Path:
    """Write the review sheet ``perturbed-ud review DATASET --out OUT`` writes (review.html
    and review.csv, for native speakers to judge a spud build's nonce sentences); return
    its folder."""
    from .evaluation.reporting.review import write_sheet

    folder, notes = write_sheet(dataset, out, sample=sample, seed=seed, configs=configs,
                                overwrite=overwrite)  # fmt: skip
    for note in notes:
        warnings.warn(note, PerturbedUDWarning, stacklevel=2)
    return folder


def review_score(marked: str | Path, out: str | Path | None = None):
    """The grammaticality table ``perturbed-ud review-score MARKED`` prints, as a DataFrame:
    per language, the grammatical share of the judged sentences and its Wilson interval;
    with ``out``, also written there as CSV, Markdown and JSON."""
    from .evaluation.reporting.review import score_sheet, write_scores

    table = score_sheet(marked)
    if out is not None:
        write_scores(table, marked, out)
    return table
