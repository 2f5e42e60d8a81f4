"""perturbed-ud review and review-score: a sheet drawn from a spud build, judged, and scored
back into grammatical shares whose Wilson intervals match scipy's; the draw is reproducible;
hostile sentences stay text in the page (opened in headless Chromium) and in spreadsheets;
what is not a sheet or not a spud build is refused, named."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import test_report_page
from click.testing import CliRunner
from scipy.stats import binomtest
from test_report_page import open_in_chromium

import perturbed_ud
from perturbed_ud.cli import main

chromium = test_report_page.chromium  # playwright, or the skip when Chromium is missing
CONFIGS = ["ar_seed1", "ar_seed2", "en_seed1", "en_seed2"]
# A reader's marks in several spellings, cycled over the sheet's rows; "" leaves a row blank.
MARKS = ["g", "No", "yes", "?", "1", "u", "", "GRAMMATICAL", "0", "unsure", "ungrammatical", "g"]
MEANING = {
    **dict.fromkeys(["g", "yes", "1", "grammatical"], "grammatical"),
    **dict.fromkeys(["u", "no", "0", "ungrammatical"], "ungrammatical"),
    **dict.fromkeys(["?", "unsure"], "unsure"),
    "": "blank",
}


def cli(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def spud(tmp_path_factory) -> Path:
    """English and Arabic (right to left, clitics written together) from the PUD sample."""
    out = tmp_path_factory.mktemp("spud")
    return perturbed_ud.build("spud", out, langs=["en", "ar"], seeds=[1, 2], limit=40)


def nonce_rows(dataset: Path, config: str) -> list[dict]:
    return pq.read_table(dataset / config / "nonce-00000-of-00001.parquet").to_pylist()


def sheet_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as stream:
        return list(csv.DictReader(stream))


def write_marked(rows: list[dict], path: Path, **dialect) -> None:
    with open(path, "w", encoding="utf-8-sig", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]), **dialect)
        writer.writeheader()
        writer.writerows(rows)


def test_a_judged_sheet_scores_to_the_counts_and_wilson_intervals_of_an_independent_oracle(
    spud, tmp_path
):
    code, output = cli("review", spud, "--sample", 9, "--seed", 3, "--out", tmp_path / "sheet")
    assert code == 0, output
    rows = sheet_rows(tmp_path / "sheet" / "review.csv")
    assert list(rows[0]) == ["item_id", "lang", "original", "nonce", "replaced", "judgement",
                             "note", "config", "sent_id"]  # fmt: skip
    assert all(r["judgement"] == r["note"] == "" for r in rows)
    assert Counter(r["config"] for r in rows) == dict.fromkeys(CONFIGS, 9)
    expected: dict[str, Counter] = {}
    for k, row in enumerate(rows):
        row["judgement"] = mark = MARKS[k % len(MARKS)]
        expected.setdefault(row["lang"], Counter())[MEANING[mark.lower()]] += 1
    rows[0]["note"] = "a note\non two lines"
    # saved again as a European spreadsheet does: semicolons, a byte-order mark
    write_marked(rows, tmp_path / "marked.csv", delimiter=";")

    code, output = cli("review-score", tmp_path / "marked.csv", "--out", tmp_path / "scores")
    assert code == 0, output
    scores = json.loads((tmp_path / "scores" / "grammaticality.json").read_text())
    assert scores["sheet"] == "marked.csv" and scores["interval"] == "Wilson 95 %"
    assert "unsure and blank rows left out" in scores["grammatical_share"]
    assert [s["language"] for s in scores["languages"]] == ["ar", "en"]
    for score in scores["languages"]:
        counts = expected[score["language"]]
        judged = counts["grammatical"] + counts["ungrammatical"]
        assert (score["judged"], score["grammatical"], score["unsure"], score["blank"]) == (
            judged, counts["grammatical"], counts["unsure"], counts["blank"]
        )  # fmt: skip
        assert score["grammatical_share"] == pytest.approx(counts["grammatical"] / judged)
        oracle = binomtest(counts["grammatical"], judged).proportion_ci(method="wilson")
        assert score["ci_low"] == pytest.approx(oracle.low, abs=1e-12)
        assert score["ci_high"] == pytest.approx(oracle.high, abs=1e-12)
        assert f"| {score['language']} | {judged} | {counts['grammatical']} |" in output
    assert "unsure and blank rows left out" in output
    markdown = (tmp_path / "scores" / "grammaticality.md").read_text()
    assert markdown in output
    table = perturbed_ud.review_score(tmp_path / "marked.csv")
    assert table.judged.tolist() == [s["judged"] for s in scores["languages"]]


def test_the_draw_is_reproducible_distinct_per_language_and_only_of_changed_sentences(
    spud, tmp_path
):
    def draw(name: str, *args) -> list[dict]:
        code, output = cli("review", spud, "--sample", 6, *args, "--out", tmp_path / name)
        assert code == 0, output
        return sheet_rows(tmp_path / name / "review.csv")

    first, again, other = draw("a", "--seed", 7), draw("b", "--seed", 7), draw("c", "--seed", 8)
    for name in ("review.csv", "review.html"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert first == again
    assert {r["sent_id"] for r in first} != {r["sent_id"] for r in other}
    for lang in ("en", "ar"):
        ids = [r["sent_id"] for r in first if r["lang"] == lang]
        assert len(ids) == len(set(ids)) == 12  # two configs, no sentence twice
        assert [r["item_id"] for r in first if r["lang"] == lang] == [
            f"{lang}-{k:03d}" for k in range(1, 13)
        ]
    changed = {
        c: {r["sent_id"] for r in nonce_rows(spud, c) if any(r["replaced"])} for c in CONFIGS
    }
    assert all(r["sent_id"] in changed[r["config"]] for r in first)
    # a config's draw does not depend on the configs drawn after it
    alone = draw("d", "--seed", 7, "--config", "en_seed1")
    assert {r["sent_id"] for r in alone} == {
        r["sent_id"] for r in first if r["config"] == "en_seed1"
    }
    # the API writes the same sheet
    perturbed_ud.review(spud, tmp_path / "e", sample=6, seed=7)
    assert (tmp_path / "e" / "review.csv").read_bytes() == (
        tmp_path / "a" / "review.csv"
    ).read_bytes()


def test_a_sample_larger_than_the_config_takes_every_changed_sentence_and_says_so(spud, tmp_path):
    code, output = cli("review", spud, "--sample", 1000, "--config", "en_seed1,en_seed2",
                       "--out", tmp_path)  # fmt: skip
    assert code == 0
    assert "warning: en_seed1:" in output and "fewer than 1000" in output
    rows = sheet_rows(tmp_path / "review.csv")
    changed = {r["sent_id"] for c in ("en_seed1", "en_seed2") for r in nonce_rows(spud, c)
               if any(r["replaced"])}  # fmt: skip
    assert sorted(r["sent_id"] for r in rows) == sorted(changed)
    code, output = cli("review", spud, "--config", "en_seed1", "--out", tmp_path)
    assert code == 1 and "already holds review.html and review.csv" in output
    assert "--overwrite" in output
    code, output = cli("review", spud, "--config", "en_seed1", "--out", tmp_path, "--overwrite")
    assert code == 0, output


@pytest.fixture(scope="module")
def hostile(spud, tmp_path_factory) -> Path:
    """A copy of the build whose first changed English sentence carries markup in a replaced
    word, its FEATS and the original, and begins with a spreadsheet formula."""
    dataset = tmp_path_factory.mktemp("hostile") / "spud"
    shutil.copytree(spud, dataset)
    for split in ("orig", "nonce"):
        path = dataset / "en_seed1" / f"{split}-00000-of-00001.parquet"
        table = pq.read_table(path)
        rows = table.to_pylist()
        row = next(r for r in nonce_rows(spud, "en_seed1") if any(r["replaced"]))
        target = next(r for r in rows if r["sent_id"] == row["sent_id"])
        i = next(k for k, replaced in enumerate(row["replaced"]) if replaced and k)
        if split == "nonce":
            target["forms"][i] = "<script>alert(1)</script>"
            target["feats"][i] = '"><img src=x onerror=alert(2)>'
        else:
            target["forms"][i] = "</p><b onclick=alert(3)>"
        target["forms"][0] = "=HYPERLINK(1)"
        target["text"] = " ".join(target["forms"])
        pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    return dataset


def test_hostile_sentences_are_shown_as_text_and_not_run_by_a_spreadsheet(hostile, tmp_path):
    code, output = cli("review", hostile, "--sample", 1000, "--config", "en_seed1",
                       "--out", tmp_path)  # fmt: skip
    assert code == 0, output
    html = (tmp_path / "review.html").read_text(encoding="utf-8")
    assert "<script" not in html and "<img src=x" not in html and "<b onclick" not in html
    for text in (
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;",
        "&lt;/p&gt;&lt;b onclick=alert(3)&gt;",
    ):
        assert text in html
    (row,) = [r for r in sheet_rows(tmp_path / "review.csv") if "alert(1)" in r["nonce"]]
    assert row["nonce"].startswith("'=HYPERLINK(1) ") and row["original"].startswith("'=HYP")
    assert "<script>alert(1)</script> " in row["replaced"]


SHEET_EVALUATIONS = {
    "captions": ("ruby rt", "all => all.map(t => [t.innerText, t.getBoundingClientRect().height])"),
    "directions": ("p.nonce", "all => all.map(p => [p.lang, getComputedStyle(p).direction])"),
}
OPEN_DETAILS = "document.querySelectorAll('details').forEach(d => d.open = true)"


def open_sheet(sync_playwright, page_file: Path, screenshot: Path) -> dict:
    """What Chromium saw on the sheet with every FEATS list open: errors, requests, dialogs,
    text, each caption's text and height, and the direction of each nonce sentence."""
    return open_in_chromium(
        sync_playwright, page_file, screenshot, SHEET_EVALUATIONS, script=OPEN_DETAILS
    )


