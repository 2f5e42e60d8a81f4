"""Attribute-varying grammars (CLAMS, Mueller et al. 2020): templates whose preterminal
attributes are varied to generate grammatical/ungrammatical minimal pairs.

`parser` reads ``.avg`` files, `expand` generates minimal sets from them, `evalset` turns a
folder of grammars into the released ``<construction>.txt`` evalsets.
"""

from .evalset import (
    evalset_lines,
    format_evalset,
    generate_folder,
    read_grammar_folder,
    write_evalsets,
)
from .expand import MinimalPair, MinimalSet, minimal_sets
from .parser import Grammar, Preterminal, read_grammar

__all__ = [
    "Grammar",
    "MinimalPair",
    "MinimalSet",
    "Preterminal",
    "evalset_lines",
    "format_evalset",
    "generate_folder",
    "minimal_sets",
    "read_grammar",
    "read_grammar_folder",
    "write_evalsets",
]
