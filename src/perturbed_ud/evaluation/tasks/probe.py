"""The ``probe`` task: does syntax read out of a model survive a perturbation that keeps it?
(La Malfa et al. 2022, Alg. 2; SPUD §5 with DepProbe.)

Probes (`probes`) train on one layer's frozen word vectors of a UD treebank's training split,
select their epoch on its development split, and are tested on the original and perturbed
splits of a dataset whose rows carry the UD tree (``spud``: orig vs nonce; ``substitution``:
orig vs k copies). Per sentence the metrics of `probe_metrics`; per config, layer and metric
the original value, the perturbed one (with several copies, each sentence's worst copy) and
the drop, each averaged over probe seeds, with a bootstrap interval over sentences and the
spread over seeds.

Two protocols: ``paper`` (Hewitt & Manning's and DepProbe's definitions on whole trees) and
``lamalfa2022`` (the released code's labels and metrics, broken ones included and named as
such: `lamalfa2022_probing`).

A run is the runner's (`runner.run_task`): the probes are trained first, once per language,
layer, seed and probe, and kept beside the chunks (`PROBES_FOLDER`); then the dataset's
splits are scored chunk by chunk, so a killed run resumes from its probes and chunks.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import connected_components

from ...data.markdown import frame_table
from ...data.task_columns import require_columns
from ...errors import InputError, MissingSplitError
from ...files import atomic_path
from ...lm.batching import every_layer_max_tokens
from ...lm.models import device_for, load_lm, pretrained
from ...lm.word_vectors import hidden_layers, hidden_states_of, word_vectors
from ...registry import TASKS
from ...settings import setting
from ...ud.columns import SentenceColumns
from ...ud.conllu_io import read_conllu
from ...ud.sources import parse_treebank_overrides, resolve
from ...version import __version__
from ..measures import lamalfa2022_probing as lamalfa2022
from ..measures.probe_labels import UPOS_TAGS
from ..measures.probe_metrics import (
    HEWITT_MANNING,
    MetricSet,
    aggregate,
    attachment_counts,
    decode_dependencies,
    depth_root,
    depth_spearman,
    distance_spearman,
    sentence_values,
    uuas_counts,
)
from ..measures.probe_models import (
    PROBES,
    Gold,
    ProbeData,
    Training,
    load_probe,
    predictions,
    save_probe,
    train_probe,
)
from ..measures.sentence_scores import KindSettings
from ..reporting.figures import plot_probe_summary
from ..reporting.statistics import (
    BOOTSTRAP_SEED,
    bootstrap_name,
    percentile_interval,
    resampled_counts,
    worst_copy,
)
from ..reporting.tables import write_table
from ..running.datasets_io import config_names, dataset_content, load_config
from ..running.runner import launcher_rank, records, say
from ..running.task import EvaluationTask, Outputs, Scored, with_config_and_split

COLUMNS = ("sent_id", "forms", "upos", "heads", "deprels", "multiword_tokens", "empty_nodes")
READ_COLUMNS = (*COLUMNS, "lang")  # a row's language picks the probes it is tested with
# Trained probes: in the chunks' folder, so a run of other settings replaces them with its
# chunks, and a resumed run reads them again.
PROBES_FOLDER = Path("chunks", "probes")
HELD_OUT = 0.1  # of the training sentences, when the development split is the training split


@dataclass(frozen=True)
class ProbeProtocol:
    """What a protocol fixes: its probes and default layers, how many words of a sentence
    are kept (from its word count, multiword tokens and empty nodes), the gold labels of a
    sentence, and how its metrics are computed."""

    probes: tuple[str, ...]
    layers: tuple[int, ...]
    words_kept: Callable[[int, list, list], int]
    labels: Callable[..., Gold]
    sentence_metrics: Callable[..., dict]
    metrics: MetricSet
    pooled_rows: Callable[[pd.DataFrame], list[dict]] = lambda scored: []
    definitions: dict[str, str] | None = None  # where a metric departs from the correct one


@dataclass(frozen=True, kw_only=True)
class ProbeSettings(KindSettings):
    max_tokens: int | str = every_layer_max_tokens()
    protocol: str = setting(
        "lamalfa2022: the released code's labels and metrics (20 lines, layers -5,-9, broken "
        "definitions named in the results).", default="paper", choices=("paper", "lamalfa2022"),
    )  # fmt: skip
    probes: tuple[str, ...] = setting(
        "Of distance, depth, pos, root, depprobe (default: the protocol's; lamalfa2022 has "
        "no depprobe).", default=(),
    )  # fmt: skip
    layers: tuple[int, ...] = setting(
        "Hidden states probed (0: embeddings; -5: hidden_states[-5]; default: the middle "
        "layer, or -5,-9 under lamalfa2022).", default=(),
    )  # fmt: skip
    probe_seeds: tuple[int, ...] = setting(
        "Seeds of probe training: their mean and spread are reported.", default=(1, 2, 3)
    )
    train_split: str = setting("UD split the probes train on.", default="train")
    dev_split: str = setting("UD split that picks the epoch (the train split: its last 10 %).",
                             default="dev")  # fmt: skip
    train_limit: int | None = setting("Only the first N training (and development) sentences.",
                                      default=None, minimum=1)  # fmt: skip
    max_words: int = setting(
        "Sentences of more words (of those the protocol keeps) are skipped and counted, in "
        "training and in the dataset: gold tree distances take memory quadratic in length.",
        default=200, minimum=1,
    )  # fmt: skip
    epochs: int = setting("Training epochs at most.", default=30, minimum=1)
    patience: int = setting("Epochs without a better development loss before stopping.",
                            default=3, minimum=1)  # fmt: skip
    batch_size: int = setting("Sentences per probe training step.", default=32, minimum=1)
    rank: int = setting("Rank of the distance, depth and DepProbe maps.", default=128,
                        minimum=1)  # fmt: skip
    resamples: int = setting("Bootstrap resamples of the intervals.", default=1000, minimum=1)

    def __post_init__(self):
        super().__post_init__()
        protocol = PROTOCOLS[self.protocol]
        object.__setattr__(self, "probes", tuple(self.probes) or protocol.probes)
        object.__setattr__(self, "layers", tuple(self.layers) or protocol.layers)
        object.__setattr__(self, "probe_seeds", tuple(self.probe_seeds))
        if unknown := [p for p in self.probes if p not in protocol.probes]:
            raise InputError(
                f"the {self.protocol} protocol's probes are {', '.join(protocol.probes)}, "
                f"not {', '.join(unknown)}"
            )
        if not self.probe_seeds:
            raise InputError("no probe seeds given")

    def training(self) -> Training:
        return Training(self.epochs, self.patience, self.batch_size, rank=self.rank)

    def fits(self, forms: Sequence, multiword_tokens: list, empty_nodes: list) -> bool:
        """Whether a sentence has at most ``max_words`` of the words the protocol keeps, so
        that it is probed; asked before any label or vector of it is built."""
        words = PROTOCOLS[self.protocol].words_kept(len(forms), multiword_tokens, empty_nodes)
        return words <= self.max_words


@dataclass
class Sentences:
    """Sentences of one source with their gold labels (None where the heads make no tree)."""

    ids: list[str]
    forms: list[list[str]]
    upos: list[list[str]]
    heads: list[list[int]]
    deprels: list[list[str]]
    gold: list[Gold | None]

    @classmethod
    def of(
        cls, ids, forms, upos, heads, deprels, multiword_tokens, empty_nodes,
        protocol: ProbeProtocol,
    ) -> Sentences:  # fmt: skip
        """Sentences cut to the words the protocol keeps, with its gold labels."""
        check_word_columns(ids, forms=forms, upos=upos, heads=heads, deprels=deprels)
        kept = [
            protocol.words_kept(len(f), t, e)
            for f, t, e in zip(forms, multiword_tokens, empty_nodes, strict=True)
        ]
        forms, upos, heads, deprels = (
            [list(sentence)[:n] for sentence, n in zip(column, kept, strict=True)]
            for column in (forms, upos, heads, deprels)
        )
        gold = []
        for h, u, d in zip(heads, upos, deprels, strict=True):
            try:
                gold.append(protocol.labels(h, u, d))
            except ValueError:
                gold.append(None)
        return cls(list(ids), forms, upos, heads, deprels, gold)

    def part(self, start: int, stop: int) -> Sentences:
        return Sentences(
            self.ids[start:stop], self.forms[start:stop], self.upos[start:stop],
            self.heads[start:stop], self.deprels[start:stop], self.gold[start:stop],
        )  # fmt: skip

    def digest(self) -> str:
        text = json.dumps([self.ids, self.forms], ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _ud_sentences(treebank, settings: ProbeSettings) -> tuple[Sentences, int]:
    """The first ``train_limit`` sentences of a treebank split but those over ``max_words``,
    and how many of those were left out."""
    read = (sentence for path in treebank.files for sentence in read_conllu(path))
    columns = [SentenceColumns.from_sentence(s) for s in islice(read, settings.train_limit)]
    kept = [c for c in columns if settings.fits(c.forms, c.multiword_tokens, c.empty_nodes)]
    protocol = PROTOCOLS[settings.protocol]
    sentences = Sentences.of(*([getattr(c, name) for c in kept] for name in COLUMNS), protocol)
    return sentences, len(columns) - len(kept)


class TrainingSentences(NamedTuple):
    """A language's sentences to train and select probes on."""

    train: Sentences
    dev: Sentences
    treebanks: list[dict]  # read: the training split's, then the development split's if another
    over_max_words: dict[str, int]  # per UD split read, its sentences left out (--max-words)