@pytest.mark.browser
def test_the_sheet_opens_offline_in_chromium_with_captions_and_right_to_left_arabic(
    chromium, spud, hostile, tmp_path
):
    code, output = cli("review", spud, "--sample", 3, "--seed", 1, "--out", tmp_path / "sheet")
    assert code == 0, output
    seen = open_sheet(chromium, tmp_path / "sheet" / "review.html", tmp_path / "review.png")
    assert seen["errors"] == [] and seen["dialogs"] == []
    assert seen["requests"] == [(tmp_path / "sheet" / "review.html").as_uri()]
    rows = sheet_rows(tmp_path / "sheet" / "review.csv")
    for row in rows:
        assert row["item_id"] in seen["text"] and row["sent_id"] not in seen["text"]
    assert "ar_seed1" not in seen["text"] and "en_seed2" not in seen["text"]
    upos = {"NOUN", "PROPN", "VERB", "ADJ", "ADV"}
    assert seen["captions"] and all(
        set(text.split("+")) <= upos and height > 0 for text, height in seen["captions"]
    )
    assert {tuple(d) for d in seen["directions"]} == {("ar", "rtl"), ("en", "ltr")}
    assert (tmp_path / "review.png").stat().st_size > 0

    code, output = cli("review", hostile, "--sample", 1000, "--config", "en_seed1",
                       "--out", tmp_path / "hostile")  # fmt: skip
    assert code == 0, output
    seen = open_sheet(chromium, tmp_path / "hostile" / "review.html", tmp_path / "hostile.png")
    assert seen["errors"] == [] and seen["dialogs"] == [] and len(seen["requests"]) == 1
    for text in ("<script>alert(1)</script>", '"><img src=x onerror=alert(2)>',
                 "</p><b onclick=alert(3)>"):  # fmt: skip
        assert text in seen["text"]


