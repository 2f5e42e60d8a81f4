"""A folder of grammars as evalsets: one ``<construction>.txt`` per ``<construction>.avg``.

The released format (CLAMS ``*_evalset/*.txt``) is one line per sentence, ``True`` or
``False``, a tab and the sentence, each grammatical line followed by its ungrammatical ones,
UTF-8 with ``\\n`` line ends, including after the last line.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import GrammarError
from ..files import output_folder, write_text
from .expand import MinimalSet, minimal_sets
from .parser import Grammar, read_grammar

COMMON = "common.avg"  # shared preterminals, read before each construction's own file


def read_grammar_folder(folder: str | Path) -> dict[str, Grammar]:
    """Every construction's grammar in `folder`, by name, in file-name order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise GrammarError(folder, None, "not a folder of .avg grammars")
    common = folder / COMMON
    grammars: dict[str, Grammar] = {}
    for path in sorted(folder.glob("*.avg")):
        if path.name == COMMON:
            continue
        grammar = read_grammar(path, common if common.is_file() else None)
        if grammar.name in grammars:
            other = grammars[grammar.name].path
            raise GrammarError(path, None, f"construction {grammar.name!r} is also {other}")
        grammars[grammar.name] = grammar
    if not grammars:
        raise GrammarError(folder, None, "no construction grammar (*.avg besides common.avg)")
    return grammars


def generate_folder(folder: str | Path) -> dict[str, list[MinimalSet]]:
    """Every construction's minimal sets, generated from the grammars in `folder`."""
    return {name: minimal_sets(g) for name, g in read_grammar_folder(folder).items()}


def evalset_lines(sets: list[MinimalSet]) -> list[tuple[bool, str]]:
    """(label, sentence) lines in released order: True for grammatical."""
    return [line for minimal_set in sets for line in minimal_set.lines()]


def labelled_sentences(folder: str | Path) -> dict[str, list[tuple[bool, str]]]:
    """{construction: [(label, sentence), ...]} as in the released evalsets."""
    return {name: evalset_lines(sets) for name, sets in generate_folder(folder).items()}


def format_evalset(lines: list[tuple[bool, str]]) -> str:
    """The released text: ``True<TAB>sentence`` per line, every line ending in a newline."""
    return "".join(f"{label}\t{sentence}\n" for label, sentence in lines)


def write_evalsets(folder: str | Path, out: str | Path) -> list[Path]:
    """Generate every construction of `folder` and write ``out/<construction>.txt``.

    All grammars are generated before anything is written, so an error writes nothing.
    """
    texts = {name: format_evalset(lines) for name, lines in labelled_sentences(folder).items()}
    out = output_folder(out)
    written = []
    for name, text in texts.items():
        path = out / f"{name}.txt"
        write_text(path, text)
        written.append(path)
    return written