def training_sentences(lang: str, settings: ProbeSettings, source: dict) -> TrainingSentences:
    """A language's training sentences, through the UD sources the builds use (``source``:
    ud_root, download, offline, treebank overrides)."""
    sets = {}
    for split in dict.fromkeys((settings.train_split, settings.dev_split)):
        (treebank,) = _training_treebank(lang, split, settings, source)
        sets[split] = (treebank.describe(), *_ud_sentences(treebank, settings))
    read = [treebank for treebank, _, _ in sets.values()]
    over = {split: skipped for split, (_, _, skipped) in sets.items()}
    (_, train, _), *rest = sets.values()
    if rest:
        return TrainingSentences(train, rest[0][1], read, over)
    cut = len(train.ids) - max(1, round(HELD_OUT * len(train.ids)))
    if cut < 1:
        raise InputError(f"{len(train.ids)} training sentence(s): too few to hold some out")
    return TrainingSentences(train.part(0, cut), train.part(cut, len(train.ids)), read, over)


def _training_treebank(lang: str, split: str, settings: ProbeSettings, source: dict) -> list:
    """The treebank of ``split``; one without a training split (common: the PUD treebanks
    have a test split only) is refused naming the option that trains on another split."""
    try:
        return resolve([lang], split=split, **source)
    except MissingSplitError as err:
        if split != settings.train_split or split == "dev":
            raise
        raise MissingSplitError(
            f"{err}: add --train-split dev to train the probes on its development split"
        ) from None


