"""An evaluation run: dataset configs in, a run folder out, resumable chunk by chunk.

GPUs: ``--num-proc N`` runs one `datasets.map` worker per GPU (``with_rank``); a torchrun or
accelerate launch (RANK / WORLD_SIZE) gives each process every world-th chunk instead.

Layout of ``RUN/``: ``chunks/<key>/<k>.parquet`` (finished work, kept across interruptions;
the key is ``<config>/<split>`` unless a task shares splits between configs, as masked-word
scores the ``orig`` split of a language and seed once; beside them what a task prepares for
its chunks, as the probe task's trained probes), ``run.json`` (model identity,
settings, versions, then the counts and drops the task reports), ``results.json`` (every
metric, with the dataset's and the model's identities, as lm-evaluation-harness writes one
per run), and what each task writes beside them (masked-word: ``items.parquet`` in the
released schema; minimal-pair: ``pairs.parquet``; summaries and figures).

Nothing is written before the inputs are checked (`evaluation`): a mistake costs no folder,
and a run whose settings changed before any chunk was scored simply starts again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from ...data.task_columns import require_columns
from ...errors import InputError, Interrupted, RunError
from ...files import (
    atomic_path,
    check_name,
    exclusive,
    guard_output,
    left_as_found,
    output_folder,
    read_json_object,
    refuse_links,
    write_text,
)
from ...lm.models import describe_model
from ...progress import progress
from ...redaction import redact, redact_all
from ...version import __version__
from .datasets_io import config_names, content_cache, dataset_content, load_config
from .inputs import check_inputs, local_manifest, model_kind
from .task import RANK_TIMEOUT, EvaluationTask, Scored
from .workers import workers_end_with_this_process

CHUNK_ROWS = 512
# Settings that apply to one kind of model only: left out of the run's record for the other.
ONLY_FOR_KIND = {"bos": "causal", "metric": "masked", "word_grouping": "masked"}


# Settings that change how rows are batched, not what they score (the tests compare scores
# across them): recorded in run.json, not signed, so a run resumes under other values.
UNSIGNED = frozenset({"max_tokens", "max_rows", "padding_side"})


def recorded_settings(settings) -> dict:
    """The settings that apply to this run's kind of model, for run.json."""
    kind = getattr(settings, "kind", None)
    values = asdict(settings)
    return {k: v for k, v in values.items() if kind is None or ONLY_FOR_KIND.get(k, kind) == kind}


def signed_settings(settings) -> dict:
    """The recorded settings that can change a score: those the signature names."""
    return {k: v for k, v in recorded_settings(settings).items() if k not in UNSIGNED}


def _versions() -> dict:
    import datasets
    import torch
    import transformers

    return {
        "perturbed-ud": __version__,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "datasets": datasets.__version__,
        "python": platform.python_version(),
    }


def say(message: str) -> None:
    """A line for the user on stderr, where the progress bar is."""
    print(message, file=sys.stderr, flush=True)


def start_run(run: Path, header: dict, overwrite: bool) -> None:
    """Create the run folder, or check that an existing one was started the same way.

    A run of other settings is replaced with ``overwrite``, or when it scored nothing yet
    (a failed start); otherwise its chunks are kept and the user told how to replace them."""
    path = run / "run.json"
    if path.exists():
        chunks = run / "chunks"
        scored = chunks.is_dir() and any(chunks.rglob("*.parquet"))
        try:
            previous = read_json_object(path, RunError)
        except RunError as err:  # torn: nothing can resume from it
            if scored and not overwrite:
                raise RunError(
                    f"{path} is unreadable ({err}): its chunks cannot be trusted; add "
                    "--overwrite to replace the run, or choose another --out"
                ) from None
            previous = {}
        signature = redact(header["signature"])  # as it was written
        if previous.get("signature") != signature:
            if scored and not overwrite:
                changes = signature_changes(str(previous.get("signature")), signature)
                raise RunError(
                    f"{run} holds a run with other settings or data ({changes}): add "
                    "--overwrite to replace it, or choose another --out"
                )
            shutil.rmtree(chunks, ignore_errors=True)
            for name in ("results.json", "run.json"):
                (run / name).unlink(missing_ok=True)
    output_folder(run)
    _write_json(path, header)


