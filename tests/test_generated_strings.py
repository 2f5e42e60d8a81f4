"""Strings that reach generated files (lm-eval task YAML, cards, summaries, report pages) cannot
change their structure, and no token reaches them: control characters are refused in options
and in the manifests read back, the writers comment out, escape or quote what they write, and
model arguments are redacted."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from click.testing import CliRunner
from conftest import UD_ROOT, task_yaml
from markdown_it import MarkdownIt

import perturbed_ud
from perturbed_ud.cli import main
from perturbed_ud.data import markdown as md
from perturbed_ud.data.lm_eval_tasks import header
from perturbed_ud.data.push import push_folder
from perturbed_ud.errors import InputError, PushError

BUILD = ["build", "spud", "--ud-root", str(UD_ROOT), "--langs", "en", "--limit", "5",
         "--seeds", "1"]  # fmt: skip
# Line breaks of Python, YAML and Unicode, a tab and a NUL.
CONTROLS = ["\n", "\r", "\t", "\x00", "\x85", "\u2028", "\u2029"]
INJECTED = "dataset_path: w/evil"


def build_spud(out, **options):
    return perturbed_ud.build("spud", out, ud_root=str(UD_ROOT), langs="en", limit=5, seeds="1",
                              **options)  # fmt: skip


@pytest.fixture(scope="module")
def spud(tmp_path_factory):
    return build_spud(tmp_path_factory.mktemp("spud"))


def parser():
    return MarkdownIt("commonmark").enable("table")


def table_rows(text: str) -> list[list[str]]:
    """The cells of every row of every table in Markdown ``text``, as a reader sees them."""
    rows, cells = [], None
    for token in parser().parse(text):
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline" and cells is not None:
            cells.append(token.content)
        elif token.type == "tr_close":
            rows.append(cells)
            cells = None
    return rows


def card_body(folder) -> str:
    return (folder / "README.md").read_text(encoding="utf-8").split("\n---\n", 1)[1]


def task_files(folder) -> dict[str, dict]:
    return {
        path.name: task_yaml(path.read_text(encoding="utf-8"))
        for path in sorted(folder.iterdir())
        if path.name.endswith(("yaml", "_yaml"))
    }


@pytest.mark.parametrize("char", CONTROLS, ids=repr)
def test_a_control_character_in_a_build_option_is_refused(char, tmp_path):
    release = f"r2.16{char}{INJECTED}"
    result = CliRunner().invoke(main, [*BUILD, "--ud-release", release, "--out", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: --ud-release: ")
    assert len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "spud").exists()


def test_a_control_character_in_the_output_folder_of_a_build_is_refused(tmp_path):
    out = tmp_path / f"w\n{INJECTED}"
    result = CliRunner().invoke(main, [*BUILD, "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: --out: ")
    assert not out.exists()


@pytest.mark.parametrize("option", ["--out", "--model", "--device", "--config"])
def test_a_control_character_in_an_evaluate_option_is_refused(option, spud, tiny_gpt2, tmp_path):
    values = {"--dataset": str(spud), "--model": str(tiny_gpt2), "--out": str(tmp_path / "run"),
              "--device": "cpu", "--limit": "1", "--config": "en_seed1"}  # fmt: skip
    values[option] += f"\n{INJECTED}"
    args = [arg for pair in values.items() for arg in pair]
    result = CliRunner().invoke(main, ["evaluate", "score", *args])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"error: {option}: ")
    assert not any(tmp_path.iterdir())


def test_a_signature_edited_by_hand_is_refused_where_build_json_is_read(spud, tiny_gpt2, tmp_path):
    folder = shutil.copytree(spud, tmp_path / "spud")
    manifest = json.loads((folder / "build.json").read_text())
    manifest["signature"] += "\ndataset_kwargs: {data_files: /elsewhere}"
    (folder / "build.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match=r"build\.json: signature '.*' holds the control"):
        perturbed_ud.lm_eval_tasks(folder, tmp_path / "tasks")
    assert not (tmp_path / "tasks").exists()
    with pytest.raises(PushError, match=r"signature '.*' holds the control character '\\n'"):
        push_folder(folder, "me/spud", manifest["version"], dry_run=True, echo=lambda _: None)
    with pytest.raises(InputError, match=r"build\.json: signature"):
        perturbed_ud.evaluate("score", dataset=str(folder), model=str(tiny_gpt2),
                              out=str(tmp_path / "run"), limit=1)  # fmt: skip
    assert not (tmp_path / "run").exists()


def test_a_config_name_with_a_line_break_is_refused(spud, tmp_path):
    folder = shutil.copytree(spud, tmp_path / "spud")
    manifest = json.loads((folder / "build.json").read_text())
    manifest["configs"] = {f"{name}\n{INJECTED}": v for name, v in manifest["configs"].items()}
    (folder / "build.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match=r"'en_seed1\\ndataset_path: w/evil'") as refused:
        perturbed_ud.lm_eval_tasks(folder, tmp_path / "tasks")
    assert "\n" not in str(refused.value)  # the error line itself stays one line


def test_citations_keep_their_lines(spud):
    assert "\n" in json.loads((spud / "build.json").read_text())["treebanks"][0]["citation"]
    perturbed_ud.lm_eval_tasks(spud, spud.parent / "tasks")  # read back without complaint
    shutil.rmtree(spud.parent / "tasks")


def test_every_line_of_a_header_value_is_a_comment():
    manifest = {
        "dataset": "spud",
        "version": "1.0.0",
        "content_sha256": "0" * 64,
        "signature": "spud:1.0.0\rdataset_name: a\u2028dataset_name: b\x85x: 1\ny: 2",
    }
    data = {"dataset_path": f"me/w\n{INJECTED}", "dataset_kwargs": {"revision": "v1"}}
    text = header(manifest, data, "comment\nmore")
    assert all(line.startswith("#") for line in text.splitlines())
    assert len(text.splitlines()) == 11
    assert yaml.safe_load(text) is None


def test_a_dataset_folder_whose_path_holds_a_line_break_adds_no_yaml(spud, tmp_path):
    evil = tmp_path / f"w\n{INJECTED}"
    folder = shutil.copytree(spud, evil / "spud")
    tasks = perturbed_ud.lm_eval_tasks(folder, evil / "tasks")  # the tasks' data lie there too
    files = task_files(tasks)
    assert files["_rolling_template_yaml"]["dataset_path"] == "parquet"  # read beside utils.py
    for name, settings in files.items():
        if name != "_rolling_template_yaml":
            assert "dataset_path" not in settings, name
        assert "w/evil" not in json.dumps(settings), name


def test_a_table_cell_cannot_end_its_cell_or_row():
    cells = ["a|b", "c\nd\r\ne\u2028f", "`g|h`", "i\\|j", "k\\\\|l"]
    rows = table_rows(md.markdown_table(["x|y", "2", "3", "4", "5"], [cells]))
    assert rows == [["x|y", "2", "3", "4", "5"],
                    ["a|b", "c d e f", "`g|h`", "i\\\\|j", "k\\\\\\\\|l"]]  # fmt: skip


@pytest.mark.parametrize("text", ["plain", "r2`16", "`edge`", "a``b```c", "two\nlines"])
def test_inline_code_is_one_span_of_the_text(text):
    tokens = parser().parse(f"Signature: {md.inline_code(text)} end")
    (paragraph,) = [t for t in tokens if t.children]
    spans = [t.content for t in paragraph.children if t.type == "code_inline"]
    assert spans == [text.replace("\n", " ")]


def test_the_card_quotes_a_release_with_pipes_and_backticks(tmp_path):
    release = "r2|16`x"
    folder = build_spud(tmp_path, ud_release=release)
    manifest = json.loads((folder / "build.json").read_text())
    assert release in manifest["signature"]
    body = card_body(folder)
    spans = [
        child.content
        for token in parser().parse(body)
        if token.children
        for child in token.children
        if child.type == "code_inline"
    ]
    assert manifest["signature"] in spans
    treebanks = [row for row in table_rows(body) if row[0] == "UD_English-EWT"]
    assert treebanks and all(len(row) == 5 and row[2] == release for row in treebanks)


SECRET = "hf_" + "s3Cr3t" * 6  # shaped as a Hub token
ENV_SECRET = "not-shaped-like-a-token-42"  # found only as the value of $HF_TOKEN


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pretrained=x,token=abc123,dtype=float32", "pretrained=x,token=[redacted],dtype=float32"),
        ('{"api_key": "sk-1"}', '{"api_key": "[redacted]"}'),
        ("Authorization: Bearer abc.DEF", "Authorization: Bearer [redacted]"),
        ("authorization=xyz", "authorization=[redacted]"),
        (f"model {SECRET} here", "model [redacted] here"),
        (f"x {ENV_SECRET}", "x [redacted]"),
        *[(kept, kept) for kept in ("add_bos_token=True,max_new_tokens=5", "tokenizer=t")],
        ("hf_hub_download", "hf_hub_download"),
        ("pretrained=https://alice:S3cretPassw0rd@models.example.com/m",
         "pretrained=https://alice:[redacted]@models.example.com/m"),
        ("auth=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123", "auth=[redacted]"),
        ("clone ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123", "clone [redacted]"),
        *[(kept, kept) for kept in ("author=Jane", "https://example.com/a@b", "authority: x")],
        ("token=[abc] x", "token=[redacted] x"),
    ],
)  # fmt: skip
def test_redact(text, expected, monkeypatch):
    from perturbed_ud.redaction import redact

    monkeypatch.setenv("HF_TOKEN", ENV_SECRET)
    assert redact(text) == expected
    assert redact(expected) == expected, "redacting twice changes nothing"


def lm_eval_results(path, model_args: str):
    results = {
        "results": {"spud_ppl": {"alias": "spud_ppl", "word_perplexity,none": 12.5}},
        "versions": {"spud_ppl": 1},
        "config": {"model": "hf", "model_args": model_args, "batch_size": 1},
        "configs": {"spud_ppl": {"dataset_path": "/data/spud",
                                 "dataset_kwargs": {"token": "kw-secret-1"}}},
        "model_name": model_args,
        "lm_eval_version": "0.4.9",
    }  # fmt: skip
    path.write_text(json.dumps(results), encoding="utf-8")
    return path


def test_the_report_shows_no_token_of_a_results_file_or_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", ENV_SECRET)
    model_args = f"pretrained=gpt2,token={SECRET},revision={ENV_SECRET}"
    results = lm_eval_results(tmp_path / "lm.json", model_args)
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(results), "--out", str(page)])
    assert result.exit_code == 0, result.output
    written = page.read_bytes()
    for secret in (SECRET, ENV_SECRET, "kw-secret-1", SECRET[:12]):
        assert secret.encode() not in written
        assert secret not in result.output
    assert b"pretrained=gpt2,token=[redacted]" in written


def test_summary_tables_show_no_token(tmp_path):
    import pandas as pd

    from perturbed_ud.evaluation.reporting.tables import write_table

    table = pd.DataFrame({"model_name": [f"pretrained=x,token={SECRET}"], "N": [3]})
    written = write_table(table, tmp_path / "summary.csv", markdown=True)
    assert len(written) == 2
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert SECRET not in text and "token=[redacted]" in text


def test_an_error_line_shows_no_token(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", ENV_SECRET)
    missing = tmp_path / f"model-{ENV_SECRET}"
    args = ["evaluate", "score", "--dataset", str(tmp_path / f"data-{SECRET}"),
            "--model", str(missing), "--out", str(tmp_path / "run")]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and result.stderr.startswith("error: ")
    assert SECRET not in result.stderr and ENV_SECRET not in result.stderr
    assert "[redacted]" in result.stderr
