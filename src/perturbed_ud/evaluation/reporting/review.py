"""Review sheets: nonce sentences of a spud build for native speakers to judge, and their
judgements read back as the share of grammatical sentences per language (SPUD's Table 1).

`write_sheet` draws ``sample`` sentences with a replaced word from each config. The draw
follows an order keyed by (seed, treebank, sent_id, "review"), so the same seed gives the same
sheet, and a config's draw does not change when configs are added after it; a sentence is
drawn at most once per language, since nonce versions of one sentence under several seeds are not
independent judgements. The sheet is an offline HTML page (each original above its nonce
version, replaced words highlighted with their UPOS and FEATS; no sent_id or config shown)
and a CSV whose empty ``judgement`` and ``note`` columns the reader fills in: UTF-8 with a
byte-order mark, and cells of sentence text that a spreadsheet would run as a formula (``=``,
``+``, ``-``, ``@``) begin with ``'``.

`score_sheet` reads the CSV back: per language, the grammatical share of the sentences judged
grammatical or ungrammatical, with its Wilson interval. Unsure sentences are counted apart and
left out of the denominator, as are rows left blank.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ...data.markdown import frame_table
from ...data.task_columns import require_columns
from ...data.writer import split_files
from ...errors import InputError, OutputExistsError
from ...files import file_sha256, guard_output, open_output, output_folder, write_text
from ...perturb.surface_rules import surface_tokens, token_gaps
from ...registry import manifest_family
from ...rng import stable_key
from ...ud.columns import FEATURES, SentenceColumns, space_after
from ...version import __version__
from ..running.inputs import choose_configs, local_manifest
from .pages import page_template
from .statistics import WILSON, wilson_interval
from .tables import spreadsheet_text, write_table

SHEET_COLUMNS = ["item_id", "lang", "original", "nonce", "replaced", "judgement", "note",
                 "config", "sent_id"]  # fmt: skip
# The judgements a reader may write, in any case; a blank cell is a sentence not judged.
SPELLINGS = {
    "grammatical": ("grammatical", "g", "yes", "1"),
    "ungrammatical": ("ungrammatical", "u", "no", "0"),
    "unsure": ("unsure", "?"),
}
JUDGEMENTS = {spelling: name for name, spellings in SPELLINGS.items() for spelling in spellings}
SHARE = "grammatical / (grammatical + ungrammatical); unsure and blank rows left out"


@dataclass(frozen=True)
class Token:
    """A token as written, the text up to the next one, and what was replaced inside it."""

    text: str
    after: str
    replaced: tuple[tuple[str, str, str], ...]  # (form, UPOS, FEATS) of each replaced word

    @property
    def caption(self) -> str:
        return "+".join(upos for _, upos, _ in self.replaced)

    @property
    def title(self) -> str:
        return "; ".join(" ".join(part for part in word if part != "_") for word in self.replaced)


@dataclass(frozen=True)
class ReviewItem:
    """One sentence of the sheet: its original and nonce tokens, and where it came from."""

    item_id: str
    lang: str
    config: str
    sent_id: str
    original: tuple[Token, ...]
    nonce: tuple[Token, ...]
    original_text: str
    nonce_text: str

    @property
    def replaced(self) -> str:
        return "; ".join(t.title for t in self.nonce if t.replaced)


def write_sheet(
    dataset: str | Path,
    out: str | Path,
    *,
    sample: int,
    seed: int,
    configs: list[str] | None = None,
    overwrite: bool = False,
) -> tuple[Path, list[str]]:
    """Write ``review.html`` and ``review.csv`` into ``out``; return the folder and warnings
    (configs with fewer sentences to draw than ``sample``). A sheet already there may hold a
    reader's judgements, so it is replaced only with ``overwrite``."""
    manifest = spud_manifest(str(dataset))
    choose_configs(str(dataset), manifest, configs, None)
    chosen = configs or list(manifest["configs"])
    items, warnings = draw_items(Path(dataset), chosen, sample, seed)
    folder = output_folder(guard_output(out, [dataset]))
    html, sheet = folder / "review.html", folder / "review.csv"
    if not overwrite and (existing := [p.name for p in (html, sheet) if p.exists()]):
        raise OutputExistsError(
            f"{folder} already holds {' and '.join(existing)}, perhaps with judgements; "
            "pass --overwrite to replace them"
        )
    languages: dict[str, list[ReviewItem]] = {}
    for item in items:
        languages.setdefault(item.lang, []).append(item)
    write_text(html, render_sheet(languages, manifest, {"sample": sample, "seed": seed}))
    with open_output(sheet) as stream:
        stream.write("\ufeff")  # the byte-order mark that spreadsheets need to read UTF-8
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(SHEET_COLUMNS)
        for item in items:
            writer.writerow([
                item.item_id, item.lang, spreadsheet_text(item.original_text),
                spreadsheet_text(item.nonce_text), spreadsheet_text(item.replaced), "", "",
                item.config, item.sent_id,
            ])  # fmt: skip
    return folder, warnings


