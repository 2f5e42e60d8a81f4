"""Treebank licences: Hub identifiers and whether a dataset may be published under them.

UD READMEs state licences in prose (``CC BY-NC-SA 4.0``, ``GNU GPL 3.0``). Publishing refuses
non-commercial and no-derivatives licences, GPL-family licences (share-alike terms that
cannot be combined with the CC BY-SA data of most treebanks), and anything unrecognised,
unless the publisher overrides it knowingly.
"""

from __future__ import annotations

import re

_CC = re.compile(r"^CC[ -]?(BY(?:[ -](?:NC|ND|SA))*)[ -]?(\d\.\d)?", re.I)

# Permissive licences of code-like sources (grammars, word lists), by their Hub identifiers.
PERMISSIVE = {"apache-2.0", "mit", "bsd-2-clause", "bsd-3-clause"}


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
    match = re.search(r"\b(L?GPL)[ -]?v?(\d)", text, re.I)
    if match:
        return f"{match.group(1).lower()}-{match.group(2)}.0"
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
