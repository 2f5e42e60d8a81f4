"""A folder of grammars as evalsets: one ``<construction>.txt`` per ``<construction>.avg``.

The released format (CLAMS ``*_evalset/*.txt``) is one line per sentence, ``True`` or
``False``, a tab and the sentence, each grammatical line followed by its ungrammatical ones,
UTF-8 with ``\\n`` line ends, including after the last line.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import GrammarError
from ..files import guard_output, open_output, output_folder
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
    return {name: list(minimal_sets(g)) for name, g in read_grammar_folder(folder).items()}


def evalset_lines(sets: Iterable[MinimalSet]) -> list[tuple[bool, str]]:
    """(label, sentence) lines in released order: True for grammatical."""
    return [line for minimal_set in sets for line in minimal_set.lines()]


def format_evalset(lines: Iterable[tuple[bool, str]]) -> str:
    """The released text: ``True<TAB>sentence`` per line, every line ending in a newline."""
    return "".join(f"{label}\t{sentence}\n" for label, sentence in lines)


def write_evalsets(folder: str | Path, out: str | Path) -> list[Path]:
    """Generate every construction of `folder` and write ``out/<construction>.txt``.

    Every grammar is checked (`minimal_sets` raises its errors before generating), so an
    error writes nothing; each file is then written a minimal set at a time.
    """
    sets = {name: minimal_sets(g) for name, g in read_grammar_folder(folder).items()}
    out = output_folder(guard_output(out, [folder]))
    written = []
    for name, generated in sets.items():
        path = out / f"{name}.txt"
        with open_output(path) as text:
            text.writelines(format_evalset(minimal_set.lines()) for minimal_set in generated)
        written.append(path)
    return written
