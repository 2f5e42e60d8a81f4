"""Treebank sources (UD root, pinned download over real HTTP) and sentence selection."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT, needs_shared

from perturbed_ud.cli import main
from perturbed_ud.ud.conllu_io import read_conllu
from perturbed_ud.ud.selection import Selection, all_sentences, select
from perturbed_ud.ud.sources import (
    UD_RELEASE,
    SourceError,
    cache_dir,
    download,
    from_files,
    from_ud_root,
    parse_treebank_overrides,
    resolve,
)

pytestmark = needs_shared

EWT_TEST = UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu"
EWT_DEV = UD_ROOT / "UD_English-EWT" / "en_ewt-ud-dev.conllu"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------
# A UD root folder


def test_resolve_ud_root_defaults_and_override():
    overrides = parse_treebank_overrides(["ru=UD_Russian-GSD"])
    assert overrides == {"ru": "UD_Russian-GSD"}
    treebanks = resolve(
        ["en", "de", "ru"], split="test", ud_root=str(UD_ROOT), overrides=overrides,
        ud_release="r2.16",
    )  # fmt: skip

    expected = [
        ("en", "UD_English-EWT", "en_ewt"),
        ("de", "UD_German-GSD", "de_gsd"),
        ("ru", "UD_Russian-GSD", "ru_gsd"),
    ]
    assert [(t.lang, t.name, t.code) for t in treebanks] == expected
    for treebank, (_, name, code) in zip(treebanks, expected, strict=True):
        path = UD_ROOT / name / f"{code}-ud-test.conllu"
        assert treebank.files == [path]
        assert treebank.license == "CC BY-SA 4.0"
        assert treebank.sha256 == {path.name: sha256(path)}
        assert treebank.describe()["files"] == [{"name": path.name, "sha256": sha256(path)}]
        assert treebank.release == "r2.16", "declared, not guessed"
        assert treebank.changelog_release.startswith("r2.")
    assert treebanks[0].changelog_release == "r2.16"
    (undeclared,) = resolve(["ru"], split="test", ud_root=str(UD_ROOT), overrides=overrides)
    assert undeclared.release == "unknown" and undeclared.changelog_release == "r2.5"
    assert "@inproceedings{silveira14gold" in treebanks[0].citation

    (dev,) = resolve(["en"], split="dev", ud_root=str(UD_ROOT))
    assert dev.files == [EWT_DEV]


def test_resolve_ud_root_from_environment(monkeypatch):
    monkeypatch.setenv("PERTURBED_UD_ROOT", str(UD_ROOT))
    (treebank,) = resolve(["de"], split="test")
    assert treebank.files == [UD_ROOT / "UD_German-GSD" / "de_gsd-ud-test.conllu"]


def test_resolve_errors_say_where_they_looked():
    with pytest.raises(SourceError, match="UD_Russian-SynTagRus"):
        resolve(["ru"], split="test", ud_root=str(UD_ROOT))  # default ru treebank is absent
    with pytest.raises(SourceError, match="--treebank xx=UD_Name"):
        resolve(["xx"], split="test", ud_root=str(UD_ROOT))
    with pytest.raises(SourceError, match="unknown split"):
        resolve(["en"], split="validation", ud_root=str(UD_ROOT))
    with pytest.raises(SourceError, match=r"\*-ud-dev\.conllu"):
        from_ud_root(UD_ROOT, "en", "UD_English-PUD", "dev")
    for bad in ("ru", "ru=", "=UD_Russian-GSD", "ru=Russian-GSD"):
        with pytest.raises(SourceError, match="LANG=UD_Name"):
            parse_treebank_overrides([bad])


def test_from_files_groups_by_treebank_in_given_order(tmp_path):
    treebanks = from_files([EWT_TEST, UD_ROOT / "UD_German-GSD" / "de_gsd-ud-test.conllu", EWT_DEV])
    assert [(t.lang, t.code, t.name) for t in treebanks] == [
        ("en", "en_ewt", "UD_English-EWT"),
        ("de", "de_gsd", "UD_German-GSD"),
    ]
    assert treebanks[0].files == [EWT_TEST, EWT_DEV]
    assert treebanks[0].license == "CC BY-SA 4.0"
    with pytest.raises(SourceError, match="no such CoNLL-U file"):
        from_files([tmp_path / "missing-ud-test.conllu"])


# ---------------------------------------------------------------------------------------------
# The pinned download, against a real HTTP server


class _UDHandler(BaseHTTPRequestHandler):
    """``/<UD_Name>/<release>/<file>`` -> ``UD_ROOT/<UD_Name>/<file>``; 404 otherwise."""

    def do_GET(self):
        with self.server.lock:
            self.server.requests.append(self.path)
        parts = self.path.split("/")
        served = (
            len(parts) == 4
            and parts[0] == ""
            and parts[1].startswith("UD_")
            and parts[2] == UD_RELEASE
            and parts[3] not in ("", ".", "..")
        )
        path = UD_ROOT / parts[1] / parts[3] if served else None
        if path is None or not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        pass


@pytest.fixture
def ud_server(monkeypatch):
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _UDHandler)
    server.requests, server.lock = [], threading.Lock()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_download_caches_pinned_files(ud_server, tmp_path):
    assert cache_dir() == tmp_path / "perturbed-ud-cache"
    treebank = download("en", "UD_English-EWT", "test", base_url=ud_server.url)

    folder = tmp_path / "perturbed-ud-cache" / "ud" / UD_RELEASE / "UD_English-EWT"
    names = ["en_ewt-ud-test.conllu", "README.md", "LICENSE.txt"]
    assert ud_server.requests == [f"/UD_English-EWT/{UD_RELEASE}/{n}" for n in names]
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)
    for name in names:
        assert sha256(folder / name) == sha256(UD_ROOT / "UD_English-EWT" / name)

    assert treebank.files == [folder / "en_ewt-ud-test.conllu"]
    assert (treebank.lang, treebank.name, treebank.code) == ("en", "UD_English-EWT", "en_ewt")
    assert treebank.sha256 == {"en_ewt-ud-test.conllu": sha256(EWT_TEST)}
    assert treebank.license == "CC BY-SA 4.0"
    assert treebank.release == UD_RELEASE == "r2.16"
    assert len(list(read_conllu(treebank.files[0]))) == 2077

    again = download("en", "UD_English-EWT", "test", base_url=ud_server.url)
    offline = download("en", "UD_English-EWT", "test", base_url=ud_server.url, offline=True)
    assert len(ud_server.requests) == 3
    assert again.describe() == offline.describe() == treebank.describe()


def test_download_offline_with_empty_cache(ud_server, tmp_path):
    with pytest.raises(SourceError) as err:
        download("en", "UD_English-EWT", "test", base_url=ud_server.url, offline=True)
    assert "en_ewt-ud-test.conllu" in str(err.value)
    assert "offline" in str(err.value)
    assert ud_server.requests == []

    with pytest.raises(SourceError, match="en_ewt-ud-test.conllu"):
        resolve(["en"], split="test", offline=True)
    assert ud_server.requests == []


def test_download_404_names_url(ud_server, tmp_path):
    url = f"{ud_server.url}/UD_Klingon-Nowhere/{UD_RELEASE}/kl_nowhere-ud-test.conllu"
    with pytest.raises(SourceError) as err:
        download("kl", "UD_Klingon-Nowhere", "test", base_url=ud_server.url)
    assert url in str(err.value)
    assert "404" in str(err.value)

    with pytest.raises(SourceError, match="en_pud-ud-dev.conllu"):
        download("en", "UD_English-PUD", "dev", base_url=ud_server.url)
    cached = tmp_path / "perturbed-ud-cache"
    assert [p for p in cached.rglob("*") if p.is_file()] == []


def test_cli_build_through_download(ud_server, tmp_path):
    out = tmp_path / "out"
    args = ["build", "perturbed-ud", "--langs", "en", "--limit", "30", "--seeds", "1"]
    result = CliRunner().invoke(
        main, [*args, "--out", str(out)], env={"PERTURBED_UD_BASE_URL": ud_server.url}
    )
    assert result.exit_code == 0, result.output
    assert len(ud_server.requests) == 3
    folder = out / "perturbed-ud"

    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    (source,) = manifest["treebanks"]
    assert (source["name"], source["release"], source["license"]) == (
        "UD_English-EWT",
        "r2.16",
        "CC BY-SA 4.0",
    )
    assert source["files"] == [{"name": EWT_TEST.name, "sha256": sha256(EWT_TEST)}]
    assert manifest["selection"] == {"mode": "first", "n": 30}
    assert sorted(manifest["configs"]) == ["en_full_seed1", "en_head_seed1", "en_part_seed1"]

    first_30 = [s.sent_id for s, _ in zip(read_conllu(EWT_TEST), range(30), strict=False)]
    config = manifest["configs"]["en_full_seed1"]
    assert config["sentences"] == 30
    ds = datasets.load_dataset(str(folder), "en_full_seed1", cache_dir=str(tmp_path / "c"))
    assert sorted(ds) == ["full", "full_lemma", "orig", "orig_lemma"]
    assert {split: ds[split].num_rows for split in ds} == config["splits"]
    kept = ds["orig"]["sent_id"]
    assert len(kept) == 30 - sum(config["sentence_drops"].values())
    assert kept == [i for i in first_30 if i in set(kept)]
    assert set(ds["orig"]["seed"]) == {1}
    assert set(ds["full"]["condition"]) == {"full"}

    result = CliRunner().invoke(
        main,
        [*args, "--out", str(out), "--offline", "--overwrite"],
        env={"PERTURBED_UD_BASE_URL": ud_server.url},
    )
    assert result.exit_code == 0, result.output
    assert len(ud_server.requests) == 3
    rebuilt = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    assert rebuilt["content_sha256"] == manifest["content_sha256"]


# ---------------------------------------------------------------------------------------------
# Selection


@pytest.fixture(scope="module")
def ewt():
    (treebank,) = from_files([EWT_TEST])
    return treebank, [s.sent_id for s in all_sentences(treebank)]


def _ids(treebank, selection: Selection) -> list[str]:
    return [s.sent_id for s in select(treebank, selection)]


def test_limit_takes_first_sentences(ewt):
    treebank, ids = ewt
    assert _ids(treebank, Selection(limit=25)) == ids[:25]
    assert _ids(treebank, Selection(limit=len(ids) + 10)) == ids
    assert _ids(treebank, Selection()) == ids

    (both,) = from_files([EWT_TEST, EWT_DEV])
    dev = [s.sent_id for s in read_conllu(EWT_DEV)]
    assert _ids(both, Selection(limit=len(ids) + 5)) == ids + dev[:5]


def test_sample_is_seeded_and_in_file_order(ewt):
    treebank, ids = ewt
    sample = _ids(treebank, Selection(sample=50, sample_seed=7))
    assert len(sample) == len(set(sample)) == 50
    positions = [ids.index(i) for i in sample]
    assert positions == sorted(positions)
    assert positions != list(range(50))

    assert _ids(treebank, Selection(sample=50, sample_seed=7)) == sample
    other = _ids(treebank, Selection(sample=50, sample_seed=8))
    assert len(other) == 50 and set(other) != set(sample)
    assert _ids(treebank, Selection(sample=len(ids) + 1)) == ids

    assert Selection(sample=50, sample_seed=7).describe() == {
        "mode": "sample",
        "n": 50,
        "sample_seed": 7,
    }


def test_limit_and_sample_exclude_each_other(tmp_path):
    with pytest.raises(ValueError, match="either a limit or a sample"):
        Selection(limit=5, sample=5)
    for bad in ({"limit": 0}, {"sample": -1}):
        with pytest.raises(ValueError, match="positive"):
            Selection(**bad)

    out = tmp_path / "out"
    args = ["build", "perturbed-ud", "--files", str(EWT_TEST), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--limit", "5", "--sample", "5"])
    assert result.exit_code == 1
    assert "either a limit or a sample" in result.stderr
    assert not (out / "perturbed-ud").exists()


def test_cli_sample_builds_the_selected_sentences(tmp_path):
    (treebank,) = from_files([EWT_TEST])
    chosen = _ids(treebank, Selection(sample=20, sample_seed=3))
    out = tmp_path / "out"
    args = ["build", "perturbed-ud", "--files", str(EWT_TEST), "--out", str(out)]
    args += ["--sample", "20", "--sample-seed", "3", "--seeds", "1", "--families", "full"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output

    folder = out / "perturbed-ud"
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    assert manifest["selection"] == {"mode": "sample", "n": 20, "sample_seed": 3}
    config = manifest["configs"]["en_full_seed1"]
    assert config["sentences"] == 20
    ds = datasets.load_dataset(str(folder), "en_full_seed1", cache_dir=str(tmp_path / "c"))
    kept = ds["orig"]["sent_id"]
    assert len(kept) == 20 - sum(config["sentence_drops"].values())
    assert kept == [i for i in chosen if i in set(kept)]
