"""Where treebanks come from: the PUD sample shipped with the package (the default), explicit
files, a UD-style root folder, or a download pinned to a UD release.

Every source resolves to a `Treebank`: its language, UD repository name, file code
(``en_ewt``), the CoNLL-U files to read in order (plain or compressed), the licence its
LICENSE.txt grants (else the one its README names), the citation its README asks for, and the
UD release with where it was read.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files as package_files
from pathlib import Path

from ..download import NotOnServer, cache_dir, cached, fetch_all
from ..errors import MissingSplitError, SourceError
from ..files import check_name, file_sha256
from ..licences import stated_licence
from .conllu_io import conllu_stem, split_files

# The UD release every download is pinned to (a tag of each UniversalDependencies repository).
UD_RELEASE = "r2.16"
UD_BASE_URL = "https://raw.githubusercontent.com/UniversalDependencies"
# What to try when a download fails: said once, in every download error.
NO_DOWNLOAD_HINT = (
    "Without network, build from a local copy of UD with --ud-root DIR, a folder of UD_* "
    "treebank folders (a release file too: perturbed-ud build builders/<name>.toml --ud-root "
    "DIR --out OUT; UD releases: https://universaldependencies.org/#download; each treebank: "
    "https://github.com/UniversalDependencies/<UD_Name>), or from the PUD sample that ships "
    "with perturbed-ud (leave out --download)."
)

DEFAULT_TREEBANKS = {
    "en": "UD_English-EWT",
    "de": "UD_German-GSD",
    "es": "UD_Spanish-AnCora",
    "ru": "UD_Russian-SynTagRus",
    "zh": "UD_Chinese-GSD",
    "tr": "UD_Turkish-IMST",
    "fr": "UD_French-GSD",
    "ar": "UD_Arabic-PADT",
    "he": "UD_Hebrew-HTB",
    # Other UD languages, for builds that take any (ud_agreement): a large treebank of each.
    "be": "UD_Belarusian-HSE",
    "bg": "UD_Bulgarian-BTB",
    "ca": "UD_Catalan-AnCora",
    "cs": "UD_Czech-PDT",
    "cy": "UD_Welsh-CCG",
    "da": "UD_Danish-DDT",
    "el": "UD_Greek-GDT",
    "et": "UD_Estonian-EDT",
    "eu": "UD_Basque-BDT",
    "fa": "UD_Persian-PerDT",
    "fi": "UD_Finnish-TDT",
    "ga": "UD_Irish-IDT",
    "gl": "UD_Galician-TreeGal",
    "hi": "UD_Hindi-HDTB",
    "hr": "UD_Croatian-SET",
    "hu": "UD_Hungarian-Szeged",
    "hy": "UD_Armenian-ArmTDP",
    "is": "UD_Icelandic-IcePaHC",
    "it": "UD_Italian-ISDT",
    "lt": "UD_Lithuanian-ALKSNIS",
    "lv": "UD_Latvian-LVTB",
    "mr": "UD_Marathi-UFAL",
    "nl": "UD_Dutch-Alpino",
    "no": "UD_Norwegian-Bokmaal",
    "pl": "UD_Polish-PDB",
    "pt": "UD_Portuguese-Bosque",
    "ro": "UD_Romanian-RRT",
    "sk": "UD_Slovak-SNK",
    "sl": "UD_Slovenian-SSJ",
    "sr": "UD_Serbian-SET",
    "sv": "UD_Swedish-Talbanken",
    "ta": "UD_Tamil-TTB",
    "uk": "UD_Ukrainian-IU",
    "ur": "UD_Urdu-UDTB",
}

SPLITS = ("train", "dev", "test")
# Every split a treebank has, read in `SPLITS` order (families that read whole treebanks).
ALL_SPLITS = "all"
# Every language a source has (`--langs all`): those under a UD root, the packaged sample's,
# or every language with a default treebank to download.
ALL_LANGUAGES = "all"
# UD names a file by its language's ISO 639 code: two letters, or three (639-3).
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")


@dataclass
class Treebank:
    lang: str
    name: str  # UD repository name, e.g. UD_English-EWT
    code: str  # file prefix, e.g. en_ewt
    files: list[Path]
    license: str = "unknown"
    release: str = "unknown"  # the UD release tag
    # Where `release` comes from: "download" (the pinned tag), "sample" (the packaged PUD
    # sample's record), "declared" (--ud-release), "release folder" (a release archive's
    # ud-treebanks-vX.Y), or "changelog": the newest release the README's changelog names,
    # a lower bound, as data unchanged since is re-released as is.
    release_source: str = "unknown"
    changelog_release: str = "unknown"  # newest version the README's changelog names
    citation: str = ""
    # Where `citation` comes from: "README" (the passages that ask to be cited), "sample" (the
    # packaged PUD sample's record of the treebank, wherever it is read from: PUD READMEs name
    # nothing to cite), or "fallback" (the treebank as a UD resource, by its contributors).
    citation_source: str = "unknown"
    sha256: dict[str, str] = field(default_factory=dict)

    def describe(self) -> dict:
        """The manifest entry: what was read, from which release, under which licence."""
        return {
            "lang": self.lang,
            "name": self.name,
            "code": self.code,
            "license": self.license,
            "release": self.release,
            "release_source": self.release_source,
            "changelog_release": self.changelog_release,
            "files": [{"name": f.name, "sha256": self.sha256[f.name]} for f in self.files],
        }


def treebank_code(lang: str, name: str) -> str:
    """UD file prefix of a repository: UD_Russian-SynTagRus -> ru_syntagrus."""
    suffix = name.rsplit("-", 1)[-1]
    return f"{lang}_{suffix.lower()}"


def parse_treebank_overrides(values: list[str]) -> dict[str, str]:
    """``ru=UD_Russian-GSD`` options to a language -> repository mapping."""
    overrides = {}
    for value in values:
        lang, sep, name = value.partition("=")
        if not sep or not lang or not name.startswith("UD_"):
            raise SourceError(f"--treebank expects LANG=UD_Name, got {value!r}")
        overrides[check_name(lang, "language")] = check_name(name, "treebank")
    return overrides


def _readme_metadata(folder: Path, name: str) -> tuple[str, str, str, str]:
    """Licence, newest changelog version, citation and its source, from the LICENSE.txt and
    README of the treebank ``name`` in ``folder``.

    The changelog version is only a lower bound on the release: treebanks whose data did not
    change are re-released without a new changelog entry.
    """
    readme = folder / "README.md"
    if not readme.exists():
        readme = folder / "README.txt"
    text = readme.read_text(encoding="utf-8", errors="replace") if readme.exists() else ""
    versions = [tuple(map(int, v.split("."))) for v in re.findall(r"\bv(2\.\d+)\b", text)]
    release = "r{}.{}".format(*max(versions)) if versions else "unknown"
    citation = readme_citation(text)
    if citation:
        return _licence(folder, text), release, citation, "README"
    return _licence(folder, text), release, fallback_citation(name, text), "fallback"


def _licence(folder: Path, readme: str) -> str:
    """What LICENSE.txt grants, else what the README's metadata names: the two can disagree
    (UD_Turkish-IMST), and the licence file is the grant."""
    path = folder / "LICENSE.txt"
    if path.is_file():
        stated = stated_licence(path.read_text(encoding="utf-8", errors="replace"))
        if stated:
            return stated
    match = re.search(r"^License:\s*(.+?)\s*$", readme, re.M)
    return match.group(1) if match else "unknown"


# A README section of citations ("# Citation", "## References", "# How to cite").
_CITATION_HEADING = re.compile(r"(citations?|references?|how to cite\b.*)$", re.I)
# A paragraph asking to be cited ("please cite", "must be cited", "should reference").
_CITE_REQUEST = re.compile(r"\b(cite[sd]?|citing)\b|\bshould reference\b", re.I)
# What follows a request and belongs to it: a list item, an indented block, a BibTeX entry.
_CITED_ITEM = re.compile(r"\s{2,}\S|\s*([-*•]|\d+[.)]\s)|\s*@\w+\s*\{")


def _readme_sections(text: str) -> list[tuple[int, str, list[str]]]:
    """A README as (heading level, heading, paragraphs). Code fences split paragraphs but
    are not kept, and a ``#`` line inside one is not a heading (CoNLL-U comments)."""
    sections: list[tuple[int, str, list[str]]] = [(0, "", [])]
    lines: list[str] = []
    fenced = False

    def end_paragraph() -> None:
        if lines:
            sections[-1][2].append("\n".join(lines))
            lines.clear()

    for line in text.splitlines():
        heading = None if fenced else re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if line.lstrip().startswith("```"):
            end_paragraph()
            fenced = not fenced
        elif heading:
            end_paragraph()
            sections.append((len(heading.group(1)), heading.group(2), []))
        elif line.strip():
            lines.append(line.rstrip())
        else:
            end_paragraph()
    end_paragraph()
    return sections