# The parts of a signature that are not settings, by the option that sets them.
SIGNATURE_OPTIONS = {"task": "the task version", "toolkit": "the perturbed-ud version",
                     "model": "--model", "data": "--dataset", "splits": "--splits",
                     "limit": "--limit", "inputs": "the training treebanks"}  # fmt: skip


def signature_changes(old: str, new: str) -> str:
    """What differs between two run signatures, as ``--limit: 50 → 20; --kind: ...``: the
    settings a user changed, not two long strings to compare by eye."""
    before, after = _signature_parts(old), _signature_parts(new)
    changed = [
        name for name in dict.fromkeys([*before, *after]) if before.get(name) != after.get(name)
    ]
    return "; ".join(
        f"{_option_name(name)}: {before.get(name, 'unset')} → {after.get(name, 'unset')}"
        for name in changed
    )


def _signature_parts(signature: str) -> dict[str, str]:
    """A signature (``task|name:value|…``) as its named values, the task under ``task``."""
    task, *parts = signature.split("|")
    return {"task": task} | dict(part.partition(":")[::2] for part in parts)


def _option_name(part: str) -> str:
    return SIGNATURE_OPTIONS.get(part, "--" + part.replace("_", "-"))


def _write_json(path: Path, data: dict) -> None:
    """Replace the file whole: ranks launched together read each other's ``run.json``, and
    must never see it half written."""
    write_text(path, json.dumps(redact_all(data), indent=2) + "\n")


# The column each chunk records what its model ran as in (`ran_with`), read back by `ran`.
RAN_WITH = "ran_with"


def recording(batch, rank=None, *, task_function: Callable, **kwargs) -> dict:
    """A task's map function, and what the model of the process that scored the batch ran
    as (device, dtypes, classes), as JSON in every row."""
    from ...lm.models import ran_with

    out = task_function(batch, rank, **kwargs)
    rows = len(next(iter(batch.values()))) if batch else 0
    return out | {RAN_WITH: [json.dumps(ran_with(), sort_keys=True)] * rows}


def ran(scored: pd.DataFrame) -> list[dict]:
    """Every distinct way the chunks' models ran (one, unless a run was resumed on another
    device or its workers differ), from their `RAN_WITH` column."""
    if RAN_WITH not in scored:
        return []
    values = sorted(scored[RAN_WITH].dropna().unique())
    return [record for record in map(json.loads, values) if record]  # {}: no model loaded