def _probe_data(sentences: Sentences, vectors, layer: int) -> ProbeData:
    usable = [
        i for i, gold in enumerate(sentences.gold) if gold is not None and not vectors.too_long[i]
    ]
    return ProbeData(vectors.layer(layer), vectors.offsets, sentences.gold, usable)


def check_word_columns(ids, **columns) -> None:
    """Refuse a sentence whose word columns differ in length (a hand-edited or foreign
    dataset): its gold tree, tags and word vectors would not line up."""
    per_column = (tuple(len(row) for row in c) for c in columns.values())
    for sent_id, *lengths in zip(ids, *per_column, strict=True):
        if len(set(lengths)) > 1:
            counts = ", ".join(f"{n} {name}" for name, n in zip(columns, lengths, strict=True))
            raise InputError(f"sentence {sent_id!r} has {counts}: every word needs one of each")


def sentence_metrics(probe: str, output, gold: Gold, upos, gold_heads, deprels) -> dict:
    """One sentence's metric columns from one probe's output."""
    if probe == "distance":
        found, edges = uuas_counts(output, gold.distances, upos)
        return {
            "uuas_correct": found,
            "uuas_edges": edges,
            "dspr": distance_spearman(output, gold.distances),
        }
    if probe == "depth":
        return {
            "nspr": depth_spearman(output, gold.depths),
            "depth_root_correct": int(depth_root(output, upos) == gold.root),
        }
    if probe == "pos":
        tags = [UPOS_TAGS[k] for k in output.argmax(axis=1)]
        return {"pos_correct": sum(a == b for a, b in zip(tags, upos, strict=True))}
    if probe == "root":
        return {"root_correct": int(int(output.argmax()) == gold.root)}
    heads, relations = decode_dependencies(*output)
    return attachment_counts(heads, relations, gold_heads, deprels)


