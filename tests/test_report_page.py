"""perturbed-ud report end to end: two real minimal-pair runs (a causal and a masked LM) and
lm-eval's own results file for the same pairs, on one page opened in headless Chromium; a
page over a run of every task, each with its table and N, accuracies' intervals inside [0, 1],
runs of different N and settings flagged; hostile names shown as text; what is not a run
refused.

The browser is Debian's ``chromium`` package, driven by playwright (whose own browser download
is not used). Without it the browser test is skipped, or fails where
``PERTURBED_UD_REQUIRE_BROWSER=1`` (CI) says that it must run."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from datasets import Dataset
from test_minimal_pair import COMMON, COORD, SIMPLE
from tiny_models import bert_classifier

import perturbed_ud
from perturbed_ud.builders.engine import build
from perturbed_ud.cli import main
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.reporting.report_page import comparison_tables, setting_differences
from perturbed_ud.evaluation.reporting.result_files import (
    LM_EVAL_NORMAL,
    LM_EVAL_WILSON,
    NO_INTERVAL,
    QUARTILES,
    lm_eval_interval,
    read_runs,
)
from perturbed_ud.evaluation.reporting.statistics import wilson_interval

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
    acc = lm_eval["results"]["clams_pairs"]["acc,none"]
    low, high = wilson_interval(acc, lm_eval["n-samples"]["clams_pairs"]["effective"])
    assert f"{low:.3f}" in seen["text"] and f"{high:.3f}" in seen["text"]
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
def test_quartiles_and_stderrs_become_intervals_and_numbers_without_one_have_none(runs, tmp_path):
    run = tmp_path / "distance-run"
    shutil.copytree(runs[0], run)
    results = json.loads((run / "results.json").read_text())
    row = {"config": "en_tau2_seed1", "lang": "en", "layer": 3, "sentences": 9, "l2_mean": 2.5,
           "l2_q1": 1.0, "l2_median": 2.0, "l2_q3": 4.0}  # fmt: skip
    results |= {"task": "distance", "key_columns": ["config", "method", "tau", "seed", "layer"],
                "metrics": {"distance": [row], "layers": [3]}}  # fmt: skip
    (run / "results.json").write_text(json.dumps(results))
    lm_eval = json.loads(next(runs[2].rglob("results_*.json")).read_text())
    lm_eval["results"]["clams_pairs"]["acc_stderr,none"] = "N/A"
    del lm_eval["n-samples"]
    lm_eval_file = tmp_path / "lm-eval.json"
    lm_eval_file.write_text(json.dumps(lm_eval))
    ours, theirs = read_runs([run, lm_eval_file])
    mean, quartiles = ours.estimates
    assert (quartiles.condition, quartiles.metric, quartiles.interval) == (
        "en_tau2_seed1 · layer 3", "l2", QUARTILES,
    )  # fmt: skip
    assert (quartiles.value, quartiles.low, quartiles.high, quartiles.n) == (2.0, 1.0, 4.0, 9)
    assert (mean.metric, mean.interval, mean.value, mean.low) == ("l2_mean", NO_INTERVAL, 2.5, None)
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


def cli(*args) -> None:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def nli_dataset(folder: Path, tokenizer: Path) -> Path:
    """A local_structure build of an NLI dataset in miniature: pairs of UD sentences."""
    lines = (UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu").read_text().splitlines()
    texts = [line.split("=", 1)[1].strip() for line in lines if line.startswith("# text =")]
    rows = {"premise": texts[:12], "hypothesis": texts[1:13], "label": [i % 3 for i in range(12)]}
    (folder / "nli" / "data").mkdir(parents=True)
    Dataset.from_dict(rows).to_parquet(folder / "nli" / "data" / "test.parquet")
    cli("build", "local_structure", "--hf-dataset", folder / "nli", "--hf-split", "test",
        "--text-columns", "premise,hypothesis", "--langs", "en", "--seeds", "1",
        "--tokenizer", tokenizer, "--rhos", "char_phrase_shuffle=0.5",
        "--rhos", "char_neighbour_flip=0.5", "--rhos", "subword_phrase_shuffle=0.5",
        "--rhos", "subword_neighbour_flip=0.5", "--out", folder / "built")  # fmt: skip
    return folder / "built" / "local_structure"


@pytest.fixture(scope="module")
def every_task(runs, spud_en5, tiny_bert, tiny_gpt2, tmp_path_factory) -> list[Path]:
    """A run of every task, two score runs on spud of different --limit, and lm-eval's
    results."""
    work = tmp_path_factory.mktemp("every-task")
    ud = {"ud_root": str(UD_ROOT), "langs": ["en"], "seeds": [1]}
    data = {
        "perturbed-ud": perturbed_ud.build("perturbed-ud", work / "word-order", limit=8, **ud),
        "substitution": perturbed_ud.build("substitution", work / "substitution",
                                           methods=["copos_treebank"], taus=[1], copies=2,
                                           limit=5, **ud),
        "nli": nli_dataset(work, tiny_bert),
    }  # fmt: skip
    classifier = bert_classifier(tiny_bert, work / "classifier", initializer_range=0.5)
    probe = ("--ud-root", UD_ROOT, "--train-split", "dev", "--train-limit", 20, "--probes",
             "distance", "--layers", 1, "--probe-seeds", 1, "--epochs", 1)  # fmt: skip
    commands = {
        "masked-word": ("masked-word", data["perturbed-ud"], tiny_bert),
        "score-spud": ("score", spud_en5, tiny_gpt2),
        "score-spud-3": ("score", spud_en5, tiny_gpt2, "--limit", 3),
        "score-local": ("score", data["nli"], tiny_gpt2, "--kind", "causal",
                        "--words-column", "premise"),
        "distance": ("distance", data["substitution"], tiny_bert),
        "probe": ("probe", data["substitution"], tiny_bert, *probe),
        "classify": ("classify", data["nli"], classifier, "--text-columns", "premise,hypothesis"),
    }  # fmt: skip
    for name, (task, dataset, model, *options) in commands.items():
        cli("evaluate", task, "--dataset", dataset, "--model", model, "--out", work / name,
            *options)  # fmt: skip
    return [work / name for name in commands] + runs


TABLE_COLUMNS = """tables => tables.map(t => ({
    runs: [...t.tHead.rows[0].querySelectorAll('th.run-start')].map(th => th.innerText),
    rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.innerText))}))"""
ACCURACIES = ("accuracy", "acc", "acc_norm", "word_at_1", "word_at_5")


@pytest.mark.browser
@pytest.mark.peer
def test_a_page_over_every_task_shows_each_run_with_its_n(chromium, every_task, tmp_path):
    page = tmp_path / "report.html"
    code, output = report(*every_task, "--out", page)
    assert code == 0, output
    screenshot = tmp_path / "report.png"
    tables = {"tables": ("table.compare", TABLE_COLUMNS)}
    seen = open_in_chromium(chromium, page, screenshot, tables)
    assert seen["errors"] == [] and seen["failed"] == []
    with_n = set()
    for table in seen["tables"]:
        for row in table["rows"]:
            metric, cells = row[2], row[4:]
            per_run = [cells[i : i + 4] for i in range(0, len(cells), 4)]
            for run, (value, low, high, n) in zip(table["runs"], per_run, strict=True):
                if n.rstrip(" ≠").isdigit():
                    with_n.add(run)
                if metric in ACCURACIES and low != "—":
                    assert 0 <= float(low) <= float(value) <= float(high) <= 1, (run, row)
    lm_eval = json.loads(next(every_task[-1].rglob("results_*.json")).read_text())
    names = [path.name for path in every_task[:-1]] + [lm_eval["model_name"]]
    assert with_n == set(names)
    assert "runs differ in N" in seen["text"] and "limit: all vs 3" in seen["text"]
    assert "correlations" in seen["text"] and "spearman_rho" in seen["text"]
    assert LM_EVAL_WILSON in seen["text"]


def test_lm_eval_intervals_stay_in_the_metrics_range_and_are_named():
    def rounded(interval):
        name, low, high = interval
        return name, round(low, 4), round(high, 4)

    assert rounded(lm_eval_interval("acc", 0.15, 0.0819, None)) == (
        f"{LM_EVAL_NORMAL}, clipped", 0.0, 0.3105,
    )  # fmt: skip
    assert rounded(lm_eval_interval("acc", 0.15, 0.0819, 20)) == (LM_EVAL_WILSON, 0.0524, 0.3604)
    assert lm_eval_interval("acc", 0.95, 0.05, None)[2] == 1.0
    assert rounded(lm_eval_interval("loglikelihood", -3.0, 1.0, 20)) == (
        LM_EVAL_NORMAL, -4.96, -1.04,
    )  # fmt: skip


def test_runs_are_told_apart_by_the_settings_they_differ_in(our_runs, tmp_path):
    run = tmp_path / "limited"
    shutil.copytree(our_runs[0], run)
    results = json.loads((run / "results.json").read_text())
    results["signature"] = results["signature"].replace("|limit:all|", "|limit:20|")
    (run / "results.json").write_text(json.dumps(results))
    causal, masked, limited = read_runs([our_runs[0], our_runs[1], run])
    assert setting_differences([causal, limited]) == ("limit: all vs 20",)
    (model, *rest) = setting_differences([causal, masked])
    assert model.startswith("model: ") and " vs " in model
    assert "kind: causal vs masked" in rest


def _results(run: Path, task: str, metrics: dict, **more) -> Path:
    run.mkdir()
    results = {"task": task, "signature": f"{task}|model:m", "model": {},
               "dataset": {"name": "data"}, "metrics": metrics, **more}  # fmt: skip
    (run / "results.json").write_text(json.dumps(results))
    return run


def test_numbers_without_an_interval_are_shown_with_their_n(tmp_path):
    """A results.json of perturbed-ud 0.4, without key columns: its task's own name them."""
    row = {"config": "en_seed1", "split": "char_full_shuffle", "lang": "en", "rho": None,
           "model_name": "gpt2", "N": 10, "too_long": 0, "perplexity": 72.5}  # fmt: skip
    correlation = {"level": "all", "group": "all", "performance": "perplexity",
                   "measure": "chrf", "settings": 8, "spearman_rho": -0.81}  # fmt: skip
    run = _results(tmp_path / "score-run", "score",
                   {"settings": [row], "correlations": [correlation]})  # fmt: skip
    (ours,) = read_runs([run])
    shown = {(e.condition, e.metric, e.interval, e.value, e.n) for e in ours.estimates}
    setting, correlated = "en_seed1 · char_full_shuffle", "all · all · perplexity · chrf"
    assert shown == {(setting, "too_long", NO_INTERVAL, 0, 10),
                     (setting, "perplexity", NO_INTERVAL, 72.5, 10),
                     (correlated, "spearman_rho", NO_INTERVAL, -0.81, 8)}  # fmt: skip


