"""The ``distance`` task: how far a model's representation of a sentence moves when words are
replaced without changing the syntax (La Malfa et al. 2022, Alg. 1; substitution datasets).

For every layer (0: the embeddings), a UD word's representation is the mean of its pieces'
states, and a sentence's is its words' representations side by side. Each perturbed copy is
compared with its original (`original_forms` of the same row): ℓ2 distance (raw, and divided
by the hidden size as the released code reports it) and cosine similarity of the flattened
representations, over all words and over the words whose form did not change. Per sentence
the worst copy counts (the largest ℓ2, the smallest cosine); per config and layer, the mean
and quartiles over sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from ...files import atomic_path
from ...lm.batching import every_layer_max_tokens
from ...lm.encodings import encode
from ...lm.models import device_for, load_lm
from ...registry import TASKS
from ..measures.sentence_scores import KindSettings
from ..reporting.figures import plot_distances
from ..reporting.statistics import worst_copy
from ..reporting.tables import write_table
from ..running.runner import records
from ..running.task import EvaluationTask, Outputs, Scored, with_config_and_split

MEASURES = ("l2", "l2_per_dim", "cosine", "l2_unchanged", "cosine_unchanged")
_CONFIG = re.compile(r"(?P<lang>[^_]+)_(?P<method>.+)_tau(?P<tau>\d+)_seed(?P<seed>\d+)")


@dataclass(frozen=True, kw_only=True)
class DistanceSettings(KindSettings):
    max_tokens: int | str = every_layer_max_tokens()


def pair_distances(a: torch.Tensor, b: torch.Tensor, unchanged: list[bool]) -> dict[str, list]:
    """Per layer, the distances between two sentences' word states (layers × words × d)."""
    keep = torch.tensor(unchanged, dtype=torch.bool)
    out = {}
    for suffix, (x, y) in {"": (a, b), "_unchanged": (a[:, keep], b[:, keep])}.items():
        x, y = x.flatten(1).double(), y.flatten(1).double()
        out[f"l2{suffix}"] = torch.linalg.vector_norm(x - y, dim=1).tolist()
        out[f"cosine{suffix}"] = torch.nn.functional.cosine_similarity(x, y, dim=1).tolist()
    out["l2_per_dim"] = [v / a.shape[-1] for v in out["l2"]]
    return out


def sentence_distances(batch, rank=None, *, model: str, revision, device: str, settings: dict):
    """`datasets.map` function over perturbed rows: per-layer distances to the original."""
    options = DistanceSettings(**settings)
    lm = load_lm(options.kind, model, device_for(device, rank), options.loading(), revision)
    copies, originals = list(batch["forms"]), list(batch["original_forms"])
    sentences = copies + originals  # copy i's original is sentence i + len(copies)
    encoded = encode(lm, sentences, options.kind, options.bos)
    fits = [len(ids) <= lm.max_length for ids, _ in encoded]
    too_long = [not (fits[i] and fits[i + len(copies)]) for i in range(len(copies))]
    todo = [i for i, skip in enumerate(too_long) if not skip]
    wanted = todo + [i + len(copies) for i in todo]
    states = options.batcher(lm).word_states(
        [encoded[i][0] for i in wanted],
        [encoded[i][1] for i in wanted],
        [len(sentences[i]) for i in wanted],
    )
    found = dict(zip(wanted, states, strict=True))
    out = {name: [] for name in MEASURES} | {"too_long": too_long}
    for i, skip in enumerate(too_long):
        if skip:
            for name in MEASURES:
                out[name].append([])
            continue
        same = [a == b for a, b in zip(copies[i], originals[i], strict=True)]
        for name, values in pair_distances(found[i + len(copies)], found[i], same).items():
            out[name].append(values)
    return out


@TASKS.register("distance.v1")
class Distance(EvaluationTask):
    """Per-layer distances between perturbed copies and their originals (substitution)."""

    name = "distance"
    version = "1.0.0"
    settings_class = DistanceSettings
    score = staticmethod(sentence_distances)
    read_columns = ("sent_id", "forms", "original_forms")
    skip_splits = ("orig",)  # the copies are compared with their originals, row by row
    key_columns = ("config", "method", "tau", "seed", "layer")

    @classmethod
    def outputs(cls, scored: Scored) -> Outputs:
        """The distances per sentence, the worst-copy summary per config and layer, and a
        figure of distance by layer and τ."""
        rows, run = scored.rows, scored.folder
        keep = ["split_key", "sent_id", "copy", "too_long", *MEASURES]
        with atomic_path(run / "distances.parquet") as tmp:
            rows[keep].to_parquet(tmp, index=False)
        summary = distance_summary(worst_copies(rows), scored.model)
        write_table(summary, run / "distance_summary.csv", markdown=True)
        if len(summary):
            plot_distances(summary, run / "distance_by_layer.png")
        counts = {"copies": len(rows), "too_long": int(rows["too_long"].sum())}
        return Outputs({"distance": records(summary)}, summary, counts)


def worst_copies(scored: pd.DataFrame) -> pd.DataFrame:
    """One row per (config, sentence, layer): the worst copy's distances (largest ℓ2,
    smallest cosine), as Alg. 1 takes them."""
    scored = with_config_and_split(scored[~scored["too_long"]])
    long = scored.assign(layer=scored["l2"].map(lambda v: list(range(len(v)))))
    long = long[["config", "sent_id", "layer", *MEASURES]].explode(["layer", *MEASURES])
    long = long.astype({"layer": int} | {m: float for m in MEASURES}).reset_index(drop=True)
    sentence = [long["config"], long["sent_id"], long["layer"]]
    worst = {}
    for m in MEASURES:
        rows = worst_copy(long[m], sentence, highest=m.startswith("l2"))
        worst[m] = long.loc[rows, m].set_axis(rows.index)
    return pd.DataFrame(worst).reset_index()


def distance_summary(worst: pd.DataFrame, model_name: str) -> pd.DataFrame:
    """Mean and quartiles over sentences of the worst-copy distances, per config and layer."""
    rows = []
    for (config, layer), group in worst.groupby(["config", "layer"], sort=True):
        parts = _CONFIG.fullmatch(config)
        row = {
            "model_name": model_name,
            "config": config,
            **({k: parts[k] for k in ("lang", "method")} if parts else {}),
            "tau": int(parts["tau"]) if parts else None,
            "seed": int(parts["seed"]) if parts else None,
            "layer": layer,
            "sentences": len(group),
        }
        for measure in MEASURES:
            values = group[measure].dropna().to_numpy()
            stats = (
                [values.mean(), *np.quantile(values, [0.25, 0.5, 0.75])]
                if len(values)
                else [np.nan] * 4
            )
            for name, value in zip(("mean", "q1", "median", "q3"), stats, strict=True):
                row[f"{measure}_{name}"] = float(value)
        rows.append(row)
    return pd.DataFrame(rows)