def spud_manifest(dataset: str) -> dict:
    """The build.json of a spud dataset folder; anything else is refused, named."""
    manifest = local_manifest(dataset)
    if manifest is None:
        raise InputError(
            f"{dataset} is not a built dataset folder (no build.json): review reads the "
            "folders `perturbed-ud build spud` writes"
        )
    if manifest.get("dataset") != "spud":
        raise InputError(
            f"{dataset} is a {manifest.get('dataset')} dataset ({manifest.get('family')}): "
            "review reads spud builds, whose rows pair original and nonce sentences"
        )
    manifest_family(manifest, dataset)  # refuses another version of spud
    return manifest


def draw_items(
    folder: Path, configs: list[str], sample: int, seed: int
) -> tuple[list[ReviewItem], list[str]]:
    """The sampled sentences, each language's in the keyed order, with item ids."""
    drawn: dict[str, list[tuple[int, str, dict, dict]]] = {}
    warnings = []
    for config in configs:
        orig, nonce = config_rows(folder, config)
        lang = nonce[0]["lang"]
        taken = {row["sent_id"] for _, _, _, row in drawn.get(lang, [])}
        candidates = sorted(
            ((stable_key(seed, n["treebank"], n["sent_id"], "review"), config, o, n)
             for o, n in zip(orig, nonce, strict=True)
             if any(n["replaced"]) and n["sent_id"] not in taken),
            key=lambda candidate: candidate[0],
        )  # fmt: skip
        if len(candidates) < sample:
            warnings.append(
                f"{config}: {len(candidates)} sentences with a replaced word not drawn for "
                f"another config of {lang}, fewer than {sample}: all are on the sheet"
            )
        drawn.setdefault(lang, []).extend(candidates[:sample])
    if not any(drawn.values()):
        raise InputError(f"no sentence of {', '.join(configs)} has a replaced word")
    items = []
    for lang, chosen in drawn.items():
        chosen.sort(key=lambda candidate: candidate[0])
        for number, (_, config, o, n) in enumerate(chosen, 1):
            items.append(
                ReviewItem(
                    item_id=f"{lang}-{number:03d}", lang=lang, config=config,
                    sent_id=n["sent_id"], original=sentence_tokens(o, n["replaced"]),
                    nonce=sentence_tokens(n, n["replaced"]), original_text=o["text"],
                    nonce_text=n["text"],
                )
            )  # fmt: skip
    return items, warnings


def config_rows(folder: Path, config: str) -> tuple[list[dict], list[dict]]:
    """The ``orig`` and ``nonce`` rows of a config, checked to be aligned on sent_id."""
    columns = [*FEATURES, "lang", "treebank", "replaced"]
    splits = []
    for split in ("orig", "nonce"):
        paths = split_files(folder, config, split)
        if not paths:
            raise InputError(f"{folder} has no split {split!r} in config {config!r}")
        tables = [pq.read_table(path) for path in paths]
        require_columns(tables[0].column_names, columns, "review", f"{paths[0]}")
        splits.append(pa.concat_tables(tables).select(columns).to_pylist())
    orig, nonce = splits
    if [r["sent_id"] for r in orig] != [r["sent_id"] for r in nonce]:
        raise InputError(f"{folder} {config}: orig and nonce are not aligned on sent_id")
    return orig, nonce


def sentence_tokens(row: dict, replaced: list[bool]) -> tuple[Token, ...]:
    """The sentence's tokens with the text between them, as its ``text`` spaces them (by
    SpaceAfter where the tokens do not spell it). Tokens written together letter to letter
    (Arabic clitics) are shown as one, so that a highlight does not break the letters'
    joining."""
    cols = SentenceColumns.from_row(row)
    tokens = surface_tokens(cols)
    spaced = [" " if space_after(misc) else "" for *_, misc in tokens]
    gaps = token_gaps(cols.text, tokens) or spaced
    shown: list[Token] = []
    for (first, last, form, _), gap in zip(tokens, gaps, strict=True):
        words = tuple((cols.forms[i], cols.upos[i], cols.feats[i])
                      for i in range(first, last + 1) if replaced[i])  # fmt: skip
        before = shown[-1] if shown else None
        if before and not before.after and before.text[-1:].isalpha() and form[:1].isalpha():
            shown[-1] = Token(before.text + form, gap, before.replaced + words)
        else:
            shown.append(Token(form, gap, words))
    return tuple(shown)