def test_the_key_columns_a_run_records_name_its_conditions(tmp_path):
    """A plugin task's own keys (a genre, a numeric window) tell its rows apart and are no
    metrics; the toolkit's own names for conditions mean nothing to it."""
    rows = [{"genre": genre, "window": 3, "layer": 2, "N": 40, "hits": hits}
            for genre, hits in (("news", 0.7), ("fiction", 0.4))]  # fmt: skip
    run = _results(tmp_path / "lab", "lab-task", {"hits": rows}, key_columns=["genre", "window"])
    (ours,) = read_runs([run])
    shown = {(e.condition, e.metric, e.value, e.n) for e in ours.estimates}
    assert shown == {("news · window 3", "hits", 0.7, 40), ("news · window 3", "layer", 2, 40),
                     ("fiction · window 3", "hits", 0.4, 40),
                     ("fiction · window 3", "layer", 2, 40)}  # fmt: skip


@pytest.mark.parametrize(
    ("interval_column", "more"),
    [("macro_accuracy_interval", {"key_columns": []}), ("macro_interval", {})],
    ids=["0.5", "minimal-pair 1.0.0"],
)
def test_a_column_that_names_its_own_interval_keeps_it(tmp_path, interval_column, more):
    row = {"lang": "en", "N": 9, "interval": "Wilson 95 %", "accuracy": 0.5, "accuracy_lo": 0.2,
           "accuracy_hi": 0.8, "macro_accuracy": 0.6, "macro_accuracy_lo": 0.1,
           "macro_accuracy_hi": 0.9, interval_column: "stratified bootstrap"}  # fmt: skip
    run = _results(tmp_path / "run", "minimal-pair", {"by_language": [row]}, **more)
    (ours,) = read_runs([run])
    shown = {(e.metric, e.interval, e.low) for e in ours.estimates}
    assert shown == {
        ("accuracy", "Wilson 95 %", 0.2),
        ("macro_accuracy", "stratified bootstrap", 0.1),
    }


