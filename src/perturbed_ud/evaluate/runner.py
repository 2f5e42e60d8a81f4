"""An evaluation run: dataset configs in, a run folder out, resumable chunk by chunk.

Layout of ``RUN/``: ``chunks/<lang>_seed<seed>/<split>/<k>.parquet`` (finished work, kept
across interruptions), ``items.parquet`` and ``items.jsonl`` (scored items in the released
schema plus sent_id and seed), summaries and plots, and ``run.json`` (model identity,
settings, versions, drop counts). The ``orig`` splits that every family config of a
(language, seed) shares are scored once.
"""

from __future__ import annotations

import json
import multiprocessing
import platform
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pandas as pd
from rich.progress import Progress

from .. import __version__
from .masked_word import MaskedWordSettings, score_batch
from .models import describe_model
from .schema import condition_name

CHUNK_ROWS = 512


class RunError(RuntimeError):
    """A run folder that belongs to different settings, or bad input."""


def _load_config(dataset: str, config: str, revision: str | None):
    from datasets import load_dataset

    return load_dataset(dataset, config, revision=revision)


def _config_names(dataset: str, revision: str | None) -> list[str]:
    from datasets import get_dataset_config_names

    return get_dataset_config_names(dataset, revision=revision)


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


def _start(run: Path, header: dict) -> None:
    """Create the run folder, or check that an existing one was started the same way."""
    path = run / "run.json"
    if path.exists():
        previous = json.loads(path.read_text(encoding="utf-8"))
        if previous.get("signature") != header["signature"]:
            raise RunError(
                f"{run} holds a run with other settings ({previous.get('signature')}); "
                "choose another --out"
            )
    run.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(header, indent=2) + "\n", encoding="utf-8")


def _score_split(split_ds, folder: Path, kwargs: dict, num_proc, progress, task) -> None:
    """Score one split chunk by chunk; chunks already on disk are not recomputed."""
    folder.mkdir(parents=True, exist_ok=True)
    for k, start in enumerate(range(0, len(split_ds), CHUNK_ROWS)):
        path = folder / f"{k:05d}.parquet"
        stop = min(start + CHUNK_ROWS, len(split_ds))
        if not path.exists():
            chunk = split_ds.select(range(start, stop))
            scored = chunk.map(
                score_batch,
                batched=True,
                batch_size=CHUNK_ROWS if num_proc is None else -(-CHUNK_ROWS // num_proc),
                with_rank=True,
                num_proc=num_proc,
                fn_kwargs=kwargs,
                keep_in_memory=True,
                load_from_cache_file=False,
            )
            tmp = path.with_suffix(".partial")
            scored.to_parquet(str(tmp))
            tmp.replace(path)
        progress.advance(task, stop - start)


def _released_items(scored: pd.DataFrame, model_name: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_name": model_name,
            "lang": scored["treebank"],
            "condition": scored["condition"].map(condition_name),
            "words": scored["words"],
            "target_index": scored["target_index"],
            "target_token": scored["target_form"],
            "word_level_match": scored["word_level_match"],
            "gold_word": scored["gold_word"],
            "gold_num_pieces": scored["gold_num_pieces"],
            "reconstructed_prediction": scored["reconstructed_prediction"],
            "top_k_predictions": scored["top_k_predictions"],
            "word_at_5": scored["word_at_5"],
            "sent_id": scored["sent_id"],
            "seed": scored["seed"],
            "item_id": scored["item_id"],
            "prediction_logprob": scored["prediction_logprob"],
            "top_k_logprobs": scored["top_k_logprobs"],
        }
    )


def evaluate_masked_word(
    dataset: str,
    model: str,
    out: str | Path,
    *,
    configs: list[str] | None = None,
    device: str = "cpu",
    revision: str | None = None,
    dataset_revision: str | None = None,
    settings: MaskedWordSettings | None = None,
    num_proc: int | None = None,
    summarize: bool = True,
) -> Path:
    """Run masked word prediction over dataset configs; return the run folder."""
    settings = settings or MaskedWordSettings()
    run = Path(out)
    configs = configs or _config_names(dataset, dataset_revision)
    identity = describe_model(model, revision, settings.dtype)
    signature = f"masked-word|model:{model}@{identity['revision']}|{settings.signature()}"
    header = {
        "task": "masked-word",
        "dataset": dataset,
        "dataset_revision": dataset_revision,
        "configs": configs,
        "model": model,
        "revision": revision,
        "model_identity": identity,
        "device": device,
        "settings": asdict(settings),
        "chunk_rows": CHUNK_ROWS,
        "num_proc": num_proc,
        "versions": _versions(),
        "signature": signature,
    }
    _start(run, header)
    if num_proc and num_proc > 1:
        multiprocessing.set_start_method("spawn", force=True)
    kwargs = {"model": model, "revision": revision, "device": device, "settings": asdict(settings)}
    splits = {}
    for config in configs:
        ds = _load_config(dataset, config, dataset_revision)
        first = ds[next(iter(ds))][0]
        for split, split_ds in ds.items():
            key = f"{first['lang']}_seed{first['seed']}/{split}"
            splits.setdefault(key, split_ds)
    with Progress() as progress:
        task = progress.add_task("masked word", total=sum(len(d) for d in splits.values()))
        for key, split_ds in splits.items():
            _score_split(split_ds, run / "chunks" / key, kwargs, num_proc, progress, task)
    chunks = sorted((run / "chunks").glob("*/*/*.parquet"))
    scored = pd.concat([pd.read_parquet(p) for p in chunks], ignore_index=True)
    drops = Counter(
        f"{lang}/{split}:{status}"
        for lang, split, status in zip(
            scored["treebank"], scored["condition"], scored["status"], strict=True
        )
        if status != "scored"
    )
    items = _released_items(scored[scored["status"] == "scored"], model)
    items.to_parquet(run / "items.parquet", index=False)
    items.to_json(run / "items.jsonl", orient="records", lines=True, force_ascii=False)
    header |= {
        "rows": len(scored),
        "scored": len(items),
        "drops": dict(sorted(drops.items())),
    }
    (run / "run.json").write_text(json.dumps(header, indent=2) + "\n", encoding="utf-8")
    if summarize:
        from .report import summarize as write_summaries

        write_summaries(items, run)
    return run
