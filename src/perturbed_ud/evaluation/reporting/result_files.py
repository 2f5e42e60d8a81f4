"""Finished runs read into one shape, so that runs of several models can be compared: a run
folder of ``perturbed-ud evaluate`` (its ``results.json`` and PNG figures), or
lm-evaluation-harness results (the ``results_<date>.json`` that ``lm_eval --output_path``
writes, any JSON file holding what ``lm_eval.simple_evaluate`` returns, or a folder of them).

Every number that has an interval becomes an `Estimate`. Ours come from the metrics tables of
``results.json``: a column ``X`` beside ``X_lo`` and ``X_hi`` (the interval the row's
``interval`` column names), or ``X_median`` beside ``X_q1`` and ``X_q3`` (the median and its
interquartile range: distances and nonce ratios have no confidence interval). lm-eval's come
from ``metric,filter`` and ``metric_stderr,filter`` as value ± 1.96 stderr, the normal interval
its standard error implies, not clipped. Numbers without either are left to the run's tables.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from ...errors import InputError
from ...files import read_json_object
from ...redaction import redact_all

# Row columns that say which condition a number is of, in the order they are shown.
CONDITION_COLUMNS = ("config", "split", "condition", "construction", "layer", "measure", "metric")
QUARTILES = "median, interquartile range"
LM_EVAL_TABLE = "lm-eval tasks"
LM_EVAL_INTERVAL = "value ± 1.96 stderr"
# What a run's provenance shows of lm-eval's ``config``: the model, then how it was run.
LM_EVAL_MODEL = ("model", "model_args", "model_revision", "model_sha", "model_dtype",
                 "model_num_parameters")  # fmt: skip
LM_EVAL_SETTINGS = ("batch_size", "device", "limit", "bootstrap_iters", "gen_kwargs",
                    "random_seed", "numpy_seed", "torch_seed", "fewshot_seed")  # fmt: skip


@dataclass(frozen=True)
class Estimate:
    """One number with its interval, and the comparison it belongs to."""

    table: str  # runs are compared where they have the same table: task, metric table, data
    language: str
    condition: str
    metric: str
    interval: str  # how the bounds were computed
    value: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class RunResults:
    """What a comparison shows of one run."""

    name: str
    source: str  # what wrote it: "perturbed-ud minimal-pair run", "lm-eval 0.4.13 results"
    path: Path
    model: str
    data: str
    signature: str | None
    provenance: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]  # (section, (key, text))
    estimates: tuple[Estimate, ...]
    figures: tuple[Path, ...]


def read_runs(paths: list[str | Path]) -> list[RunResults]:
    """Every run the paths name, in order; runs that share a name are told apart by path."""
    runs = [run for path in paths for run in _read(Path(path))]
    counts = Counter(run.name for run in runs)
    return [replace(r, name=f"{r.name} ({r.path})") if counts[r.name] > 1 else r for r in runs]


def _read(path: Path) -> list[RunResults]:
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if path.is_dir():
        if (path / "results.json").is_file():
            return [_our_run(path)]
        if (path / "run.json").is_file():
            raise InputError(
                f"{path} is an unfinished run (run.json but no results.json): run its "
                "evaluate command again to finish it"
            )
        if found := sorted(path.rglob("results_*.json")):
            return [_lm_eval_run(file) for file in found]
    elif path.suffix == ".json":
        return [_lm_eval_run(path)]
    raise InputError(
        f"{path} is not a run: give a run folder of `perturbed-ud evaluate` (it holds "
        "results.json), an lm-eval results .json file, or a folder of lm-eval results_*.json"
    )


def _json_object(path: Path) -> dict:
    """A results file, its credentials redacted: lm-eval keeps model_args as given, a token
    included."""
    return redact_all(read_json_object(path))


def _text(value) -> str:
    """A value from a results file as the page shows it."""
    if value is None:
        return "—"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _section(name: str, values: dict) -> tuple[str, tuple[tuple[str, str], ...]]:
    return name, tuple((str(key), _text(value)) for key, value in values.items())


def _number(value) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _our_run(folder: Path) -> RunResults:
    path = folder / "results.json"
    results = _json_object(path)
    missing = [k for k in ("task", "signature") if k not in results] + [
        k for k in ("model", "dataset", "metrics") if not isinstance(results.get(k), dict)
    ]
    if missing:
        raise InputError(
            f"{path}: not the results of `perturbed-ud evaluate` (no {', '.join(missing)})"
        )
    task, model, dataset = results["task"], results["model"], results["dataset"]
    build = dataset.get("build") or {}
    content = dataset.get("content_sha256")
    data = (
        f"{build['dataset']} {build['version']}"
        if build.get("dataset")
        else f"{dataset.get('name')}@{dataset.get('revision') or 'main'}"
    ) + (f" (content {content[:12]})" if content else "")
    estimates = [
        estimate
        for name, rows in results["metrics"].items()
        if isinstance(rows, list)
        for row in rows
        if isinstance(row, dict)
        for estimate in _row_estimates(f"{task} · {name} · {data}", row)
    ]
    dataset_fields = {k: v for k, v in dataset.items() if k != "build"}
    provenance = (
        _section("model", model),
        _section("dataset", dataset_fields),
        _section("dataset build", build),
        _section("settings", results.get("settings") or {}),
        _section("versions", results.get("versions") or {}),
        _section("counts", results.get("counts") or {}),
    )
    return RunResults(
        name=folder.resolve().name,
        source=f"perturbed-ud {task} run",
        path=folder,
        model=_text(model.get("model")),
        data=data,
        signature=_text(results["signature"]),
        provenance=provenance,
        estimates=tuple(estimates),
        figures=tuple(sorted(folder.glob("*.png"))),
    )


def _row_estimates(table: str, row: dict) -> Iterator[Estimate]:
    """The numbers of one metrics row that come with an interval."""
    condition = " · ".join(
        f"{key} {row[key]}" if _number(row[key]) is not None else str(row[key])
        for key in CONDITION_COLUMNS
        if row.get(key) is not None
    )
    common = {"table": table, "language": _text(row.get("lang")), "condition": condition}
    for column, value in row.items():
        median = column.removesuffix("_median")
        if f"{column}_lo" in row and f"{column}_hi" in row:
            metric, interval = column, _text(row.get("interval"))
            bounds = row[f"{column}_lo"], row[f"{column}_hi"]
        elif median != column and f"{median}_q1" in row and f"{median}_q3" in row:
            metric, interval = median, QUARTILES
            bounds = row[f"{median}_q1"], row[f"{median}_q3"]
        else:
            continue
        yield Estimate(**common, metric=metric, interval=interval, value=_number(value),
                       low=_number(bounds[0]), high=_number(bounds[1]))  # fmt: skip


def _lm_eval_run(path: Path) -> RunResults:
    results = _json_object(path)
    if not isinstance(results.get("results"), dict) or "versions" not in results:
        raise InputError(
            f"{path}: not lm-eval results (no 'results' and 'versions'); a run of "
            "`perturbed-ud evaluate` is given by its folder"
        )
    config = results.get("config") or {}
    model = results.get("model_name") or _text(config.get("model_args") or config.get("model"))
    tasks = list(results["results"])
    provenance = [
        _section("model", {"model_name": model} | {k: config.get(k) for k in LM_EVAL_MODEL}),
        _section("settings", {k: config.get(k) for k in LM_EVAL_SETTINGS}),
    ]
    for task in tasks:
        task_config = (results.get("configs") or {}).get(task) or {}
        data = {k: task_config.get(k) for k in ("dataset_path", "dataset_name", "dataset_kwargs")}
        provenance.append(_section(f"task {task}", {
            "version": (results.get("versions") or {}).get(task),
            "n-shot": (results.get("n-shot") or {}).get(task),
            "samples": (results.get("n-samples") or {}).get(task),
            "hash": (results.get("task_hashes") or {}).get(task),
            **data,
        }))  # fmt: skip
    date, version = _number(results.get("date")), results.get("lm_eval_version")
    provenance.append(_section("versions", {
        "lm-eval": version,
        "transformers": results.get("transformers_version"),
        "git_hash": results.get("git_hash"),
        "date": datetime.fromtimestamp(date, UTC).isoformat(timespec="seconds") if date else None,
    }))  # fmt: skip
    return RunResults(
        name=_text(model),
        source=f"lm-eval {version} results" if version else "lm-eval results",
        path=path,
        model=_text(model),
        data=", ".join(tasks),
        signature=None,
        provenance=tuple(provenance),
        estimates=tuple(_lm_eval_estimates(results["results"])),
        figures=(),
    )


def _lm_eval_estimates(results: dict) -> Iterator[Estimate]:
    """``metric,filter`` values with ``metric_stderr,filter`` as value ± 1.96 stderr."""
    for task, values in results.items():
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            metric, comma, kept = key.partition(",")
            if not comma or metric.endswith("_stderr") or _number(value) is None:
                continue
            stderr = _number(values.get(f"{metric}_stderr,{kept}"))
            known = stderr is not None
            bounds = (value - 1.96 * stderr, value + 1.96 * stderr) if known else (None, None)
            yield Estimate(
                table=LM_EVAL_TABLE, language="—", condition=str(task),
                metric=metric if kept == "none" else f"{metric} ({kept})",
                interval=LM_EVAL_INTERVAL if known else "no stderr", value=float(value),
                low=bounds[0], high=bounds[1],
            )  # fmt: skip
