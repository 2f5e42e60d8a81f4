"""Reading and writing CoNLL-U with the `conllu` library, strictly.

A word is a UD syntactic word (integer ID). Multiword tokens (``3-4``) and empty nodes
(``5.1``) are validated and kept (`Sentence.tokens`, a `conllu` token list built on demand),
so writing a sentence back gives its token lines unchanged; the word-level columns
(``forms``, ``heads`` …) hold only the syntactic words, which every perturbation works on.

Malformed input (what the UD validator rejects at levels 1 and 2 in a sentence's token lines;
`validate` holds the checks of single cells) is an error that names the file and the offending
line (`CoNLLUError`), never a silent skip.
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

from ..download import cache_dir
from ..errors import CoNLLUError, InputError
from ..files import COMPRESSED, READ_ERRORS, open_decompressed, open_output
from . import validate
from .sent_ids import SentIds


def _raw(line: list[str], i: int) -> str:
    return line[i]


# FEATS, DEPS and MISC stay the raw strings of the file: conllu's dict parsers are lossy on
# real treebanks (MISC values containing '=' or '|', e.g. UD_Russian-Poetry and -Taiga).
_FIELD_PARSERS = {"feats": _raw, "deps": _raw, "misc": _raw}

_WORD_ID = re.compile(r"^[1-9][0-9]*$")
_MWT_ID = re.compile(r"^([1-9][0-9]*)-([1-9][0-9]*)$")
_EMPTY_ID = re.compile(r"^(0|[1-9][0-9]*)\.([1-9][0-9]*)$")
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


# The longest line read: the comment of a 100,000-word sentence takes about 1 MB, so only
# a file that is no CoNLL-U (a decompression bomb of one endless line) reaches it, and is
# refused before that line fills memory.
LINE_LIMIT = 64 << 20


# The most lines and characters one sentence may hold: UD's longest sentences have a few
# thousand words; a block without an end (millions of comment lines) is refused before it
# fills memory.
BLOCK_LINES, BLOCK_CHARACTERS = 1_000_000, 256 << 20


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) read one line at a time, so memory does not grow with the file.

    Lines end at LF (or CRLF) only: other Unicode line breaks (U+2028, U+0085 …) are text.
    A byte order mark opening the file is dropped (some UD files carry one). A damaged
    compressed file is an error at the first line that cannot be read.
    """
    number = 0
    try:
        f = open_decompressed(path)
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from err
    with f:
        try:
            for number, raw in enumerate(iter(lambda: f.readline(LINE_LIMIT + 1), b""), 1):
                if len(raw) > LINE_LIMIT:
                    raise CoNLLUError(path, number, f"line longer than {LINE_LIMIT:,} bytes")
                try:
                    line = raw.decode("utf-8").removesuffix("\n").removesuffix("\r")
                    yield number, line.removeprefix("\ufeff") if number == 1 else line
                except UnicodeDecodeError as err:
                    message = f"invalid UTF-8 byte 0x{raw[err.start]:02x}"
                    raise CoNLLUError(path, number, message) from None
        except READ_ERRORS as err:
            raise CoNLLUError(path, number + 1, f"cannot decompress: {err}") from None


