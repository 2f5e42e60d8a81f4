"""`evaluate probe` fails cleanly: a full disk or a file-size limit while its word vectors
are written is one ``error:`` line and leaves no vectors (written through a memory map of a
sparse file, they gave a bus error or a traceback), and a run killed while writing them
leaves no vector cache under its name for the next run to read."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys

import pytest
from test_probes import build, probe_arguments, probe_command

# A probe run that writes every hidden state of the training sentences (three layers of
# tiny-bert: about 1.5 MB) and trains one small probe on one.
THREE_LAYERS = ("--layers", "0,1,2", "--probes", "pos", "--probe-seeds", "1", "--epochs", "1")


@pytest.fixture(scope="module")
def spud(tmp_path_factory):
    return build(tmp_path_factory.mktemp("spud"), "spud")


def test_a_full_disk_while_vectors_are_written_is_an_error_line(spud, tiny_bert, tiny_filesystem):
    run = tiny_filesystem / "run"
    result = probe_command(spud, tiny_bert, run, *THREE_LAYERS)
    assert result.exit_code == 1, result.output
    vectors = run / "vectors"
    assert result.stderr.splitlines()[-1] == (
        f"error: cannot write {vectors / 'en-train'}: No space left on device"
    )
    assert "Traceback" not in result.output
    assert list(vectors.iterdir()) == [], "the disk is not left full of partial vectors"


@pytest.mark.subprocess
def test_a_file_size_limit_while_vectors_are_written_is_an_error_line(spud, tiny_bert, tmp_path):
    """Under ``ulimit -f``: the run's small files fit, a layer of vectors does not."""
    run, limit = tmp_path / "run", 100_000

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = probe_arguments(spud, tiny_bert, run, *THREE_LAYERS)
    done = subprocess.run([sys.executable, "-m", "perturbed_ud", *command], preexec_fn=limited,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 1, done.stderr
    vectors = run / "vectors"
    assert done.stderr.splitlines()[-1] == (
        f"error: cannot write {vectors / 'en-train'}: File too large"
    )
    assert "Traceback" not in done.stderr
    assert list(vectors.iterdir()) == []


# The probe command, killed (SIGKILL) in the middle of writing the training vectors: when
# the states of its second pass of sentences are asked for.
KILLED_WHILE_WRITING_VECTORS = """\
import os, signal
from perturbed_ud.cli import main
from perturbed_ud.lm import batching, word_vectors

word_vectors.SENTENCES_PER_PASS = 50
real_word_states, passes = batching.Batcher.word_states, []

def killed_on_the_second_pass(*args):
    passes.append(args)
    if len(passes) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_word_states(*args)

batching.Batcher.word_states = killed_on_the_second_pass
main()
"""


@pytest.mark.subprocess
def test_vectors_a_killed_run_was_writing_are_not_read_and_their_leftovers_go(
    spud, tiny_bert, tmp_path
):
    run = tmp_path / "run"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_WRITING_VECTORS,
         *probe_arguments(spud, tiny_bert, run, *THREE_LAYERS)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    vectors = run / "vectors"
    (partial,) = vectors.iterdir()
    assert partial.name.startswith(".en-train.") and partial.name.endswith(".partial")
    assert (partial / "layer0.npy").stat().st_size > 50_000, "killed mid-write"
    result = probe_command(spud, tiny_bert, run, *THREE_LAYERS)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in vectors.iterdir()) == ["en-dev", "en-train"]
    assert (vectors / "en-train" / "key.json").is_file()