def render_sheet(languages: dict[str, list[ReviewItem]], manifest: dict, settings: dict) -> str:
    """The sheet's HTML: every text from the dataset escaped by the template."""
    return page_template("review_sheet.html").render(
        languages=languages, manifest=manifest, settings=settings, version=__version__,
        spellings=SPELLINGS,
    )  # fmt: skip


def read_judgements(path: str | Path) -> pd.DataFrame:
    """The sheet's ``item_id``, ``lang`` and ``judgement`` (normalised; blank: None)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; save the sheet as CSV UTF-8") from None
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from None
    try:  # only the delimiter: a header line says nothing of quoting ("" inside quotes)
        delimiter = csv.Sniffer().sniff(text.partition("\n")[0], delimiters=",;\t").delimiter
    except csv.Error:
        delimiter = ","  # one column: the missing ones are named below
    # a cell may hold a long note: the csv module's default limit (128 KiB) is no limit on
    # a file already read into memory whole
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = reader.fieldnames or []
    if missing := [c for c in ("item_id", "lang", "judgement") if c not in header]:
        raise InputError(
            f"{path} lacks the column{'s' * (len(missing) > 1)} {', '.join(missing)}: "
            f"a review sheet has {', '.join(SHEET_COLUMNS)}"
        )
    rows = []
    for row in reader:
        value = (row["judgement"] or "").strip()
        if value and value.lower() not in JUDGEMENTS:
            accepted = "; ".join(f"{name} ({', '.join(s)})" for name, s in SPELLINGS.items())
            raise InputError(
                f"{path}:{reader.line_num}: item {row['item_id']}: judgement {value!r} is not "
                f"one of {accepted}, or blank"
            )
        rows.append((row["item_id"], row["lang"], JUDGEMENTS.get(value.lower())))
    table = pd.DataFrame(rows, columns=["item_id", "lang", "judgement"])
    if duplicated := sorted(set(table.item_id[table.item_id.duplicated()])):
        raise InputError(f"{path}: item {', '.join(duplicated)} appears more than once")
    if table.judgement.isna().all():
        raise InputError(f"{path}: no sentence is judged; fill in the judgement column")
    return table


def score_sheet(path: str | Path) -> pd.DataFrame:
    """Per language (in sheet order): sentences judged, grammatical share and its Wilson
    interval; unsure and blank rows counted beside them, outside the denominator."""
    judgements = read_judgements(path)
    rows = []
    for lang, group in judgements.groupby("lang", sort=False):
        counts = Counter(group.judgement.fillna("blank"))
        judged = counts["grammatical"] + counts["ungrammatical"]
        share = counts["grammatical"] / judged if judged else math.nan
        low, high = wilson_interval(share, judged)
        rows.append({
            "language": lang, "judged": judged, "grammatical": counts["grammatical"],
            "grammatical_share": share, "ci_low": float(low), "ci_high": float(high),
            "unsure": counts["unsure"], "blank": counts["blank"], "interval": WILSON,
        })  # fmt: skip
    return pd.DataFrame(rows)


def write_scores(table: pd.DataFrame, sheet: str | Path, out: str | Path) -> list[Path]:
    """``grammaticality.csv``, ``.md`` and ``.json`` (with the sheet's sha256) in ``out``."""
    folder = output_folder(guard_output(out, [sheet]))
    paths = [folder / f"grammaticality.{suffix}" for suffix in ("csv", "md", "json")]
    write_table(table, paths[0])
    write_text(paths[1], scores_markdown(table))
    records = [
        {key: None if isinstance(value, float) and math.isnan(value) else value
         for key, value in record.items()}
        for record in table.to_dict("records")
    ]  # fmt: skip
    document = {
        "sheet": Path(sheet).name, "sheet_sha256": file_sha256(sheet),
        "grammatical_share": SHARE, "interval": WILSON, "languages": records,
    }  # fmt: skip
    write_text(paths[2], json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return paths


def scores_markdown(table: pd.DataFrame) -> str:
    """The table as Markdown (three decimals) and what its share and interval are."""
    return (
        frame_table(table.drop(columns="interval"), digits=3)
        + f"\ngrammatical_share = {SHARE}; ci_low, ci_high: {WILSON} interval.\n"
    )