def _blocks(path: Path, lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, list[str]]]:
    """Blank-line separated blocks with the line number of their first line.

    A line of only whitespace is an error, not a blank line: it may be a token line whose cells
    were lost, and UD forbids it.
    """
    start, block, size = 1, [], 0
    for number, line in lines:
        if line:
            if line.isspace():
                raise CoNLLUError(
                    path, number, "line holds only whitespace (a blank line is empty)"
                )
            if not block:
                start, size = number, 0
            block.append(line)
            size += len(line)
            if len(block) > BLOCK_LINES or size > BLOCK_CHARACTERS:
                raise CoNLLUError(
                    path, start, f"sentence too long (over {BLOCK_LINES:,} lines or "
                    f"{BLOCK_CHARACTERS:,} characters before its end)"
                )  # fmt: skip
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _parse_block(path: Path, start: int, lines: list[str], ordinal: int) -> Sentence:
    """Validate one sentence block and read its word columns, with exact line numbers.

    Every error names the offending line. Each line's ID is checked against the lines before
    it: comments only before the tokens, words 1..n in order, a multiword token right before its
    first word and overlapping no other, empty node N.k right after word N (N.1, N.2 … in
    order). Its cells are checked by `validate` (control characters, whitespace, NFC only in a
    sentence `validate.suspect` flags). Then what needs the whole sentence: the words' UPOS,
    FEATS and DEPREL, ranges past the end, DEPS, HEAD range, one root and no cycle.
    """
    meta: dict[str, str] = {}
    words: list[list[str]] = []
    word_lines: list[int] = []
    ranges: list[tuple[int, int, str, int]] = []  # first, last, form, line
    pending: tuple[int, int, str, int] | None = None  # a range whose first word comes next
    next_empty = 1
    empty_ids: list[str] = []
    deps: list[tuple[int, str, str]] = []  # line, ID, DEPS of each node that has DEPS
    careful = validate.suspect(lines)
    for offset, line in enumerate(lines):
        number = start + offset
        if line.startswith("#"):
            if words or ranges or empty_ids:
                raise CoNLLUError(path, number, "comment after the token lines of a sentence")
            if careful:
                validate.check_comment(path, number, line)
            key, sep, value = line[1:].partition("=")
            if sep:
                meta.setdefault(key.strip(), value.strip())
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise CoNLLUError(path, number, f"expected 10 tab-separated columns, found {len(cols)}")
        if careful:
            validate.check_cells(path, number, line, cols)
        wid = cols[0]
        if wid == str(len(words) + 1):  # the next word, the commonest line by far
            if not _HEAD.match(cols[6]):
                raise CoNLLUError(path, number, f"HEAD {cols[6]!r} is not a non-negative integer")
            words.append(cols)
            word_lines.append(number)
            pending = None
            next_empty = 1
            # DEPS that only repeats HEAD:DEPREL is valid when they are, which is checked anyway
            if cols[8] != "_" and cols[8] != f"{cols[6]}:{cols[7]}":
                deps.append((number, wid, cols[8]))
        elif _WORD_ID.match(wid):  # words so far are exactly 1..len(words): a lower ID is a repeat
            message = "duplicate ID" if int(wid) <= len(words) else "word ID out of order:"
            raise CoNLLUError(path, number, f"{message} {wid!r} (expected {len(words) + 1})")
        elif match := _MWT_ID.match(wid):
            first, last = int(match.group(1)), int(match.group(2))
            if first >= last:
                raise CoNLLUError(
                    path, number, f"multiword token {wid}: its first word must come before its last"
                )
            if ranges and first <= ranges[-1][1]:
                a, b, _, at = ranges[-1]
                raise CoNLLUError(
                    path, number, f"multiword token {wid} overlaps {a}-{b} (line {at})"
                )
            _check_pending(path, pending)
            if first != len(words) + 1:
                raise CoNLLUError(
                    path, number, f"multiword token {wid} is not right before word {first}"
                )
            validate.check_range(path, number, cols)
            pending = (first, last, cols[1], number)
            ranges.append(pending)
            next_empty = 1
        elif match := _EMPTY_ID.match(wid):
            _check_pending(path, pending)
            major, minor = int(match.group(1)), int(match.group(2))
            if major != len(words):
                raise CoNLLUError(path, number, _misplaced_empty_node(wid, major, lines))
            if minor != next_empty:
                raise CoNLLUError(
                    path, number, f"empty node {wid} out of order: expected {major}.{next_empty}"
                )
            validate.check_empty_node(path, number, cols)
            next_empty += 1
            empty_ids.append(wid)
            if cols[8] != "_":
                deps.append((number, wid, cols[8]))
        else:
            raise CoNLLUError(path, number, f"ID {wid!r} is not a word, range or empty node")
    if not words:
        raise CoNLLUError(path, start, "sentence has no syntactic words")
    validate.check_words(path, words, word_lines)
    n = len(words)
    for first, last, _, number in ranges:
        if last > n:
            raise CoNLLUError(
                path, number, f"multiword token {first}-{last} goes past the last word {n}"
            )
    if deps:
        ids = {"0", *(w[0] for w in words), *empty_ids}
        for number, wid, cell in deps:
            validate.check_deps(path, number, wid, cell, ids)
    heads = [int(w[6]) for w in words]
    for i, head in enumerate(heads):
        if head > n:
            raise CoNLLUError(path, word_lines[i], f"HEAD {head} is out of range ({n} words)")
        if head == i + 1:
            raise CoNLLUError(path, word_lines[i], f"word {head} is its own head")
    roots = [i for i, head in enumerate(heads) if head == 0]
    if len(roots) > 1:
        message = f"word {roots[1] + 1} is a second root (HEAD 0, like word {roots[0] + 1})"
        raise CoNLLUError(path, word_lines[roots[1]], message)
    _check_acyclic(path, heads, word_lines)
    return Sentence(
        sent_id=meta.get("sent_id") or f"{path.stem}#{ordinal}",
        text=meta.get("text", ""),
        forms=[w[1] for w in words],
        lemmas=[w[2] for w in words],
        upos=[w[3] for w in words],
        feats=[w[5] for w in words],
        heads=heads,
        deprels=[w[7] for w in words],
        multiword_tokens=[MultiwordToken(a - 1, b - 1, form) for a, b, form, _ in ranges],
        n_empty_nodes=len(empty_ids),
        source=str(path),
        line=start,
        lines=lines,
    )


