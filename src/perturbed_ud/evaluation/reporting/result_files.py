"""Finished runs read into one shape, so that runs of several models can be compared: a run
folder of ``perturbed-ud evaluate`` (its ``results.json`` and PNG figures), or
lm-evaluation-harness results (the ``results_<date>.json`` that ``lm_eval --output_path``
writes, any JSON file holding what ``lm_eval.simple_evaluate`` returns, or a folder of them).

Every number of every metrics table becomes an `Estimate`, with the N it is computed from
where the row names one. Ours come from the metrics tables of ``results.json``: a column ``X``
beside ``X_lo`` and ``X_hi`` has the interval the row's ``X_interval`` column names, else its
``interval`` column, ``X_median``
beside ``X_q1`` and ``X_q3`` the interquartile range (distances and nonce ratios have no
confidence interval), and any other number none; the task's key columns, recorded beside the
metrics, name the condition of each row. lm-eval's come from ``metric,filter``: an
accuracy with the task's sample count gets a Wilson interval; otherwise
``metric_stderr,filter`` gives the normal interval value ± 1.96 stderr, clipped to the range
the metric can take.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from ...data.lm_eval_tasks import task_name
from ...errors import InputError
from ...files import read_json_object
from ...redaction import redact_all
from .statistics import WILSON, wilson_interval

# The key columns of the tasks of perturbed-ud 0.4 and older, whose results.json does not
# record them (`EvaluationTask.key_columns` now says them, in the file); so a report reads
# those runs without importing their tasks (torch).
_LOCAL_STRUCTURE_KEYS = ("config", "split", "unit", "method", "type", "script", "rho", "seed",
                         "level", "group", "performance", "measure")  # fmt: skip
KEY_COLUMNS_BEFORE_0_5 = {
    "masked-word": ("condition",),
    "minimal-pair": ("construction",),
    "score": _LOCAL_STRUCTURE_KEYS,
    "classify": _LOCAL_STRUCTURE_KEYS,
    "distance": ("config", "method", "tau", "seed", "layer"),
    "probe": ("config", "layer", "probe", "probe_seed", "metric", "copies", "probe_seeds"),
}
# Row columns that say whose row it is or how its interval was computed: not numbers of it.
RUN_COLUMNS = ("model_name", "run_model", "run_seed", "lang", "interval")
# The count a row's numbers are computed from: the first of these columns the row has
# (``settings``: the settings a correlation runs over).
COUNT_COLUMNS = ("N", "sentences", "settings")
QUARTILES = "median, interquartile range"
NO_INTERVAL = "none"
LM_EVAL_TABLE = "lm-eval tasks"
LM_EVAL_WILSON = f"{WILSON} from acc and N (lm-eval n-samples)"
LM_EVAL_NORMAL = "normal approx. from lm-eval stderr (value ± 1.96 stderr)"
# lm-eval metrics that are the share of samples right, which a Wilson interval fits.
LM_EVAL_ACCURACIES = ("acc", "acc_norm", "acc_mutual_info", "exact_match", "mc1")
# The values an lm-eval metric can take, for clipping the normal interval of its stderr.
LM_EVAL_RANGES = {name: (0.0, 1.0) for name in (*LM_EVAL_ACCURACIES, "f1", "mc2")} | {
    "mcc": (-1.0, 1.0), "perplexity": (1.0, float("inf")), "word_perplexity": (1.0, float("inf")),
    "byte_perplexity": (1.0, float("inf")), "bits_per_byte": (0.0, float("inf")),
}  # fmt: skip
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
    n: float | None = None  # the count it is computed from, where known


@dataclass(frozen=True)
class RunResults:
    """What a comparison shows of one run."""

    name: str
    source: str  # what wrote it: "perturbed-ud minimal-pair run", "lm-eval 0.4.13 results"
    path: Path
    model: str
    data: str
    signature: str | None
    settings: tuple[tuple[str, str], ...]  # what the run was asked to do, for telling runs apart
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
    """A number of a results file, a count kept whole so that it shows without decimals."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


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
    keys = _key_columns(path, results)
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
        for i, row in enumerate(rows)
        if isinstance(row, dict) and _possible(path, f"metrics.{name}[{i}]", row)
        for estimate in _row_estimates(f"{task} · {name} · {data}", _renamed(row), keys)
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
        settings=signature_settings(_text(results["signature"])),
        provenance=provenance,
        estimates=tuple(estimates),
        figures=tuple(sorted(folder.glob("*.png"))),
    )


