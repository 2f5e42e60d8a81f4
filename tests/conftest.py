"""Shared test fixtures: the UD sample in tests/data/ud, the tiny models in tests/data/models,
and the released third-party outputs beside the repository (``../shared`` or
$PERTURBED_UD_SHARED), which only the tests comparing with those outputs need."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Read by huggingface_hub and datasets at import time, so set before anything imports them.
os.environ["HF_HUB_OFFLINE"] = "1"
# Datasets loaded by the tests are cached in a folder of their own, not the user's cache.
DATASETS_CACHE = tempfile.mkdtemp(prefix="perturbed-ud-tests-datasets-")
os.environ["HF_DATASETS_CACHE"] = DATASETS_CACHE
atexit.register(shutil.rmtree, DATASETS_CACHE, ignore_errors=True)
# Under pytest-xdist, each worker takes its share of the cores: torch's, OpenMP's and the
# tokenizers' thread pools would otherwise each use every core in every worker. Set before
# torch is imported, and inherited by the processes a test starts.
if WORKERS := os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    THREADS = str(max(1, (os.cpu_count() or 1) // int(WORKERS)))
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ.setdefault(variable, THREADS)

import pytest  # noqa: E402
import yaml  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
# Excerpts of real UD treebanks (CC BY-SA), written by scripts/make_ud_samples.py.
UD_ROOT = REPO / "tests" / "data" / "ud"
# Random and trained tiny models, committed so that every process sees the same model.
MODELS = REPO / "tests" / "data" / "models"
SHARED = Path(os.environ.get("PERTURBED_UD_SHARED", REPO.parent / "shared"))
SHARED_UD = SHARED / "ud"  # whole treebanks: the released LREC 2026 items were built from them
REFERENCE = SHARED / "reference"
CLAMS_REFERENCE = REFERENCE / "clams"

# The seven constructions of the CLAMS paper, as grammar file (= split) names.
CONSTRUCTIONS = [
    "long_vp_coord",
    "obj_rel_across_anim",
    "obj_rel_within_anim",
    "prep_anim",
    "simple_agrmt",
    "subj_rel",
    "vp_coord",
]

# A treebank under a non-commercial licence, for the licence checks: the sample holds none.
NC_TREEBANK = "UD_Turkish-Fixture"


def ud_sentences(n: int) -> list[str]:
    """The texts of the first ``n`` sentences of the EWT test excerpt: plain English for
    datasets a test makes (NLI pairs to fine-tune and classify on)."""
    path = UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("=", 1)[1].strip() for line in lines if line.startswith("# text =")][:n]


def ewt_trees() -> list:
    """The EWT dev and test excerpts as sentence columns (words, heads, relations): the gold
    trees the probe tests train and test on."""
    from perturbed_ud.ud.columns import SentenceColumns
    from perturbed_ud.ud.conllu_io import read_conllu

    return [
        SentenceColumns.from_sentence(s)
        for name in ("en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu")
        for s in read_conllu(UD_ROOT / "UD_English-EWT" / name)
    ]


def non_commercial_ud_root(root: Path) -> Path:
    """A UD root holding one CC BY-NC-SA treebank: the Turkish BOUN sample under a new name."""
    folder = root / NC_TREEBANK
    folder.mkdir(parents=True)
    shutil.copyfile(
        UD_ROOT / "UD_Turkish-BOUN" / "tr_boun-ud-test.conllu", folder / "tr_fixture-ud-test.conllu"
    )
    (folder / "README.md").write_text("# UD Turkish Fixture\n\nLicense: CC BY-NC-SA 4.0\n")
    return root


needs_reference = pytest.mark.skipif(
    not (REFERENCE.is_dir() and SHARED_UD.is_dir()),
    reason=f"compares with released third-party outputs; {SHARED} (or $PERTURBED_UD_SHARED) "
    "with reference/ and ud/ is not available",
)
needs_clams_reference = pytest.mark.skipif(
    not CLAMS_REFERENCE.is_dir(),
    reason=f"compares with the released CLAMS grammars and evalsets; {CLAMS_REFERENCE} "
    "is not available",
)


@pytest.fixture(autouse=True)
def _offline_hub(monkeypatch, tmp_path):
    """No test may touch the user's treebank cache or UD root."""
    monkeypatch.setenv("PERTURBED_UD_CACHE", str(tmp_path / "perturbed-ud-cache"))
    monkeypatch.delenv("PERTURBED_UD_ROOT", raising=False)