def all_grammatical(spud: Path, tmp_path: Path) -> list[dict]:
    """The rows of a review sheet drawn from ``spud``, every sentence judged grammatical."""
    code, output = cli("review", spud, "--sample", 2, "--out", tmp_path)
    assert code == 0, output
    rows = sheet_rows(tmp_path / "review.csv")
    for row in rows:
        row["judgement"] = "g"
    return rows


def test_a_sheet_without_a_column_or_with_an_unknown_judgement_is_refused(spud, tmp_path):
    rows = all_grammatical(spud, tmp_path)
    rows[2]["judgement"] = "maybe"
    write_marked(rows, tmp_path / "unknown.csv")
    code, output = cli("review-score", tmp_path / "unknown.csv")
    assert code == 1
    assert f"unknown.csv:4: item {rows[2]['item_id']}: judgement 'maybe' is not one of" in output
    assert "grammatical (grammatical, g, yes, 1)" in output and "unsure (unsure, ?)" in output

    write_marked([{k: v for k, v in r.items() if k != "judgement"} for r in rows],
                 tmp_path / "missing.csv")  # fmt: skip
    code, output = cli("review-score", tmp_path / "missing.csv")
    assert code == 1 and "missing.csv lacks the column judgement" in output

    write_marked([rows[0] | {"judgement": "g"}, rows[0] | {"judgement": "u"}], tmp_path / "dup.csv")
    code, output = cli("review-score", tmp_path / "dup.csv")
    assert code == 1 and f"item {rows[0]['item_id']} appears more than once" in output

    code, output = cli("review-score", tmp_path / "review.csv")
    assert code == 1 and "no sentence is judged" in output