# Counts past this are no count of items (a float holds whole numbers exactly up to 2**53).
MAX_COUNT = 2**53
SHARES = ("accuracy", "word_at_")  # metrics that are shares of N, in [0, 1]


def _possible(path: Path, where: str, row: dict) -> bool:
    """A metrics row whose numbers could be true: finite, counts whole and not negative,
    shares in [0, 1]; anything else is one error naming the file and field."""
    for column, value in row.items():
        if _number(value) is None or value != value:  # text, or NaN: shown as a dash
            continue
        problem = None
        if column in COUNT_COLUMNS:
            if not 0 <= value <= MAX_COUNT or value != int(value):  # inf is out of range
                problem = "not a count"
        elif value in (float("inf"), float("-inf")) or abs(value) > MAX_COUNT**2:
            problem = "not a finite number"
        elif (
            column.startswith(SHARES)
            and not column.endswith(("_lo", "_hi"))
            and not (0 <= value <= 1)
        ):
            problem = "a share outside [0, 1]"
        if problem:
            shown = str(value) if len(str(value)) < 40 else f"{str(value)[:20]}…"
            raise InputError(f"{path}: {where}.{column} = {shown} is {problem}")
    return True


def signature_settings(signature: str) -> tuple[tuple[str, str], ...]:
    """A run signature (``task|key:value|...``) as its settings, the task first."""
    task, *parts = signature.split("|")
    return (("task", task), *(tuple(part.partition(":")[::2]) for part in parts))


def _key_columns(path: Path, results: dict) -> tuple[str, ...]:
    """The key columns of a run's metrics rows: those its results.json records, else (written
    by perturbed-ud 0.4 or older) those its task had then."""
    keys = results.get("key_columns")
    if keys is None:
        task = str(results["task"])
        if task not in KEY_COLUMNS_BEFORE_0_5:
            raise InputError(
                f"{path} records no key columns (perturbed-ud 0.4 or older), and {task!r} was "
                "no task of perturbed-ud then: run it again with this version, which records them"
            )
        return KEY_COLUMNS_BEFORE_0_5[task]
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        raise InputError(f"{path}: key_columns is not a list of column names")
    return tuple(keys)


# Columns renamed since: minimal-pair 1.0.0 named the interval of macro_accuracy so.
_RENAMED = {"macro_interval": "macro_accuracy_interval"}


def _renamed(row: dict) -> dict:
    return {_RENAMED.get(column, column): value for column, value in row.items()}


def _row_estimates(table: str, row: dict, keys: tuple[str, ...]) -> Iterator[Estimate]:
    """Every number of one metrics row, with its interval where the row has one; its
    condition named by the ``keys`` columns it has."""
    condition = " · ".join(
        f"{key} {row[key]}" if _number(row[key]) is not None else str(row[key])
        for key in keys
        if row.get(key) is not None
    )
    count = next((row[key] for key in COUNT_COLUMNS if _number(row.get(key)) is not None), None)
    common = {"table": table, "language": _text(row.get("lang")), "condition": condition,
              "n": _number(count)}  # fmt: skip
    bounds_of = {f"{c}_{end}" for c in row for end in ("lo", "hi", "interval")} | {
        f"{c.removesuffix('_median')}_{end}" for c in row for end in ("q1", "q3")
    }
    not_metrics = set(keys + RUN_COLUMNS + COUNT_COLUMNS) | bounds_of
    for column, value in row.items():
        median = column.removesuffix("_median")
        if f"{column}_lo" in row and f"{column}_hi" in row:
            metric, interval = column, _text(row.get(f"{column}_interval", row.get("interval")))
            bounds = row[f"{column}_lo"], row[f"{column}_hi"]
        elif median != column and f"{median}_q1" in row and f"{median}_q3" in row:
            metric, interval = median, QUARTILES
            bounds = row[f"{median}_q1"], row[f"{median}_q3"]
        elif column not in not_metrics and (value is None or _number(value) is not None):
            metric, interval, bounds = column, NO_INTERVAL, (None, None)
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
        settings=(
            ("model", _text(model)),
            *((k, _text(config.get(k))) for k in LM_EVAL_SETTINGS),
        ),  # fmt: skip
        provenance=tuple(provenance),
        estimates=tuple(
            _lm_eval_estimates(
                results["results"], results.get("n-samples") or {}, results.get("configs") or {}
            )
        ),
        figures=(),
    )


