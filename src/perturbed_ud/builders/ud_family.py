"""What every family built from UD treebanks shares: settings fields, the options that name
treebanks and sentences, and the manifest entries that record what was read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ..errors import InputError
from ..settings import field_default, setting
from ..ud.selection import Selection
from ..ud.sources import ALL_SPLITS, UD_RELEASE, Treebank, parse_treebank_overrides, resolve
from ..ud.sources import SPLITS as UD_SPLITS
from .family import DatasetFamily, check_settings, version_setting


def signed_release(treebank: Treebank) -> str:
    """A treebank and its release as the signature names them; a release read from a README
    changelog is a lower bound there too, as on the card (``en_ewt@r2.16-or-later``)."""
    later = "-or-later" if treebank.release_source == "changelog" else ""
    return f"{treebank.code}@{treebank.release}{later}"


def treebanks_setting() -> Any:
    """The treebanks read: resolved from the sources' options, signed with their releases."""
    return setting(
        "the treebanks read, at most one per language, each with its files and UD release",
        signature="ud",
        shown=lambda treebanks: ",".join(map(signed_release, treebanks)) or "none",
        default=(),
    )


def split_setting(default: str = "test") -> Any:
    every = f" or {ALL_SPLITS} (every split the treebank has)" if default == ALL_SPLITS else ""
    return setting(
        f"the UD split read: train, dev, test{every}", signature="split", default=default
    )


def selection_setting() -> Any:
    return setting(
        "which sentences of each treebank: all, the first N, or a seeded sample of N",
        signature="select",
        shown=lambda s: ",".join(str(v) for v in s.describe().values()),
        default=Selection(),
    )


def check_treebanks(settings: Any, *, whole: bool = False) -> None:
    """Shared checks of the treebanks and split of a settings object; a ``whole`` family
    reads every split (``all``) and several treebanks of a language, none twice."""
    if not settings.treebanks:
        raise InputError("no treebank given")
    splits = (*UD_SPLITS, ALL_SPLITS) if whole else UD_SPLITS
    if settings.split not in splits:
        raise InputError(f"unknown split {settings.split!r}; choose one of {', '.join(splits)}")
    keys = [t.name if whole else t.lang for t in settings.treebanks]
    duplicated = sorted({key for key in keys if keys.count(key) > 1})
    if duplicated and whole:
        raise InputError(f"{', '.join(duplicated)} given twice: name each treebank once")
    if duplicated:
        raise InputError(f"more than one treebank for {duplicated}: build them separately")


@dataclass(frozen=True, kw_only=True)
class UDSettings:
    """The settings of every family built from UD treebanks; families add their own."""

    treebanks: tuple[Treebank, ...] = treebanks_setting()
    seeds: tuple[int, ...] = setting(
        "random seeds: each gives its own configs", signature="seeds", default=(1, 2, 3)
    )
    split: str = split_setting()
    selection: Selection = selection_setting()
    version: str = version_setting()

    def __post_init__(self):
        check_settings(self, "treebanks", "seeds")
        check_seeds(self.seeds)
        check_treebanks(self)


def check_seeds(seeds: tuple[int, ...]) -> None:
    """At least one seed, none twice: a repeated seed would write its configs twice."""
    if not seeds:
        raise InputError("no seeds given")
    if len(set(seeds)) < len(seeds):
        raise InputError(f"seeds given twice: {','.join(map(str, seeds))}")


def ud_manifest(settings) -> dict:
    """The manifest entries of the sentences read: split, selection, treebanks (each with the
    citation its README asks for, or what stands in for one, and where that came from)."""
    return {
        "split": settings.split,
        "selection": settings.selection.describe(),
        "treebanks": [
            t.describe() | {"citation": t.citation, "citation_source": t.citation_source}
            for t in settings.treebanks
        ],
    }


def langs_setting(default: tuple[str, ...]) -> Any:
    """The languages read. Not given, they are a family's ``default``, or with --files the
    files' own; given with --files, they choose among the files."""
    return setting(
        f"the languages read (ISO codes, or all: every language of the source) [default: "
        f"{','.join(default)}; with --files: the languages of the files, or those of them "
        "given here]",
        default=None,
    )


@dataclass(frozen=True, kw_only=True)
class TreebankSources:
    """Which treebanks and sentences a UD-based build reads, as a user names them: languages
    and where their treebanks are. `UDFamily.resolve` finds (and fetches) the treebanks;
    the settings record them, each with its files and release."""

    default_langs: ClassVar[tuple[str, ...]] = ("en",)
    langs: tuple[str, ...] | None = langs_setting(default_langs)
    files: tuple[str, ...] = setting("explicit CoNLL-U files", repeat=True, default=())
    ud_root: str | Path | None = setting("a folder of UD_* treebank folders", default=None)
    download: bool = setting(
        "fetch the paper's treebanks (en EWT, de GSD, es AnCora, ru SynTagRus, zh GSD, tr "
        f"IMST, …) from UD's GitHub at {UD_RELEASE}. Default source: the PUD sample shipped "
        "with perturbed-ud",
        default=False,
    )
    treebank: tuple[str, ...] = setting(
        "LANG=UD_Name: the treebank read for a language", repeat=True, default=()
    )
    limit: int | None = setting("only the first N sentences of each treebank", default=None)
    sample: int | None = setting("a seeded sample of N sentences per treebank", default=None)
    sample_seed: int = setting("the seed of --sample", default=0)
    offline: bool = setting("with --download: only the cache", default=False)
    ud_release: str | None = setting(
        "the UD release of local files, e.g. r2.16 (default: from the release folder name or "
        "the README changelog)",
        default=None,
    )

    def languages(self) -> tuple[str, ...]:
        """The languages given, else the family's default; with --files and none given,
        none: every file is read."""
        if self.langs is not None:
            return self.langs
        return () if self.files else self.default_langs

    def selection(self) -> Selection:
        return Selection(limit=self.limit, sample=self.sample, sample_seed=self.sample_seed)

    # Whether a language reads every treebank of it under --ud-root (else its default).
    every_treebank: ClassVar[bool] = False

    def treebanks(self, split: str) -> list[Treebank]:
        """The treebanks named, resolved (and downloaded) now."""
        return resolve(
            list(self.languages()),
            split=split,
            files=list(self.files),
            ud_root=self.ud_root,
            overrides=parse_treebank_overrides(list(self.treebank)),
            fetch=self.download,
            offline=self.offline,
            ud_release=self.ud_release,
            every_treebank=self.every_treebank,
        )


class UDFamily(DatasetFamily):
    """A family built from UD treebanks: its options name languages and folders
    (`TreebankSources`), which resolve into the settings' treebanks and selection."""

    sources_class: ClassVar[type] = TreebankSources
    resolved: ClassVar[tuple[str, ...]] = ("treebanks", "selection")

    @classmethod
    def resolve(cls, sources: TreebankSources, values: dict) -> dict:
        split = values.get("split", field_default(cls.settings_class, "split"))
        return {"treebanks": sources.treebanks(split), "selection": sources.selection()}
