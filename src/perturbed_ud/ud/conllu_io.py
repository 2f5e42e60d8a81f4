"""Reading and writing CoNLL-U with the `conllu` library, strictly.

A word is a UD syntactic word (integer ID). Multiword tokens (``3-4``) and empty nodes
(``5.1``) are parsed and kept on the sentence (``tokens``), so writing a sentence back gives
its token lines unchanged; the word-level columns (``forms``, ``heads`` …) hold only the
syntactic words, which is what every perturbation works on.

Malformed input is an error that names the file and line (`CoNLLUError`), never a silent skip.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import conllu
from conllu.models import TokenList


def _raw(line: list[str], i: int) -> str:
    return line[i]


# FEATS, DEPS and MISC stay the raw strings of the file: conllu's dict parsers are lossy on
# real treebanks (MISC values containing '=' or '|', e.g. UD_Russian-Poetry and -Taiga).
_FIELD_PARSERS = {"feats": _raw, "deps": _raw, "misc": _raw}

_WORD_ID = re.compile(r"^[1-9][0-9]*$")
_MWT_ID = re.compile(r"^([1-9][0-9]*)-([1-9][0-9]*)$")
_EMPTY_ID = re.compile(r"^(0|[1-9][0-9]*)\.[1-9][0-9]*$")
_HEAD = re.compile(r"^(0|[1-9][0-9]*)$")


class CoNLLUError(ValueError):
    """Malformed CoNLL-U, located by file and 1-based line number."""

    def __init__(self, path: str | Path, line: int, message: str):
        self.path, self.line, self.message = str(path), line, message
        super().__init__(f"{path}:{line}: {message}")


@dataclass
class MultiwordToken:
    start: int  # first word index, 0-based
    end: int  # last word index, 0-based, inclusive
    form: str


@dataclass
class Sentence:
    """One sentence: the syntactic words as parallel columns plus the full token list."""

    sent_id: str
    text: str
    forms: list[str]
    lemmas: list[str]  # as in the file: '_' means no lemma
    upos: list[str]
    feats: list[str]
    heads: list[int]  # 1-based head word, 0 = root
    deprels: list[str]
    multiword_tokens: list[MultiwordToken]
    n_empty_nodes: int
    source: str
    line: int  # line of the sentence's first line in `source`
    tokens: TokenList = field(repr=False)

    def __len__(self) -> int:
        return len(self.forms)


def _decode(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise CoNLLUError(path, line, f"invalid UTF-8 byte 0x{data[err.start]:02x}") from None


def _blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """Blank-line separated blocks with the line number of their first line."""
    start, block = 1, []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _check_block(path: Path, start: int, lines: list[str]) -> None:
    """Column count, ID syntax, duplicate IDs, head range and cycles, with exact lines."""
    heads: dict[int, tuple[int, int]] = {}  # word id -> (head, line)
    seen: set[str] = set()
    for offset, line in enumerate(lines):
        number = start + offset
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise CoNLLUError(path, number, f"expected 10 tab-separated columns, found {len(cols)}")
        wid, head = cols[0], cols[6]
        if wid in seen:
            raise CoNLLUError(path, number, f"duplicate ID {wid!r}")
        seen.add(wid)
        if _WORD_ID.match(wid):
            if not _HEAD.match(head):
                raise CoNLLUError(path, number, f"HEAD {head!r} is not a non-negative integer")
            heads[int(wid)] = (int(head), number)
        elif not (_MWT_ID.match(wid) or _EMPTY_ID.match(wid)):
            raise CoNLLUError(path, number, f"ID {wid!r} is not a word, range or empty node")
    if not heads:
        raise CoNLLUError(path, start, "sentence has no syntactic words")
    n = len(heads)
    if sorted(heads) != list(range(1, n + 1)):
        raise CoNLLUError(path, start, f"word IDs are not 1..{n}")
    for wid, (head, number) in heads.items():
        if head > n:
            raise CoNLLUError(path, number, f"HEAD {head} is out of range (sentence has {n} words)")
        if head == wid:
            raise CoNLLUError(path, number, f"word {wid} is its own head")
    state: dict[int, int] = {}  # 1 = on the current path, 2 = reaches the root
    for wid in heads:
        path_ids = []
        node = wid
        while node != 0 and state.get(node) != 2:
            if state.get(node) == 1:
                raise CoNLLUError(path, heads[node][1], f"cycle in HEAD through word {node}")
            state[node] = 1
            path_ids.append(node)
            node = heads[node][0]
        for visited in path_ids:
            state[visited] = 2


def _sentence(path: Path, start: int, tokens: TokenList, ordinal: int) -> Sentence:
    words = [t for t in tokens if isinstance(t["id"], int)]
    index = {t["id"]: i for i, t in enumerate(words)}
    mwts = [
        MultiwordToken(index[t["id"][0]], index[t["id"][2]], t["form"])
        for t in tokens
        if isinstance(t["id"], tuple) and t["id"][1] == "-"
    ]
    meta = tokens.metadata
    return Sentence(
        sent_id=meta.get("sent_id") or f"{path.stem}#{ordinal}",
        text=meta.get("text") or "",
        forms=[t["form"] for t in words],
        lemmas=[t["lemma"] for t in words],
        upos=[t["upos"] for t in words],
        feats=[t["feats"] for t in words],
        heads=[t["head"] for t in words],
        deprels=[t["deprel"] for t in words],
        multiword_tokens=mwts,
        n_empty_nodes=len(tokens) - len(words) - len(mwts),
        source=str(path),
        line=start,
        tokens=tokens,
    )


def read_conllu(path: str | Path) -> Iterator[Sentence]:
    """Yield the sentences of one CoNLL-U file in file order.

    Raises `CoNLLUError` for invalid UTF-8, wrong column counts, bad or duplicate IDs,
    non-integer, out-of-range or cyclic heads, duplicate ``sent_id`` and empty files.
    """
    path = Path(path)
    text = _decode(path)
    seen_ids: dict[str, int] = {}
    ordinal = 0
    for start, lines in _blocks(text):
        _check_block(path, start, lines)
        try:
            (tokens,) = conllu.parse("\n".join(lines) + "\n\n", field_parsers=_FIELD_PARSERS)
        except conllu.exceptions.ParseException as err:
            raise CoNLLUError(path, start, str(err)) from None
        ordinal += 1
        sentence = _sentence(path, start, tokens, ordinal)
        if sentence.sent_id in seen_ids:
            raise CoNLLUError(
                path,
                start,
                f"duplicate sent_id {sentence.sent_id!r} (first at line {seen_ids[sentence.sent_id]})",
            )
        seen_ids[sentence.sent_id] = start
        yield sentence
    if ordinal == 0:
        raise CoNLLUError(path, 1, "file holds no sentences")


def write_conllu(sentences: Iterable[Sentence], path: str | Path) -> None:
    """Write sentences back: comments and every token line (words, ranges, empty nodes)."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for sentence in sentences:
            out.write(sentence.tokens.serialize())