@pytest.fixture(autouse=True)
def _no_state_shared_between_tests():
    """What a test registers, loads or silences is gone before the next one: the registries
    are restored, the process-wide model cache emptied, the libraries' logging levels and
    progress bars put back."""
    from contextlib import ExitStack

    from perturbed_ud.registry import FAMILIES, PROTOCOLS, RULE_SETS, TASKS

    logging = _library_logging()
    with ExitStack() as stack:
        for registry in (FAMILIES, PROTOCOLS, RULE_SETS, TASKS):
            stack.enter_context(registry.restored())
        yield
    models = sys.modules.get("perturbed_ud.lm.models")
    if models is not None:
        models._CACHE.clear()
    _restore_library_logging(logging)


def _library_logging() -> dict:
    """The logging level and progress-bar switch of each library already imported."""
    state = {}
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        state["transformers"] = (hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled())
    if "datasets" in sys.modules:
        import datasets

        state["datasets"] = (datasets.logging.get_verbosity(), datasets.is_progress_bar_enabled())
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import are_progress_bars_disabled

        state["huggingface_hub"] = (None, not are_progress_bars_disabled())
    return state


def _restore_library_logging(state: dict) -> None:
    if "transformers" in state:
        from transformers.utils import logging as hf_logging

        level, bars = state["transformers"]
        hf_logging.set_verbosity(level)
        (hf_logging.enable_progress_bar if bars else hf_logging.disable_progress_bar)()
    if "datasets" in state:
        import datasets

        level, bars = state["datasets"]
        datasets.logging.set_verbosity(level)
        (datasets.enable_progress_bars if bars else datasets.disable_progress_bars)()
    if "huggingface_hub" in state:
        from huggingface_hub.utils import disable_progress_bars, enable_progress_bars

        (enable_progress_bars if state["huggingface_hub"][1] else disable_progress_bars)()


@pytest.fixture
def no_hub(monkeypatch):
    """An HfApi that fails the test if anything tries to reach the Hub, and no saved token."""
    import perturbed_ud.data.push as push_module

    class NoHub:
        def __init__(self, *args, **kwargs):
            pytest.fail("HfApi was instantiated")

    monkeypatch.setattr(push_module, "HfApi", NoHub)
    monkeypatch.setattr(push_module, "get_token", lambda: None)
    return NoHub


def committed_model(name: str, tmp_path_factory) -> Path:
    """A committed test model (tests/data/models, written by scripts/make_test_models.py),
    copied so that no test can change what the others load."""
    return Path(shutil.copytree(MODELS / name, tmp_path_factory.mktemp(name) / name))


def model_fixture(name: str):
    """A session fixture giving the path of a copy of committed model ``name``."""

    def fixture(tmp_path_factory) -> Path:
        return committed_model(name, tmp_path_factory)

    return pytest.fixture(scope="session", name=name.replace("-", "_"))(fixture)


# Random weights (mechanics): cased WordPiece BERT, like mBERT in miniature; XLM-R with a
# SentencePiece-style Unigram vocabulary; GPT-2 with byte-level BPE.
tiny_bert = model_fixture("tiny-bert")
tiny_xlmr = model_fixture("tiny-xlmr")
tiny_gpt2 = model_fixture("tiny-gpt2")
# Trained on the repository's English UD text (direction): a masked and a causal LM.
trained_bert = model_fixture("trained-bert")
trained_gpt2 = model_fixture("trained-gpt2")


@pytest.fixture(scope="session")
def spud_en5(tmp_path_factory) -> Path:
    """A spud build of five English sentences: two splits, each one chunk."""
    import perturbed_ud

    out = tmp_path_factory.mktemp("spud_en5")
    return perturbed_ud.build("spud", out, ud_root=str(UD_ROOT), langs=["en"], seeds=[1], limit=5)


