"""Every output file is written whole or not at all: a full disk (an injected ENOSPC) leaves
the earlier file, or no file, under the final name, no temporary files, and an ``error:``
line naming the file; a run.json torn before writes were atomic is named, not parsed."""

from __future__ import annotations

import errno
import json
import os

import pytest
from click.testing import CliRunner

import perturbed_ud.files as files
from perturbed_ud.builders.clams import DEFAULT_GRAMMARS
from perturbed_ud.cli import main
from perturbed_ud.errors import OutputError
from perturbed_ud.files import atomic_path, open_output

FULL = OSError(errno.ENOSPC, "No space left on device")


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "scores.parquet"
    target.write_text("old", encoding="utf-8")
    failure = pytest.raises(OutputError, match=r"cannot write .*scores.parquet: No space left")
    with failure, atomic_path(target) as tmp:
        tmp.write_text("half of the new", encoding="utf-8")
        raise FULL
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.parquet"]


def test_text_appears_under_its_name_only_when_complete(tmp_path):
    target = tmp_path / "out.conllu"
    with open_output(target) as out:
        out.write("# sent_id = 1\n")
        assert not target.exists(), "nothing under the final name while writing"
    assert target.read_text(encoding="utf-8") == "# sent_id = 1\n"


def test_clams_generate_on_a_full_disk_leaves_no_truncated_evalset(tmp_path, monkeypatch):
    grammars = tmp_path / "grammars"
    grammars.mkdir()
    source = DEFAULT_GRAMMARS / "en"
    for path in source.glob("*.avg"):
        (grammars / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    calls = []
    fsync = os.fsync

    def fails_third(fd):
        calls.append(fd)
        if len(calls) == 3:
            raise FULL
        return fsync(fd)

    monkeypatch.setattr(files.os, "fsync", fails_third)
    result = CliRunner().invoke(main, ["clams-generate", str(grammars), str(out)])
    assert result.exit_code == 1
    assert "error: cannot write" in result.output and "No space left" in result.output
    assert "Traceback" not in result.output
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 2 and all(name.endswith(".txt") for name in written)
    for name in written:  # the two that were written are whole
        assert (out / name).read_text(encoding="utf-8").endswith("\n")


def test_a_torn_run_json_is_named_in_the_error(tmp_path, tiny_bert):
    data = tmp_path / "data"
    build = CliRunner().invoke(
        main, ["build", "clams", "--langs", "en", "--out", str(data)], catch_exceptions=False
    )
    assert build.exit_code == 0
    run = tmp_path / "run"
    chunk = run / "chunks" / "en" / "00000.parquet"
    chunk.parent.mkdir(parents=True)
    chunk.write_bytes(b"PAR1")
    (run / "run.json").write_bytes(b"")  # what a full disk left before writes were atomic
    args = ["evaluate", "minimal-pair", "--dataset", str(data / "clams"),
            "--model", str(tiny_bert), "--limit", "2", "--out", str(run)]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert f"error: {run / 'run.json'} is unreadable" in result.output
    assert "--overwrite" in result.output and chunk.exists()
    chunk.unlink()  # nothing scored: the torn start is replaced
    assert CliRunner().invoke(main, args).exit_code == 0
    assert json.loads((run / "run.json").read_text())["task"] == "minimal-pair"
    assert json.loads((data / "clams" / "build.json").read_text())["dataset"] == "clams"
