"""Malformed inputs end a command with one ``error:`` line naming the file and what is wrong,
never a traceback: JSON nested too deeply for the parser, a hand-made build.json, a probe row
whose columns differ in length, a words column that holds no words, a damaged chunk (scored
again), an empty path, a compressed file that expands without end."""

from __future__ import annotations

import gzip
import json
import lzma
import shutil

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from datasets import ClassLabel, Dataset

from perturbed_ud.cli import main
from perturbed_ud.errors import InputError
from perturbed_ud.evaluation.tasks.probe import PROTOCOLS, Sentences
from perturbed_ud.files import open_decompressed
from perturbed_ud.ud.conllu_io import LINE_LIMIT

NESTED = "[" * 100_000 + "]" * 100_000  # deeper than Python's JSON parser can recurse
TOO_DEEP = "not a JSON file we can read (nested too deeply)"
UD = ["--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1", "--limit", "4"]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_refused(result, message: str) -> None:
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert f"error: {message}" in result.output


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A spud and a local_structure build, and a score run of the spud one."""
    out = tmp_path_factory.mktemp("data")
    for family in ("spud", "local_structure"):
        assert invoke("build", family, *UD, "--out", out).exit_code == 0
    return out


@pytest.fixture(scope="module")
def run(built, tiny_gpt2, tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "score"
    result = score(built / "spud", tiny_gpt2, folder)
    assert result.exit_code == 0, result.output
    return folder


def score(dataset, model, out, *options):
    return invoke("evaluate", "score", "--dataset", dataset, "--model", model, *options,
                  "--out", out)  # fmt: skip


def copy(folder, tmp_path):
    return shutil.copytree(folder, tmp_path / folder.name)


# --- JSON nested too deeply ------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "score", "--dataset", "{ds}", "--model", "{gpt2}", "--out", "{tmp}/run"],
        ["lm-eval-tasks", "{ds}", "--out", "{tmp}/tasks"],
        ["push", "{ds}", "--repo-id", "me/x", "--version", "1.0.0", "--dry-run"],
        ["balance", "--dataset", "{ds}", "--tokenizer", "{gpt2}", "--out", "{tmp}/balanced"],
        ["review", "{ds}", "--out", "{tmp}/review"],
    ],
    ids=lambda command: command[0],
)
def test_a_build_json_nested_too_deeply_is_named(built, tmp_path, tiny_gpt2, command, no_hub):
    folder = copy(built / "spud", tmp_path)
    (folder / "build.json").write_text(NESTED)
    values = {"ds": folder, "tmp": tmp_path, "gpt2": tiny_gpt2}
    result = invoke(*(part.format(**values) for part in command))
    assert_refused(result, f"{folder / 'build.json'}: {TOO_DEEP}")


@pytest.mark.parametrize(
    "command",
    [["report", "{run}", "--out", "{tmp}/page.html"], ["probe-table", "{run}", "--out", "{tmp}/t"]],
)
def test_a_results_json_nested_too_deeply_is_named(run, tmp_path, command):
    folder = copy(run, tmp_path)
    (folder / "results.json").write_text(NESTED)
    result = invoke(*(part.format(run=folder, tmp=tmp_path) for part in command))
    assert_refused(result, f"{folder / 'results.json'}: {TOO_DEEP}")


def test_a_run_json_nested_too_deeply_is_named_on_resume(built, run, tmp_path, tiny_gpt2):
    folder = copy(run, tmp_path)
    (folder / "run.json").write_text(NESTED)
    result = score(built / "spud", tiny_gpt2, folder)
    assert_refused(result, f"{folder / 'run.json'} is unreadable")
    assert TOO_DEEP in result.output


def test_an_items_line_nested_too_deeply_is_named(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(NESTED + "\n")
    assert_refused(invoke("summarize", items, "--out", tmp_path / "out"), f"{items}: cannot read")


# --- A hand-made build.json ------------------------------------------------------------------


def without_parameters(m):
    del m["parameters"]


def parameters_a_string(m):
    m["parameters"] = "x"


def configs_a_list(m):
    m["configs"] = [1, 2]


def a_config_a_string(m):
    m["configs"] = {"en_seed1": "x"}


def dataset_a_list(m):
    m["dataset"] = ["spud"]


def a_split_leaving_the_folder(m):
    config = next(iter(m["configs"].values()))
    config["splits"] = {"../../x": 4, **config["splits"]}


def no_text_columns(m):
    m["parameters"]["text_columns"] = ""


EDITS = [
    ("local_structure", without_parameters, "parameters"),
    ("spud", parameters_a_string, "parameters must be an object, not a string"),
    ("spud", configs_a_list, "configs must be an object, not a list"),
    ("spud", a_config_a_string, "configs['en_seed1'] must be an object, not a string"),
    ("spud", dataset_a_list, "dataset must be a string, not a list"),
    ("spud", a_split_leaving_the_folder, "configs['en_seed1']: split '../../x' cannot name a file"),
    ("local_structure", no_text_columns, "parameters.text_columns must name the text columns"),
]
COMMANDS = {
    "evaluate": ["evaluate", "score", "--dataset", "{ds}", "--model", "{gpt2}", "--out", "{tmp}/r"],
    "lm-eval-tasks": ["lm-eval-tasks", "{ds}", "--out", "{tmp}/tasks"],
    "balance": ["balance", "--dataset", "{ds}", "--tokenizer", "{gpt2}", "--out", "{tmp}/b"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name, edit, message", EDITS, ids=[e[1].__name__ for e in EDITS])
def test_a_hand_made_build_json_is_refused_naming_the_field(
    built, tmp_path, tiny_gpt2, name, edit, message, command
):
    folder = copy(built / name, tmp_path)
    manifest = json.loads((folder / "build.json").read_text())
    edit(manifest)
    (folder / "build.json").write_text(json.dumps(manifest))
    values = {"ds": folder, "tmp": tmp_path, "gpt2": tiny_gpt2}
    result = invoke(*(part.format(**values) for part in COMMANDS[command]))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert result.output.startswith(f"error: {folder / 'build.json'}")
    assert message in result.output


def test_push_refuses_a_split_leaving_the_folder(built, tmp_path, no_hub):
    folder = copy(built / "spud", tmp_path)
    manifest = json.loads((folder / "build.json").read_text())
    a_split_leaving_the_folder(manifest)
    (folder / "build.json").write_text(json.dumps(manifest))
    result = invoke("push", folder, "--repo-id", "me/x", "--version", "3.2.0", "--dry-run")
    assert_refused(result, f"{folder / 'build.json'}: configs['en_seed1']: split '../../x'")


# --- Rows and columns ------------------------------------------------------------------------


def test_a_probe_row_with_fewer_heads_than_forms_is_named(built):
    """The rows the probe reads, one of them with a head cut off: refused naming the row,
    where its gold distances and word vectors would not have lined up."""
    table = pq.read_table(next((built / "spud" / "en_seed1").glob("orig-*.parquet")))
    rows = table.to_pydict()
    rows["heads"][0] = rows["heads"][0][:-1]
    columns = ("sent_id", "forms", "upos", "heads", "deprels", "multiword_tokens", "empty_nodes")
    with pytest.raises(InputError) as refused:
        Sentences.of(*(rows[c] for c in columns), PROTOCOLS["paper"])
    words = len(rows["forms"][0])
    assert str(refused.value) == (
        f"sentence {rows['sent_id'][0]!r} has {words} forms, {words} upos, {words - 1} heads, "
        f"{words} deprels: every word needs one of each"
    )


@pytest.fixture
def labelled(tmp_path):
    """A local_structure build of texts with an integer label column."""
    rows = {"premise": ["A man sleeps on the sofa.", "Dogs bark.", "The train leaves at eight."],
            "label": [0, 2, 1]}  # fmt: skip
    ds = Dataset.from_dict(rows).cast_column("label", ClassLabel(names=["e", "n", "c"]))
    (tmp_path / "nli" / "data").mkdir(parents=True)
    ds.to_parquet(tmp_path / "nli" / "data" / "validation.parquet")
    result = invoke("build", "local_structure", "--hf-dataset", tmp_path / "nli", "--hf-split",
                    "validation", "--text-columns", "premise", "--langs", "en", "--seeds", "1",
                    "--out", tmp_path / "built")  # fmt: skip
    assert result.exit_code == 0, result.output
    return tmp_path / "built" / "local_structure"


def test_a_words_column_of_labels_is_refused(labelled, tmp_path, tiny_gpt2):
    result = score(labelled, tiny_gpt2, tmp_path / "run", "--words-column", "label")
    assert_refused(result, "the words column 'label' holds int values, not texts or lists of words")


def test_an_emptied_chunk_is_scored_again(built, run, tmp_path, tiny_gpt2):
    """A chunk cut to 0 bytes (a full disk, a careless edit) is not taken for done: the resume
    says so, scores it again and ends with the scores of the run it came from."""
    folder = copy(run, tmp_path)
    chunk = next((folder / "chunks").rglob("*.parquet"))
    chunk.write_bytes(b"")
    result = score(built / "spud", tiny_gpt2, folder)
    assert result.exit_code == 0, result.output
    assert f"{chunk} is unreadable" in result.output and "scoring it again" in result.output
    assert pq.read_table(chunk).equals(pq.read_table(run / chunk.relative_to(folder)))
    assert (folder / "scores.parquet").read_bytes() == (run / "scores.parquet").read_bytes()


# --- Empty paths -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, option",
    [
        (["evaluate", "score", "--dataset", "", "--model", "m", "--out", "o"], "'--dataset'"),
        (["evaluate", "score", "--dataset", "d", "--model", "", "--out", "o"], "'--model'"),
        (["evaluate", "score", "--dataset", "d", "--model", "m", "--out", ""], "'--out'"),
        (["build", "spud", "--ud-root", "", "--out", "o"], "'--ud-root'"),
        (["lm-eval-tasks", "", "--out", "o"], "'DATASET'"),
        (["balance", "--dataset", ".", "--tokenizer", "", "--out", "o"], "'--tokenizer'"),
    ],
)
def test_an_empty_path_is_refused(tmp_path, monkeypatch, args, option):
    """An empty --dataset would have scanned the folder the command runs in."""
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 1 and result.output.startswith(f"error: {option} is empty: give")
    assert list(tmp_path.iterdir()) == []


# --- Decompression bombs ---------------------------------------------------------------------


@pytest.mark.parametrize("suffix, compress", [(".gz", gzip.compress), (".xz", lzma.compress)])
def test_a_file_expanding_past_its_limit_is_refused(tmp_path, suffix, compress):
    """8 MiB of zeros in a few KB: read through a 1 MiB limit, it stops there."""
    bomb = tmp_path / f"bomb.conllu{suffix}"
    bomb.write_bytes(compress(bytes(8 << 20)))
    refused = pytest.raises(InputError, match=r"expands to more than 1,048,576 bytes")
    with refused, open_decompressed(bomb, limit=1 << 20) as f:
        while f.read(1 << 16):
            pass
    with open_decompressed(bomb, limit=8 << 20) as f:  # what stays under its limit is read
        assert len(f.read()) == 8 << 20


def test_a_bomb_of_one_endless_line_is_refused_at_that_line(tmp_path):
    """No newline in 65 MiB: the build stops at line 1 instead of holding it all."""
    bomb = tmp_path / "en_bomb-ud-test.conllu.gz"
    bomb.write_bytes(gzip.compress(b"x" * (LINE_LIMIT + 1024), compresslevel=1))
    result = invoke("build", "perturbed-ud", "--files", bomb, "--seeds", 1, "--out", tmp_path / "o")
    assert_refused(result, f"{bomb}:1: line longer than {LINE_LIMIT:,} bytes")
