"""Reading and writing CoNLL-U with the `conllu` library, strictly.

A word is a UD syntactic word (integer ID). Multiword tokens (``3-4``) and empty nodes
(``5.1``) are validated and kept (`Sentence.tokens`, a `conllu` token list built on demand),
so writing a sentence back gives its token lines unchanged; the word-level columns
(``forms``, ``heads`` …) hold only the syntactic words, which every perturbation works on.

Malformed input is an error that names the file and line (`CoNLLUError`), never a silent skip.
Files may be gzip- or xz-compressed (``.conllu.gz``, ``.conllu.xz``): every reader here sees
the same lines either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import conllu
from conllu.models import TokenList

from ..errors import CoNLLUError, InputError
from ..files import COMPRESSED, READ_ERRORS, open_decompressed, open_output


def _raw(line: list[str], i: int) -> str:
    return line[i]


# FEATS, DEPS and MISC stay the raw strings of the file: conllu's dict parsers are lossy on
# real treebanks (MISC values containing '=' or '|', e.g. UD_Russian-Poetry and -Taiga).
_FIELD_PARSERS = {"feats": _raw, "deps": _raw, "misc": _raw}

_WORD_ID = re.compile(r"^[1-9][0-9]*$")
_MWT_ID = re.compile(r"^([1-9][0-9]*)-([1-9][0-9]*)$")
_EMPTY_ID = re.compile(r"^(0|[1-9][0-9]*)\.[1-9][0-9]*$")
_HEAD = re.compile(r"^(0|[1-9][0-9]*)$")


@dataclass
class MultiwordToken:
    start: int  # first word index, 0-based
    end: int  # last word index, 0-based, inclusive
    form: str


@dataclass
class Sentence:
    """One sentence: the syntactic words as parallel columns plus its original lines."""

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
    lines: list[str] = field(repr=False)

    def __len__(self) -> int:
        return len(self.forms)

    @property
    def tokens(self) -> TokenList:
        """The full `conllu` token list (words, ranges, empty nodes, comments)."""
        try:
            (tokens,) = conllu.parse("\n".join(self.lines) + "\n\n", field_parsers=_FIELD_PARSERS)
        except conllu.exceptions.ParseException as err:
            raise CoNLLUError(self.source, self.line, str(err)) from None
        return tokens


CONLLU_SUFFIXES = (".conllu", *(f".conllu{suffix}" for suffix in COMPRESSED))


def parse_feats(feats: str) -> dict[str, str]:
    """A FEATS (or MISC) cell as a dict; ``_`` and items without ``=`` give nothing."""
    return dict(item.split("=", 1) for item in feats.split("|") if "=" in item)


def conllu_stem(path: str | Path) -> str:
    """The file name without ``.conllu`` and any compression suffix: the UD file code."""
    name = Path(path).name
    for suffix in CONLLU_SUFFIXES:
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return Path(name).stem


def conllu_files(folder: str | Path, pattern: str = "*") -> list[Path]:
    """The CoNLL-U files of a folder whose name before ``.conllu`` matches `pattern`, plain or
    compressed, sorted. A file present both plain and compressed is an error, not read twice.
    """
    folder = Path(folder)
    found = sorted(p for suffix in CONLLU_SUFFIXES for p in folder.glob(f"{pattern}{suffix}"))
    stems: dict[str, Path] = {}
    for path in found:
        if (other := stems.setdefault(conllu_stem(path), path)) != path:
            raise InputError(f"{folder} holds {other.name} and {path.name}: keep only one")
    return found


def split_files(folder: str | Path, split: str, code: str = "*") -> list[Path]:
    """``<code>-ud-<split>.conllu`` files of a UD folder, plain or compressed, sorted."""
    return conllu_files(folder, f"{code}-ud-{split}")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) read one line at a time, so memory does not grow with the file.

    Lines end at LF (or CRLF) only: other Unicode line breaks (U+2028, U+0085 …) are text.
    A damaged compressed file is an error at the first line that cannot be read.
    """
    number = 0
    try:
        f = open_decompressed(path)
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from err
    with f:
        try:
            for number, raw in enumerate(f, start=1):
                try:
                    yield number, raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
                except UnicodeDecodeError as err:
                    message = f"invalid UTF-8 byte 0x{raw[err.start]:02x}"
                    raise CoNLLUError(path, number, message) from None
        except READ_ERRORS as err:
            raise CoNLLUError(path, number + 1, f"cannot decompress: {err}") from None