def every_word(words: int, multiword_tokens: list, empty_nodes: list) -> int:
    return words


PROTOCOLS = {
    "paper": ProbeProtocol(PROBES, (), every_word, Gold.of, sentence_metrics, HEWITT_MANNING),
    "lamalfa2022": ProbeProtocol(
        lamalfa2022.PROBES, lamalfa2022.LAYERS, lamalfa2022.words_kept, lamalfa2022.gold,
        lamalfa2022.sentence_metrics, lamalfa2022.METRICS, lamalfa2022.pooled_spearman_rows,
        lamalfa2022.DEFINITIONS,
    ),
}  # fmt: skip


# Per config, what the gold graphs of its original sentences lack against their UD trees.
GOLD_GRAPH_COUNTS = {
    "sentences": "sentences with gold labels",
    "disconnected": "whose gold graph leaves some kept words without a path between them",
    "disconnected_by_cut": "of those, disconnected by the cut, even with the edges between "
    "kept words restored",
    "disconnected_by_word1_head": "of those, disconnected only by the word-1 head bug",
    "tree_edges": "edges of the whole UD trees",
    "edges_lost_to_cut": "edges with a word the protocol cuts (lamalfa2022: past the "
    "first 20 lines, or a head past word 20)",
    "edges_lost_to_word1_head": "edges between kept words missing from the gold graph "
    "(lamalfa2022: every edge headed by word 1)",
}


def gold_graph_losses(heads: Sequence[int], gold: Gold) -> Counter:
    """What one sentence's gold graph, over the words the protocol keeps, lacks against its
    whole UD tree (``heads``): `GOLD_GRAPH_COUNTS`. Restoring a lost edge between two kept
    words joins them, so a graph still disconnected without those losses is the cut's doing."""
    kept = len(gold.distances)
    tree = [(child, head - 1) for child, head in enumerate(heads) if head]
    inside = [(c, h) for c, h in tree if c < kept and h < kept]
    lacking = [(c, h) for c, h in inside if gold.distances[c, h] != 1]
    linked = (gold.distances > 0) | np.eye(kept, dtype=bool)
    disconnected = not linked.all()
    for c, h in lacking:
        linked[c, h] = linked[h, c] = True
    by_cut = connected_components(linked, directed=False)[0] > 1
    return Counter(
        sentences=1,
        disconnected=disconnected,
        disconnected_by_cut=by_cut,
        disconnected_by_word1_head=disconnected and not by_cut,
        tree_edges=len(tree),
        edges_lost_to_cut=len(tree) - len(inside),
        edges_lost_to_word1_head=len(lacking),
    )


def config_languages(dataset: str, configs: list[str], revision: str | None) -> list[str]:
    """The languages to train probes for, from each config's original split, which every
    config needs: its perturbed splits are compared with it."""
    content = dataset_content(dataset)
    languages = []
    for config in configs:
        ds = load_config(dataset, config, revision, content)
        if "orig" not in ds:
            raise InputError(f"config {config!r} of {dataset} has no split 'orig' to compare with")
        where = f"split 'orig' of config {config!r} of {dataset}"
        require_columns(ds["orig"].column_names, READ_COLUMNS, "evaluate probe", where)
        languages.append(ds["orig"][0]["lang"])
    return list(dict.fromkeys(languages))