def readme_citation(text: str) -> str:
    """What a UD README asks its users to cite, in its own words: every citations section
    (with its subsections), and every paragraph that asks for a citation together with the
    items it introduces ("The following paper must be cited ...:" and its list)."""
    passages: list[str] = []
    level_inside = 0  # the level of the citations section being read, 0 outside one
    for level, heading, paragraphs in _readme_sections(text):
        if level_inside and level > level_inside:
            passages += paragraphs
            continue
        level_inside = level if _CITATION_HEADING.match(heading) else 0
        if level_inside:
            passages += paragraphs
            continue
        i = 0
        while i < len(paragraphs):
            if not _CITE_REQUEST.search(paragraphs[i]):
                i += 1
                continue
            passages.append(paragraphs[i])
            i += 1
            while i < len(paragraphs) and (
                _CITED_ITEM.match(paragraphs[i]) or _CITE_REQUEST.search(paragraphs[i])
            ):
                passages.append(paragraphs[i])
                i += 1
    return "\n\n".join(passages)


def fallback_citation(name: str, readme: str) -> str:
    """A treebank whose README names nothing to cite, cited as the resource it is: by the
    contributors its README's metadata lists and, for a UD repository, where UD publishes it."""
    match = re.search(r"^Contributors:\s*(.+?)\s*$", readme, re.M)
    authors = [a.strip() for a in match.group(1).split(";") if a.strip()] if match else []
    fields = [f"  title = {{{{{name.replace('_', ' ')}}}}}"]
    if authors:
        fields.append(f"  author = {{{' and '.join(authors)}}}")
    if name.startswith("UD_"):
        fields.append("  howpublished = {Universal Dependencies}")
        fields.append(f"  url = {{https://github.com/UniversalDependencies/{name}}}")
    key = re.sub(r"\W+", "_", name.lower()).strip("_")
    return f"@misc{{{key},\n" + ",\n".join(fields) + "\n}"


