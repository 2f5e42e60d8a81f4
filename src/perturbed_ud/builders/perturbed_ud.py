"""The ``perturbed-ud`` dataset: word order × morphology (LREC 2026 experiment).

Config ``{lang}_{family}_seed{seed}``, family ∈ full, part, head; splits ``orig``,
``<family>``, ``orig_lemma``, ``<family>_lemma``; one row per (sentence, condition). The
target is chosen once on the original order and travels with the permutation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from datasets import Features, List, Value

from ..data.writer import ParquetSplitWriter, rows_table
from ..perturb.lemma import lemmatize
from ..perturb.plan import SentencePlan
from ..perturb.word_order import identity, inverse
from ..ud.conllu_io import Sentence
from ..ud.selection import Selection, select
from ..ud.sources import Treebank

NAME = "perturbed-ud"
VERSION = "1.0.0"
PRETTY_NAME = "Perturbed UD: word order × morphology"
FAMILIES = ("full", "part", "head")
DEFAULT_SEEDS = (1, 2, 3)
CHUNK_SENTENCES = 1000  # sentences per Parquet row group; fixed, so output is deterministic

FEATURES = Features(
    {
        "item_id": Value("string"),
        "treebank": Value("string"),
        "lang": Value("string"),
        "sent_id": Value("string"),
        "seed": Value("int32"),
        "condition": Value("string"),
        "text": Value("string"),
        "words": List(Value("string")),
        "target_index": Value("int32"),
        "target": Value("string"),
        "target_form": Value("string"),
        "target_lemma": Value("string"),
        "target_upos": Value("string"),
        "permutation": List(Value("int32")),
        "upos": List(Value("string")),
        "lemmas": List(Value("string")),
        "feats": List(Value("string")),
        "heads": List(Value("int32")),
        "deprels": List(Value("string")),
    }
)

DESCRIPTION = """\
Each sentence of a Universal Dependencies treebank appears in every condition of its
experiment, with one target word chosen on the original order (a content word: NOUN, PROPN,
VERB, ADJ or ADV outside a closed-class stoplist) that moves with the permutation.

| split | what the model sees |
|---|---|
| `orig` | the sentence as annotated |
| `full` | every word permuted; punctuation keeps its slot |
| `part` | a fraction (default 0.5) of the content words permuted among their own slots |
| `head` | each head, left to right, swaps position with one of its dependents |
| `*_lemma` | the same order, every word replaced by its UD lemma (+L); gold = lemma |

Columns: `words` (the perturbed sequence, target in place), `target_index`, `target` (gold),
`target_form`, `target_lemma`, `target_upos`, `permutation` (original index → new index), and the
annotations carried through the permutation (`upos`, `lemmas`, `feats`, `deprels`, and `heads`
renumbered to the new positions, 0 = root). Words are UD syntactic words: a multiword token
such as German *zum* appears as *zu dem*; `text` keeps the original surface sentence. Empty
nodes (enhanced dependencies) are not words and are left out. A lemma written `_` falls back
to the form.
"""


def config_name(lang: str, family: str, seed: int) -> str:
    return f"{lang}_{family}_seed{seed}"


def splits_of(family: str) -> list[str]:
    return ["orig", family, "orig_lemma", f"{family}_lemma"]


def _permute_annotations(s: Sentence, perm: list[int], order: list[int]) -> dict:
    """The permutation and the word annotations in the new word order; heads are renumbered
    to the new positions."""
    heads = [perm[h - 1] + 1 if h else 0 for h in s.heads]
    return {
        "permutation": perm,
        "upos": [s.upos[i] for i in order],
        "lemmas": [s.lemmas[i] for i in order],
        "feats": [s.feats[i] for i in order],
        "heads": [heads[i] for i in order],
        "deprels": [s.deprels[i] for i in order],
    }


def sentence_rows(
    s: Sentence,
    plan: SentencePlan,
    lang: str,
    treebank: str,
    seed: int,
    families: Iterable[str],
    lemma_words: list[str],
) -> Iterable[tuple[str, dict]]:
    """(split, row) for every condition of one sentence, each row by `FEATURES` column name.
    ``lemma_words`` are the sentence's +L words."""
    t = plan.target
    item = {"item_id": f"{treebank}/{s.sent_id}/seed{seed}", "treebank": treebank,
            "lang": lang, "sent_id": s.sent_id, "seed": seed}  # fmt: skip
    target = {"target_form": s.forms[t], "target_lemma": lemma_words[t], "target_upos": s.upos[t]}
    unchanged = identity(len(s.forms))
    orig = {"permutation": unchanged, "upos": s.upos, "lemmas": s.lemmas, "feats": s.feats,
            "heads": s.heads, "deprels": s.deprels}  # fmt: skip
    orders = [("orig", unchanged, orig, s.forms, lemma_words)]
    for family in families:
        perm = plan.perms[family]
        order = inverse(perm)
        annotations = _permute_annotations(s, perm, order)
        forms = [s.forms[i] for i in order]
        lemmas = [lemma_words[i] for i in order]
        orders.append((family, perm, annotations, forms, lemmas))
    for name, perm, annotations, forms, lemmas in orders:
        position = perm[t]
        for split, words in ((name, forms), (f"{name}_lemma", lemmas)):
            if split not in plan.dropped:
                head = {"condition": split, "text": s.text, "words": words,
                        "target_index": position, "target": words[position]}  # fmt: skip
                yield split, item | head | target | annotations


