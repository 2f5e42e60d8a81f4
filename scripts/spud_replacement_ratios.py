"""SPUD replacement ratios per UPOS beside the paper's Table 7 (Arps et al. 2024, App. A.4).

Builds ``spud`` for the given languages from a UD root three times: under rules v3 (the
default) with the replacement pool of the test sets (as the paper's text says) and of
test + dev, and under rules v2 (every content word, as the paper) with the test pool; prints
one Markdown table: per language, the paper's row, then each build's ratios (replaced /
words of that UPOS in the test set; "total" over all words, function words and punctuation
included). Ratios do not depend on the seed: which words can be replaced does not.

    python scripts/spud_replacement_ratios.py --ud-root ud-treebanks-v2.16 --langs en,fr
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import perturbed_ud
from perturbed_ud.builders.spud import PAPER_TABLE_7, TABLE_7_ORDER


def ratios(
    ud_root: str, langs: list[str], pool: list[str], out: Path, rules: str = "v3"
) -> dict[str, list[float]]:
    folder = perturbed_ud.build(
        "spud", out, ud_root=ud_root, langs=langs, seeds=[1], pool_splits=pool, rules=rules
    )
    configs = json.loads((folder / "build.json").read_text())["configs"]
    table = {}
    for lang in langs:
        counts = configs[f"{lang}_seed1"]["replacement_ratio"]
        table[lang] = [counts[u][0] / counts[u][1] for u in (*TABLE_7_ORDER, "all_words")]
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ud-root", required=True, help="A folder of UD_* treebank folders.")
    parser.add_argument("--langs", default="en,fr")
    args = parser.parse_args()
    langs = args.langs.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        pools = {
            "ours v3, test pool (default)": ratios(args.ud_root, langs, ["test"], Path(tmp, "t")),
            "ours v3, test + dev pool": ratios(
                args.ud_root, langs, ["test", "dev"], Path(tmp, "d")
            ),
            "ours v2, test pool": ratios(args.ud_root, langs, ["test"], Path(tmp, "2"), "v2"),
        }
    print(f"| lang | source | {' | '.join(TABLE_7_ORDER)} | total |")
    print("|---|---|" + "---:|" * (len(TABLE_7_ORDER) + 1))
    for lang in langs:
        rows = {"paper, Table 7": PAPER_TABLE_7.get(lang)} | {n: t[lang] for n, t in pools.items()}
        for source, values in rows.items():
            if values is not None:
                print(f"| {lang} | {source} | " + " | ".join(f"{v:.2f}" for v in values) + " |")


if __name__ == "__main__":
    main()
