"""What every family built from UD treebanks shares: settings fields, command-line options
for the treebank sources, and the manifest entries that record what was read."""

from __future__ import annotations

from dataclasses import dataclass

import click

from ..errors import InputError
from ..options import comma_ints, comma_words
from ..settings import setting
from ..ud.selection import Selection
from ..ud.sources import SPLITS as UD_SPLITS
from ..ud.sources import UD_RELEASE, Treebank, parse_treebank_overrides, resolve
from .family import check_settings, version_setting


@dataclass(frozen=True, kw_only=True)
class UDSettings:
    """The settings of every family built from UD treebanks; families add their own."""

    treebanks: tuple[Treebank, ...] = setting(
        "the treebanks read, at most one per language, each with its files and UD release",
        signature="ud",
        shown=lambda treebanks: ",".join(f"{t.code}@{t.release}" for t in treebanks) or "none",
        default=(),
    )
    seeds: tuple[int, ...] = setting(
        "random seeds: each gives its own configs", signature="seeds", default=(1, 2, 3)
    )
    split: str = setting("the UD split read: train, dev or test", signature="split", default="test")
    selection: Selection = setting(
        "which sentences of each treebank: all, the first N, or a seeded sample of N",
        signature="select",
        shown=lambda s: ",".join(str(v) for v in s.describe().values()),
        default=Selection(),
    )
    version: str = version_setting()

    def __post_init__(self):
        check_settings(self, "treebanks", "seeds")
        check_seeds(self.seeds)
        if not self.treebanks:
            raise InputError("no treebank given")
        if self.split not in UD_SPLITS:
            raise InputError(f"unknown split {self.split!r}; choose one of {', '.join(UD_SPLITS)}")
        langs = [t.lang for t in self.treebanks]
        duplicated = sorted({lang for lang in langs if langs.count(lang) > 1})
        if duplicated:
            raise InputError(f"more than one treebank for {duplicated}: build them separately")


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


def ud_source_options(default_langs: str) -> list:
    """Where treebanks come from, which sentences, which seeds: the options of every
    UD-based build."""
    return [
        click.option("--langs", default=default_langs, show_default=True, help="Comma list."),
        click.option("--files", multiple=True, type=click.Path(), help="Explicit CoNLL-U files."),
        click.option("--ud-root", type=click.Path(), help="Folder of UD_* treebank folders."),
        click.option("--download", is_flag=True,
                     help="Fetch the paper's treebanks (en EWT, de GSD, es AnCora, ru SynTagRus, "
                     f"zh GSD, tr IMST, …) from UD's GitHub at {UD_RELEASE}. Default source: "
                     "the PUD sample shipped with perturbed-ud."),
        click.option("--treebank", "treebanks", multiple=True, help="LANG=UD_Name override."),
        click.option("--split", default="test", show_default=True, help="train, dev or test."),
        click.option("--limit", type=int, help="Only the first N sentences of each treebank."),
        click.option("--sample", type=int, help="A seeded sample of N sentences per treebank."),
        click.option("--sample-seed", type=int, default=0, show_default=True),
        click.option("--offline", is_flag=True, help="With --download: only the cache."),
        click.option("--ud-release", help="UD release of local files, e.g. r2.16 (default: "
                     "from the release folder name or the README changelog)."),
        click.option("--seeds", default="1,2,3", show_default=True,
                     help="Comma-separated integers."),
    ]  # fmt: skip


def ud_source_settings(values: dict) -> dict:
    """The settings named by `ud_source_options` (consumed from ``values``): the treebanks,
    resolved (and downloaded) now, the split, the sentence selection and the seeds."""
    split = values.pop("split")
    treebanks = resolve(
        comma_words(values.pop("langs")),
        split=split,
        files=list(values.pop("files")),
        ud_root=values.pop("ud_root"),
        overrides=parse_treebank_overrides(list(values.pop("treebanks"))),
        fetch=values.pop("download"),
        offline=values.pop("offline"),
        ud_release=values.pop("ud_release"),
    )
    return {"treebanks": treebanks, "split": split, **selection_settings(values)}


def selection_settings(values: dict) -> dict:
    """The sentence selection and the seeds named by `ud_source_options` (consumed from
    ``values``), for a family that reads its sentences from elsewhere as well."""
    selection = Selection(
        limit=values.pop("limit"),
        sample=values.pop("sample"),
        sample_seed=values.pop("sample_seed"),
    )
    return {"selection": selection, "seeds": comma_ints(values.pop("seeds"))}