def test_a_dataset_that_is_not_a_spud_build_is_refused(spud, tmp_path):
    other = perturbed_ud.build("perturbed-ud", tmp_path / "other", langs=["en"], seeds=[1],
                               limit=5)  # fmt: skip
    code, output = cli("review", other, "--out", tmp_path / "sheet")
    assert code == 1
    assert f"error: {other} is a perturbed-ud dataset (word_order.v2): review reads spud" in output
    bare = tmp_path / "bare"
    shutil.copytree(spud / "en_seed1", bare / "en_seed1")
    code, output = cli("review", bare, "--out", tmp_path / "sheet")
    assert code == 1 and "(no build.json)" in output
    code, output = cli("review", spud, "--config", "fr_seed1", "--out", tmp_path / "sheet")
    assert code == 1 and "has no config fr_seed1 (it has: ar_seed1, ar_seed2" in output
    assert not (tmp_path / "sheet").exists()


def test_a_sentence_in_quotation_marks_is_read_back_from_the_marked_sheet(tmp_path):
    """A cell that begins with a quotation mark is written as \"\"\"…\"\"\"; the sheet's header
    says nothing of quoting, so the reader keeps CSV's doubled quotes."""
    rows = [
        {"item_id": "en-001", "lang": "en", "original": '"Yes," she said.', "judgement": "g"},
        {"item_id": "en-002", "lang": "en", "original": 'He said "no".', "judgement": "u"},
    ]
    for delimiter in (",", ";", "\t"):
        write_marked(rows, tmp_path / "marked.csv", delimiter=delimiter)
        code, output = cli("review-score", tmp_path / "marked.csv")
        assert code == 0, output
        assert "| en | 2 | 1 | 0.500 |" in output, output


def test_a_long_note_is_read_and_a_formula_is_written_as_text(spud, tmp_path):
    rows = all_grammatical(spud, tmp_path)
    rows[0]["note"] = "x" * (1 << 20)  # over the csv module's default field limit
    rows[0]["lang"] = "=1+1"
    write_marked(rows, tmp_path / "marked.csv")
    code, output = cli("review-score", tmp_path / "marked.csv", "--out", tmp_path / "scored")
    assert code == 0, output
    written = (tmp_path / "scored" / "grammaticality.csv").read_text(encoding="utf-8")
    assert "\n'=1+1," in written and "\n=1+1" not in written