def _check_pending(path: Path, pending: tuple[int, int, str, int] | None) -> None:
    """A multiword token still waiting for its first word when another kind of line comes."""
    if pending is not None:
        first, last, _, number = pending
        message = f"multiword token {first}-{last} is not right before word {first}"
        raise CoNLLUError(path, number, message)


def _misplaced_empty_node(wid: str, major: int, lines: list[str]) -> str:
    n = sum(bool(_WORD_ID.match(line.partition("\t")[0])) for line in lines)
    if major > n:
        return f"empty node {wid} is past the end of the sentence ({n} words)"
    if major == 0:
        return f"empty node {wid} must come before word 1"
    return f"empty node {wid} must come right after word {major}"


def _check_acyclic(path: Path, heads: list[int], word_lines: list[int]) -> None:
    """No cycle in HEAD; with no self-loop and at most one root, a sentence without a root has
    one, so this also finds rootless sentences."""
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


def read_conllu(path: str | Path, sent_ids: SentIds | None = None) -> Iterator[Sentence]:
    """Yield the sentences of one CoNLL-U file in file order.

    Raises `CoNLLUError` for invalid UTF-8, empty files, duplicate ``sent_id`` and the UD
    validator's level 1 and 2 errors in token lines (`_parse_block`). Accepted here although
    the UD validator is stricter: CRLF line ends, a missing final or a repeated blank line, any
    comments (no ``sent_id`` or ``text`` needed, nor ``text`` to match the forms), any MISC, and
    enhanced graphs checked only node by node. ``sent_ids``, shared across the files of one
    treebank, extends the duplicate check to all of them.
    """
    path = Path(path)
    sent_ids = SentIds() if sent_ids is None else sent_ids
    ordinal = 0
    try:
        for start, lines in _blocks(path, _lines(path)):
            ordinal += 1
            sentence = _parse_block(path, start, lines, ordinal)
            line = _sent_id_line(start, lines)
            sent_ids.add(sentence.sent_id, path, line)
            yield sentence
        if ordinal == 0:
            raise CoNLLUError(path, 1, "file holds no sentences")
    except CoNLLUError as err:
        raise _naming_the_cache(err, path) from None


def _naming_the_cache(err: CoNLLUError, path: Path) -> CoNLLUError:
    """A downloaded file that does not parse stays in the cache, and every later run would
    fail on it alike: the error says where it is and how to fetch it again."""
    folder = path.resolve().parent
    if not folder.is_relative_to(cache_dir().resolve()):
        return err
    return CoNLLUError(
        err.path, err.line, f"{err.message} (a download cached in {folder}: delete that folder "
        "to download it again)"
    )  # fmt: skip


def write_conllu(sentences: Iterable[Sentence], path: str | Path) -> None:
    """Write sentences back: comments and every token line (words, ranges, empty nodes)."""
    with open_output(path) as out:
        for sentence in sentences:
            out.write(sentence.tokens.serialize())
