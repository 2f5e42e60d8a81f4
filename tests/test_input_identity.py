"""Every input a result depends on is read by its content: downloads in the cache are checked
against their pins or the sha256 recorded at download each time they are read, evaluate loads
exactly the Parquet files it hashed, lm-eval tasks read content-addressed copies of a build,
and a local --hf-dataset folder is hashed and loaded by its content, not its mtime."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import UD_ROOT

import perturbed_ud.builders.clams as clams
from perturbed_ud.cli import main
from perturbed_ud.ud.sources import UD_RELEASE, download

EWT = "UD_English-EWT"
EWT_FILES = ["en_ewt-ud-test.conllu", "README.md", "LICENSE.txt"]
ONE_SENTENCE = "# sent_id = x\n# text = Hi\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"


def cli(*args: str):
    return CliRunner().invoke(main, [str(arg) for arg in args])


def refused(result, *parts: str) -> str:
    """The one ``error:`` line of a refused command, holding every part."""
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert result.output.startswith("error: "), result.output
    for part in parts:
        assert part in result.output, result.output
    return result.output


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- F17: downloads in the cache ---------------------------------------------------------------


@pytest.fixture
def ud_url(tmp_path, file_server, monkeypatch) -> str:
    """A loopback UD server holding EWT at the pinned release, which builds download from."""
    served = tmp_path / "served" / EWT / UD_RELEASE
    served.mkdir(parents=True)
    for name in EWT_FILES:
        shutil.copyfile(UD_ROOT / EWT / name, served / name)
    url = file_server(tmp_path / "served")
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", url)
    return url


def ud_cache(tmp_path) -> Path:
    return tmp_path / "perturbed-ud-cache" / "ud" / UD_RELEASE / EWT


def offline_build(tmp_path, name: str):
    return cli("build", "perturbed-ud", "--download", "--offline", "--langs", "en",
               "--limit", 3, "--seeds", 1, "--out", tmp_path / name)  # fmt: skip


def test_a_downloaded_treebank_changed_in_the_cache_is_refused(tmp_path, ud_url):
    download("en", EWT, "test")
    assert offline_build(tmp_path, "before").exit_code == 0
    cached = ud_cache(tmp_path) / EWT_FILES[0]
    downloaded = sha256(cached)
    cached.write_text(ONE_SENTENCE, encoding="utf-8")
    found = sha256(cached)
    refused(offline_build(tmp_path, "after"), str(cached), "not the file downloaded",
            f"expected {downloaded}", f"sha256 {found}", f"remove {cached.parent}")  # fmt: skip
    assert not (tmp_path / "after" / "perturbed-ud").exists()


def test_a_cached_treebank_without_a_download_record_is_fetched_again(tmp_path, ud_url):
    folder = ud_cache(tmp_path)
    folder.mkdir(parents=True)
    for name in EWT_FILES:
        shutil.copyfile(UD_ROOT / EWT / name, folder / name)
    (folder / EWT_FILES[0]).write_text(ONE_SENTENCE, encoding="utf-8")  # put there by hand
    refused(offline_build(tmp_path, "offline"), "has no sha256 recorded at download")
    treebank = download("en", EWT, "test")
    assert sha256(treebank.files[0]) == sha256(UD_ROOT / EWT / EWT_FILES[0])
    assert offline_build(tmp_path, "again").exit_code == 0


def test_paper_grammars_changed_in_the_cache_are_refused(tmp_path):
    """Grammars of our own and a LICENSE of our making where the paper's pinned files go."""
    folder = tmp_path / "perturbed-ud-cache" / "clams" / "clams-36b5c9a"
    shutil.copytree(clams.DEFAULT_GRAMMARS / "de", folder / "de_replication")
    (folder / "LICENSE").write_text("Apache License\nVersion 2.0\n", encoding="utf-8")
    pin = clams.paper_release()["sha256"]["LICENSE"]
    result = cli("build", "clams", "--paper-grammars", "--offline", "--langs", "de",
                 "--out", tmp_path / "out")  # fmt: skip
    refused(result, str(folder / "LICENSE"), f"expected {pin}", f"remove {folder}")
    assert not (tmp_path / "out" / "clams").exists()