# The folder a UD release archive unpacks to, e.g. ud-treebanks-v2.16.
RELEASE_FOLDER = re.compile(r"^ud-treebanks-v(2\.\d+)$")


def _treebank(lang: str, name: str, code: str, files: list[Path], folder: Path) -> Treebank:
    """A treebank from local files. Its release: the release archive's folder name when it
    sits in one (``ud-treebanks-v2.16/``), else the newest its README's changelog names. Its
    citation: what its README asks for, else the PUD sample's record of it (the same
    citation wherever a PUD treebank is read from), else `fallback_citation`."""
    check_name(lang, "language")
    check_name(code, "treebank code")
    licence, changelog, citation, citation_source = _readme_metadata(folder, name)
    recorded = [e for e in sample_treebanks().values() if e["name"] == name]
    if citation_source == "fallback" and recorded:
        citation, citation_source = recorded[0]["citation"], "sample"
    release, source = changelog, "changelog" if changelog != "unknown" else "unknown"
    if match := RELEASE_FOLDER.match(folder.resolve().parent.name):
        release, source = f"r{match.group(1)}", "release folder"
    return Treebank(
        lang=lang,
        name=name,
        code=code,
        files=files,
        license=licence,
        release=release,
        release_source=source,
        changelog_release=changelog,
        citation=citation,
        citation_source=citation_source,
        sha256={f.name: file_sha256(f) for f in files},
    )


