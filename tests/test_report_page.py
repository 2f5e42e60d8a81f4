"""perturbed-ud report end to end: two real minimal-pair runs (a causal and a masked LM) and
lm-eval's own results file for the same pairs, on one page opened in headless Chromium;
hostile names shown as text; what is not a run refused.

The browser is Debian's ``chromium`` package, driven by playwright (whose own browser download
is not used). Without it the browser test is skipped, or fails where
``PERTURBED_UD_REQUIRE_BROWSER=1`` (CI) says that it must run."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from test_minimal_pair import COMMON, COORD, SIMPLE

import perturbed_ud
from perturbed_ud.builders.engine import build
from perturbed_ud.cli import main
from perturbed_ud.evaluation.reporting.result_files import QUARTILES, read_runs

CHROMIUM = shutil.which("chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]  # fmt: skip
# An lm-eval task over a jsonl file of pairs: does the model prefer the grammatical sentence?
LM_EVAL_TASK = {
    "task": "clams_pairs",
    "dataset_path": "json",
    "test_split": "test",
    "output_type": "multiple_choice",
    "doc_to_text": "",
    "target_delimiter": "",
    "doc_to_choice": "{{[sentence_good, sentence_bad]}}",
    "doc_to_target": 0,
    "metric_list": [{"metric": "acc"}],
}


def lm_eval_results(dataset: Path, model: Path, work: Path) -> Path:
    """The folder that ``lm_eval --output_path`` fills: the dataset's pairs run through
    ``simple_evaluate`` and saved by lm-eval's own EvaluationTracker."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    pairs = pd.concat(pd.read_parquet(p) for p in sorted((dataset / "en").glob("*.parquet")))
    data = work / "pairs.jsonl"
    pairs[["pair_id", "sentence_good", "sentence_bad"]].to_json(data, orient="records", lines=True)
    tasks = work / "tasks"
    tasks.mkdir()
    task = LM_EVAL_TASK | {"dataset_kwargs": {"data_files": {"test": str(data)}}}
    (tasks / "clams_pairs.yaml").write_text(json.dumps(task))  # JSON is YAML
    tracker = EvaluationTracker(output_path=str(work / "lm-eval"))
    results = lm_eval.simple_evaluate(
        model="hf", model_args={"pretrained": str(model), "dtype": "float32", "device": "cpu"},
        tasks=["clams_pairs"], task_manager=TaskManager(include_path=str(tasks)), batch_size=16,
        evaluation_tracker=tracker,
    )  # fmt: skip
    tracker.save_results_aggregated(results=results, samples=None)
    return work / "lm-eval"


@pytest.fixture(scope="module")
def our_runs(tmp_path_factory, tiny_gpt2, tiny_bert) -> list[Path]:
    """A causal and a masked LM's minimal-pair runs, and the dataset they scored."""
    grammars = tmp_path_factory.mktemp("grammars")
    (grammars / "common.avg").write_text(COMMON)
    (grammars / "simple_agrmt.avg").write_text(SIMPLE)
    (grammars / "vp_coord.avg").write_text(COORD)
    work = tmp_path_factory.mktemp("runs")
    dataset = build("clams", work / "data", grammar_dir=grammars, lang="en")
    for name, model in (("gpt2-run", tiny_gpt2), ("bert-run", tiny_bert)):
        perturbed_ud.evaluate("minimal-pair", dataset=str(dataset), model=str(model),
                              out=str(work / name))  # fmt: skip
    return [work / "gpt2-run", work / "bert-run", dataset]


@pytest.fixture(scope="module")
def runs(our_runs, tiny_gpt2, tmp_path_factory) -> list[Path]:
    """Both runs of ours, and lm-eval's results for the causal one (a peer run: tests that
    take this fixture are marked `peer`)."""
    gpt2_run, bert_run, dataset = our_runs
    return [gpt2_run, bert_run, lm_eval_results(dataset, tiny_gpt2, tmp_path_factory.mktemp("lm"))]


