"""Reading attribute-varying grammars (CLAMS ``.avg`` files).

A grammar is a list of lines, read from one or more files in order (``common.avg`` first):

- ``# comment`` lines and blank lines are skipped; CRLF endings, trailing spaces and a missing
  final newline are all fine.
- ``vary: V_2[]; V_1[3,s]`` names the preterminals whose attributes are varied to make
  ungrammatical sentences; ``;`` is OR, the attributes inside one bracket are AND, ``[]`` is any.
  Several vary lines add up.
- ``S[] Det[3,p] N_1[3,p,m,anim] VP[3,p]`` is a template: words and preterminal slots.
- ``VP[3,s] ist alt | ist jung | schwimmt`` defines a preterminal by its alternatives (words
  only: preterminals are not recursive). Repeating a left-hand side adds alternatives.

Attributes form a set (``V[s,1]`` is ``V[1,s]``) and may be several words, never commas.
Anything the grammar cannot mean is a `GrammarError` naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GrammarError

START = "S"

# A preterminal token keeps its bracket whole, so attributes may contain spaces: V[1, s].
_TOKEN = re.compile(r"[^\s\[\]]*\[[^\[\]]*\]\S*|\S+")
_PRETERMINAL = re.compile(r"([^\s\[\]]+)\[([^\[\]]*)\]")
_VARY = re.compile(r"vary\b")


@dataclass(frozen=True)
class Preterminal:
    """A preterminal name with its attribute set, e.g. ``VP[3,p]``."""

    name: str
    attributes: frozenset[str]
    written: tuple[str, ...] = field(default=(), compare=False)  # attribute order as written

    def __str__(self) -> str:
        return f"{self.name}[{','.join(self.written)}]"


@dataclass
class Definition:
    """A preterminal's alternatives, each a tuple of words, and where it was first defined."""

    preterminal: Preterminal
    options: list[tuple[str, ...]]
    path: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Template:
    """One expansion of S: words (str) and preterminal slots, numbered from 1 in file order."""

    number: int
    items: tuple[str | Preterminal, ...]
    path: str
    line: int


@dataclass(frozen=True)
class VaryItem:
    """One OR-branch of a vary statement: vary `name` among forms having all `attributes`."""

    preterminal: Preterminal
    path: str
    line: int


@dataclass
class Grammar:
    """A construction's grammar; `definitions` keeps definition order (it orders alternates)."""

    name: str
    path: str  # the construction's own file
    vary: list[VaryItem] = field(default_factory=list)
    templates: list[Template] = field(default_factory=list)
    definitions: dict[Preterminal, Definition] = field(default_factory=dict)


def read_grammar(path: str | Path, common: str | Path | None = None) -> Grammar:
    """Read a construction's ``.avg`` file, after `common` (shared preterminals) if given.

    The construction is named by the file name up to its first dot.
    """
    path = Path(path)
    grammar = Grammar(name=path.name.split(".")[0], path=str(path))
    last_line = 0
    for source in ([Path(common)] if common is not None else []) + [path]:
        last_line = _read_into(grammar, source)
    _check(grammar, last_line)
    return grammar