def from_files(paths: list[str | Path]) -> list[Treebank]:
    """Explicit CoNLL-U files, grouped into treebanks by their UD file prefix."""
    groups: dict[str, list[Path]] = {}
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            raise SourceError(f"no such CoNLL-U file: {path}")
        code = conllu_stem(path).split("-ud-")[0]
        if not LANGUAGE_CODE.match(code.split("_")[0]):
            raise SourceError(
                f"{path}: the language is read from the file name, which UD writes "
                "LANG_TREEBANK-ud-SPLIT.conllu (en_ewt-ud-test.conllu); "
                f"{code.split('_')[0]!r} is no language code: rename the file"
            )
        group = groups.setdefault(code, [])
        same = [f for f in group if conllu_stem(f) == conllu_stem(path)]
        if same:  # the same file twice, or two copies of one treebank split: rows twice
            raise SourceError(f"{path} and {same[0]} are both {conllu_stem(path)}: give it once")
        group.append(path)
    treebanks = []
    for code, files in groups.items():
        folder = files[0].parent
        name = folder.name if folder.name.startswith("UD_") else code
        treebanks.append(_treebank(code.split("_")[0], name, code, files, folder))
    return treebanks


def _split_files(folder: Path, split: str) -> list[Path]:
    """A split's files; with ``all``, those of every split the folder has, train first."""
    if split != ALL_SPLITS:
        return split_files(folder, split)
    return [f for each in SPLITS for f in split_files(folder, each)]


def languages_under(root: str | Path) -> dict[str, list[str]]:
    """Language code -> the UD_* folders of ``root`` holding its CoNLL-U files, by name; the
    code is the files' own prefix (``ru_gsd-ud-test.conllu``), as UD names every file."""
    found: dict[str, list[str]] = {}
    for folder in sorted(Path(root).glob("UD_*")):
        files = split_files(folder, "*") if folder.is_dir() else []
        for lang in sorted({conllu_stem(f).split("-ud-")[0].split("_")[0] for f in files}):
            found.setdefault(lang, []).append(folder.name)
    return found


def from_ud_root(root: str | Path, lang: str, name: str, split: str) -> Treebank:
    """``<root>/<UD_Name>/<code>-ud-<split>.conllu`` (or ``.conllu.gz``, ``.conllu.xz``);
    with split ``all``, every split there is."""
    if not Path(root).is_dir():
        raise SourceError(f"UD root {root} is not a folder")
    folder = Path(root) / name
    if not folder.is_dir():
        others = _same_language(Path(root), name)
        hint = (
            f"; the root has {', '.join(others)} of that language: pass --treebank "
            f"{lang}={others[0]}"
            if others
            else ""
        )
        raise SourceError(f"treebank folder {folder} not found (language {lang!r}){hint}")
    files = _split_files(folder, split)
    if not files:
        raise MissingSplitError(f"{folder} has no *-ud-{split}.conllu file")
    return _treebank(lang, name, conllu_stem(files[0]).split("-ud-")[0], files, folder)


def _same_language(root: Path, name: str) -> list[str]:
    """The treebank folders of ``root`` named for the same language as ``name``
    (``UD_Russian-GSD`` beside a missing ``UD_Russian-SynTagRus``), largest test file first."""
    prefix = name.split("-")[0] + "-"
    found = [f for f in root.glob(f"{prefix}*") if f.is_dir() and split_files(f, "test")]
    size = {f: sum(p.stat().st_size for p in split_files(f, "test")) for f in found}
    return [f.name for f in sorted(found, key=lambda f: (-size[f], f.name))]


def sample_root() -> Path:
    """The PUD sample shipped with the package: a UD root of xz-compressed treebanks."""
    return Path(str(package_files(__package__).joinpath("pud")))


@cache
def sample_treebanks() -> dict[str, dict]:
    """Language -> the sample's record of its treebank (folder, file, release, sha256)."""
    manifest = json.loads((sample_root() / "sample.json").read_text(encoding="utf-8"))
    return {
        entry["file"].split("_")[0]: {"name": name, **entry} for name, (entry,) in manifest.items()
    }


def from_sample(lang: str, split: str, name: str | None = None) -> Treebank:
    """One PUD treebank of the packaged sample, with the release it was copied from."""
    available = sample_treebanks()
    if lang not in available:
        raise SourceError(
            f"the packaged PUD sample has no {lang!r} treebank (it has "
            f"{', '.join(available)}); use --ud-root DIR or --download"
        )
    entry = available[lang]
    if name not in (None, entry["name"]):
        raise SourceError(
            f"the packaged sample holds {entry['name']} for {lang!r}, not {name}; "
            "use --ud-root DIR or --download for other treebanks"
        )
    if split not in ("test", ALL_SPLITS):
        raise SourceError(
            f"the PUD treebanks have only a test split, not {split!r}; "
            "use --ud-root DIR or --download for other splits"
        )
    treebank = from_ud_root(sample_root(), lang, entry["name"], split)
    if treebank.sha256[treebank.files[0].name] != entry["release_sha256"]:
        raise SourceError(f"{treebank.files[0]} is damaged: reinstall perturbed-ud")
    treebank.release, treebank.release_source = entry["release"], "sample"
    return treebank


