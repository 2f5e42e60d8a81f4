"""`evaluate probe` fails cleanly: a full disk or a file-size limit while its word vectors
are written is one ``error:`` line and leaves no vectors (written through a memory map of a
sparse file, they gave a bus error or a traceback), a run killed while writing them leaves
no vector cache under its name for the next run to read, and a sentence too long for its
gold distances (memory quadratic in its length) is skipped and counted."""

from __future__ import annotations

import json
import resource
import shutil
import signal
import subprocess
import sys
import tracemalloc

import pytest
from click.testing import CliRunner
from conftest import UD_ROOT
from test_probes import build, probe_arguments, probe_command

from perturbed_ud.cli import main

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


def long_sentence(words: int) -> str:
    """One CoNLL-U sentence of ``words`` words: a verb with its subject and a long list of
    objects, each with its article."""
    lines = ["# sent_id = long", "1\tDogs\tdog\tNOUN\tNNS\tNumber=Plur\t2\tnsubj\t_\t_",
             "2\tsaw\tsee\tVERB\tVBD\tTense=Past|VerbForm=Fin\t0\troot\t_\t_"]  # fmt: skip
    for n in range(3, words + 1, 2):
        lines.append(f"{n}\tthe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t{n + 1}\tdet\t_\t_")
        lines.append(f"{n + 1}\tcats\tcat\tNOUN\tNNS\tNumber=Plur\t2\tobj\t_\t_")
    return "\n".join(lines[: words + 1]) + "\n\n"


LONG = 5000  # words: gold distances of 5000² cells, far over the default --max-words


@pytest.fixture(scope="module")
def with_a_long_sentence(tmp_path_factory):
    """(a spud build whose last sentence is `LONG` words long, after 20 PUD sentences; a UD
    root whose EWT dev split, the probes' training split, opens with that sentence)."""
    folder = tmp_path_factory.mktemp("long")
    pud = (UD_ROOT / "UD_English-PUD" / "en_pud-ud-test.conllu").read_text(encoding="utf-8")
    conllu = folder / "en_long-ud-test.conllu"
    conllu.write_text("\n\n".join(pud.split("\n\n")[:20]) + "\n\n" + long_sentence(LONG))
    built = CliRunner().invoke(main, ["build", "spud", "--files", str(conllu), "--seeds", "1",
                                      "--out", str(folder)])  # fmt: skip
    assert built.exit_code == 0, built.output
    treebank = shutil.copytree(UD_ROOT / "UD_English-EWT", folder / "ud" / "UD_English-EWT")
    dev = treebank / "en_ewt-ud-dev.conllu"
    dev.write_text(long_sentence(LONG) + dev.read_text(encoding="utf-8"), encoding="utf-8")
    return folder / "spud", folder / "ud"


def test_a_sentence_over_max_words_is_skipped_and_counted_before_its_labels_are_built(
    with_a_long_sentence, tiny_bert, tmp_path
):
    """The long sentence, in training and in both splits tested, is left out before its gold
    distances (quadratic in its length) are built: the run allocates far less than those
    would take, counts it, and gives what a run without it gives. Another --max-words is
    another run."""
    dataset, ud_root = with_a_long_sentence
    args = ("--probes", "pos,distance", "--probe-seeds", "1", "--epochs", "1")
    without = tmp_path / "without"  # the sample treebank, the dataset's first 20 rows
    assert probe_command(dataset, tiny_bert, without, *args, "--limit", "20").exit_code == 0
    run = tmp_path / "run"
    tracemalloc.start()  # after the run above, so that loading code is not counted
    try:
        result = probe_command(dataset, tiny_bert, run, *args, "--ud-root", ud_root)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    assert peak < LONG**2 * 8 / 4, "no gold distance matrix of the long sentence"
    assert (
        "skipped sentences of more than 200 words (--max-words): 1 of en dev, "
        "1 of en_seed1/nonce, 1 of en_seed1/orig\n"
    ) in result.stderr
    results = json.loads((run / "results.json").read_text())
    assert results["settings"]["max_words"] == 200
    assert results["counts"]["sentences_over_max_words"] == {"en_seed1/nonce": 1,
                                                             "en_seed1/orig": 1}  # fmt: skip
    assert results["counts"]["training_sentences_over_max_words"] == {"en": {"dev": 1}}
    assert results["counts"]["sentences_without_a_tree"] == {"en_seed1/nonce": 0,
                                                             "en_seed1/orig": 0}  # fmt: skip
    for name in ("probe_sentences.parquet", "probe_summary.csv", "probe_gold_graphs.csv"):
        assert (run / name).read_bytes() == (without / name).read_bytes(), name
    expected = json.loads((without / "results.json").read_text())["metrics"]
    assert {k: v for k, v in results["metrics"].items() if k != "treebanks"} == {
        k: v for k, v in expected.items() if k != "treebanks"
    }

    other = probe_command(dataset, tiny_bert, run, *args, "--ud-root", ud_root,
                          "--max-words", "100")  # fmt: skip
    assert other.exit_code == 1 and "holds a run with other settings or data" in other.stderr
