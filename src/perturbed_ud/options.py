"""Comma-separated command-line values, parsed the same way by every command."""

from __future__ import annotations

import click


def comma_words(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def comma_ints(value: str) -> list[int]:
    try:
        return [int(v) for v in comma_words(value)]
    except ValueError:
        raise click.BadParameter(f"expected comma-separated integers, got {value!r}") from None