def _read_into(grammar: Grammar, path: Path) -> int:
    """Add the statements of one file to `grammar`; return its number of lines."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise GrammarError(path, None, f"cannot read: {err.strerror or err}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise GrammarError(path, data[: err.start].count(b"\n") + 1, "not UTF-8") from None
    lines = text.split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if _VARY.match(line):
            _vary(grammar, line, str(path), number)
        else:
            _rule(grammar, line, str(path), number)
    return max(1, len(lines) - (lines[-1].strip() == ""))


def _vary(grammar: Grammar, line: str, path: str, number: int) -> None:
    head, colon, rest = line.partition(":")
    if not colon or head.strip() != "vary":
        raise GrammarError(path, number, "a vary statement reads `vary: Name[attributes]; ...`")
    if not rest.strip():
        raise GrammarError(path, number, "the vary statement names no preterminal")
    for text in rest.split(";"):
        text = text.strip()
        if not text:
            raise GrammarError(path, number, "empty item in the vary statement (stray `;`)")
        if _PRETERMINAL.fullmatch(text) is None:
            raise GrammarError(path, number, f"vary item {text!r} is not Name[attributes]")
        preterminal = _preterminal(text, path, number)
        if preterminal.name == START:
            raise GrammarError(path, number, "S cannot be varied; vary one of its preterminals")
        grammar.vary.append(VaryItem(preterminal, path, number))


def _rule(grammar: Grammar, line: str, path: str, number: int) -> None:
    lhs_text = _TOKEN.match(line).group()
    if _PRETERMINAL.fullmatch(lhs_text) is None:
        raise GrammarError(path, number, f"a rule starts with Name[attributes], not {lhs_text!r}")
    lhs = _preterminal(lhs_text, path, number)
    rhs = line[len(lhs_text) :].strip()
    if not rhs:
        raise GrammarError(path, number, f"{lhs} has no right-hand side")
    alternatives = [_items(text, path, number) for text in rhs.split("|")]
    if lhs.name == START:
        if lhs.attributes:
            raise GrammarError(path, number, f"the start symbol takes no attributes: {lhs}")
        for items in alternatives:
            for item in items:
                if isinstance(item, Preterminal) and item.name == START:
                    raise GrammarError(path, number, "a template cannot contain S (recursion)")
            number_ = len(grammar.templates) + 1
            grammar.templates.append(Template(number_, tuple(items), path, number))
        return
    for items in alternatives:
        for item in items:
            if isinstance(item, Preterminal):
                raise GrammarError(
                    path,
                    number,
                    f"{lhs} refers to {item}: a preterminal lists words only "
                    "(no recursion in an attribute-varying grammar)",
                )
    definition = grammar.definitions.get(lhs)
    if definition is None:
        definition = grammar.definitions[lhs] = Definition(lhs, [], path, number)
    definition.options.extend(tuple(items) for items in alternatives)


def _items(text: str, path: str, number: int) -> list[str | Preterminal]:
    """The words and preterminal slots of one alternative."""
    if not text.strip():
        raise GrammarError(path, number, "empty alternative (a `|` with nothing beside it)")
    items: list[str | Preterminal] = []
    for token in _TOKEN.findall(text):
        if "[" in token or "]" in token:
            if _PRETERMINAL.fullmatch(token) is None:
                raise GrammarError(path, number, f"malformed preterminal {token!r}")
            items.append(_preterminal(token, path, number))
        else:
            items.append(token)
    return items


def _preterminal(token: str, path: str, number: int) -> Preterminal:
    name, inside = _PRETERMINAL.fullmatch(token).groups()
    written: list[str] = []
    if inside.strip():
        for attribute in inside.split(","):
            attribute = attribute.strip()
            if not attribute:
                raise GrammarError(path, number, f"empty attribute in {token!r}")
            if attribute not in written:
                written.append(attribute)
    return Preterminal(name, frozenset(written), tuple(written))


def _check(grammar: Grammar, last_line: int) -> None:
    """Refuse grammars that would generate nothing, or generate it silently wrong."""
    if not grammar.templates:
        raise GrammarError(
            grammar.path, last_line, "no template: the grammar has no `S[] ...` line"
        )
    names = {p.name for p in grammar.definitions}
    for template in grammar.templates:
        for item in template.items:
            if isinstance(item, Preterminal) and item not in grammar.definitions:
                known = [str(p) for p in grammar.definitions if p.name == item.name]
                hint = f" (defined: {', '.join(known)})" if known else ""
                raise GrammarError(
                    template.path, template.line, f"undefined preterminal {item}{hint}"
                )
    if not grammar.vary:
        first = grammar.templates[0]
        raise GrammarError(
            first.path, first.line, "no `vary:` statement, so no sentence would be ungrammatical"
        )
    for item in grammar.vary:
        if item.preterminal.name not in names:
            raise GrammarError(
                item.path, item.line, f"vary names {item.preterminal.name}, which is not defined"
            )