def download(
    lang: str,
    name: str,
    split: str,
    *,
    release: str = UD_RELEASE,
    base_url: str | None = None,
    offline: bool = False,
) -> Treebank:
    """Fetch one split of a treebank from its UD GitHub repository at a pinned release.

    Files are cached under ``cache_dir()/ud/<release>/<name>/``; with ``offline`` only the
    cache is used. Files are fetched into a temporary folder and moved into the cache only
    when all have arrived, so a failed download leaves nothing behind; a cached file is read
    only if it still has the sha256 recorded when it was downloaded.
    """
    if split == ALL_SPLITS:
        return _download_every_split(lang, name, release, base_url, offline)
    base_url = base_url or os.environ.get("PERTURBED_UD_BASE_URL", UD_BASE_URL)
    code = treebank_code(lang, name)
    folder = cache_dir() / "ud" / release / name
    wanted = [f"{code}-ud-{split}.conllu", "README.md", "LICENSE.txt"]
    missing = cached(folder, wanted, offline=offline, hint=NO_DOWNLOAD_HINT)
    if missing:
        url = f"{base_url.rstrip('/')}/{name}/{release}"
        fetch_all(url, missing, folder, hint=NO_DOWNLOAD_HINT)
    treebank = _treebank(lang, name, code, [folder / wanted[0]], folder)
    treebank.release, treebank.release_source = release, "download"
    return treebank


def _download_every_split(
    lang: str, name: str, release: str, base_url: str | None, offline: bool
) -> Treebank:
    """Every split the repository has at ``release`` (a split it lacks answers 404; with
    ``offline``, every split in the cache), as one treebank."""
    found = []
    for split in SPLITS:
        try:
            found.append(download(lang, name, split, release=release, base_url=base_url,
                                  offline=offline))  # fmt: skip
        except NotOnServer:
            continue
        except SourceError:
            if not offline:
                raise
    if not found:
        raise MissingSplitError(f"{name} at {release} has no split here (online: none of "
                                f"{', '.join(SPLITS)} was found)")  # fmt: skip
    treebank = found[0]
    treebank.files = [f for t in found for f in t.files]
    treebank.sha256 = {k: v for t in found for k, v in t.sha256.items()}
    return treebank


def _declare(treebanks: list[Treebank], release: str | None) -> list[Treebank]:
    """``--ud-release`` overrides the release read from a local copy's README."""
    if release:
        for treebank in treebanks:
            treebank.release, treebank.release_source = release, "declared"
    return treebanks


def _of_languages(treebanks: list[Treebank], langs: list[str]) -> list[Treebank]:
    """The treebanks of ``langs`` among those of the files given (all when none is named);
    a language no file is of is refused rather than left out unseen."""
    if not langs:
        return treebanks
    found = {t.lang for t in treebanks}
    if missing := [lang for lang in langs if lang not in found]:
        raise SourceError(
            f"--langs {','.join(missing)}: no file given is of that language (the files are of "
            f"{','.join(sorted(found))}); leave --langs out to read every file"
        )
    return [t for t in treebanks if t.lang in langs]