def _lm_eval_estimates(results: dict, samples: dict, configs: dict) -> Iterator[Estimate]:
    """``metric,filter`` values with their interval, for each task with its sample count; a
    minimal-pair task written by `lm-eval-tasks` in the table of our minimal-pair runs on the
    same build, at its language and construction (`_our_pair_task`)."""
    for task, values in results.items():
        if not isinstance(values, dict):
            continue
        counts = samples.get(task) if isinstance(samples.get(task), dict) else {}
        n = _number(counts.get("effective", counts.get("original")))
        config = configs.get(task) if isinstance(configs.get(task), dict) else {}
        ours = _our_pair_task(str(task), config)
        where = ours or {"table": LM_EVAL_TABLE, "language": "—", "condition": str(task)}
        named = "lm-eval " if ours else ""  # beside our numbers: whose it is
        for key, value in values.items():
            metric, comma, kept = key.partition(",")
            if not comma or metric.endswith("_stderr") or _number(value) is None:
                continue
            stderr = _number(values.get(f"{metric}_stderr,{kept}"))
            interval, low, high = lm_eval_interval(metric, float(value), stderr, n)
            yield Estimate(
                **where, metric=named + (metric if kept == "none" else f"{metric} ({kept})"),
                interval=interval, value=float(value), low=low, high=high, n=n,
            )  # fmt: skip


def _our_pair_task(task: str, config: dict) -> dict | None:
    """Where a minimal-pair task that `lm-eval-tasks` wrote (``<group>_<lang>_<construction>``,
    its metadata naming the build) sits among our runs' numbers: the table of `evaluate
    minimal-pair` on the same build, its language and construction; None for other tasks."""
    metadata = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    split = config.get("test_split")
    if not (metadata.get("content_sha256") and metadata.get("dataset") and isinstance(split, str)):
        return None
    if "sentence_good" not in str(config.get("doc_to_choice", "")):
        return None
    prefix, suffix = f"{task_name(str(metadata['dataset']))}_", f"_{task_name(split)}"
    if not (task.startswith(prefix) and task.endswith(suffix)):
        return None
    content = str(metadata["content_sha256"])[:12]
    data = f"{metadata['dataset']} {metadata.get('version')} (content {content})"
    return {
        "table": f"minimal-pair · accuracy · {data}",
        "language": task[len(prefix) : -len(suffix)],
        "condition": split,  # as our rows name a construction
    }


def lm_eval_interval(metric: str, value: float, stderr: float | None, n: float | None):
    """(name, low, high) of an lm-eval value's interval: Wilson for an accuracy over a known
    number of samples, else the normal interval of its stderr clipped to the metric's range."""
    low_end, high_end = LM_EVAL_RANGES.get(metric, (-float("inf"), float("inf")))
    if metric in LM_EVAL_ACCURACIES and n and 0 <= value <= 1:
        low, high = wilson_interval(value, n)
        return LM_EVAL_WILSON, float(low), float(high)
    if stderr is None:
        return "no stderr", None, None
    clipped = ", clipped" if metric in LM_EVAL_RANGES else ""
    low = min(max(value - 1.96 * stderr, low_end), high_end)
    high = max(min(value + 1.96 * stderr, high_end), low_end)
    return LM_EVAL_NORMAL + clipped, low, high
