"""Where treebanks come from: explicit files, a UD-style root folder, or a pinned download.

Every source resolves to a `Treebank`: its language, UD repository name, file code
(``en_ewt``), the CoNLL-U files to read in order, and the licence, release and citation
read from the treebank's own README, so the dataset card can credit it.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

# The UD release every download is pinned to (a tag of each UniversalDependencies repository).
UD_RELEASE = "r2.16"
UD_BASE_URL = "https://raw.githubusercontent.com/UniversalDependencies"

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
}

SPLITS = ("train", "dev", "test")


class SourceError(RuntimeError):
    """A treebank could not be found or fetched; the message says where we looked."""


@dataclass
class Treebank:
    lang: str
    name: str  # UD repository name, e.g. UD_English-EWT
    code: str  # file prefix, e.g. en_ewt
    files: list[Path]
    license: str = "unknown"
    release: str = "unknown"  # the UD release tag, when known (downloads, or --ud-release)
    changelog_release: str = "unknown"  # newest version the README's changelog names
    citation: str = ""
    sha256: dict[str, str] = field(default_factory=dict)

    def describe(self) -> dict:
        """The manifest entry: what was read, from which release, under which licence."""
        return {
            "lang": self.lang,
            "name": self.name,
            "code": self.code,
            "license": self.license,
            "release": self.release,
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
        overrides[lang] = name
    return overrides


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _readme_metadata(folder: Path) -> tuple[str, str, str]:
    """Licence, newest changelog version and citation from a UD treebank README.

    The changelog version is only a lower bound on the release: treebanks whose data did not
    change are re-released without a new changelog entry.
    """
    readme = folder / "README.md"
    if not readme.exists():
        readme = folder / "README.txt"
    if not readme.exists():
        return "unknown", "unknown", ""
    text = readme.read_text(encoding="utf-8", errors="replace")
    match = re.search(r"^License:\s*(.+?)\s*$", text, re.M)
    licence = match.group(1) if match else "unknown"
    versions = [tuple(map(int, v.split("."))) for v in re.findall(r"\bv(2\.\d+)\b", text)]
    release = "r{}.{}".format(*max(versions)) if versions else "unknown"
    match = re.search(r"^#+ *(Citations?|References?)\s*$(.*?)(?=^#+ |\Z)", text, re.M | re.S)
    citation = match.group(2).strip() if match else ""
    return licence, release, citation


def _treebank(lang: str, name: str, code: str, files: list[Path], folder: Path) -> Treebank:
    licence, changelog, citation = _readme_metadata(folder)
    return Treebank(
        lang=lang,
        name=name,
        code=code,
        files=files,
        license=licence,
        changelog_release=changelog,
        citation=citation,
        sha256={f.name: _sha256(f) for f in files},
    )


def from_files(paths: list[str | Path]) -> list[Treebank]:
    """Explicit CoNLL-U files, grouped into treebanks by their UD file prefix."""
    groups: dict[str, list[Path]] = {}
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            raise SourceError(f"no such CoNLL-U file: {path}")
        code = path.name.split("-ud-")[0] if "-ud-" in path.name else path.stem
        groups.setdefault(code, []).append(path)
    treebanks = []
    for code, files in groups.items():
        folder = files[0].parent
        name = folder.name if folder.name.startswith("UD_") else code
        treebanks.append(_treebank(code.split("_")[0], name, code, files, folder))
    return treebanks


def from_ud_root(root: str | Path, lang: str, name: str, split: str) -> Treebank:
    """``<root>/<UD_Name>/<code>-ud-<split>.conllu``."""
    folder = Path(root) / name
    if not folder.is_dir():
        raise SourceError(f"treebank folder {folder} not found (language {lang!r})")
    files = sorted(folder.glob(f"*-ud-{split}.conllu"))
    if not files:
        raise SourceError(f"{folder} has no *-ud-{split}.conllu file")
    return _treebank(lang, name, files[0].name.split("-ud-")[0], files, folder)


def cache_dir() -> Path:
    """The user cache for downloaded treebanks (PERTURBED_UD_CACHE overrides it)."""
    if "PERTURBED_UD_CACHE" in os.environ:
        return Path(os.environ["PERTURBED_UD_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "perturbed-ud"


def _fetch(url: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except (urllib.error.URLError, OSError) as err:
        raise SourceError(f"could not download {url}: {err}") from None
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
        tmp.write(data)
    os.replace(tmp.name, target)


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
    cache is used.
    """
    base_url = base_url or os.environ.get("PERTURBED_UD_BASE_URL", UD_BASE_URL)
    code = treebank_code(lang, name)
    folder = cache_dir() / "ud" / release / name
    wanted = [f"{code}-ud-{split}.conllu", "README.md", "LICENSE.txt"]
    for filename in wanted:
        target = folder / filename
        if target.exists():
            continue
        if offline:
            raise SourceError(f"{target} is not in the cache and --offline was given")
        _fetch(f"{base_url.rstrip('/')}/{name}/{release}/{filename}", target)
    treebank = _treebank(lang, name, code, [folder / wanted[0]], folder)
    treebank.release = release
    return treebank


def _declare(treebanks: list[Treebank], release: str | None) -> list[Treebank]:
    for treebank in treebanks:
        treebank.release = release or "unknown"
    return treebanks


def resolve(
    langs: list[str],
    *,
    split: str,
    files: list[str] | None = None,
    ud_root: str | None = None,
    overrides: dict[str, str] | None = None,
    offline: bool = False,
    ud_release: str | None = None,
) -> list[Treebank]:
    """The treebanks of a build, in the order of ``langs`` (or of ``files``).

    ``ud_release`` declares the release of local copies (files or a UD root); downloads
    always carry their pinned release.
    """
    if split not in SPLITS:
        raise SourceError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    if files:
        return _declare(from_files(files), ud_release)
    ud_root = ud_root or os.environ.get("PERTURBED_UD_ROOT")
    overrides = overrides or {}
    treebanks = []
    for lang in langs:
        name = overrides.get(lang) or DEFAULT_TREEBANKS.get(lang)
        if name is None:
            raise SourceError(f"no default treebank for {lang!r}; pass --treebank {lang}=UD_Name")
        if ud_root:
            treebanks.extend(_declare([from_ud_root(ud_root, lang, name, split)], ud_release))
        else:
            treebanks.append(download(lang, name, split, offline=offline))
    return treebanks