def resolve(
    langs: list[str],
    *,
    split: str,
    files: list[str] | None = None,
    ud_root: str | None = None,
    overrides: dict[str, str] | None = None,
    fetch: bool = False,
    offline: bool = False,
    ud_release: str | None = None,
    every_treebank: bool = False,
) -> list[Treebank]:
    """The treebanks of a build, in the order of ``langs`` (or of ``files``, those of
    ``langs`` if any are named); ``langs`` ``["all"]`` is every language of the source.

    Local copies (files or a UD root, also ``$PERTURBED_UD_ROOT``) carry the release
    ``ud_release`` declares, else the one their release folder (``ud-treebanks-v2.16``) or
    README changelog names; with ``fetch`` the default treebanks are fetched at the pinned
    release (``offline``: from the cache only); otherwise the packaged PUD sample is read.
    Under a UD root, ``every_treebank`` reads every treebank of a language there (a
    language's ``overrides`` entry still names one); otherwise each language's default, or
    with ``all`` languages its largest where the default is absent.
    """
    if split not in (*SPLITS, ALL_SPLITS):
        raise SourceError(
            f"unknown split {split!r}; choose one of {', '.join(SPLITS)} or {ALL_SPLITS}"
        )
    every_language = ALL_LANGUAGES in langs
    if every_language and len(langs) > 1:
        raise SourceError(f"--langs {ALL_LANGUAGES} stands alone, not beside other languages")
    for lang in langs:
        check_name(lang, "language")
    if sum(map(bool, (files, ud_root, fetch))) > 1:
        raise SourceError("choose one source: --files, --ud-root or --download")
    if offline and not fetch:
        raise SourceError("--offline applies to --download (read the cache only)")
    if not fetch:
        ud_root = ud_root or os.environ.get("PERTURBED_UD_ROOT")
    if ud_release and not (files or ud_root):
        pinned = f"; --download reads the pinned {UD_RELEASE}" if fetch else ""
        raise SourceError(f"--ud-release applies to local copies (--files, --ud-root){pinned}")
    overrides = overrides or {}
    if overrides and files:
        raise SourceError("--treebank names a treebank to read for a language, not a file's: "
                          "leave it out with --files")  # fmt: skip
    if files:
        chosen = [] if every_language else langs
        return _declare(_of_languages(from_files(files), chosen), ud_release)
    if not (ud_root or fetch):
        langs = sorted(sample_treebanks()) if every_language else langs
        return [from_sample(lang, split, overrides.get(lang)) for lang in langs]
    if ud_root:
        if not Path(ud_root).is_dir():
            raise SourceError(f"UD root {ud_root} is not a folder")
        under = languages_under(ud_root)
        langs = sorted(under) if every_language else langs
        treebanks = []
        for lang in langs:
            names = _names_under(
                Path(ud_root), lang, under, overrides, every_treebank, every_language
            )
            treebanks += _with_split(ud_root, lang, names, split, every_treebank)
        return _declare(treebanks, ud_release)
    langs = sorted(DEFAULT_TREEBANKS) if every_language else langs
    return [
        download(lang, _default_name(lang, overrides), split, offline=offline) for lang in langs
    ]


def _with_split(
    root: str | Path, lang: str, names: list[str], split: str, every: bool
) -> list[Treebank]:
    """The treebanks ``names`` of a language under ``root``; reading every treebank, those
    without the split are passed over (PUD has only a test split), unless all are."""
    found, missing = [], None
    for name in names:
        try:
            found.append(from_ud_root(root, lang, name, split))
        except MissingSplitError as err:
            if not every:
                raise
            missing = missing or err
    if not found and missing:
        raise missing
    return found


def _default_name(lang: str, overrides: dict[str, str]) -> str:
    name = overrides.get(lang) or DEFAULT_TREEBANKS.get(lang)
    if name is None:
        raise SourceError(f"no default treebank for {lang!r}; pass --treebank {lang}=UD_Name")
    return name


def _names_under(
    root: Path,
    lang: str,
    under: dict[str, list[str]],
    overrides: dict[str, str],
    every: bool,
    every_language: bool,
) -> list[str]:
    """The folders read for ``lang`` under a UD root: the one named for it, else all of its
    folders (``every``), else its default treebank; with every language, a language whose
    default is absent reads its largest."""
    if lang in overrides:
        return [overrides[lang]]
    present = under.get(lang, [])
    if every:
        if not present:
            raise SourceError(
                f"no treebank of language {lang!r} under {root} (it has "
                f"{', '.join(sorted(under)) or 'none'}); --langs all reads every one"
            )
        return present
    default = DEFAULT_TREEBANKS.get(lang) if every_language else _default_name(lang, {})
    if default in present or not every_language:
        return [default]
    return [max(present, key=lambda n: (_conllu_bytes(root / n), n))]


def _conllu_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in split_files(folder, "*"))