def resolved_layers(asked: tuple[int, ...], count: int) -> list[int]:
    """Hidden-state indices (0 the embeddings), negative ones counted from the top as
    ``hidden_states[-5]``; none asked: the middle layer."""
    if not asked:
        return [count // 2]
    out = [layer + count if layer < 0 else layer for layer in asked]
    if bad := [a for a, layer in zip(asked, out, strict=True) if not 0 <= layer < count]:
        raise InputError(f"layers {bad} do not exist: the model has hidden states 0..{count - 1}")
    return list(dict.fromkeys(out))


def score_split(probe, name, data: ProbeData, sentences: Sentences, settings, device) -> dict:
    """Per usable sentence index, the metric columns of one probe."""
    return {
        i: PROTOCOLS[settings.protocol].sentence_metrics(
            name,
            output,
            sentences.gold[i],
            sentences.upos[i],
            sentences.heads[i],
            sentences.deprels[i],
        )  # fmt: skip
        for i, output in predictions(probe, data, settings.batch_size, device)
    }


def summarise(scored: pd.DataFrame, resamples: int, metrics: MetricSet) -> pd.DataFrame:
    """Per config, layer and metric: original, perturbed (worst copy) and drop, each the
    mean over probe seeds, with a bootstrap interval over sentences and the seed spread."""
    rows = []
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    for (config, layer), group in scored.groupby(["config", "layer"], sort=True):
        seeds = sorted(group["probe_seed"].unique())
        splits = sorted(set(group["split"]) - {"orig"})
        by = {
            (seed, split): part.set_index("sent_id").sort_index().drop(
                columns=["config", "layer", "probe_seed", "split", "lang"])
            for (seed, split), part in group.groupby(["probe_seed", "split"])
        }  # fmt: skip
        common = sorted(set.intersection(*(set(p.index) for p in by.values())))
        n = len(common)
        if not n or not splits:
            continue
        counts = resampled_counts(rng, n, resamples)
        for metric in metrics.names:
            column = metrics.column(metric)
            if not all(column in p and p[column].notna().any() for p in by.values()):
                continue
            point, draws = {"original": [], "perturbed": []}, {"original": [], "perturbed": []}
            for seed in seeds:
                original = by[seed, "orig"].loc[common]
                copies = pd.concat([by[seed, split].loc[common] for split in splits])
                copies = copies.reset_index()  # one row per sentence and copy
                values = pd.Series(sentence_values(copies, metric, metrics))
                perturbed = copies.loc[worst_copy(values, copies["sent_id"])]
                for side, frame in (("original", original), ("perturbed", perturbed)):
                    point[side].append(aggregate(frame, metrics=metrics)[metric])
                    draws[side].append(aggregate(frame, counts, metrics)[metric])
            for values in (point, draws):
                values["drop"] = [
                    a - b for a, b in zip(values["original"], values["perturbed"], strict=True)
                ]
            row = {"config": config, "lang": group["lang"].iloc[0], "layer": int(layer),
                   "metric": metric}  # fmt: skip
            for side in ("original", "perturbed", "drop"):
                values = np.asarray(point[side], dtype=float)
                bounds = (-1.0, 1.0) if side == "drop" or metric in ("dspr", "nspr") else (0, 1)
                lo, hi = percentile_interval(np.mean(draws[side], axis=0), bounds)
                row |= {side: float(values.mean()), f"{side}_lo": lo, f"{side}_hi": hi,
                        f"{side}_seed_sd": float(values.std(ddof=1)) if len(values) > 1
                        else float("nan")}  # fmt: skip
            rows.append(row | {"sentences": n, "copies": len(splits), "probe_seeds": len(seeds),
                               "interval": bootstrap_name(resamples, BOOTSTRAP_SEED)})  # fmt: skip
    return pd.DataFrame(rows)


def check_layers(model: str, revision: str | None, settings: ProbeSettings) -> None:
    """Refuse --layers the model lacks from its config, before anything is written."""
    from transformers import AutoConfig

    resolved_layers(settings.layers, hidden_states_of(pretrained(AutoConfig, model, revision)))


def probe_path(folder: Path, lang: str, layer: int, seed: int, name: str) -> Path:
    return folder / lang / f"layer{layer}-seed{seed}-{name}.pt"


def train_probes(run: Path, header: dict, training: dict, settings: ProbeSettings) -> list[dict]:
    """Train every probe of each language, layer and seed of the run (``header``) on the
    language's (train, dev, treebanks read) in ``training``, their word vectors kept in
    ``run/vectors``, into `PROBES_FOLDER`; a probe an interrupted run left there is read
    instead. Returns each probe's training record (epochs run, best epoch, development
    loss)."""
    model, revision = header["model"], header["revision"]
    device = device_for(header["device"], None)
    lm = load_lm(settings.kind, model, device, settings.loading(), revision)
    layers = resolved_layers(settings.layers, hidden_layers(lm))

    def vectors(name: str, sentences: Sentences):
        key = {
            "toolkit": __version__,
            "model": model,
            "revision": header["model_identity"]["revision"],
            "layers": layers,
            "kind": settings.kind,
            "bos": settings.bos,
            "sentences": sentences.digest(),
        }
        return word_vectors(lm, sentences.forms, layers, run / "vectors" / name, key=key,
                            kind=settings.kind, bos=settings.bos,
                            max_tokens=settings.max_tokens)  # fmt: skip

    records = []
    for lang, (train, dev, read, _) in training.items():
        say(f"probe {lang}: {len(train.ids)} training and {len(dev.ids)} development "
            f"sentences from {read[0]['code']}")  # fmt: skip
        train_vectors, dev_vectors = vectors(f"{lang}-train", train), vectors(f"{lang}-dev", dev)
        for layer in layers:
            train_data = _probe_data(train, train_vectors, layer)
            dev_data = _probe_data(dev, dev_vectors, layer)
            hidden = train_data.vectors.shape[1]
            for seed in settings.probe_seeds:
                for name in settings.probes:
                    path = probe_path(run / PROBES_FOLDER, lang, layer, seed, name)
                    if path.exists():
                        _, record = load_probe(path, name, hidden, settings.rank, lm.device)
                    else:
                        probe, record = train_probe(
                            name, train_data, dev_data, settings.training(), seed, lm.device
                        )
                        save_probe(path, probe, record)
                    records.append({"lang": lang, "layer": layer, "probe_seed": seed,
                                    "probe": name, **record})  # fmt: skip
    return records


def score_with_probes(
    batch, rank=None, *, model: str, revision, device: str, settings: dict, probes: str
):
    """`datasets.map` function over rows of one config: each sentence's ``probe_scores``,
    one entry per layer and probe seed with its metric columns (none for a sentence without
    a tree, too long for the model or over ``max_words``), what its gold graph lacks
    (``gold_graph``: `GOLD_GRAPH_COUNTS` of this sentence alone), and whether it was left
    out as over ``max_words`` (``over_max_words``)."""
    options = ProbeSettings(**settings)
    lm = load_lm(options.kind, model, device_for(device, rank), options.loading(), revision)
    layers = resolved_layers(options.layers, hidden_layers(lm))
    words = zip(batch["forms"], batch["multiword_tokens"], batch["empty_nodes"], strict=True)
    fits = [options.fits(*sentence) for sentence in words]
    rows = [row for row, fit in enumerate(fits) if fit]  # of the sentences probed
    sentences = Sentences.of(*([batch[c][row] for row in rows] for c in COLUMNS),
                             PROTOCOLS[options.protocol])  # fmt: skip
    vectors = word_vectors(lm, sentences.forms, layers, kind=options.kind, bos=options.bos,
                           max_tokens=options.max_tokens)  # fmt: skip
    lang = batch["lang"][0]  # a config is one language's
    scores = [[] for _ in fits]
    for layer in layers:
        data = _probe_data(sentences, vectors, layer)
        for seed in options.probe_seeds:
            found: dict[int, dict] = {}  # sentence -> metric columns
            for name in options.probes:
                path = probe_path(Path(probes), lang, layer, seed, name)
                probe, _ = load_probe(path, name, data.vectors.shape[1], options.rank, lm.device)
                for i, metrics in score_split(probe, name, data, sentences, options,
                                              lm.device).items():  # fmt: skip
                    found.setdefault(i, {}).update(metrics)
            for i, metrics in found.items():
                scores[rows[i]].append({"layer": layer, "probe_seed": seed,
                                        "words": len(sentences.forms[i]), **metrics})  # fmt: skip
    gold = dict(zip(rows, sentences.gold, strict=True))
    losses = [
        gold_graph_losses(heads, gold[row]) if gold.get(row) is not None else Counter()
        for row, heads in enumerate(batch["heads"])
    ]
    graphs = [{key: int(counts[key]) for key in GOLD_GRAPH_COUNTS} for counts in losses]
    return {"probe_scores": scores, "gold_graph": graphs, "over_max_words": [not f for f in fits]}


def sentence_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per sentence, layer and probe seed from the scored rows: the sentence's
    config, split, language and metric columns (``one``: 1, the count of a sentence)."""
    scores = rows[["config", "split", "lang", "sent_id", "probe_scores"]].explode("probe_scores")
    scores = scores.dropna(subset="probe_scores").reset_index(drop=True)
    metrics = pd.DataFrame(scores.pop("probe_scores").tolist())
    table = pd.concat([scores, metrics], axis=1).assign(one=1)
    first = ["config", "split", "lang", "layer", "probe_seed", "sent_id", "words", "one"]
    return table[first + [c for c in metrics if c not in first]]


@dataclass(frozen=True, kw_only=True)
class TrainingSources:
    """Where the probes' training treebank comes from: options of the run, not settings,
    since they name where files are, and the files themselves are signed (`plan_probes`)."""

    ud_root: str | Path | None = setting("folder of UD_* treebanks to train on", default=None)
    download: bool = setting("fetch the training treebank from UD's GitHub", default=False)
    offline: bool = setting("with --download: only the cache", default=False)
    treebanks: tuple[str, ...] = setting(
        "LANG=UD_Name override", option="--treebank", repeat=True, default=()
    )


def plan_probes(dataset: str, model: str, settings: ProbeSettings, run: dict) -> dict:
    """Train probes on a UD treebank's training split, to test them on the original and
    perturbed splits of ``dataset`` (spud or substitution).

    The training treebank comes from ``ud_root`` or a ``download`` (``treebanks``:
    ``LANG=UD_Name`` overrides) among the run's options, as for builds; the packaged PUD
    sample has no training split. Training reads a treebank, not the dataset's rows, so it
    is no chunk: the runner calls ``prepare`` once the run folder is checked, before the
    chunks that read its probes, and its files are part of the run's signature. Probes train
    in one process (``num_proc`` above 1, or a launch of several, is refused)."""
    num_proc = run.get("num_proc")
    if (num_proc and num_proc > 1) or launcher_rank()[1] > 1:
        raise InputError(
            "evaluate probe runs in one process: leave out --num-proc, torchrun and accelerate"
        )
    check_layers(model, run.get("revision"), settings)
    source = {
        "ud_root": run.pop("ud_root", None), "fetch": run.pop("download", False),
        "offline": run.pop("offline", False),
        "overrides": parse_treebank_overrides(list(run.pop("treebanks", ()))),
    }  # fmt: skip
    dataset_revision = run.get("dataset_revision")
    run["configs"] = run.get("configs") or config_names(dataset, dataset_revision)
    training = {
        lang: training_sentences(lang, settings, source)
        for lang in config_languages(dataset, run["configs"], dataset_revision)
    }
    trained = []  # each probe's training record

    def train(folder: Path, header: dict) -> dict:
        trained.extend(train_probes(folder, header, training, settings))
        return {"probes": str(folder / PROBES_FOLDER)}

    if run.get("splits") and "orig" not in run["splits"]:
        run["splits"] = [*run["splits"], "orig"]  # what the perturbed splits are compared with
    return {
        "inputs": {lang: sentences.treebanks for lang, sentences in training.items()},
        "prepare": train, "training": training, "trained": trained,
    }  # fmt: skip


def probe_outputs(scored: Scored) -> Outputs:
    """Per sentence and metric the probes' results (``probe_sentences.parquet``), their
    summary with intervals and drops (``probe_summary.csv``/``.md``), a figure, and the gold
    graphs of the protocol."""
    rows = with_config_and_split(scored.rows)
    run, model, dataset = scored.folder, scored.model, scored.dataset
    settings, training, trained = scored.settings, scored.plan["training"], scored.plan["trained"]
    sentences = sentence_table(rows)
    with atomic_path(run / "probe_sentences.parquet") as tmp:
        sentences.to_parquet(tmp, index=False)
    protocol = PROTOCOLS[settings.protocol]
    cells = [c for c in ("cells_predicted", "cells_gold") if c in sentences]
    summary = summarise(sentences.drop(columns=cells), settings.resamples, protocol.metrics)
    pooled = pd.DataFrame(protocol.pooled_rows(sentences))
    if len(pooled):  # rows without sentence counts or intervals, beside their config and layer
        summary = pd.concat([summary, pooled], ignore_index=True).sort_values(
            ["config", "layer"], kind="stable", ignore_index=True
        )
        summary[["sentences", "copies"]] = summary[["sentences", "copies"]].astype("Int64")
    if protocol.definitions and len(summary):
        summary["definition"] = summary["metric"].map(protocol.definitions)
    write_table(summary, run / "probe_summary.csv", markdown=True)
    if len(summary):
        plot_probe_summary(summary, run / "probe_summary.png", model=model, dataset=dataset)
    losses = pd.DataFrame(rows["gold_graph"].tolist(), index=rows.index)
    orig = rows["split"] == "orig"
    graphs = losses[orig].groupby([rows["config"], rows["lang"]], sort=False).sum().reset_index()
    write_table(graphs, run / "probe_gold_graphs.csv", markdown=True)
    say(f"gold graphs under the {settings.protocol} protocol:\n{frame_table(graphs)}")
    over = rows["over_max_words"]
    no_gold = (losses["sentences"] == 0) & ~over  # its heads make no tree
    without_tree = no_gold.groupby(rows["split_key"], sort=False).sum()
    over_max_words = over.groupby(rows["split_key"], sort=False).sum().to_dict()
    training_over = {lang: sentences.over_max_words for lang, sentences in training.items()}
    say_over_max_words(settings.max_words, training_over, over_max_words)
    metrics = {"probe": records(summary), "training": trained,
               "layers": list(dict.fromkeys(t["layer"] for t in trained)),
               "treebanks": {lang: sentences.treebanks[0]
                             for lang, sentences in training.items()},
               "protocol": settings.protocol,
               "departures_from_correct_definitions": protocol.definitions,
               "gold_graphs": records(graphs),
               "gold_graph_counts": GOLD_GRAPH_COUNTS}  # fmt: skip
    counts = {"sentences_without_a_tree": without_tree.to_dict(),
              "sentences_over_max_words": over_max_words,
              "training_sentences_over_max_words": training_over}  # fmt: skip
    return Outputs(metrics, summary, counts)


def say_over_max_words(max_words: int, training: dict, tested: dict) -> None:
    """One line naming where sentences over ``max_words`` were left out, if any were: per
    language and UD split in ``training``, per config and split in ``tested``."""
    where = [f"{n} of {lang} {split}" for lang, splits in training.items()
             for split, n in splits.items() if n]  # fmt: skip
    where += [f"{n} of {key}" for key, n in sorted(tested.items()) if n]
    if where:
        say(f"skipped sentences of more than {max_words} words (--max-words): {', '.join(where)}")


@TASKS.register("probe.v1")
class Probe(EvaluationTask):
    """Probes trained on a UD treebank, tested on original vs perturbed trees (spud,
    substitution): UUAS, DSpr, root, depth, POS, UAS, LAS, RelAcc and their drops."""

    name = "probe"
    version = "1.0.0"
    settings_class = ProbeSettings
    score = staticmethod(score_with_probes)
    read_columns = READ_COLUMNS
    # copies and probe_seeds: how many each row pools, named with its condition
    key_columns = ("config", "layer", "probe", "probe_seed", "metric", "copies", "probe_seeds")
    plan = staticmethod(plan_probes)
    outputs = staticmethod(probe_outputs)

    run_parameters_class = TrainingSources
