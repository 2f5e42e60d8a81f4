"""The robustness table of La Malfa et al. (2022, Tables 1-2): per model, layer and
perturbation, each probe metric's drop as mean ± standard deviation over corpora, beside the
distances between original and perturbed representations at the same layer.

It reads finished runs: ``evaluate probe`` runs (their ``results.json``) and, optionally,
``evaluate distance`` runs (their ``distance_summary.csv``) of the same models and data.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ...errors import InputError
from ...files import read_json_object

# {lang}_{method}_tau{τ}_seed{s} (substitution) or {lang}_seed{s} (spud)
_CONFIG = re.compile(r"(?P<lang>[^_]+)_(?:(?P<method>.+)_tau(?P<tau>\d+)_)?seed(?P<seed>\d+)")
DISTANCES = ("l2_mean", "l2_per_dim_mean", "cosine_mean")


def _perturbation(config: str) -> tuple[str, str]:
    """(lang, perturbation) of a config: ``copos_wordnet τ=1``, or ``nonce`` for spud."""
    parts = _CONFIG.fullmatch(config)
    if parts is None:
        return "", config
    if parts["method"] is None:
        return parts["lang"], "nonce"
    return parts["lang"], f"{parts['method']} τ={parts['tau']}"


def _results(run: Path, task: str) -> dict:
    path = Path(run) / "results.json"
    if not path.is_file():
        raise InputError(f"{run} holds no finished run (no results.json)")
    results = read_json_object(path)
    if results.get("task") != task:
        raise InputError(f"{run} is an `evaluate {results.get('task')}` run, not {task}")
    return results


def probe_drops(runs: list[Path]) -> pd.DataFrame:
    """One row per model, config, layer and metric: the drop of each probe run."""
    frames = []
    for run in runs:
        results = _results(run, "probe")
        table = pd.DataFrame(results["metrics"]["probe"])
        frames.append(table.assign(model_name=results["model"]["model"]))
    table = pd.concat(frames, ignore_index=True)
    lang, perturbation = zip(*table["config"].map(_perturbation), strict=True)
    return table.assign(corpus=list(lang), perturbation=list(perturbation))


def distance_means(runs: list[Path]) -> pd.DataFrame:
    frames = []
    for run in runs:
        _results(run, "distance")
        frames.append(pd.read_csv(Path(run) / "distance_summary.csv"))
    table = pd.concat(frames, ignore_index=True)
    lang, perturbation = zip(*table["config"].map(_perturbation), strict=True)
    return table.assign(corpus=list(lang), perturbation=list(perturbation))


def _mean_sd(values: pd.Series) -> str:
    sd = values.std(ddof=1)
    return f"{values.mean():.3f}" + ("" if pd.isna(sd) else f" ± {sd:.3f}")


def robustness_table(probe_runs: list[Path], distance_runs: list[Path] = ()) -> pd.DataFrame:
    """Per model, layer and perturbation: each metric's drop and each distance as mean ±
    standard deviation over corpora (the standard deviation needs two corpora)."""
    keys = ["model_name", "layer", "perturbation"]
    drops = probe_drops(probe_runs)
    table = drops.pivot_table(index=[*keys, "corpus"], columns="metric", values="drop")
    out = table.groupby(level=keys).agg(_mean_sd)
    out.columns = [f"drop_{metric}" for metric in out.columns]
    out["corpora"] = table.groupby(level=keys).size()
    if distance_runs:
        distances = distance_means(distance_runs).set_index([*keys, "corpus"])[list(DISTANCES)]
        out = out.join(distances.groupby(level=keys).agg(_mean_sd), how="left")
    return out.reset_index()
