"""A build never loses or half-writes a dataset: one writer per folder, kills cleaned up after,
an existing dataset swapped out in one step, and a full or read-only disk, a file in the way
or a folder of something else reported as an ``error:`` line that names it."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from processes import alive, descendants

import perturbed_ud.data.writer as writer
from perturbed_ud.cli import main
from perturbed_ud.files import exclusive

ENGLISH = UD_ROOT / "UD_English-PUD" / "en_pud-ud-test.conllu"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def build(out: Path, *options: str):
    args = ["build", "perturbed-ud", "--files", str(ENGLISH), "--seeds", "1", "--limit", "20"]
    return CliRunner().invoke(main, [*args, "--out", str(out), *options])


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_second_writer_of_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    assert build(out).exit_code == 0
    before = (out / "perturbed-ud" / "build.json").read_bytes()
    with exclusive(out / ".perturbed-ud.lock", "the first build"):
        result = build(out, "--overwrite")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {out / 'perturbed-ud'} is being written by another process; "
        "wait for it to finish\n"
    )
    assert (out / "perturbed-ud" / "build.json").read_bytes() == before
    assert names(out) == ["perturbed-ud"], "the lock file goes with its holder"


def test_what_a_killed_build_left_is_cleaned_and_a_hidden_old_copy_restored(tmp_path):
    out = tmp_path / "out"
    assert build(out).exit_code == 0
    # A kill between the two renames of a swap, on a system without an atomic exchange:
    # the old copy set aside, nothing under the name, and the new build's temporary folder.
    (out / "perturbed-ud").rename(out / ".perturbed-ud.old-4242")
    (out / ".perturbed-ud.partial-4243" / "en_full_seed1").mkdir(parents=True)
    result = build(out)
    assert result.exit_code == 1 and "exists; pass --overwrite" in result.stderr
    assert names(out) == ["perturbed-ud"]
    assert (out / "perturbed-ud" / "build.json").is_file()


def test_overwrite_without_an_atomic_exchange_restores_the_old_copy_after_a_kill(
    tmp_path, monkeypatch
):
    out = tmp_path / "out"
    assert build(out).exit_code == 0
    old = (out / "perturbed-ud" / "build.json").read_bytes()
    monkeypatch.setattr(writer, "_exchange", lambda a, b: False)
    replace = os.replace

    def killed_on_the_second_rename(src, dst):
        if Path(src).name.startswith(".perturbed-ud.partial-"):
            raise KeyboardInterrupt  # the kill, between the two renames
        replace(src, dst)

    monkeypatch.setattr(writer.os, "replace", killed_on_the_second_rename)
    assert build(out, "--overwrite", "--limit", "10").exit_code == 130
    monkeypatch.setattr(writer.os, "replace", replace)
    assert not (out / "perturbed-ud").exists() and list(out.glob(".perturbed-ud.old-*"))
    result = build(out, "--limit", "10")
    assert result.exit_code == 1 and "exists" in result.stderr
    assert (out / "perturbed-ud" / "build.json").read_bytes() == old
    assert names(out) == ["perturbed-ud"]


@linux_only
def test_overwrite_swaps_in_one_exchange(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert build(out).exit_code == 0
    seen = []

    def watched_exchange(a, b):
        swapped = exchange(a, b)
        seen.append((swapped, (b / "build.json").is_file(), (a / "build.json").is_file()))
        return swapped

    exchange = writer._exchange
    monkeypatch.setattr(writer, "_exchange", watched_exchange)
    assert build(out, "--overwrite", "--limit", "10").exit_code == 0
    assert seen == [(True, True, True)], "both copies whole at the moment of the swap"
    rows = pq.read_metadata(next((out / "perturbed-ud" / "en_full_seed1").glob("full-*"))).num_rows
    assert rows < 20 and names(out) == ["perturbed-ud"]


@pytest.mark.parametrize("kind", ["file", "symlink", "folder of something else"])
def test_overwrite_replaces_only_a_dataset_folder(tmp_path, kind):
    out = tmp_path / "out"
    out.mkdir()
    target = out / "perturbed-ud"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_text("mine", encoding="utf-8")
    if kind == "file":
        target.write_text("mine", encoding="utf-8")
    elif kind == "symlink":
        target.symlink_to(elsewhere)
    else:
        target.mkdir()
        (target / "notes.txt").write_text("mine", encoding="utf-8")
    result = build(out, "--overwrite")
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"error: {target} is ")
    assert "Traceback" not in result.output
    assert names(out) == ["perturbed-ud"]
    assert (elsewhere / "notes.txt").read_text(encoding="utf-8") == "mine"
    if kind != "symlink":
        assert (target.read_text if kind == "file" else (target / "notes.txt").read_text)(
            encoding="utf-8"
        ) == "mine"


def test_a_full_disk_mid_build_is_an_error_line_and_leaves_nothing(tmp_path, monkeypatch):
    def full(self, table, row_group_size=None):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer.pq.ParquetWriter, "write_table", full)
    out = tmp_path / "out"
    result = build(out)
    assert result.exit_code == 1
    assert result.stderr == f"error: cannot write {out / 'perturbed-ud'}: No space left on device\n"
    assert not out.exists()


def test_a_read_only_file_system_is_an_error_line(tmp_path, monkeypatch):
    def read_only(path, mode=0o777, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(os, "mkdir", read_only)
    out = tmp_path / "out"
    result = build(out)
    assert result.exit_code == 1
    assert result.stderr == f"error: cannot create {out}: Read-only file system\n"


def test_out_below_a_file_is_an_error_line(tmp_path):
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    result = build(tmp_path / "file.txt" / "out")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: cannot create {tmp_path / 'file.txt' / 'out'}: ")
    assert "Traceback" not in result.output


def test_a_really_full_disk_is_an_error_line_and_leaves_nothing(tiny_filesystem):
    out = tiny_filesystem / "out"
    args = ["--limit", "100", "--seeds", "1,2,3,4,5,6"]
    result = CliRunner().invoke(
        main, ["build", "perturbed-ud", "--files", str(ENGLISH), *args, "--out", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert result.stderr == f"error: cannot write {out / 'perturbed-ud'}: No space left on device\n"
    assert not out.exists()


def test_folders_get_the_users_usual_mode(tmp_path):
    previous = os.umask(0o022)
    try:
        assert build(tmp_path).exit_code == 0
    finally:
        os.umask(previous)
    assert (tmp_path / "perturbed-ud").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "perturbed-ud" / "en_full_seed1").stat().st_mode & 0o777 == 0o755


def test_a_file_whose_every_sentence_is_dropped_is_named_with_its_drop_counts(tmp_path):
    path = tmp_path / "en_x-ud-test.conllu"
    path.write_text(
        "# sent_id = a\n1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_\n\n"
        "# sent_id = b\n1\tYes\tyes\tINTJ\t_\t_\t0\troot\t_\t_\n\n",
        encoding="utf-8",
    )
    args = ["build", "perturbed-ud", "--files", str(path), "--seeds", "1,2"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.stderr == (
        "error: no sentence produced a row; every one was dropped:\n"
        f"  {path}: 2 sentences read; drops over 2 seed(s): no_content_word 4\n"
    )


@pytest.mark.subprocess
@linux_only
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_killed_worker_build_leaves_no_process_and_its_leftovers_go_next_time(tmp_path, sig):
    """Ctrl-C (SIGINT) ends it with one line and status 130, as a shell reports it."""
    out = tmp_path / "out"
    seeds = ",".join(map(str, range(1, 41)))  # long enough to be killed mid-build
    command = [sys.executable, "-c", "from perturbed_ud.cli import main; main()", "build",
               "perturbed-ud", "--langs", "en,de", "--seeds", seeds, "--workers", "2",
               "--out", str(out)]  # fmt: skip
    build_process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while len(workers := descendants(build_process.pid)) < 2 or not list(out.glob(".*partial*")):
        assert build_process.poll() is None, build_process.communicate()
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.2)
    time.sleep(1)  # the workers are writing
    build_process.send_signal(sig)
    _, stderr = build_process.communicate(timeout=30)
    assert build_process.returncode == (-sig if sig == signal.SIGKILL else 128 + sig)
    if sig == signal.SIGINT:
        assert stderr.decode() == (
            f"interrupted: {out / 'perturbed-ud'} was not written (a build is written whole or "
            "not at all)\n"
        )
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers):
        assert time.monotonic() < deadline, "workers outlived their build"
        time.sleep(0.2)
    if sig != signal.SIGKILL:  # unwound: its temporary folder, and the --out it made, gone
        assert not out.exists()
    result = build(out)
    assert result.exit_code == 0, result.output
    assert names(out) == ["perturbed-ud"]