def _score_chunk(split_ds, start: int, stop: int, path: Path, function, kwargs, num_proc):
    """Score rows [start, stop) of a split into ``path`` (written whole or not at all); the
    workers of ``num_proc`` end with this process, even if it is killed."""
    with workers_end_with_this_process():
        scored = split_ds.select(range(start, stop)).map(
            recording,
            batched=True,
            batch_size=CHUNK_ROWS if num_proc is None else -(-CHUNK_ROWS // num_proc),
            with_rank=True,
            num_proc=num_proc,
            fn_kwargs=kwargs | {"task_function": function},
            keep_in_memory=True,
            load_from_cache_file=False,
        )
    output_folder(path.parent)
    with atomic_path(path) as tmp:
        scored.to_parquet(str(tmp))


def _chunk_done(path: Path, split_ds, start: int, stop: int) -> bool:
    """Whether a chunk was scored: a file that is no readable Parquet (cut short by a full
    disk, edited, emptied), or not the chunk the plan gives it (rows ``[start, stop)`` of its
    split, with the split's columns as they are), is deleted with a notice, to be scored
    again like a missing one."""
    if not path.exists():
        return False
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as err:  # ArrowInvalid is a ValueError
        return _rescore(path, f"is unreadable ({err})")
    columns = split_ds.column_names
    if table.num_rows != stop - start or not set(columns) <= set(table.column_names):
        return _rescore(path, f"is not rows {start}-{stop - 1} of its split")
    rows = split_ds.select(range(start, stop)).with_format("arrow")[:]
    if table.select(columns).to_pylist() != rows.select(columns).to_pylist():
        return _rescore(path, f"is not rows {start}-{stop - 1} of its split")
    return True


def _rescore(path: Path, why: str) -> bool:
    say(f"{path} {why}: scoring it again")
    path.unlink()
    return False


def launcher_rank() -> tuple[int, int]:
    """(rank, world size) of a torchrun / accelerate launch; (0, 1) otherwise.

    Values no launcher sets are refused, as they are most often left over from another
    shell: a rank outside the world would score a share of the chunks and write no results,
    and a world of several processes that were not launched together would leave rank 0
    waiting for chunks no one scores. Launchers set LOCAL_RANK beside RANK and WORLD_SIZE."""
    rank = _launch_number("RANK", 0)
    world = _launch_number("WORLD_SIZE", 1)
    if world < 1:
        raise InputError(f"WORLD_SIZE={world} is not a number of processes (1 or more)")
    if not 0 <= rank < world:
        raise InputError(
            f"RANK={rank} is not below WORLD_SIZE={world} (ranks are 0 to WORLD_SIZE - 1): "
            "unset RANK and WORLD_SIZE to run in one process, or start the run with torchrun "
            "or accelerate launch"
        )
    if world > 1:
        if "LOCAL_RANK" not in os.environ:
            raise InputError(
                f"WORLD_SIZE={world} without LOCAL_RANK: not set by a launcher (torchrun and "
                "accelerate launch set RANK, WORLD_SIZE and LOCAL_RANK): unset RANK and "
                "WORLD_SIZE to run in one process, or start the run with a launcher"
            )
        _launch_number("LOCAL_RANK", 0)
    return rank, world


def _launch_number(name: str, default: int) -> int:
    """The launch variable ``name``, a whole number of ASCII digits."""
    value = os.environ.get(name)
    if value is None:
        return default
    if not (value.isascii() and value.isdigit()):
        raise InputError(f"{name}={value!r} is not a rank or process count (0, 1, 2 …)")
    return int(value)


def _wait_for(paths: list[Path], run: Path, timeout: float, poll_seconds: float = 5.0) -> None:
    """Rank 0 of a multi-process launch waits for the other ranks' chunks, ``timeout``
    seconds at most: a rank that failed or was never started would keep it waiting forever."""
    deadline = time.monotonic() + timeout
    while missing := [p for p in paths if not p.exists()]:
        left = deadline - time.monotonic()
        if left <= 0:
            shown = ", ".join(str(p.relative_to(run)) for p in missing[:3])
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            raise RunError(
                f"waited {timeout:g} s for {len(missing)} chunk{'s' * (len(missing) > 1)} of "
                f"the other ranks ({shown}{more} in {run}): check that every rank "
                "of the launch runs, then launch all ranks again to resume (scored chunks "
                "are kept); --rank-timeout sets the wait"
            )
        say(f"waiting for {len(missing)} chunks from other ranks")
        time.sleep(min(poll_seconds, left))


@dataclass(frozen=True, kw_only=True)
class Task:
    """What a run computes, as `evaluate_task` assembles it from an `EvaluationTask`, its
    settings and its plan: a `datasets.map` function over rows and what it depends on."""

    name: str
    # The task's version, in the run's signature: bumped whenever its outputs change, so a
    # run is never resumed across a change of the code that scores it.
    version: str
    function: Callable
    settings: object  # a frozen dataclass; its fields that can change a score are signed
    split_key: Callable[[str, str, dict], str]
    columns: tuple[str, ...]  # what the function and the reports read from each row
    skip_splits: tuple[str, ...]  # splits the task never scores (distance: orig)
    # What else the scores depend on, by identity (probe: the treebanks its probes train on):
    # recorded in run.json and part of the signature, so a run resumes only on the same.
    inputs: dict | None
    # Run once the run folder is checked and the splits loaded, before any chunk is scored
    # (probe: training the probes every chunk reads), with the run folder and its header;
    # returns more keyword arguments for the function.
    prepare: Callable[[Path, dict], dict] | None


def run_task(
    task: Task,
    dataset: str,
    model: str,
    out: str | Path,
    *,
    configs: list[str] | None = None,
    splits: list[str] | None = None,
    limit: int | None = None,
    device: str = "cpu",
    revision: str | None = None,
    dataset_revision: str | None = None,
    num_proc: int | None = None,
    overwrite: bool = False,
    rank_timeout: float = RANK_TIMEOUT,
) -> tuple[Path, pd.DataFrame, dict]:
    """Score every split of ``configs`` (each distinct split once) into ``out/chunks``.

    ``splits`` keeps only those splits, ``limit`` the first rows of each split. Returns the
    run folder, all scored rows (dataset columns, the task's columns and the ``split_key``
    they were scored under), and the run header that `finish` completes.
    Under torchrun or accelerate every rank scores its share of the chunks; rank 0 waits
    for the rest (``rank_timeout`` seconds at most) and gets the rows, the other ranks get
    None.
    """
    from datasets.utils.logging import (
        disable_progress_bar,
        enable_progress_bar,
        is_progress_bar_enabled,
    )

    run = Path(out)
    header = run_header(
        task.name, task.version, dataset, model, task.settings, configs=configs, splits=splits,
        limit=limit, device=device, revision=revision, dataset_revision=dataset_revision,
        num_proc=num_proc, inputs=task.inputs,
    )  # fmt: skip
    kept = finished_configs(run, header)
    header["configs"] = [*header["configs"], *kept]
    by_key = _splits_by_key(task, dataset, header, splits, limit)
    chunks = [
        (key, start, min(start + CHUNK_ROWS, len(split_ds)),
         run / "chunks" / key / f"{start // CHUNK_ROWS:05d}.parquet")
        for key, split_ds in by_key.items()
        for start in range(0, len(split_ds), CHUNK_ROWS)
    ]  # fmt: skip
    if not chunks:
        raise InputError(f"no rows to score in {dataset} with these configs and splits")
    start_run(run, header, overwrite)
    say(f"evaluate {task.name}: {model} on {device}")  # every check passed
    if kept:
        say(f"keeping the results of {', '.join(kept)} from the earlier run in {run}")
    kwargs = {
        "model": model, "revision": revision, "device": device,
        "settings": asdict(task.settings),
    }  # fmt: skip
    rank, world = launcher_rank()
    if world > 1 and device == "cuda":
        kwargs["device"] = f"cuda:{os.environ.get('LOCAL_RANK', rank)}"
    if task.prepare is not None:
        kwargs |= task.prepare(run, header)
    mine = chunks[rank::world]  # a launched rank takes every world-th chunk
    done = sum(_chunk_done(path, by_key[key], start, stop) for key, start, stop, path in mine)
    if done:
        say(f"resuming {run}: {done} of {len(mine)} chunks done, {len(mine) - done} to score")
    bars = is_progress_bar_enabled()
    disable_progress_bar()  # one bar for the whole run instead of one per chunk
    try:
        total = sum(stop - start for _, start, stop, _ in mine)
        with (
            progress(task.name, total) as advance,
            _noting_ctrl_c(bool(num_proc and num_proc > 1)) as pressed,
            worker_start_method(device, num_proc),
        ):
            for key, start, stop, path in mine:
                if not path.exists():  # finished chunks of an interrupted run are kept
                    _score_chunk(by_key[key], start, stop, path, task.function, kwargs, num_proc)
                if pressed:  # a Ctrl-C that Python swallowed in a worker pool's fork hooks
                    raise KeyboardInterrupt
                advance(stop - start)
    except BaseException as err:  # with --num-proc, Ctrl-C surfaces as the pool's error
        if not _after_interrupt(err):
            raise
        scored = sum(path.exists() for *_, path in mine)
        raise Interrupted(
            f"interrupted: {scored} of {len(mine)} chunks are kept in {run}; run the same "
            "command again to resume"
        ) from None
    finally:
        if bars:
            enable_progress_bar()
    if rank != 0:
        return run, None, header
    _wait_for([path for *_, path in chunks], run, rank_timeout)
    parts = [pd.read_parquet(path).assign(split_key=key) for key, _, _, path in chunks]
    scored = pd.concat(parts, ignore_index=True)
    header["ran"] = ran(scored)
    return run, scored.drop(columns=RAN_WITH, errors="ignore"), header


@contextlib.contextmanager
def worker_start_method(device: str, num_proc: int | None) -> Iterator[None]:
    """``datasets.map``'s ``num_proc`` workers are started by `multiprocess` (not the standard
    library's `multiprocessing`), which forks by default on Linux. A forked child cannot use
    CUDA once its parent has, so on a GPU they are spawned, and the start method is put back
    after the run; on CPU, forking is safe and starts them without importing torch again."""
    import multiprocess

    if not (num_proc and num_proc > 1 and device.startswith("cuda")):
        yield
        return
    before = multiprocess.get_start_method(allow_none=True)
    multiprocess.set_start_method("spawn", force=True)
    try:
        yield
    finally:
        multiprocess.set_start_method(before, force=True)


@contextlib.contextmanager
def _noting_ctrl_c(workers: bool):
    """A list that holds True once Ctrl-C was pressed. With worker processes, the first press
    is only noted, and the run stops after the chunk under way: a KeyboardInterrupt raised
    while `datasets` starts its workers is printed and ignored by Python, and the run would go
    on. A second press stops at once."""
    pressed: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield pressed
        return

    def note(signum, frame):
        if workers and not pressed:
            pressed.append(True)
            say("stopping after the chunk under way (Ctrl-C again to stop at once)")
            return
        pressed.append(True)
        signal.default_int_handler(signum, frame)

    before = signal.signal(signal.SIGINT, note)
    try:
        yield pressed
    finally:
        signal.signal(signal.SIGINT, before)


def _after_interrupt(err: BaseException | None) -> bool:
    """Whether ``err`` is Ctrl-C, or raised while handling it (`datasets`' worker pool then
    raises its own timeout)."""
    while err is not None:
        if isinstance(err, KeyboardInterrupt):
            return True
        err = err.__context__
    return False


def _splits_by_key(task: Task, dataset: str, header: dict, splits, limit) -> dict:
    """The splits of the run's configs to score, each under its `Task.split_key` once: their
    columns and names are checked before anything is written."""
    by_key = {}
    for config in header["configs"]:
        ds = load_config(dataset, config, header["dataset_revision"],
                         header["dataset_content_sha256"])  # fmt: skip
        for split, split_ds in ds.items():
            if (splits and split not in splits) or split in task.skip_splits:
                continue
            if limit is not None:
                split_ds = split_ds.select(range(min(limit, len(split_ds))))
            where = f"split {str(split)!r} of config {config!r} of {dataset}"
            require_columns(split_ds.column_names, task.columns, f"evaluate {task.name}", where)
            key = task.split_key(config, split, split_ds[0])
            for name in key.split("/"):  # from the dataset's names and values: untrusted
                check_name(name, "chunk folder")
            by_key.setdefault(key, split_ds)
    return by_key


def finished_configs(run: Path, header: dict) -> list[str]:
    """The configs an earlier run of the same settings in ``run`` has results for and this
    one does not name: a run of fewer configs adds to those results instead of dropping
    them (their chunks are all there, so they cost only reading)."""
    path = run / "results.json"
    if not path.is_file():
        return []
    try:
        results = read_json_object(path, RunError)
    except RunError:
        return []
    earlier = results.get("dataset")
    if results.get("signature") != redact(header["signature"]) or not isinstance(earlier, dict):
        return []
    configs = earlier.get("configs") or ()
    return [c for c in configs if isinstance(c, str) and c not in header["configs"]]


def run_header(
    task: str,
    version: str,
    dataset: str,
    model: str,
    settings,
    *,
    configs: list[str] | None,
    splits: list[str] | None,
    limit: int | None,
    device: str,
    revision: str | None,
    dataset_revision: str | None,
    num_proc: int | None = None,
    inputs: dict | None = None,
) -> dict:
    """What a run reads and computes: its ``run.json``, whose signature a resumed run must
    match. A local dataset is named by the hash of its files, other ``inputs`` by the hash
    of their identities."""
    content = dataset_content(dataset)
    configs = configs or config_names(dataset, dataset_revision)
    # the model was checked as its kind by `evaluation` before anything was written
    loading = settings.loading() if hasattr(settings, "loading") else None
    identity = describe_model(model, revision, loading)
    header = {
        "task": task,
        "task_version": version,
        "dataset": dataset,
        "dataset_revision": dataset_revision,
        "dataset_content_sha256": content,
        "dataset_build": _build_identity(local_manifest(dataset)),
        "configs": configs,
        "splits": splits,
        "limit": limit,
        "model": model,
        "revision": revision,
        "model_identity": identity,
        "device": device,
        "settings": recorded_settings(settings),
        "chunk_rows": CHUNK_ROWS,
        "num_proc": num_proc,
        "versions": _versions(),
        "signature": f"{task}@{version}|toolkit:{__version__}|"
        f"model:{model}@{identity['revision']}{_adapted(identity)}|"
        f"data:{content or f'{dataset}@{dataset_revision}'}|"
        f"splits:{','.join(splits or ['all'])}|limit:{limit or 'all'}|"
        + "|".join(f"{k}:{v}" for k, v in signed_settings(settings).items()),
    }
    if inputs:
        text = json.dumps(inputs, sort_keys=True)
        header["inputs"] = inputs
        header["signature"] += f"|inputs:{hashlib.sha256(text.encode()).hexdigest()[:16]}"
    return header


def _adapted(identity: dict) -> str:
    """A signature's model part names an adapter by its files' digest, as it names a local
    model: an edited adapter is another model."""
    if "adapter" not in identity:
        return ""
    return f"+adapter:{identity['adapter']}@{identity['adapter_revision']}"


def _build_identity(manifest: dict | None) -> dict | None:
    """What names the dataset a run read: its build signature, config id, family, version."""
    if manifest is None:
        return None
    keys = ("dataset", "family", "version", "signature", "config_id", "content_sha256")
    return {key: manifest.get(key) for key in keys}


def evaluate_task(
    task: type[EvaluationTask],
    dataset: str,
    model: str,
    out: str | Path,
    *,
    settings=None,
    configs: list[str] | None = None,
    splits: list[str] | None = None,
    device: str = "auto",
    revision: str | None = None,
    **options,
) -> Path:
    """Run ``task``: the dataset, configs, splits, model path, device and model kind are
    checked before anything is written (a settings ``kind`` of None becomes the model's
    own; a task that reads no language model checks its model itself); then the run folder
    (``out``) is held for the whole run, so two runs on one folder never write each other's
    chunks (each rank of a launch holds its own). The run folder is never inside the
    dataset, the model or the treebanks read (its chunks would change them), and a symlink
    in it is refused rather than written through. Rank 0 writes the task's outputs and
    results.json; the other ranks of a launch return once their chunks are scored."""
    from ...lm.models import checked_device, resolved_device

    if missing := [name for name in ("version", "score") if not hasattr(task, name)]:
        raise InputError(
            f"the evaluation task {task.name} ({task.__module__}) lacks {', '.join(missing)}: "
            "it was written for perturbed-ud 0.2; move it to EvaluationTask (version, score, "
            "outputs), as CHANGELOG.md 0.3.0 says"
        )
    settings = settings or task.settings_class()
    check_inputs(task.name, dataset, configs, splits, model)
    device = resolved_device(device)
    checked_device(device)
    if not task.kinds:
        task.check_model(model, revision, dataset, settings, configs,
                         options.get("dataset_revision"))  # fmt: skip
    else:
        kinds = task.kinds
        asked = getattr(settings, "kind", None) or (kinds[0] if len(kinds) == 1 else None)
        remote = getattr(settings, "trust_remote_code", False)
        kind = model_kind(model, revision, asked, choosable=len(kinds) > 1, remote_code=remote)
        if hasattr(settings, "kind"):
            settings = replace(settings, kind=kind)
    guard_output(out, [dataset, model, options.get("ud_root")])
    rank, _ = launcher_rank()
    with (
        left_as_found(out) as run,
        exclusive(output_folder(run) / f".rank{rank}.lock", f"the run folder {run}"),
    ):
        refuse_links(run)
        options |= {"configs": configs, "splits": splits, "device": device,
                    "revision": revision}  # fmt: skip
        plan = task.plan(dataset, model, settings, options)
        scoring = Task(
            name=task.name, version=task.version, function=task.score, settings=settings,
            split_key=task.split_key, columns=task.columns(settings),
            skip_splits=task.skip_splits, inputs=plan.get("inputs"), prepare=plan.get("prepare"),
        )  # fmt: skip
        run, rows, header = run_task(scoring, dataset, model, out, **options)
        if rows is None:  # another rank of a multi-process launch writes the outputs
            return run
        made = task.outputs(Scored(run, rows, settings, model, dataset, plan))
        finish(run, header, made.metrics, headline=made.headline, key_columns=task.key_columns,
               **made.counts)  # fmt: skip
        return run


def records(table: pd.DataFrame) -> list[dict]:
    """A table as JSON records, NaN as null (strict JSON, as every reader accepts)."""
    return json.loads(table.to_json(orient="records", double_precision=15))


def finish(
    run: Path,
    header: dict,
    metrics: dict | None = None,
    *,
    headline: pd.DataFrame | None = None,
    key_columns: tuple[str, ...] = (),
    **results,
) -> None:
    """Write ``results.json`` (the metrics with the dataset's and model's identities), then
    complete ``run.json`` with what the run produced (counts, drops) and where the dataset's
    cache is: last, so that a ``run.json`` with results says every output is in place.
    ``headline``: the run's few numbers a reader wants first, kept in ``results.json`` as a
    Markdown table that the command prints at the end. ``key_columns``: the task's
    `EvaluationTask.key_columns`, kept beside the metrics they name the conditions of."""
    summary = {
        "task": header["task"],
        "dataset": {
            "name": header["dataset"],
            "revision": header["dataset_revision"],
            "content_sha256": header["dataset_content_sha256"],
            "build": header.get("dataset_build"),
            "configs": header["configs"],
            "splits": header.get("splits"),
            "limit": header.get("limit"),
        },
        "model": header["model_identity"],
        "ran": header.get("ran", []),
        "settings": header["settings"],
        "signature": header["signature"],
        "versions": header["versions"],
        "key_columns": list(key_columns),
        "metrics": metrics or {},
        "counts": results,
    }
    if headline is not None:
        summary["headline"] = headline_text(headline)
    _write_json(run / "results.json", summary)
    _write_json(run / "run.json", header | results | _dataset_cache(header))


# Rows of a headline printed at the end of a run; the table files hold every row.
HEADLINE_ROWS = 30


def headline_text(table: pd.DataFrame) -> str:
    """A table as the few lines a run prints: without the columns every row shares (the
    model's name, the interval's method), its first `HEADLINE_ROWS` rows."""
    from ...data.markdown import frame_table

    shown = table.drop(columns=["model_name", "interval"], errors="ignore")
    text = frame_table(shown.head(HEADLINE_ROWS), digits=3)
    if len(shown) > HEADLINE_ROWS:
        text += f"({len(shown) - HEADLINE_ROWS} more rows in the run's tables)\n"
    return text


def headline_of(run: Path) -> str:
    """The headline table a finished run keeps in ``results.json`` ("" where it has none, or
    on another rank of a launch, which writes no results)."""
    path = Path(run) / "results.json"
    if not path.is_file():
        return ""
    return str(read_json_object(path, RunError).get("headline", ""))


def _dataset_cache(header: dict) -> dict:
    """Where the Arrow copies of a local dataset's splits are kept: reused by every run of the
    same content, and never removed by one; deleting the folder frees the space."""
    content = header["dataset_content_sha256"]
    return {"dataset_cache": str(content_cache(content))} if content else {}
