"""Command-line values, parsed and checked the same way by every command: comma lists, paths
or names that must not be empty, and strings that must stay on one line."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

from .errors import InputError


def comma_words(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def comma_ints(value: str) -> list[int]:
    """Whole numbers from ``"1,2"``; a `ValueError` naming the text otherwise."""
    try:
        return [int(v) for v in comma_words(value)]
    except ValueError:
        raise ValueError(f"expected comma-separated integers, got {value!r}") from None


def published_name(name: str) -> str:
    """A Hub id as it is, a local folder by its own name: a card or signature meant for the Hub
    says what was read, not where it lay on the builder's disk (the content digest beside the
    name tells copies apart)."""
    folder = Path(name).expanduser()
    return folder.resolve().name if folder.is_dir() else name


def control_character(text: str) -> str | None:
    """The first control character or line separator in ``text``, if any: what would break
    a line of the YAML, Markdown or CSV that a value is written into."""
    return next(
        (c for c in text if unicodedata.category(c) in ("Cc", "Zl", "Zp")),
        None,
    )


def check_one_line(value: Any, option: str) -> None:
    """An `InputError` naming ``option`` when a string or path in ``value`` (or in a sequence
    or mapping of them) holds a control character or a line break."""
    for text in _texts(value):
        if (char := control_character(text)) is not None:
            raise InputError(
                f"{option}: {text!r} holds the control character {char!r}: "
                "give it on one line, without control characters"
            )


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, (str, PurePath)):
        yield str(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts(key)
            yield from _texts(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _texts(item)
