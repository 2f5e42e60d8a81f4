"""What a researcher meets running evaluate: the model's kind read from its config, ordinary
mistakes caught before a model loads or anything is written, run control (--limit, --splits,
--overwrite, resume, interrupt), results.json, quiet output, and the same runs from Python."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pandas as pd
import pytest
import torch
from click.testing import CliRunner
from conftest import UD_ROOT

import perturbed_ud
from perturbed_ud.cli import main
from perturbed_ud.errors import InputError


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """One small build of each family, made through the Python API."""
    out = tmp_path_factory.mktemp("data")
    ud = {"ud_root": UD_ROOT, "langs": ["en"], "seeds": [1], "limit": 5}
    perturbed_ud.build("clams", out, langs=["en"])
    perturbed_ud.build("spud", out, **ud)
    perturbed_ud.build("perturbed-ud", out, scrambles=["head"], **ud)
    return out


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def evaluate(task, dataset, model, run, *more):
    return cli("evaluate", task, "--dataset", dataset, "--model", model, "--out", run, *more)


def refused(result, message: str) -> str:
    """The one ``error:`` line of a refused command (exit status 1, no traceback)."""
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert result.stderr.startswith(f"error: {message}"), result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    return result.stderr


def test_python_build_equals_the_command_it_mirrors(data, tmp_path):
    result = cli("build", "spud", "--ud-root", UD_ROOT, "--langs", "en", "--seeds", "1",
                 "--limit", "5", "--out", tmp_path)  # fmt: skip
    assert result.exit_code == 0, result.output
    ours, theirs = (json.loads((d / "spud/build.json").read_text()) for d in (data, tmp_path))
    assert ours["signature"] == theirs["signature"]
    assert ours["content_sha256"] == theirs["content_sha256"]
    with pytest.raises(InputError, match="spud has no option lang; it has: .*langs"):
        perturbed_ud.build("spud", tmp_path, lang="en")
    with pytest.raises(InputError, match="scrambles must be among"):
        perturbed_ud.build("perturbed-ud", tmp_path, scrambles=["full", "scramble"])


@pytest.mark.parametrize("task, dataset", [("minimal-pair", "clams"), ("score", "spud")])
def test_a_causal_model_is_scored_as_one_without_kind(data, tmp_path, tiny_gpt2, task, dataset):
    result = evaluate(task, data / dataset, tiny_gpt2, tmp_path / "run", "--limit", "3")
    assert result.exit_code == 0, result.output
    settings = json.loads((tmp_path / "run" / "run.json").read_text())["settings"]
    assert settings["kind"] == "causal" and "bos" in settings
    assert "metric" not in settings and "word_grouping" not in settings  # masked-only


def test_a_model_of_neither_kind_is_named(data, tmp_path):
    from transformers import T5Config

    T5Config(d_model=8, d_ff=8, num_layers=1, num_heads=1, vocab_size=16).save_pretrained(
        tmp_path / "t5"
    )
    message = refused(
        evaluate("minimal-pair", data / "clams", tmp_path / "t5", tmp_path / "run"),
        f"{tmp_path / 't5'} is neither a masked nor a causal language model "
        "(encoder-decoder, model type t5",
    )
    assert "--kind" in message and not (tmp_path / "run").exists()


def test_masked_word_refuses_a_causal_model_before_writing(data, tmp_path, tiny_gpt2):
    message = refused(
        evaluate("masked-word", data / "perturbed-ud", tiny_gpt2, tmp_path / "run"),
        f"{tiny_gpt2} is a causal language model",
    )
    assert "this task scores masked language models only" in message
    assert not (tmp_path / "run").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
def test_an_absent_device_is_named_before_anything_loads(data, tmp_path, tiny_bert):
    refused(
        evaluate("score", data / "spud", tiny_bert, tmp_path / "run", "--device", "cuda"),
        "device cuda: CUDA is not available",
    )
    assert not (tmp_path / "run").exists()


@pytest.mark.subprocess
@pytest.mark.parametrize(
    "args, message",
    [
        (["--dataset", "small/nothere"], "no dataset small/nothere: there is no such folder "
                                         "(small holds: "),
        (["--model", "./models/nope"], "no model ./models/nope: there is no such folder"),
    ],
)  # fmt: skip
def test_a_mistyped_path_is_missing_at_once_and_asks_no_hub(data, tmp_path, args, message):
    """In a fresh process that may reach a 'Hub' on loopback, which counts what it is asked."""
    asked = []

    class Hub(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            asked.append(self.path)
            self.send_error(404)

        do_HEAD = do_GET  # noqa: N815

        def log_message(self, format, *args):
            pass

    hub = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=hub.serve_forever, daemon=True).start()
    (tmp_path / "small").mkdir()
    shutil.copytree(data / "clams", tmp_path / "small" / "clams")
    (tmp_path / "models").mkdir()
    values = {"--dataset": "small/clams", "--model": "models"} | dict([args])
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"}
    env |= {"HF_ENDPOINT": f"http://127.0.0.1:{hub.server_address[1]}", "NO_PROXY": "*"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "perturbed_ud", "evaluate", "minimal-pair",
             *[x for pair in values.items() for x in pair], "--out", "run"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        hub.shutdown()
    assert done.returncode == 1 and done.stderr.startswith(f"error: {message}"), done.stderr
    assert done.stderr.count("\n") == 1 and asked == []
    assert not (tmp_path / "run").exists()


def test_a_failed_run_is_replaced_by_the_corrected_command(data, tmp_path, tiny_gpt2):
    weightless = tmp_path / "weightless"  # its config reads, its weights are missing
    weightless.mkdir()
    shutil.copy(tiny_gpt2 / "config.json", weightless)
    run = tmp_path / "run"
    failed = evaluate("minimal-pair", data / "clams", weightless, run, "--limit", "2")
    assert failed.exit_code == 1 and failed.stderr.startswith("error: "), failed.output
    result = evaluate("minimal-pair", data / "clams", tiny_gpt2, run, "--limit", "2")
    assert result.exit_code == 0, result.output
    assert json.loads((run / "results.json").read_text())["model"]["model"] == str(tiny_gpt2)


def test_limit_splits_and_overwrite(data, tmp_path, tiny_bert):
    run = tmp_path / "run"
    two = ["--splits", "simple_agrmt,vp_coord", "--limit", "4"]
    assert evaluate("minimal-pair", data / "clams", tiny_bert, run, *two).exit_code == 0
    pairs = pd.read_parquet(run / "pairs.parquet")
    assert len(pairs) == 8 and set(pairs["construction"]) == {"simple_agrmt", "vp_coord"}
    results = json.loads((run / "results.json").read_text())
    assert results["dataset"]["splits"] == ["simple_agrmt", "vp_coord"]
    assert results["dataset"]["limit"] == 4
    assert results["dataset"]["build"]["family"] == "agreement.clams.v1"
    assert results["model"]["model"] == str(tiny_bert) and results["model"]["revision"]
    assert set(results["metrics"]) >= {"accuracy"}

    six = ["--splits", "simple_agrmt,vp_coord", "--limit", "6"]
    message = refused(evaluate("minimal-pair", data / "clams", tiny_bert, run, *six),
                      f"{run} holds a run with other settings")  # fmt: skip
    assert "--overwrite" in message and len(pd.read_parquet(run / "pairs.parquet")) == 8
    assert evaluate("minimal-pair", data / "clams", tiny_bert, run, *six,
                    "--overwrite").exit_code == 0  # fmt: skip
    assert len(pd.read_parquet(run / "pairs.parquet")) == 12


def test_resume_and_interrupt_say_what_is_kept(data, tmp_path, tiny_bert, monkeypatch):
    import perturbed_ud.evaluation.running.runner as runner

    real, calls = runner._score_chunk, []

    def interrupted_on_the_second_chunk(*args):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(runner, "_score_chunk", interrupted_on_the_second_chunk)
    run = tmp_path / "run"
    args = ("minimal-pair", data / "clams", tiny_bert, run, "--splits", "prep_anim,subj_rel",
            "--limit", "3")  # fmt: skip
    result = evaluate(*args)
    assert result.exit_code == 130 and not (run / "results.json").exists()
    assert (f"interrupted: 1 of 2 chunks are kept in {run}; run the same command again "
            "to resume") in result.stderr  # fmt: skip
    result = evaluate(*args)
    assert result.exit_code == 0, result.output
    assert f"resuming {run}: 1 of 2 chunks done, 1 to score" in result.stderr
    assert len(calls) == 3 and len(pd.read_parquet(run / "pairs.parquet")) == 6


@pytest.mark.subprocess
@pytest.mark.parametrize("workers", [[], ["--num-proc", "2"]])
def test_ctrl_c_ends_a_run_with_one_line_and_status_130(tmp_path, tiny_bert, workers):
    """A real SIGINT, once the run is under way: our line on what is kept, no click
    ``Aborted!``, no traceback, and the status a shell gives a command ended by Ctrl-C; with
    worker processes as without."""
    english = UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu"  # 323 sentences
    perturbed_ud.build("perturbed-ud", tmp_path, files=[str(english)], seeds=[1])
    run = tmp_path / "run"
    process = subprocess.Popen(
        [sys.executable, "-m", "perturbed_ud", "evaluate", "masked-word", "--dataset",
         str(tmp_path / "perturbed-ud"), "--model", str(tiny_bert), "--out", str(run),
         *workers],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # run.json is written just before the first chunk; workers take Ctrl-C as it comes
        # only once their pool is up, when the first chunk is written
        started = (run / "run.json") if not workers else (run / "chunks")
        while not (started.exists() and (not workers or any(started.rglob("*.parquet")))):
            assert process.poll() is None, process.communicate()
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130, stderr
    *_, last = stderr.splitlines()
    assert re.fullmatch(
        rf"interrupted: \d+ of \d+ chunks are kept in {re.escape(str(run))}; run the same "
        "command again to resume",
        last,
    ), stderr
    assert "Aborted" not in stderr and "Traceback" not in stderr


@pytest.mark.subprocess
def test_the_libraries_are_quiet_unless_verbose(data, tmp_path, tiny_bert):
    """In a fresh process with an empty datasets cache, where the libraries talk most."""
    outputs, running = {}, {}
    for verbose in ((), ("--verbose",)):  # both at once: each has its own cache and run folder
        env = os.environ | {"HF_DATASETS_CACHE": str(tmp_path / f"cache{len(verbose)}")}
        running[verbose] = subprocess.Popen(
            [sys.executable, "-m", "perturbed_ud", "evaluate", "minimal-pair", "--dataset",
             str(data / "clams"), "--model", str(tiny_bert), "--limit", "2", "--out",
             str(tmp_path / f"run{len(verbose)}"), *verbose],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    try:
        for verbose, process in running.items():
            stdout, stderr = process.communicate(timeout=300)
            assert process.returncode == 0, stderr
            outputs[verbose] = stdout + stderr
    finally:
        for process in running.values():
            process.kill()  # a process left by a failure above; a no-op for finished ones
            process.wait()
    assert "Loading weights" in outputs[("--verbose",)]  # transformers' own progress
    assert "Generating" not in outputs[()] and "Loading" not in outputs[()]


def test_python_evaluate_returns_the_results_the_command_writes(data, tmp_path, tiny_bert):
    results = perturbed_ud.evaluate(
        "score", dataset=data / "spud", model=tiny_bert, out=tmp_path / "run", limit=2
    )
    assert results == json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["settings"]["kind"] == "masked" and results["metrics"]
    with pytest.raises(InputError, match="unknown evaluation task 'scores'; choose one of"):
        perturbed_ud.evaluate("scores", dataset=data / "spud")
    with pytest.raises(InputError, match="--metric: 'nope' is not one of"):
        perturbed_ud.evaluate("score", dataset=data / "spud", model=tiny_bert,
                              out=tmp_path / "r", metric="nope")  # fmt: skip


@pytest.mark.parametrize(("edited", "edit"), [
    ("config.json", lambda c: c | {"layer_norm_eps": 1e-6}),
    ("tokenizer.json", lambda t: t | {"truncation": {"max_length": 8, "strategy": "LongestFirst",
                                                      "stride": 0, "direction": "Right"}}),
])  # fmt: skip
def test_a_model_file_edited_between_runs_is_another_model(data, tmp_path, tiny_bert, edited,
                                                           edit):  # fmt: skip
    """Not only the weights: a model's config and tokenizer decide its scores, so a run
    resumed after either changed must not reuse what the first one scored."""
    model = shutil.copytree(tiny_bert, tmp_path / "model")
    args = ["evaluate", "score", "--dataset", str(data / "spud"), "--model", str(model),
            "--limit", "2", "--out", str(tmp_path / "run")]  # fmt: skip
    assert CliRunner().invoke(main, args).exit_code == 0
    path = model / edited
    path.write_text(json.dumps(edit(json.loads(path.read_text()))))
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 1 and "holds a run with other settings" in again.stderr
