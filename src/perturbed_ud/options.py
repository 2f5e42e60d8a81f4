"""Command-line values, parsed and checked the same way by every command: comma lists, paths
or names that must not be empty, and strings that must stay on one line."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

import click

from .errors import InputError


def comma_words(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def comma_ints(value: str) -> list[int]:
    try:
        return [int(v) for v in comma_words(value)]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None


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


def refuse_empty(value, param: click.Parameter | None, ctx: click.Context | None, wanted: str):
    """An empty path or name is refused: most calls read "" as the current folder, so
    ``--dataset ""`` would scan whatever folder the command runs in."""
    if value == "":
        what = param.get_error_hint(ctx) if param is not None and ctx is not None else "a value"
        raise InputError(f"{what} is empty: give {wanted}")


class GivenPath(click.Path):
    """A path option or argument that refuses an empty value."""

    def convert(self, value, param, ctx):
        refuse_empty(value, param, ctx, "a path")
        return super().convert(value, param, ctx)


class GivenName(click.types.StringParamType):
    """A Hub id or local path (a dataset, a model) that refuses an empty value."""

    def convert(self, value, param, ctx):
        refuse_empty(value, param, ctx, "a Hub id or a path")
        return super().convert(value, param, ctx)


NAME_OR_PATH = GivenName()
