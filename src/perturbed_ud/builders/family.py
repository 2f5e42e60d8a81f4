"""The contract every dataset family meets.

A family is one module: a frozen settings dataclass whose fields say everything that shapes
the data, its `Features`, the conditions (splits) it writes, a row generator that writes
rows by column name, and the statistics and card sections of what it wrote. Everything
else (sources on disk, the atomic folder, worker processes, the Parquet writer, manifest,
signature and card frame) belongs to the engine in :mod:`.engine`, and the command line
builds its ``build <family>`` subcommand from the family's registration.
"""

from __future__ import annotations

import dataclasses
import hashlib
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from datasets import Features

from ..data.card import CardText
from ..data.writer import ParquetSplitWriter
from ..errors import InputError
from ..releases import parse_version
from ..settings import setting
from ..version import __version__

DEFAULT_VERSION = "1.0.0"


def version_setting(default: str = DEFAULT_VERSION) -> Any:
    """The dataset version; a family whose rows change gives its new major version here."""
    return setting("the dataset version x.y.z, recorded in card and tag", default=default)


def check_settings(settings: Any, *sequences: str) -> None:
    """Shared checks of a settings object: a valid version; list arguments stored as tuples
    (printable, and a string is not taken for a list of characters)."""
    parse_version(settings.version)
    for name in sequences:
        value = getattr(settings, name)
        if isinstance(value, str):
            raise InputError(f"{name} takes a list, not the string {value!r}")
        object.__setattr__(settings, name, tuple(value))


class DatasetFamily(ABC):
    """A dataset family: what it reads, which conditions it writes, and how it describes them.

    Subclasses set the class attributes, register themselves in ``registry.FAMILIES``
    under a versioned name, and implement the abstract methods. ``jobs`` returns
    independent, picklable units of work; ``write`` runs one of them in a worker process
    and returns its statistics; ``manifest`` turns all statistics into the ``build.json``
    entries (``parameters``, the inputs under ``treebanks`` or ``sources``, and
    ``configs``, each config listing its non-empty ``splits``).
    """

    name: ClassVar[str]  # the dataset: folder name, `build` subcommand, short registry name
    pretty_name: ClassVar[str]
    description: ClassVar[str]  # the card's opening: what a row is, split by split
    features: ClassVar[Features]
    settings_class: ClassVar[type]
    tasks: ClassVar[tuple[str, ...]] = ()  # the evaluate tasks that read its datasets
    # The lm-evaluation-harness tasks `lm-eval-tasks` writes for its datasets, of
    # minimal_pair (good vs bad sentence), order_pair (original vs scrambled), rolling
    # (perplexity of `lm_eval_text`).
    lm_eval_tasks: ClassVar[tuple[str, ...]] = ()

    def __init__(self, settings: Any):
        parse_version(settings.version)
        self.settings = settings

    @abstractmethod
    def conditions(self) -> list[str]:
        """The splits this build may write, in card order."""

    @abstractmethod
    def jobs(self) -> list:
        """Independent units of work; each writes its own configs."""

    @abstractmethod
    def write(self, job: Any, writer: ParquetSplitWriter) -> Any:
        """Write one job's rows; return its statistics."""

    @abstractmethod
    def manifest(self, results: list) -> dict:
        """The family's part of ``build.json`` from every job's statistics, in job order."""

    @classmethod
    @abstractmethod
    def card_text(cls, manifest: dict) -> CardText:
        """The card's sections, from the manifest alone (a card can be re-rendered from
        ``build.json``, as `balance` does for its subset)."""

    @classmethod
    def lm_eval_text(cls, manifest: dict) -> tuple[str, ...]:
        """The text columns whose perplexity the rolling lm-eval tasks report."""
        return ()

    def signature_extra(self, manifest: dict) -> list[str]:
        """Signature parts beyond the settings: digests of resources read during the build."""
        return []

    def why_empty(self, results: list) -> str:
        """The error when no job wrote a row: which inputs were read and what dropped them."""
        return "no input produced a row; nothing to write"

    def warnings(self) -> list[str]:
        """What a user should know about these settings after a successful build."""
        return []

    @classmethod
    def cli_options(cls) -> list:
        """The click options of ``build <name>``, besides those every build has (--out,
        --overwrite, --version, --workers)."""
        return []

    @classmethod
    def settings_from_cli(cls, values: dict) -> Any:
        """The settings from the command line's option values (``version`` included)."""
        return cls.settings_class(**values)

    def signature(self, manifest: dict) -> str:
        """sacrebleu-style: the family and version, then every setting that shapes the data,
        in field order, then resources read and the toolkit version, in one readable line."""
        parts = [f"{self.name}:{self.settings.version}"]
        for f in dataclasses.fields(self.settings):
            if key := f.metadata.get("signature"):
                parts.append(f"{key}:{f.metadata['shown'](getattr(self.settings, f.name))}")
        return "|".join([*parts, *self.signature_extra(manifest), f"toolkit:{__version__}"])


def config_id(signature: str) -> str:
    """A short handle of a build's signature: equal ids, equal settings and resources."""
    return hashlib.sha256(signature.encode()).hexdigest()[:12]