def report(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["report", *map(str, args)], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture(scope="session")
def chromium():
    """playwright's sync API, or a skip (a failure under PERTURBED_UD_REQUIRE_BROWSER=1),
    found before the runs are made."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if CHROMIUM and sync_playwright:
        return sync_playwright
    reason = (
        "opens the report in a headless browser: install Debian's chromium package "
        "(apt-get install chromium) and playwright (pip install -e '.[dev]')"
    )
    if os.environ.get("PERTURBED_UD_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def open_in_chromium(
    sync_playwright,
    page_file: Path,
    screenshot: Path,
    evaluations: dict[str, tuple[str, str]],
    *,
    script: str | None = None,
) -> dict:
    """What Chromium saw opening the page from disk: console errors, requests, dialogs, body
    text after ``script``, and each of ``evaluations`` (name -> selector, function over all
    matches); a full-page screenshot is saved."""
    seen = {"errors": [], "requests": [], "failed": [], "dialogs": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
            page.on("pageerror", lambda error: seen["errors"].append(str(error)))
            page.on("request", lambda request: seen["requests"].append(request.url))
            page.on("requestfailed", lambda request: seen["failed"].append(request.url))
            page.on("dialog", lambda dialog: seen["dialogs"].append(dialog.message))
            page.goto(page_file.as_uri(), wait_until="load")
            if script:
                page.evaluate(script)
            seen["text"] = page.inner_text("body")
            for name, (selector, function) in evaluations.items():
                seen[name] = page.eval_on_selector_all(selector, function)
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    return seen


REPORT_EVALUATIONS = {
    "image_widths": ("img", "all => all.map(image => image.complete ? image.naturalWidth : 0)"),
    "compare_headers": ("table.compare", "tables => tables.map(t => t.tHead.rows[0].innerText)"),
}


@pytest.mark.browser
@pytest.mark.peer
def test_the_page_compares_the_runs_and_opens_offline_in_chromium(chromium, runs, tmp_path):
    page = tmp_path / "report.html"
    code, output = report(*runs, "--out", page)
    assert code == 0, output
    seen = open_in_chromium(chromium, page, tmp_path / "report.png", REPORT_EVALUATIONS)
    assert seen["errors"] == [] and seen["failed"] == [] and seen["dialogs"] == []
    assert all(url.startswith(("file:", "data:")) for url in seen["requests"]), seen["requests"]
    lm_eval_file = next(runs[2].rglob("results_*.json"))
    lm_eval = json.loads(lm_eval_file.read_text())
    for name in ("gpt2-run", "bert-run", lm_eval["model_name"]):
        assert name in seen["text"]
    # one accuracy.png per run of ours, each decoded by the browser
    assert len(seen["image_widths"]) == 2 and all(w > 0 for w in seen["image_widths"])
    # the two runs of ours side by side in one table; lm-eval's in its own
    assert any("gpt2-run" in h and "bert-run" in h for h in seen["compare_headers"])
    accuracy = json.loads((runs[1] / "results.json").read_text())["metrics"]["accuracy"][0]
    for key in ("accuracy", "accuracy_lo", "accuracy_hi"):
        assert f"{accuracy[key]:.3f}" in seen["text"]
    acc = lm_eval["results"]["clams_pairs"]
    assert f"{acc['acc,none'] - 1.96 * acc['acc_stderr,none']:.3f}" in seen["text"]
    signature = "clams:2.0.0|ambiguity:checked|langs:en"
    for provenance in ("sha256:", "content_sha256", signature, "transformers"):
        assert provenance in seen["text"]
    assert (tmp_path / "report.png").stat().st_size > 0


@pytest.mark.peer
def test_hostile_names_are_shown_as_text(runs, tmp_path):
    run = tmp_path / "<img src=x onerror=alert(1)>"
    shutil.copytree(runs[0], run)
    shutil.copyfile(run / "accuracy.png", run / "<b onclick=alert(2)>.png")
    results = json.loads((run / "results.json").read_text())
    results["model"]["model"] = "<script>alert(3)</script>"
    results["metrics"]["accuracy"][0]["construction"] = '"><script>alert(4)</script>'
    (run / "results.json").write_text(json.dumps(results))
    lm_eval = json.loads(next(runs[2].rglob("results_*.json")).read_text())
    lm_eval["model_name"] = "<script>alert(5)</script>"
    lm_eval_file = tmp_path / "lm-eval.json"
    lm_eval_file.write_text(json.dumps(lm_eval))
    page = tmp_path / "report.html"
    code, output = report(run, lm_eval_file, "--out", page)
    assert code == 0, output
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "<img src=x" not in html and "<b onclick" not in html
    for text in ("&lt;img src=x onerror=alert(1)&gt;", "&lt;b onclick=alert(2)&gt;.png",
                 "&lt;script&gt;alert(3)&lt;/script&gt;", "&lt;script&gt;alert(5)&lt;/script&gt;",
                 "&#34;&gt;&lt;script&gt;alert(4)&lt;/script&gt;"):  # fmt: skip
        assert text in html


@pytest.mark.peer
def test_quartiles_and_stderrs_become_intervals_and_numbers_without_one_are_left_out(
    runs, tmp_path
):
    run = tmp_path / "distance-run"
    shutil.copytree(runs[0], run)
    results = json.loads((run / "results.json").read_text())
    row = {"config": "en_tau2_seed1", "lang": "en", "layer": 3, "sentences": 9, "l2_mean": 2.5,
           "l2_q1": 1.0, "l2_median": 2.0, "l2_q3": 4.0}  # fmt: skip
    results["metrics"] = {"distance": [row], "layers": [3]}
    (run / "results.json").write_text(json.dumps(results))
    lm_eval = json.loads(next(runs[2].rglob("results_*.json")).read_text())
    lm_eval["results"]["clams_pairs"]["acc_stderr,none"] = "N/A"
    lm_eval_file = tmp_path / "lm-eval.json"
    lm_eval_file.write_text(json.dumps(lm_eval))
    ours, theirs = read_runs([run, lm_eval_file])
    (quartiles,) = ours.estimates
    assert (quartiles.condition, quartiles.metric, quartiles.interval) == (
        "en_tau2_seed1 · layer 3", "l2", QUARTILES,
    )  # fmt: skip
    assert (quartiles.value, quartiles.low, quartiles.high) == (2.0, 1.0, 4.0)
    (acc,) = theirs.estimates
    assert (acc.metric, acc.interval, acc.low, acc.high) == ("acc", "no stderr", None, None)


def test_an_unfinished_run_is_refused(our_runs, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copyfile(our_runs[0] / "run.json", run / "run.json")
    code, output = report(run, "--out", tmp_path / "report.html")
    assert code == 1 and "unfinished run (run.json but no results.json)" in output
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing", None, "missing: no such file or folder"),
        ("empty", "folder", "empty is not a run: give a run folder"),
        ("notes.txt", "a run", "notes.txt is not a run: give a run folder"),
        ("other.json", '{"accuracy": 0.5}', "other.json: not lm-eval results"),
        ("list.json", "[1, 2]", "list.json: expected a JSON object, found list"),
        ("torn.json", '{\n"results": {', "torn.json:2: not a JSON file"),
    ],
)
def test_what_is_not_a_run_is_refused(tmp_path, name, content, message):
    path = tmp_path / name
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_text(content)
    code, output = report(path, "--out", tmp_path / "report.html")
    assert code == 1 and output.startswith("error: ") and message in output
    assert not (tmp_path / "report.html").exists()
