"""No command writes outside its --out, over a device, FIFO or symlink, or into what it reads.

Each command that writes is pointed at its own input dataset (or run, items, grammars) and at
a non-regular file; it ends in one ``error:`` line and the input is byte for byte as before.
Symlinks planted in a run folder (the chunks folder, a lock file, run.json) are refused, never
followed, and the temporary files of a killed writer are removed by the next one."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner
from conftest import UD_ROOT, tree_digest

import perturbed_ud
from perturbed_ud.builders.clams import DEFAULT_GRAMMARS
from perturbed_ud.cli import main
from perturbed_ud.errors import OutputError
from perturbed_ud.files import atomic_path

UD = {"ud_root": UD_ROOT, "langs": ["en"], "seeds": [1], "limit": 5}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A small spud and perturbed-ud build, and a score run of the spud build."""
    out = tmp_path_factory.mktemp("data")
    perturbed_ud.build("spud", out, **UD)
    perturbed_ud.build("perturbed-ud", out, scrambles=["head"], **UD)
    return out


@pytest.fixture(scope="module")
def run(data, tiny_gpt2, tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "score"
    result = cli("evaluate", "score", "--dataset", data / "spud", "--model", tiny_gpt2,
                 "--limit", "3", "--out", folder)  # fmt: skip
    assert result.exit_code == 0, result.output
    return folder


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def refused(result, message: str) -> None:
    """One ``error:`` line containing ``message``, exit status 1, no traceback."""
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1


def unchanged(folder, command):
    """``command()``'s result; ``folder`` holds the same files with the same bytes after it."""
    before = tree_digest(folder)
    result = command()
    assert tree_digest(folder) == before, f"{folder} was changed"
    return result


# --- Devices, FIFOs and symlinks are never replaced -----------------------------------------


def special_file(kind: str, path, elsewhere):
    """A character device (as root; /dev/null's numbers), a FIFO or a symlink at ``path``."""
    if kind == "device":
        if os.geteuid() != 0:
            pytest.skip("mknod needs root")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        elsewhere.write_text("kept\n", encoding="utf-8")
        path.symlink_to(elsewhere)
    return os.lstat(path)


def same_node(path, before) -> bool:
    after = os.lstat(path)
    return (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


@pytest.mark.parametrize("kind", ["device", "fifo", "symlink"])
def test_export_conllu_never_replaces_a_device_fifo_or_symlink(data, tmp_path, kind):
    target, elsewhere = tmp_path / "mynull", tmp_path / "elsewhere.txt"
    before = special_file(kind, target, elsewhere)
    result = cli("export-conllu", data / "spud", "--config", "en_seed1", "--split", "orig",
                 "--out", target)  # fmt: skip
    refused(result, "only a regular file is replaced")
    assert same_node(target, before)
    assert kind != "symlink" or elsewhere.read_text(encoding="utf-8") == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("kind", ["device", "fifo", "symlink"])
def test_report_never_replaces_a_device_fifo_or_symlink(run, tmp_path, kind):
    target = tmp_path / "report.html"
    before = special_file(kind, target, tmp_path / "elsewhere.html")
    refused(cli("report", run, "--out", target), "only a regular file is replaced")
    assert same_node(target, before)


def test_a_regular_file_is_still_replaced(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")
    with atomic_path(target) as tmp:
        tmp.write_text("new", encoding="utf-8")
    assert target.read_text(encoding="utf-8") == "new"
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(OutputError, match="is a folder"), atomic_path(folder) as tmp:
        tmp.write_text("new", encoding="utf-8")


def test_a_temporary_file_planted_as_a_symlink_is_not_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("kept\n", encoding="utf-8")
    target = tmp_path / "out" / "scores.csv"
    target.parent.mkdir()
    with atomic_path(target) as tmp:
        planted = tmp  # the name is predictable: plant a link there for the next writer
        tmp.write_text("a,b\n", encoding="utf-8")
    planted.symlink_to(elsewhere)
    with atomic_path(target) as tmp:
        tmp.write_text("c,d\n", encoding="utf-8")
    assert elsewhere.read_text(encoding="utf-8") == "kept\n"
    assert target.read_text(encoding="utf-8") == "c,d\n"


# --- An output never lands in what the command reads ----------------------------------------


def test_evaluate_refuses_a_run_folder_inside_its_dataset(data, tiny_gpt2):
    dataset = data / "spud"
    result = unchanged(dataset, lambda: cli(
        "evaluate", "score", "--dataset", dataset, "--model", tiny_gpt2, "--limit", "3",
        "--out", dataset / "runs" / "gpt2",
    ))  # fmt: skip
    refused(result, f"is inside the input {dataset}")


def test_evaluate_refuses_a_run_folder_inside_its_model(data, tiny_gpt2):
    result = unchanged(tiny_gpt2, lambda: cli(
        "evaluate", "score", "--dataset", data / "spud", "--model", tiny_gpt2, "--limit", "3",
        "--out", tiny_gpt2 / "run",
    ))  # fmt: skip
    refused(result, f"is inside the input {tiny_gpt2}")


def test_balance_refuses_an_output_inside_or_around_its_dataset(data, tiny_bert, tmp_path):
    dataset = data / "perturbed-ud"
    for out in (dataset / "inner", dataset):
        result = unchanged(dataset, lambda out=out: cli(
            "balance", "--dataset", dataset, "--tokenizer", tiny_bert, "--out", out,
        ))  # fmt: skip
        refused(result, f"input {dataset}")
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy / "perturbed-ud")
    result = unchanged(copy, lambda: cli(
        "balance", "--dataset", copy / "perturbed-ud", "--tokenizer", tiny_bert, "--out", copy,
        "--overwrite",
    ))  # fmt: skip
    refused(result, "is inside --out")


def test_build_refuses_an_output_inside_its_treebanks(tmp_path):
    root = tmp_path / "ud"
    shutil.copytree(UD_ROOT / "UD_English-PUD", root / "UD_English-PUD")
    options = ["--langs", "en", "--treebank", "en=UD_English-PUD", "--seeds", "1", "--limit", "3"]
    for out in (root, root / "UD_English-PUD"):
        result = unchanged(root, lambda out=out: cli(
            "build", "spud", "--ud-root", root, *options, "--out", out,
        ))  # fmt: skip
        refused(result, f"is inside the input {root}")


def test_an_overwritten_build_never_holds_its_own_input(tmp_path):
    options = ["--langs", "en", "--treebank", "en=UD_English-PUD", "--seeds", "1", "--limit", "3"]
    assert cli("build", "spud", "--ud-root", UD_ROOT, *options, "--out", tmp_path).exit_code == 0
    root = tmp_path / "spud" / "ud"
    shutil.copytree(UD_ROOT / "UD_English-PUD", root / "UD_English-PUD")
    result = unchanged(tmp_path, lambda: cli(
        "build", "spud", "--ud-root", root, *options, "--out", tmp_path, "--overwrite",
    ))  # fmt: skip
    refused(result, "is inside --out")


def test_local_structure_refuses_an_output_inside_its_tokenizer(tiny_bert):
    result = unchanged(tiny_bert, lambda: cli(
        "build", "local_structure", "--ud-root", UD_ROOT, "--langs", "en", "--limit", "3",
        "--seeds", "1", "--tokenizer", tiny_bert, "--out", tiny_bert,
    ))  # fmt: skip
    refused(result, f"is inside the input {tiny_bert}")


def test_export_conllu_never_overwrites_its_dataset(data):
    dataset = data / "spud"
    result = unchanged(dataset, lambda: cli(
        "export-conllu", dataset, "--config", "en_seed1", "--split", "orig",
        "--out", dataset / "README.md",
    ))  # fmt: skip
    refused(result, f"is inside the input {dataset}")


def test_lm_eval_tasks_are_not_written_into_their_dataset(data):
    dataset = data / "spud"
    result = unchanged(dataset, lambda: cli("lm-eval-tasks", dataset, "--out", dataset))
    refused(result, f"is inside the input {dataset}")


def test_report_probe_table_and_summarize_keep_out_of_their_inputs(data, run):
    result = unchanged(run, lambda: cli("report", run, "--out", run / "results.json"))
    refused(result, f"is inside the input {run}")
    result = unchanged(run, lambda: cli("probe-table", run, "--out", run / "table"))
    refused(result, f"is inside the input {run}")
    items = run / "scores.parquet"
    dataset = data / "perturbed-ud"
    result = unchanged(run, lambda: cli("summarize", items, "--out", items))
    refused(result, f"is the input {items}")
    result = unchanged(dataset, lambda: cli(
        "summarize", items, "--dataset", dataset, "--out", dataset / "summary"
    ))  # fmt: skip
    refused(result, f"is inside the input {dataset}")


def test_review_and_clams_generate_keep_out_of_their_inputs(data, tmp_path):
    dataset = data / "spud"
    result = unchanged(dataset, lambda: cli("review", dataset, "--out", dataset / "review"))
    refused(result, f"is inside the input {dataset}")
    grammars = tmp_path / "grammars"
    shutil.copytree(DEFAULT_GRAMMARS / "en", grammars)
    result = unchanged(grammars, lambda: cli("clams-generate", grammars, grammars / "out"))
    refused(result, f"is inside the input {grammars}")


# --- Symlinks in a run folder are never followed ------------------------------------------


@pytest.mark.parametrize("planted", ["chunks", ".rank0.lock", "run.json"])
def test_a_symlink_planted_in_a_run_folder_is_refused(data, tiny_gpt2, tmp_path, planted):
    run = tmp_path / "run"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x").write_text("kept\n", encoding="utf-8")
    run.mkdir()
    (run / planted).symlink_to(elsewhere if planted == "chunks" else elsewhere / "x")
    result = unchanged(elsewhere, lambda: cli(
        "evaluate", "score", "--dataset", data / "spud", "--model", tiny_gpt2, "--limit", "3",
        "--out", run,
    ))  # fmt: skip
    refused(result, "symlink")
    assert (run / planted).is_symlink()


# --- Temporary files of killed writers ------------------------------------------------------


def dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_leftovers_of_dead_writers_are_removed_and_live_ones_kept(data, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    host = socket.gethostname().replace(".", "_")
    dead = [out / f".en.conllu.{host}-{dead_pid()}.partial", out / f".x.{dead_pid()}.partial"]
    kept = [
        out / f".en.conllu.{host}-{os.getppid()}.partial",  # alive: perhaps being written
        out / f".en.conllu.otherhost-{dead_pid()}.partial",  # its process is on another host
    ]
    for path in dead + kept:
        path.write_text("half", encoding="utf-8")
    result = cli("export-conllu", data / "spud", "--config", "en_seed1", "--split", "orig",
                 "--out", out / "en.conllu")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(out.iterdir()) == sorted([out / "en.conllu", *kept])


@pytest.mark.subprocess
def test_a_writer_killed_mid_write_leaves_nothing_after_the_next_run(data, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    script = textwrap.dedent(f"""
        import os, signal
        from perturbed_ud.files import open_output
        with open_output({str(out / "en.conllu")!r}) as text:
            text.write("# sent_id = 1\\n")
            text.flush()
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    killed = subprocess.run([sys.executable, "-c", script], env=env, check=False)
    assert killed.returncode == -signal.SIGKILL
    assert [p.name for p in out.iterdir() if p.name.endswith(".partial")], "nothing left?"
    result = cli("export-conllu", data / "spud", "--config", "en_seed1", "--split", "orig",
                 "--out", out / "en.conllu")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert [p.name for p in out.iterdir()] == ["en.conllu"]


def test_a_resumed_run_removes_the_partial_chunk_of_a_killed_one(data, tiny_gpt2, tmp_path):
    run = tmp_path / "run"
    args = ["evaluate", "score", "--dataset", data / "spud", "--model", tiny_gpt2,
            "--limit", "3", "--out", run]  # fmt: skip
    assert cli(*args).exit_code == 0
    chunk = sorted((run / "chunks").rglob("*.parquet"))[-1]
    host = socket.gethostname().replace(".", "_")
    partial = chunk.with_name(f".{chunk.name}.{host}-{dead_pid()}.partial")
    chunk.rename(partial)  # as a kill between writing a chunk and renaming it leaves it
    result = cli(*args)
    assert result.exit_code == 0, result.output
    assert chunk.is_file() and not partial.exists()
    assert not [p for p in run.rglob("*.partial")]
