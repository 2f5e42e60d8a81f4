"""The contract every dataset family meets.

A family is one module: a frozen settings dataclass whose fields say everything that shapes
the data, its `Features`, the conditions (splits) it writes, a row generator that writes
rows by column name, and the statistics and card sections of what it wrote. Everything
else (sources on disk, the atomic folder, worker processes, the Parquet writer, manifest,
signature and card frame) belongs to the engine in :mod:`.engine`. The options of a
build are the settings fields themselves, plus those of `sources_class` where the inputs
are named in other terms than the settings record (languages and folders that resolve to
treebanks); ``perturbed_ud.build`` takes them as keywords and the command line's
``build <family>`` offers them as options, both through `DatasetFamily.from_options`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import string
import warnings
from abc import ABC, abstractmethod
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from datasets import Features

from ..data.card import CardText
from ..data.writer import ParquetSplitWriter
from ..errors import InputError, PerturbedUDWarning
from ..releases import parse_version
from ..settings import (
    documented_fields,
    option_name,
    paths_read,
    setting,
    settings_from,
)
from ..version import __version__

DEFAULT_VERSION = "1.0.0"


def version_setting(default: str = DEFAULT_VERSION) -> Any:
    """The dataset version; a family whose rows change gives its new major version here."""
    return setting("the dataset version x.y.z, recorded in card and tag", default=default)


# A section of a card template opens with its name as an HTML comment: <!-- statistics -->
CARD_SECTION = re.compile(r"<!-- (\w+) -->")


def parse_card(text: str, where: str) -> Mapping[str, str]:
    """A card template's sections by name. Every line that opens an HTML comment must be a
    section marker, each name once, and no text may come before the first: a mistyped
    marker would otherwise hide its text in the previous section's."""
    sections: dict[str, list[str]] = {}
    lines = None
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("<!--"):
            if not (match := CARD_SECTION.fullmatch(line)):
                raise ValueError(f"{where}:{number}: {line!r} is no section marker (<!-- name -->)")
            if match[1] in sections:
                raise ValueError(f"{where}:{number}: section {match[1]!r} twice")
            lines = sections[match[1]] = []
        elif lines is not None:
            lines.append(line)
        elif line.strip():
            raise ValueError(f"{where}:{number}: text before the first section marker")
    return MappingProxyType({name: "\n".join(body).strip("\n") for name, body in sections.items()})


@cache
def card_template(family: str) -> Mapping[str, str]:
    """A family's card prose by section, from ``builders/cards/<family>.md``: Markdown with
    ``{name}`` fields for what the manifest gives (tables, counts, settings). The prose is
    written once there, for the card and for ``docs/families/<family>.md``, which quotes it."""
    text = files(__package__).joinpath("cards", f"{family}.md").read_text(encoding="utf-8")
    return parse_card(text, f"cards/{family}.md")


def card_prose(family: str, section: str, **values: Any) -> str:
    """One section of a family's card template with its fields filled. A section or field
    the code and the template do not both name is an error of the family's code, raised as
    such (a literal brace in the prose is written twice: ``{{``)."""
    where = f"cards/{family}.md, section {section!r}"
    body = card_template(family).get(section)
    if body is None:
        raise ValueError(f"{where}: no such section")
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(body) if name is not None}
    except ValueError as error:
        raise ValueError(f"{where}: {error} (a literal brace is written twice)") from None
    if fields != set(values):
        raise ValueError(f"{where}: fields {sorted(fields)}, values {sorted(values)}")
    return body.format(**values)


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
    # Options that name the inputs in a user's terms (a dataclass of `setting` fields), and
    # the settings fields `resolve` makes of them, which are no options themselves.
    sources_class: ClassVar[type | None] = None
    resolved: ClassVar[tuple[str, ...]] = ()
    renamed: ClassVar[dict[str, str]] = {}  # a former option name -> its current name
    sources: Any = None  # the `sources_class` options it was made from, if any

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
    def manifest_problem(cls, manifest: dict) -> str | None:
        """What this family's readers would trip on in a ``build.json`` beyond the shape every
        manifest has (`perturbed_ud.manifest.problem`), in words; None when nothing."""
        return None

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
    def resolve(cls, sources: Any, values: dict) -> dict:
        """The `resolved` settings fields (and any others the sources decide) from the
        sources and the other option values."""
        return {}

    @classmethod
    def from_options(cls, values: dict) -> DatasetFamily:
        """The build of ``values`` (option name -> value; None or absent: the default),
        as ``perturbed_ud.build`` takes them as keywords and the command line parses them:
        comma lists or sequences, checked against each field's declaration."""
        what = f"build {cls.name}"
        values = {name: value for name, value in values.items() if value is not None}
        for old, new in cls.renamed.items():
            if old in values:
                warnings.warn(f"{option_name(old)} is deprecated: use {option_name(new)}",
                              PerturbedUDWarning, stacklevel=3)  # fmt: skip
                values[new] = values.pop(old)
        sources_fields = documented_fields(cls.sources_class) if cls.sources_class else []
        source_names = [f.name for f in sources_fields]
        settings = documented_fields(cls.settings_class)
        offered = {*source_names, *(f.name for f in settings if f.name not in cls.resolved)}
        if unknown := sorted(set(values) - offered):
            raise InputError(
                f"{what} has no option {', '.join(unknown)}; it has: {', '.join(sorted(offered))}"
            )
        given = {name: values.pop(name) for name in source_names if name in values}
        sources = settings_from(cls.sources_class, given, what) if cls.sources_class else None
        family = cls(settings_from(cls.settings_class, values | cls.resolve(sources, values), what))
        family.sources = sources
        return family

    def inputs(self) -> list[Path]:
        """The local files and folders the build reads (treebank files, --ud-root, a
        --hf-dataset or tokenizer folder …): its output is never written inside one."""
        return paths_read([self.settings, self.sources])

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
