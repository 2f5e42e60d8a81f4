"""Release definitions: one TOML file per published dataset (``builders/<name>.toml``).

A release names the dataset (the ``build`` subcommand), its version, and the options that
build it, spelled as on the command line without the dashes (``ud-root``, ``seeds``, …).
``perturbed-ud build builders/<name>.toml --out DIR`` reproduces it; releasing 1.1.0 is an
edit of the file.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError

# A dataset version as `datasets` reads it from a card: x.y.z, each a number in ASCII digits
# without a leading zero (01 and 1 would tag one release twice).
VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


@dataclass(frozen=True)
class Release:
    path: Path
    dataset: str  # the build subcommand, e.g. perturbed-ud
    version: str  # x.y.z
    options: dict = field(default_factory=dict)  # option name (dashes) -> value


def parse_version(text: object, what: str = "--version") -> tuple[int, int, int]:
    """(major, minor, patch) of an x.y.z version; anything else is an `InputError`."""
    match = VERSION.fullmatch(str(text))  # not `match`: "1.0.0\n" would pass
    if match is None:
        raise InputError(f"{what} {str(text)!r} is not a version of the form x.y.z, e.g. 1.0.0")
    major, minor, patch = map(int, match.groups())
    return major, minor, patch


def is_release_file(name: str) -> bool:
    return name.endswith(".toml") and Path(name).is_file()


def read_release(path: str | Path) -> Release:
    """A release file, checked for its keys; the options are checked by the command."""
    path = Path(path)
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise InputError(f"{path}: cannot read the release: {err}") from err
    unknown = sorted(set(spec) - {"dataset", "version", "options"})
    missing = sorted({"dataset", "version"} - set(spec))
    if unknown or missing:
        raise InputError(f"{path}: unknown keys {unknown}, missing keys {missing}")
    parse_version(spec["version"], f"{path}: version")
    return Release(path, str(spec["dataset"]), str(spec["version"]), dict(spec.get("options", {})))
