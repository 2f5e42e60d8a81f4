"""Command-line values parsed the same way by every command: comma lists, and paths or
names that must not be empty."""

from __future__ import annotations

import click

from .errors import InputError


def comma_words(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def comma_ints(value: str) -> list[int]:
    try:
        return [int(v) for v in comma_words(value)]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None


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