@dataclass
class SeedStats:
    """Counts for one (language, seed); every config of that pair reports from it."""

    sentences: int = 0
    kept: int = 0
    sentence_drops: Counter = field(default_factory=Counter)
    row_drops: Counter = field(default_factory=Counter)  # "split:reason"
    rows: Counter = field(default_factory=Counter)  # split -> rows
    lemma_changed: int = 0
    lemma_total: int = 0
    moved: Counter = field(default_factory=Counter)  # family -> moved non-PUNCT words
    movable: Counter = field(default_factory=Counter)

    def to_dict(self) -> dict:
        return {
            "sentences": self.sentences,
            "kept": self.kept,
            "sentence_drops": dict(sorted(self.sentence_drops.items())),
            "row_drops": dict(sorted(self.row_drops.items())),
            "rows": dict(self.rows),
            "lemma_token_change": [self.lemma_changed, self.lemma_total],
            "position_change": {f: [self.moved[f], self.movable[f]] for f in sorted(self.moved)},
        }


@dataclass
class Job:
    """A unit of work for one process: treebanks read in order, each for all ``seeds``."""

    treebanks: list[Treebank]
    seeds: list[int]
    families: list[str]
    protocol: object
    selection: Selection
    root: Path


@dataclass
class SentenceFacts:
    """What every seed of a sentence shares: its +L words and non-punctuation words."""

    lemma_words: list[str]
    counted: list[int]  # non-punctuation word indices, for the magnitude statistics
    lemma_changed: int  # of those, words whose lemma differs from the form

    @classmethod
    def of(cls, s: Sentence) -> SentenceFacts:
        lemma_words = lemmatize(s.forms, s.lemmas)
        counted = [i for i, tag in enumerate(s.upos) if tag != "PUNCT"]
        changed = sum(lemma_words[i] != s.forms[i] for i in counted)
        return cls(lemma_words, counted, changed)


def _record(stats: SeedStats, facts: SentenceFacts, plan: SentencePlan, families) -> None:
    stats.kept += 1
    for reason_split, reason in plan.dropped.items():
        stats.row_drops[f"{reason_split}:{reason}"] += 1
    stats.lemma_changed += facts.lemma_changed
    stats.lemma_total += len(facts.counted)
    for family in families:
        perm = plan.perms[family]
        stats.moved[family] += sum(perm[i] != i for i in facts.counted)
        stats.movable[family] += len(facts.counted)


def run_job(job: Job) -> dict:
    """Write every config of the job's treebanks and seeds; return their statistics.

    Memory holds one chunk of sentences at a time. The protocol's state (the single random
    stream of lrec2026) carries over from one treebank to the next within a seed.
    """
    writer = ParquetSplitWriter(job.root, FEATURES)
    states = {seed: job.protocol.start(seed) for seed in job.seeds}
    stats: dict[str, dict[int, SeedStats]] = {}
    try:
        for treebank in job.treebanks:
            per_seed = stats.setdefault(treebank.lang, {})
            for seed in job.seeds:
                per_seed.setdefault(seed, SeedStats())
            sentences = select(treebank, job.selection)
            while chunk := [s for _, s in zip(range(CHUNK_SENTENCES), sentences, strict=False)]:
                _write_chunk(writer, job, treebank, chunk, states, per_seed)
    finally:
        writer.close()
    return {
        lang: {seed: s.to_dict() for seed, s in per_seed.items()}
        for lang, per_seed in stats.items()
    }


def _write_chunk(writer, job, treebank, chunk, states, per_seed: dict[int, SeedStats]) -> None:
    """Plan and write one chunk of sentences for every seed; what does not depend on the
    seed is computed once per sentence."""
    rows: dict[tuple[int, str], list[tuple]] = {}
    lang, code = treebank.lang, treebank.code
    for s in chunk:
        facts = SentenceFacts.of(s)
        candidates = job.protocol.candidates(s, lang)
        for seed in job.seeds:
            stats = per_seed[seed]
            stats.sentences += 1
            plan = job.protocol.plan(s, lang, code, seed, states[seed], candidates)
            if isinstance(plan, str):
                stats.sentence_drops[plan] += 1
                continue
            _record(stats, facts, plan, job.families)
            for split, row in sentence_rows(
                s, plan, lang, code, seed, job.families, facts.lemma_words
            ):
                rows.setdefault((seed, split), []).append(row)
    for (seed, split), split_rows in rows.items():
        arrow = rows_table(split_rows, FEATURES)
        per_seed[seed].rows[split] += arrow.num_rows
        family = split.removesuffix("_lemma")
        families = job.families if family == "orig" else [family]
        writer.share([config_name(lang, f, seed) for f in families], split, arrow)
