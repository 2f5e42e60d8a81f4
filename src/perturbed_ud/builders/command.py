"""The ``build <family>`` command of a family: its own options, then those every build has
(--out, --overwrite, --workers, --version). The command line lists it, and
``perturbed_ud.build`` reads keyword options through it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

import click

from ..releases import parse_version
from . import engine


def _checked_version(ctx, param, value: str) -> str:
    parse_version(value)
    return value


def dataset_version_option(family) -> Callable:
    """``--version``, defaulting to the family's current dataset version."""
    (default,) = (f.default for f in fields(family.settings_class) if f.name == "version")
    return click.option(
        "--version", "dataset_version", default=default, show_default=True,
        callback=_checked_version,
        help="x.y.z: recorded in the card, build.json and signature; push tags it v<version>.",
    )  # fmt: skip


def family_command(family) -> click.Command:
    """``build <family>``: the family's own options, then those every build has."""

    def run(out, overwrite, workers, dataset_version, **values) -> None:
        instance = family(family.settings_from_cli(values | {"version": dataset_version}))
        folder = engine.build(instance, out, overwrite=overwrite, workers=workers)
        for warning in instance.warnings():
            click.echo(f"warning: {warning}", err=True)
        click.echo(f"wrote {folder}")

    options = [
        *family.cli_options(),
        click.option("--out", required=True, type=click.Path(), help="Output folder."),
        click.option("--overwrite", is_flag=True, help="Replace an existing dataset folder."),
        click.option(
            "--workers",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Processes; the output does not depend on them.",
        ),
        dataset_version_option(family),
    ]
    for option in reversed(options):
        run = option(run)
    return click.command(name=family.name, help=family.__doc__)(run)
