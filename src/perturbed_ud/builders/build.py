"""Running a perturbed-ud build: jobs in worker processes, then card and manifest.

Work splits into independent jobs (one treebank with all seeds, or, for a protocol whose
random stream runs across treebanks, one seed with all treebanks in order). Each job writes
its own configs, so 1 or N workers give the same bytes.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from rich.progress import Progress

from .. import __version__
from ..data.card import ud_signature, write_card
from ..data.writer import atomic_folder, content_hash
from ..errors import InputError
from ..registry import PROTOCOLS
from ..releases import parse_version
from ..ud.selection import Selection
from ..ud.sources import Treebank
from . import perturbed_ud as builder


def make_protocol(name: str, part_fraction: float = 0.5):
    """A registered word-order protocol by name (``paper`` or ``word_order.paper.v1``)."""
    return PROTOCOLS.get(name)(part_fraction)


def plan_jobs(treebanks, seeds, families, protocol, selection, root) -> list[builder.Job]:
    langs = [t.lang for t in treebanks]
    duplicated = {lang for lang in langs if langs.count(lang) > 1}
    if duplicated:
        raise InputError(f"more than one treebank for {sorted(duplicated)}: build them separately")
    order = protocol.stream_order
    if order is not None:  # one random stream runs over the treebanks in this order
        unknown = [lang for lang in langs if lang not in order]
        if unknown:
            raise InputError(f"the {protocol.name} protocol covers {order}, not {unknown}")
        ordered = sorted(treebanks, key=lambda t: order.index(t.lang))
        return [builder.Job(ordered, [seed], families, protocol, selection, root) for seed in seeds]
    return [builder.Job([t], list(seeds), families, protocol, selection, root) for t in treebanks]


def _config_entries(stats: dict, families: list[str]) -> dict:
    configs = {}
    for lang in sorted(stats):
        for seed in sorted(stats[lang]):
            s = stats[lang][seed]
            for family in families:
                splits = [sp for sp in builder.splits_of(family) if s["rows"].get(sp)]
                if not splits:
                    continue
                configs[builder.config_name(lang, family, seed)] = {
                    "splits": {sp: s["rows"][sp] for sp in splits},
                    "sentences": s["sentences"],
                    "sentence_drops": s["sentence_drops"],
                    "row_drops": {
                        k: v for k, v in s["row_drops"].items() if k.split(":")[0] in splits
                    },
                    "empty_splits": [sp for sp in builder.splits_of(family) if sp not in splits],
                    "lemma_token_change": s["lemma_token_change"],
                    "position_change": s["position_change"].get(family, [0, 0]),
                }
    return configs


def build_perturbed_ud(
    treebanks: list[Treebank],
    out: str | Path,
    *,
    seeds=builder.DEFAULT_SEEDS,
    families=builder.FAMILIES,
    protocol: str = "paper",
    part_fraction: float = 0.5,
    selection: Selection | None = None,
    split: str = "test",
    workers: int = 1,
    overwrite: bool = False,
    version: str = builder.VERSION,
) -> Path:
    """Build ``<out>/perturbed-ud`` as dataset ``version`` and return its path."""
    parse_version(version)
    selection = selection or Selection()
    families = [f for f in builder.FAMILIES if f in families]
    proto = make_protocol(protocol, part_fraction)
    final = Path(out) / builder.NAME
    with atomic_folder(final, overwrite=overwrite) as root:
        jobs = plan_jobs(treebanks, list(seeds), families, proto, selection, root)
        stats: dict = {}
        with Progress(transient=True) as progress:
            task = progress.add_task(f"building {builder.NAME}", total=len(jobs))
            for result in _run(jobs, workers):
                for lang, per_seed in result.items():
                    stats.setdefault(lang, {}).update(per_seed)
                progress.advance(task)
        configs = _config_entries(stats, families)
        if not configs:
            raise InputError("no sentence produced a row; nothing to write")
        parameters = proto.params() | {"seeds": ",".join(map(str, seeds))}
        manifest = {
            "dataset": builder.NAME,
            "pretty_name": builder.PRETTY_NAME,
            "version": version,
            "toolkit_version": __version__,
            "signature": ud_signature(
                builder.NAME, version, parameters, selection, split, treebanks
            ),
            "content_sha256": content_hash(root),
            "parameters": parameters | {"families": ",".join(families)},
            "split": split,
            "selection": selection.describe(),
            "treebanks": [t.describe() | {"citation": t.citation} for t in treebanks],
            "configs": configs,
        }
        write_card(root, manifest, builder.DESCRIPTION)
    return final


def _run(jobs: list[builder.Job], workers: int):
    if workers <= 1 or len(jobs) == 1:
        yield from map(builder.run_job, jobs)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        yield from pool.map(builder.run_job, jobs)
