"""A sentence with every CoNLL-U column, as a dataset row and back to CoNLL-U lines.

`Sentence` keeps only what word-order perturbations need; a treebank that is to be exported
again (nonce treebanks) needs every column, the multiword-token and empty-node lines and the
comments. `SentenceColumns.from_sentence` reads them from the sentence's own lines, and
`to_lines` writes them back in CoNLL-U order, so a row exported unchanged reproduces the
input's token lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from datasets import List, Value

from ..files import open_output
from .conllu_io import Sentence

COLUMNS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")
# The open-class parts of speech: what lemma substitutions and nonce words replace.
CONTENT_UPOS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV"})

# A multiword-token or empty-node line, all ten columns as written in the file.
TOKEN_LINE = {name: Value("string") for name in COLUMNS}

FEATURES = {
    "sent_id": Value("string"),
    "text": Value("string"),
    "comments": List(Value("string")),  # every comment line, '# ' included, in file order
    "ids": List(Value("string")),
    "forms": List(Value("string")),
    "lemmas": List(Value("string")),
    "upos": List(Value("string")),
    "xpos": List(Value("string")),
    "feats": List(Value("string")),
    "heads": List(Value("int32")),
    "deprels": List(Value("string")),
    "deps": List(Value("string")),
    "misc": List(Value("string")),
    "multiword_tokens": List(TOKEN_LINE),
    "empty_nodes": List(TOKEN_LINE),
}


@dataclass
class SentenceColumns:
    """The syntactic words as parallel columns; multiword tokens and empty nodes as lines."""

    sent_id: str
    text: str
    comments: list[str]
    ids: list[str]
    forms: list[str]
    lemmas: list[str]
    upos: list[str]
    xpos: list[str]
    feats: list[str]
    heads: list[int]
    deprels: list[str]
    deps: list[str]
    misc: list[str]
    multiword_tokens: list[dict] = field(default_factory=list)
    empty_nodes: list[dict] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.forms)

    @classmethod
    def from_sentence(cls, s: Sentence) -> SentenceColumns:
        comments, words, ranges, empty = [], [], [], []
        for line in s.lines:
            if line.startswith("#"):
                comments.append(line)
                continue
            cols = line.split("\t")
            if "-" in cols[0]:
                ranges.append(dict(zip(COLUMNS, cols, strict=True)))
            elif "." in cols[0]:
                empty.append(dict(zip(COLUMNS, cols, strict=True)))
            else:
                words.append(cols)
        return cls(
            sent_id=s.sent_id,
            text=s.text,
            comments=comments,
            ids=[w[0] for w in words],
            forms=[w[1] for w in words],
            lemmas=[w[2] for w in words],
            upos=[w[3] for w in words],
            xpos=[w[4] for w in words],
            feats=[w[5] for w in words],
            heads=[int(w[6]) for w in words],
            deprels=[w[7] for w in words],
            deps=[w[8] for w in words],
            misc=[w[9] for w in words],
            multiword_tokens=ranges,
            empty_nodes=empty,
        )

    @classmethod
    def from_row(cls, row: dict) -> SentenceColumns:
        return cls(**{name: row[name] for name in FEATURES})

    def row(self) -> dict:
        return {name: getattr(self, name) for name in FEATURES}

    def copy(self) -> SentenceColumns:
        """A copy whose lists can be changed without touching this sentence."""
        return replace(
            self,
            **{
                name: [dict(v) if isinstance(v, dict) else v for v in getattr(self, name)]
                for name in FEATURES
                if isinstance(getattr(self, name), list)
            },
        )

    def mwt_spans(self) -> list[tuple[int, int, dict]]:
        """(first word index, last word index, line) of each multiword token, 0-based."""
        spans = []
        for token in self.multiword_tokens:
            first, last = token["id"].split("-")
            spans.append((int(first) - 1, int(last) - 1, token))
        return spans

    def word_line(self, i: int) -> str:
        values = (
            self.ids[i], self.forms[i], self.lemmas[i], self.upos[i], self.xpos[i],
            self.feats[i], str(self.heads[i]), self.deprels[i], self.deps[i], self.misc[i],
        )  # fmt: skip
        return "\t".join(values)

    def to_lines(self) -> list[str]:
        """Comments, then token lines in CoNLL-U order: a multiword token right before its
        first word, empty nodes ``N.k`` right after word N (``0.k`` before the first word)."""
        ranges: dict[int, list[dict]] = {}
        for first, _, token in self.mwt_spans():
            ranges.setdefault(first, []).append(token)
        empty: dict[int, list[dict]] = {}
        for node in self.empty_nodes:
            empty.setdefault(int(node["id"].split(".")[0]), []).append(node)
        lines = list(self.comments)
        lines += [_token_line(node) for node in empty.get(0, [])]
        for i in range(len(self.forms)):
            lines += [_token_line(token) for token in ranges.get(i, [])]
            lines.append(self.word_line(i))
            lines += [_token_line(node) for node in empty.get(i + 1, [])]
        return lines


def _token_line(token: dict) -> str:
    return "\t".join(token[name] for name in COLUMNS)


def write_rows_conllu(rows: Iterable[dict], path: str | Path) -> int:
    """Write dataset rows (`FEATURES` columns) as a CoNLL-U file; returns the sentence count."""
    n = 0
    with open_output(path) as out:
        for row in rows:
            out.write("\n".join(SentenceColumns.from_row(row).to_lines()) + "\n\n")
            n += 1
    return n


def lemma_or_form(form: str, lemma: str) -> str:
    """The UD lemma, or the form itself where the treebank has none (``_``)."""
    return form if lemma == "_" else lemma


def space_after(misc: str) -> bool:
    """Whether a word's MISC lets a space follow it (no ``SpaceAfter=No``)."""
    return "SpaceAfter=No" not in misc.split("|")