@pytest.fixture
def tiny_filesystem(tmp_path):
    """A real 400 KiB tmpfs (needs root): a disk that fills up while a command writes."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        pytest.skip("mounting a small file system needs root on Linux")
    command = ["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)]
    if subprocess.run(command, capture_output=True).returncode != 0:
        pytest.skip("this system does not allow mounting a tmpfs")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def loopback_direct(monkeypatch) -> None:
    """Requests to loopback go straight to the test's server, past any proxy."""
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def file_server(monkeypatch):
    """Serves a folder over HTTP on loopback (the standard library's file handler): what a
    download is tested against. Call it with the folder; it returns the base URL."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    loopback_direct(monkeypatch)
    servers = []

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format, *args):
            pass

    def serve(root: Path) -> str:
        server = ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Quiet, directory=str(root))
        )
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield serve
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join()


# --- Builds shared between tests -----------------------------------------------------------


def tree_digest(folder: Path) -> str:
    """sha256 over every file's path and bytes below ``folder``."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _folders(value) -> list[Path]:
    """The folders a fixture's value is: a Path, or the Paths of a list or tuple."""
    if isinstance(value, Path):
        return [value] if value.is_dir() else []
    if isinstance(value, list | tuple):
        return [folder for item in value for folder in _folders(item)]
    return []


_shared: dict[int, tuple[str, list[tuple[Path, str]]]] = {}  # fixturedef id: name, digests


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """A folder that a module- or session-scoped fixture gives its tests (a build, a run) is
    digested when it is made and compared when the fixture is torn down: a test that changed
    what the others read fails there. A test that must change one copies it first."""
    outcome = yield
    if fixturedef.scope == "function" or outcome.excinfo is not None:
        return
    if folders := _folders(outcome.get_result()):
        digests = [(folder, tree_digest(folder)) for folder in folders]
        _shared[id(fixturedef)] = (fixturedef.argname, digests)


def pytest_fixture_post_finalizer(fixturedef, request):
    name, digests = _shared.pop(id(fixturedef), (None, []))
    for folder, digest in digests:
        if folder.is_dir():  # not removed by the fixture's own teardown
            assert tree_digest(folder) == digest, f"a test changed {folder}, shared by `{name}`"


# --- Test tiers and CI's no-skip rule -------------------------------------------------------
# Tests of the slow kinds (pyproject.toml's markers) are also `slow`: `-m "not slow"` is the
# fast tier, and the whole suite runs every tier.
SLOW_KINDS = ("subprocess", "peer", "browser", "full_build")
# Under PERTURBED_UD_NO_SKIPS=1 (CI, where every input is installed) a skip is a failure: a
# test that silently stops running would otherwise go unnoticed. Skips for what the machine
# itself cannot do, which no install provides, stay skips (their reasons begin so).
NO_SKIPS = os.environ.get("PERTURBED_UD_NO_SKIPS") == "1"
MACHINE_SKIPS = (
    "mounting a small file system needs root",
    "this system does not allow mounting",
    "needs a machine without a GPU",
    "reads /proc",
)


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if any(item.get_closest_marker(kind) for kind in SLOW_KINDS):
            item.add_marker(pytest.mark.slow)


_skipped_modules: list[str] = []  # modules skipped as a whole, under the no-skip rule


def _skip_reason(report) -> str:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
    return str(reason).removeprefix("Skipped: ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = _skip_reason(report)
        if not reason.startswith(MACHINE_SKIPS):
            report.outcome = "failed"
            report.longrepr = f"skipped under PERTURBED_UD_NO_SKIPS=1: {reason}"


def pytest_collectreport(report):
    if NO_SKIPS and report.skipped:
        _skipped_modules.append(f"{report.nodeid}: {_skip_reason(report)}")


def pytest_sessionfinish(session, exitstatus):
    if _skipped_modules and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    for skipped in _skipped_modules:
        terminalreporter.write_line(f"FAILED (skipped under PERTURBED_UD_NO_SKIPS=1) {skipped}")


class TaskYamlLoader(yaml.SafeLoader):
    """lm-eval's YAML: its ``!function`` tag read as the text it names."""


TaskYamlLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def task_yaml(text: str):
    """A task file of lm-evaluation-harness, read as the harness reads it, tags as text."""
    return yaml.load(text, Loader=TaskYamlLoader)  # noqa: S506 - a SafeLoader
