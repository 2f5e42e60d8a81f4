"""Write the UD samples that ship with the repository, from a folder of UD treebanks.

Two samples, both of treebanks whose licence allows redistribution (CC BY-SA):

- ``tests`` (``tests/data/ud``): excerpts of the treebanks the test suite reads, the first few
  hundred sentences of each file plus, for the CLAMS languages, the first sentence showing
  each (number, person) reading of every verb form the CLAMS grammars vary, so that the
  grammar checks see the same evidence as on the whole treebank. Plain ``.conllu``.
- ``pud`` (``src/perturbed_ud/ud/pud``): the Parallel UD treebanks whole (the same 1,000
  sentences in en de es ru zh tr fr ar), xz-compressed, the package's default input.

Sentence blocks are copied byte for byte, in file order; each treebank's LICENSE.txt and
README.md are copied unchanged. ``sample.json`` records per file its UD release, the sha256 of
the released file, and the sentences, words, multiword tokens and empty nodes kept, counted
from the lines alone, independently of the toolkit's reader, so tests can check the reader.

    python scripts/make_ud_samples.py tests --ud-root UD_ROOT --out tests/data/ud
    python scripts/make_ud_samples.py pud --ud-root UD_ROOT --out src/perturbed_ud/ud/pud
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

# (treebank, split, the number of leading sentences kept), in the order the files are read:
# a file's CLAMS evidence is only what the files before it lack.
TEST_SAMPLE = [
    ("UD_English-EWT", "test", 300),
    ("UD_English-EWT", "dev", 200),
    ("UD_German-GSD", "test", 300),
    ("UD_Russian-GSD", "test", 300),
    ("UD_Russian-GSD", "dev", 100),
    ("UD_French-GSD", "test", 200),
    ("UD_Chinese-GSD", "test", 100),
    ("UD_Turkish-BOUN", "test", 150),
    ("UD_Hebrew-IAHLTwiki", "test", 150),
    ("UD_Hebrew-IAHLTwiki", "dev", 50),
    ("UD_English-PUD", "test", 100),
    ("UD_German-PUD", "test", 100),
    ("UD_Arabic-PUD", "test", 100),
    ("UD_French-GSD", "dev", 0),
    ("UD_German-GSD", "dev", 0),
    ("UD_French-PUD", "test", 0),
    ("UD_Russian-Taiga", "test", 0),
    ("UD_Russian-Poetry", "test", 0),
    ("UD_Russian-PUD", "test", 0),
]
PUD_LANGUAGES = (
    "English",
    "German",
    "Spanish",
    "Russian",
    "Chinese",
    "Turkish",
    "French",
    "Arabic",
)
CLAMS_LANGS = ("en", "fr", "de", "he", "ru")

# The PUD treebanks' READMEs have no citation section; this is the paper that introduced them.
PUD_CITATION = """\
@inproceedings{zeman-etal-2017-conll,
  title = {{C}o{NLL} 2017 Shared Task: Multilingual Parsing from Raw Text to {U}niversal
           {D}ependencies},
  author = {Zeman, Daniel and Popel, Martin and Straka, Milan and Haji{\\v{c}}, Jan and
            Nivre, Joakim and others},
  booktitle = {Proceedings of the {C}o{NLL} 2017 Shared Task: Multilingual Parsing from Raw
               Text to {U}niversal {D}ependencies},
  pages = {1--19},
  year = {2017},
  url = {https://aclanthology.org/K17-3001}
}"""
WORD = re.compile(r"^[1-9][0-9]*\t")
MWT = re.compile(r"^[1-9][0-9]*-[1-9][0-9]*\t")
EMPTY = re.compile(r"^[0-9]+\.[1-9][0-9]*\t")


def blocks(path: Path) -> Iterator[str]:
    """The sentence blocks of a CoNLL-U file, each with its lines and closing blank line."""
    block: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.strip():
            block.append(line)
        elif block:
            yield "".join(block) + line
            block = []
    if block:
        yield "".join(block) + "\n"


def counts(text: str) -> tuple[int, int, int, int]:
    """(sentences, words, multiword-token ranges, empty nodes) by line shape alone."""
    lines = text.splitlines()
    return (
        sum(line.startswith("# sent_id") for line in lines),
        sum(bool(WORD.match(line)) for line in lines),
        sum(bool(MWT.match(line)) for line in lines),
        sum(bool(EMPTY.match(line)) for line in lines),
    )


def verbal_readings(block: str) -> set[tuple[str, str, str]]:
    """(normalised form, Number, Person) of the indicative verbs and auxiliaries of a block,
    the evidence the CLAMS grammar checks look up."""
    from perturbed_ud.grammar.morphology import VERBAL_UPOS, normalise
    from perturbed_ud.ud.conllu_io import parse_feats

    found = set()
    for line in block.splitlines():
        cols = line.split("\t")
        if len(cols) != 10 or not cols[0].isdigit() or cols[3] not in VERBAL_UPOS:
            continue
        feats = parse_feats(cols[5])
        if "Number" in feats and feats.get("Mood", "Ind") == "Ind":
            found.add((normalise(cols[1]), feats["Number"], feats.get("Person", "")))
    return found


def clams_words(lang: str) -> set[str]:
    """The finite words of every varied form of the packaged CLAMS grammars of `lang`."""
    from perturbed_ud.builders.clams import DEFAULT_GRAMMARS
    from perturbed_ud.grammar.evalset import read_grammar_folder
    from perturbed_ud.grammar.morphology import normalise, varied_forms

    grammars = DEFAULT_GRAMMARS / lang
    return {
        normalise(word)
        for grammar in read_grammar_folder(grammars).values()
        for *_, word in varied_forms(grammar)
    }


def language_code(folder: str) -> str:
    from perturbed_ud.grammar.morphology import UD_LANGUAGES

    name = folder.removeprefix("UD_").split("-")[0]
    return next(code for code, language in UD_LANGUAGES.items() if language == name)


def excerpt(path: Path, first: int, words: set[str], seen: set) -> str:
    """The first `first` blocks, then every later block that shows a reading of one of
    `words` not seen before."""
    kept = []
    for i, block in enumerate(blocks(path)):
        new = {r for r in verbal_readings(block) if r[0] in words} - seen
        if i < first or new:
            kept.append(block)
            seen.update(verbal_readings(block))
    return "".join(kept)


def release_of(ud_root: Path, folder: str) -> str:
    """A treebank's UD release: from a table in the root's README.md (folder | … | release, 11
    columns) where there is one, else as a build would record it (the release archive's
    folder name, or the treebank's README changelog)."""
    readme = ud_root / "README.md"
    rows = readme.read_text(encoding="utf-8").splitlines() if readme.is_file() else []
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 11 and cells[0] == folder:
            return cells[10].replace("*", "").split()[0]
    from perturbed_ud.ud.sources import from_ud_root

    return from_ud_root(ud_root, language_code(folder), folder, "test").release


def describe(name: str, text: str, full: str, release: str) -> dict:
    sentences, words, mwt, empty = counts(text)
    return {
        "file": name,
        "release": release,
        "sentences": sentences,
        "words": words,
        "multiword_tokens": mwt,
        "empty_nodes": empty,
        "sentences_in_release": counts(full)[0],
        "release_sha256": hashlib.sha256(full.encode("utf-8")).hexdigest(),
    }


def copy_attribution(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for name in ("LICENSE.txt", "README.md"):
        shutil.copyfile(source / name, target / name)


def write_tests_sample(ud_root: Path, out: Path) -> dict:
    words = {lang: clams_words(lang) for lang in CLAMS_LANGS}
    seen: dict[str, set] = {}
    manifest: dict = {}
    for folder, split, first in TEST_SAMPLE:
        lang = language_code(folder)
        copy_attribution(ud_root / folder, out / folder)
        (path,) = (ud_root / folder).glob(f"*-ud-{split}.conllu")
        text = excerpt(path, first, words.get(lang, set()), seen.setdefault(lang, set()))
        (out / folder / path.name).write_text(text, encoding="utf-8", newline="")
        full = path.read_text(encoding="utf-8")
        manifest.setdefault(folder, []).append(
            describe(path.name, text, full, release_of(ud_root, folder))
        )
    return manifest


def write_pud_sample(ud_root: Path, out: Path) -> dict:
    manifest = {}
    for language in PUD_LANGUAGES:
        folder = f"UD_{language}-PUD"
        copy_attribution(ud_root / folder, out / folder)
        (path,) = (ud_root / folder).glob("*-ud-test.conllu")
        data = path.read_bytes()
        compressed = lzma.compress(data, preset=9 | lzma.PRESET_EXTREME)
        (out / folder / f"{path.name}.xz").write_bytes(compressed)
        text = data.decode("utf-8")
        entry = describe(f"{path.name}.xz", text, text, release_of(ud_root, folder))
        manifest[folder] = [entry | {"citation": PUD_CITATION}]
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sample", choices=["tests", "pud"])
    parser.add_argument("--ud-root", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    write = write_tests_sample if args.sample == "tests" else write_pud_sample
    manifest = write(args.ud_root, args.out)
    text = json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"
    (args.out / "sample.json").write_text(text, encoding="utf-8")
    for folder, files in manifest.items():
        for f in files:
            print(
                f"{folder}/{f['file']}: {f['sentences']} of {f['sentences_in_release']} sentences"
            )


if __name__ == "__main__":
    main()
