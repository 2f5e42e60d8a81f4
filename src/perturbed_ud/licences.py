"""Treebank licences: what a licence file states, Hub identifiers, and whether a dataset may
be published under them.

UD READMEs state licences in prose (``CC BY-NC-SA 4.0``, ``GNU GPL 3.0``), in a metadata line
that can disagree with the licence file beside it (UD_Turkish-IMST: README 4.0, LICENSE.txt
3.0); the file is the licence granted, so `stated_licence` reads it first. Publishing refuses
non-commercial and no-derivatives licences, GPL-family licences (share-alike terms that
cannot be combined with the CC BY-SA data of most treebanks), and anything unrecognised,
unless the publisher overrides it knowingly.
"""

from __future__ import annotations

import re

_CC = re.compile(r"^CC[ -]?(BY(?:[ -](?:NC|ND|SA))*)[ -]?(\d\.\d)?", re.I)

# Permissive licences of code-like sources (grammars, word lists), by their Hub identifiers.
PERMISSIVE = {"apache-2.0", "mit", "bsd-2-clause", "bsd-3-clause"}

# How licence files name their licence, each giving the prose form READMEs use. The earliest
# match in a file wins: a licence's own name comes first, other licences are mentioned later.
_CC_ELEMENTS = {"noncommercial": "NC", "noderivatives": "ND", "noderivs": "ND", "sharealike": "SA"}


def _cc_title(match: re.Match) -> str:
    """``Attribution-NonCommercial-ShareAlike 4.0`` -> ``CC BY-NC-SA 4.0``."""
    elements = [_CC_ELEMENTS[e.lower()] for e in match.group(1).split("-")[1:]]
    return f"CC {'-'.join(['BY', *elements])} {match.group(2)}"


_STATED = [
    # https://creativecommons.org/licenses/by-nc-sa/3.0/
    (
        re.compile(r"creativecommons\.org/licenses/([a-z]+(?:-[a-z]+)*)/(\d\.\d)", re.I),
        lambda m: f"CC {m.group(1).upper()} {m.group(2)}",
    ),
    # Attribution-NonCommercial-ShareAlike 4.0 International
    (
        re.compile(
            r"\bAttribution((?:-(?:NonCommercial|NoDerivatives|NoDerivs|ShareAlike))*) (\d\.\d)",
            re.I,
        ),
        _cc_title,
    ),
    # CC BY-SA 4.0, CreativeCommons BY-NC-SA 3.0
    (
        re.compile(r"\b(?:CC|Creative ?Commons)[ -]?(BY(?:-(?:NC|ND|SA))*)[ -]?(\d\.\d)", re.I),
        lambda m: f"CC {m.group(1).upper()} {m.group(2)}",
    ),
    (
        re.compile(r"\bCC0[ -]?1\.0|creativecommons\.org/publicdomain/zero/1\.0", re.I),
        lambda m: "CC0 1.0",
    ),
    # GNU GENERAL PUBLIC LICENSE 3.0; GNU LESSER GENERAL PUBLIC LICENSE Version 2.1
    (
        re.compile(
            r"\bGNU (LESSER |LIBRARY )?GENERAL PUBLIC LICEN[CS]E,?\s+(?:Version\s+)?"
            r"(\d)(?:\.(\d))?",
            re.I,
        ),
        lambda m: f"GNU {'L' if m.group(1) else ''}GPL {m.group(2)}.{m.group(3) or 0}",
    ),
    (
        re.compile(r"\bLGPL-LR\b|Lesser General Public License for Linguistic Resources", re.I),
        lambda m: "LGPL-LR",
    ),
    (re.compile(r"\bApache License,?\s+Version 2\.0", re.I), lambda m: "Apache-2.0"),
]


def stated_licence(text: str) -> str | None:
    """The licence a licence file grants, in README prose (``CC BY-NC-SA 3.0``), or None when
    it names none that is recognised."""
    found = [(m.start(), name(m)) for pattern, name in _STATED if (m := pattern.search(text))]
    return min(found)[1] if found else None


def hub_licence(text: str) -> str:
    """``CC BY-SA 4.0`` -> ``cc-by-sa-4.0``; ``GNU GPL 3.0`` -> ``gpl-3.0``; ``Apache-2.0``
    -> ``apache-2.0``; else ``other``."""
    text = text.strip()
    spdx = re.sub(r"[ _]+", "-", text.lower()).replace("apache-license-", "apache-")
    if spdx in PERMISSIVE:
        return spdx
    match = _CC.match(text)
    if match:
        parts = re.split(r"[ -]", match.group(1).lower())
        version = match.group(2)
        return "-".join(["cc", *parts] + ([version] if version else []))
    if re.match(r"^CC0", text, re.I):
        return "cc0-1.0"
    match = re.search(r"\b(L?GPL)[ -]?v?(\d)(?:\.(\d))?", text, re.I)
    if match:
        return f"{match.group(1).lower()}-{match.group(2)}.{match.group(3) or 0}"
    if "LGPL-LR" in text.upper():
        return "lgpl-lr"
    return "other"


def publishing_problem(text: str) -> str | None:
    """Why data under this licence should not go into a public dataset, or None."""
    licence = hub_licence(text)
    if licence == "other":
        return f"licence {text!r} is not recognised"
    if "-nc" in licence:
        return f"licence {text!r} forbids commercial use"
    if "-nd" in licence:
        return f"licence {text!r} forbids derivatives"
    if "gpl" in licence:
        return f"licence {text!r} is share-alike in terms incompatible with CC BY-SA data"
    return None