def _blocks(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, list[str]]]:
    """Blank-line separated blocks with the line number of their first line."""
    start, block = 1, []
    for number, line in lines:
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _parse_block(path: Path, start: int, lines: list[str], ordinal: int) -> Sentence:
    """Validate one sentence block and read its word columns, with exact line numbers.

    Checks column count, ID syntax, duplicate IDs, head syntax, range and cycles.
    """
    meta: dict[str, str] = {}
    words: list[list[str]] = []
    word_lines: list[int] = []
    ranges: list[tuple[int, int, str]] = []
    n_empty = 0
    seen: set[str] = set()
    for offset, line in enumerate(lines):
        number = start + offset
        if line.startswith("#"):
            key, sep, value = line[1:].partition("=")
            if sep:
                meta.setdefault(key.strip(), value.strip())
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise CoNLLUError(path, number, f"expected 10 tab-separated columns, found {len(cols)}")
        wid = cols[0]
        if wid in seen:
            raise CoNLLUError(path, number, f"duplicate ID {wid!r}")
        seen.add(wid)
        if _WORD_ID.match(wid):
            if not _HEAD.match(cols[6]):
                raise CoNLLUError(path, number, f"HEAD {cols[6]!r} is not a non-negative integer")
            words.append(cols)
            word_lines.append(number)
        elif match := _MWT_ID.match(wid):
            ranges.append((int(match.group(1)), int(match.group(2)), cols[1]))
        elif _EMPTY_ID.match(wid):
            n_empty += 1
        else:
            raise CoNLLUError(path, number, f"ID {wid!r} is not a word, range or empty node")
    if not words:
        raise CoNLLUError(path, start, "sentence has no syntactic words")
    n = len(words)
    if [int(w[0]) for w in words] != list(range(1, n + 1)):
        raise CoNLLUError(path, start, f"word IDs are not 1..{n} in order")
    heads = [int(w[6]) for w in words]
    for i, head in enumerate(heads):
        if head > n:
            raise CoNLLUError(path, word_lines[i], f"HEAD {head} is out of range ({n} words)")
        if head == i + 1:
            raise CoNLLUError(path, word_lines[i], f"word {head} is its own head")
    _check_acyclic(path, heads, word_lines)
    for first, last, _ in ranges:
        if not 1 <= first < last <= n:
            raise CoNLLUError(path, start, f"multiword token {first}-{last} is out of range")
    return Sentence(
        sent_id=meta.get("sent_id") or f"{path.stem}#{ordinal}",
        text=meta.get("text", ""),
        forms=[w[1] for w in words],
        lemmas=[w[2] for w in words],
        upos=[w[3] for w in words],
        feats=[w[5] for w in words],
        heads=heads,
        deprels=[w[7] for w in words],
        multiword_tokens=[MultiwordToken(a - 1, b - 1, form) for a, b, form in ranges],
        n_empty_nodes=n_empty,
        source=str(path),
        line=start,
        lines=lines,
    )


def _check_acyclic(path: Path, heads: list[int], word_lines: list[int]) -> None:
    state = [0] * (len(heads) + 1)  # 1 = on the current chain, 2 = known to reach the root
    for word in range(1, len(heads) + 1):
        chain = []
        node = word
        while node != 0 and state[node] != 2:
            if state[node] == 1:
                raise CoNLLUError(path, word_lines[node - 1], f"cycle in HEAD through word {node}")
            state[node] = 1
            chain.append(node)
            node = heads[node - 1]
        for visited in chain:
            state[visited] = 2


def _sent_id_line(start: int, lines: list[str]) -> int:
    """Line of the block's ``# sent_id`` comment (its first line when there is none)."""
    for offset, line in enumerate(lines):
        key, sep, _ = line[1:].partition("=")
        if line.startswith("#") and sep and key.strip() == "sent_id":
            return start + offset
    return start


def read_conllu(path: str | Path) -> Iterator[Sentence]:
    """Yield the sentences of one CoNLL-U file in file order.

    Raises `CoNLLUError` for invalid UTF-8, wrong column counts, bad or duplicate IDs,
    non-integer, out-of-range or cyclic heads, duplicate ``sent_id`` and empty files.
    """
    path = Path(path)
    seen_ids: dict[str, int] = {}
    ordinal = 0
    for start, lines in _blocks(_lines(path)):
        ordinal += 1
        sentence = _parse_block(path, start, lines, ordinal)
        line = _sent_id_line(start, lines)
        first = seen_ids.get(sentence.sent_id)
        if first is not None:
            message = f"duplicate sent_id {sentence.sent_id!r} (first at line {first})"
            raise CoNLLUError(path, line, message)
        seen_ids[sentence.sent_id] = line
        yield sentence
    if ordinal == 0:
        raise CoNLLUError(path, 1, "file holds no sentences")


def write_conllu(sentences: Iterable[Sentence], path: str | Path) -> None:
    """Write sentences back: comments and every token line (words, ranges, empty nodes)."""
    with open_output(path) as out:
        for sentence in sentences:
            out.write(sentence.tokens.serialize())