@pytest.mark.parametrize(
    ("task", "more", "message"),
    [
        ("lab-task", {}, "'lab-task' was no task of perturbed-ud then: run it again"),
        ("score", {"key_columns": "config"}, "key_columns is not a list of column names"),
        ("score", {"key_columns": ["config", 3]}, "key_columns is not a list of column names"),
    ],
)
def test_a_run_whose_key_columns_cannot_be_known_is_refused(tmp_path, task, more, message):
    run = _results(tmp_path / "old", task, {"t": [{"config": "a", "x": 1.0}]}, **more)
    with pytest.raises(InputError, match=re.escape(message)):
        read_runs([run])


@pytest.mark.peer
def test_lm_eval_rows_of_our_tasks_sit_beside_ours(our_runs, tiny_gpt2, tmp_path):
    """lm-eval's results on the tasks `lm-eval-tasks` wrote for the same build join the table
    of our minimal-pair runs, each beside our row of its language and construction."""
    import lm_eval
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    gpt2_run, _, dataset = our_runs
    tasks = perturbed_ud.lm_eval_tasks(dataset, tmp_path / "tasks")
    tracker = EvaluationTracker(output_path=str(tmp_path / "lm-eval"))
    results = lm_eval.simple_evaluate(
        model="hf", model_args={"pretrained": str(tiny_gpt2), "dtype": "float32", "device": "cpu"},
        tasks=["clams"], task_manager=TaskManager(include_path=str(tasks.parent),
                                                  include_defaults=False),
        batch_size=16, evaluation_tracker=tracker,
    )  # fmt: skip
    tracker.save_results_aggregated(results=results, samples=None)
    tables = comparison_tables(read_runs([gpt2_run, tmp_path / "lm-eval"]))
    (pairs,) = [t for t in tables if t.title.startswith("minimal-pair · accuracy · clams")]
    assert len(pairs.runs) == 2 and not any(t.title == "lm-eval tasks" for t in tables)
    keys = [(row.language, row.condition, row.metric) for row in pairs.rows]
    for construction in ("simple_agrmt", "vp_coord"):
        ours = keys.index(("en", construction, "accuracy"))
        theirs = keys.index(("en", construction, "lm-eval acc"))
        between = {key[:2] for key in keys[min(ours, theirs) : max(ours, theirs) + 1]}
        assert between == {("en", construction)}  # nothing else between
    page = tmp_path / "report.html"
    code, output = report(gpt2_run, tmp_path / "lm-eval", "--out", page)
    assert code == 0, output
    html = page.read_text(encoding="utf-8")
    assert "lm-eval acc" in html and "lm-eval tasks" not in html


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("N", 10**400, "N = 10000000000000000000… is not a count"),
        ("N", -5, "N = -5 is not a count"),
        ("accuracy", float("inf"), "accuracy = inf is not a finite number"),
        ("accuracy", 1.5, "accuracy = 1.5 is a share outside [0, 1]"),
    ],
)
def test_impossible_numbers_are_named_not_shown(our_runs, tmp_path, field, value, message):
    run = shutil.copytree(our_runs[0], tmp_path / "run")
    results = json.loads((run / "results.json").read_text())
    results["metrics"]["accuracy"][0][field] = value
    (run / "results.json").write_text(json.dumps(results))
    code, output = report(run, "--out", tmp_path / "report.html")
    assert code == 1 and output.startswith("error: "), output
    assert f"metrics.accuracy[0].{message}" in output and len(output.splitlines()) == 1
    assert not (tmp_path / "report.html").exists()
