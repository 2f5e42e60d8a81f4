"""Treebank sources (the packaged PUD sample, a UD root, compressed files, a pinned download
over real HTTP) and sentence selection."""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import shutil
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner
from conftest import UD_ROOT, loopback_direct

import perturbed_ud.download as download_module
import perturbed_ud.ud.sources as sources_module
from perturbed_ud.cli import main
from perturbed_ud.download import cache_dir
from perturbed_ud.errors import CoNLLUError, InputError, SourceError
from perturbed_ud.registry import FAMILIES
from perturbed_ud.ud.conllu_io import read_conllu
from perturbed_ud.ud.selection import Selection, all_sentences, select
from perturbed_ud.ud.sources import (
    UD_RELEASE,
    download,
    from_files,
    from_ud_root,
    parse_treebank_overrides,
    resolve,
    sample_root,
    sample_treebanks,
)

EWT_TEST = UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu"
EWT_DEV = UD_ROOT / "UD_English-EWT" / "en_ewt-ud-dev.conllu"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


SAMPLE_COUNTS = {
    f["file"]: f
    for files in json.loads((UD_ROOT / "sample.json").read_text()).values()
    for f in files
}


# ---------------------------------------------------------------------------------------------
# The PUD sample shipped with the package


def test_sample_is_the_default_source_with_its_recorded_release():
    treebanks = resolve(["en", "de", "es", "ru", "zh", "tr", "fr", "ar"], split="test")
    assert [t.name for t in treebanks] == [
        "UD_English-PUD", "UD_German-PUD", "UD_Spanish-PUD", "UD_Russian-PUD",
        "UD_Chinese-PUD", "UD_Turkish-PUD", "UD_French-PUD", "UD_Arabic-PUD",
    ]  # fmt: skip
    manifest = json.loads((sample_root() / "sample.json").read_text())
    for treebank in treebanks:
        (entry,) = manifest[treebank.name]
        (path,) = treebank.files
        assert path.name == entry["file"] and path.name.endswith(".conllu.xz")
        assert (treebank.release, treebank.release_source) == (entry["release"], "sample")
        assert treebank.release.startswith("r2.1")
        assert treebank.license == "CC BY-SA 3.0"
        raw = lzma.decompress(path.read_bytes())
        assert treebank.sha256 == {path.name: hashlib.sha256(raw).hexdigest()}
        assert treebank.sha256[path.name] == entry["release_sha256"]
        assert len(list(read_conllu(path))) == entry["sentences"] == 1000
    ids = [[s.sent_id for s in read_conllu(t.files[0])] for t in treebanks]
    assert all(i == ids[0] for i in ids), "PUD: the same sentences in every language"


def test_sample_errors_point_to_the_other_sources():
    with pytest.raises(SourceError, match="only a test split.*--download"):
        resolve(["en"], split="dev")
    with pytest.raises(SourceError, match="no 'he' treebank.*--ud-root"):
        resolve(["he"], split="test")
    with pytest.raises(SourceError, match="holds UD_English-PUD for 'en', not UD_English-EWT"):
        resolve(["en"], split="test", overrides={"en": "UD_English-EWT"})
    assert sample_treebanks()["en"]["name"] == "UD_English-PUD"
    with pytest.raises(SourceError, match="choose one source"):
        resolve(["en"], split="test", ud_root=str(UD_ROOT), fetch=True)
    with pytest.raises(SourceError, match="choose one source"):
        resolve(["en"], split="test", files=[str(EWT_TEST)], ud_root=str(UD_ROOT))
    with pytest.raises(SourceError, match="--offline applies to --download"):
        resolve(["en"], split="test", offline=True)
    with pytest.raises(SourceError, match="--ud-release applies to local copies"):
        resolve(["en"], split="test", ud_release="r2.16")


def test_an_option_that_would_be_ignored_is_refused(tmp_path):
    """Each option here used to be read and then left unused: a build that looked as asked."""
    with pytest.raises(SourceError, match="local copies .* --download reads the pinned r2.16"):
        resolve(["en"], split="test", fetch=True, offline=True, ud_release="../../../x")
    with pytest.raises(SourceError, match="leave it out with --files"):
        resolve([], split="test", files=[str(EWT_TEST)], overrides={"en": "UD_English-PUD"})


@pytest.mark.parametrize("name", ["ok-test.conllu", "-en_x-ud-test.conllu", "EN_x-ud-test.conllu"])
def test_a_file_name_without_a_language_code_is_refused(tmp_path, name):
    shutil.copy(EWT_TEST, tmp_path / name)
    with pytest.raises(SourceError, match="is no language code: rename the file"):
        from_files([tmp_path / name])
    shutil.copy(EWT_TEST, tmp_path / "en_mine-ud-test.conllu")
    assert [t.lang for t in from_files([tmp_path / "en_mine-ud-test.conllu"])] == ["en"]


def test_a_damaged_sample_is_refused(tmp_path, monkeypatch):
    copy = tmp_path / "pud"
    shutil.copytree(sample_root(), copy)
    path = copy / "UD_German-PUD" / "de_pud-ud-test.conllu.xz"
    text = lzma.decompress(path.read_bytes()).replace(b"Haus", b"Maus", 1)
    path.write_bytes(lzma.compress(text))
    monkeypatch.setattr(sources_module, "sample_root", lambda: copy)
    assert resolve(["en"], split="test")[0].release_source == "sample"
    with pytest.raises(SourceError, match="de_pud-ud-test.conllu.xz is damaged"):
        resolve(["de"], split="test")


def test_cli_builds_from_the_sample_without_network(tmp_path, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the default build must not open a connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    out = tmp_path / "out"
    args = ["build", "perturbed-ud", "--langs", "en,tr", "--limit", "40", "--seeds", "1"]
    result = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    folder = out / "perturbed-ud"
    manifest = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    assert [(t["name"], t["release_source"]) for t in manifest["treebanks"]] == [
        ("UD_English-PUD", "sample"),
        ("UD_Turkish-PUD", "sample"),
    ]
    assert "en_pud@r2.18" in manifest["signature"]
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "| UD_Turkish-PUD | tr | r2.18 | CC BY-SA 3.0 | tr_pud-ud-test.conllu.xz |" in card
    assert "**UD_English-PUD, UD_Turkish-PUD**" in card, "one shared citation, named once"
    assert card.count("@inproceedings{zeman-etal-2017-conll") == 1
    assert "Sentences: the first 40 sentences of each treebank's test split." in card
    ds = datasets.load_dataset(str(folder), "tr_full_seed1", cache_dir=str(tmp_path / "c"))
    assert ds["orig"][0]["treebank"] == "tr_pud" and ds["full"].num_rows > 30


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
        assert (treebank.release, treebank.release_source) == ("r2.16", "declared")
        assert treebank.changelog_release.startswith("r2.")
    assert treebanks[0].changelog_release == "r2.16"
    assert "@inproceedings{silveira14gold" in treebanks[0].citation

    (dev,) = resolve(["en"], split="dev", ud_root=str(UD_ROOT))
    assert dev.files == [EWT_DEV]


def test_local_copies_record_the_release_their_readme_names(tmp_path):
    langs, overrides = ["en", "de", "ru"], {"ru": "UD_Russian-GSD"}
    found = resolve(langs, split="test", ud_root=str(UD_ROOT), overrides=overrides)
    assert [(t.release, t.release_source) for t in found] == [
        ("r2.16", "changelog"),  # the newest entry of each README's changelog
        ("r2.15", "changelog"),
        ("r2.5", "changelog"),
    ]
    (from_file,) = from_files([EWT_TEST])
    assert (from_file.release, from_file.release_source) == ("r2.16", "changelog")

    release = tmp_path / "ud-treebanks-v2.16"  # an unpacked UD release archive
    shutil.copytree(UD_ROOT / "UD_Russian-GSD", release / "UD_Russian-GSD")
    (ru,) = resolve(["ru"], split="test", ud_root=str(release), overrides=overrides)
    assert (ru.release, ru.release_source) == ("r2.16", "release folder")

    bare = tmp_path / "bare" / "UD_Russian-GSD"
    bare.mkdir(parents=True)
    shutil.copy(UD_ROOT / "UD_Russian-GSD" / "ru_gsd-ud-test.conllu", bare)
    (unknown,) = resolve(["ru"], split="test", ud_root=str(bare.parent), overrides=overrides)
    assert (unknown.release, unknown.release_source) == ("unknown", "unknown")


def test_cli_records_the_release_in_manifest_signature_and_card(tmp_path):
    args = ["build", "perturbed-ud", "--ud-root", str(UD_ROOT), "--langs", "de", "--limit", "20"]
    args += ["--seeds", "1", "--scrambles", "full"]
    for declared in (None, "r2.16"):
        out = tmp_path / str(declared)
        extra = ["--ud-release", declared] if declared else []
        result = CliRunner().invoke(main, [*args, *extra, "--out", str(out)])
        assert result.exit_code == 0, result.output
        manifest = json.loads((out / "perturbed-ud" / "build.json").read_text(encoding="utf-8"))
        (treebank,) = manifest["treebanks"]
        card = (out / "perturbed-ud" / "README.md").read_text(encoding="utf-8")
        if declared:
            assert (treebank["release"], treebank["release_source"]) == ("r2.16", "declared")
            assert "| UD_German-GSD | de | r2.16 | CC BY-SA 4.0 |" in card
            assert "|ud:de_gsd@r2.16|" in manifest["signature"]
        else:
            assert (treebank["release"], treebank["release_source"]) == ("r2.15", "changelog")
            assert "| de | r2.15 or later (README changelog) |" in card
            # the signature keeps the card's lower bound: a changelog names no exact release
            assert "|ud:de_gsd@r2.15-or-later|" in manifest["signature"]


def test_compressed_files_read_like_plain_ones(tmp_path):
    plain = UD_ROOT / "UD_French-GSD" / "fr_gsd-ud-test.conllu"
    folder = tmp_path / "UD_French-GSD"
    shutil.copytree(plain.parent, folder)
    (folder / plain.name).unlink()
    (folder / f"{plain.name}.gz").write_bytes(gzip.compress(plain.read_bytes()))
    (folder / "fr_gsd-ud-dev.conllu").unlink()
    (folder / "fr_gsd-ud-dev.conllu.xz").write_bytes(lzma.compress(plain.read_bytes()))
    (test,) = resolve(["fr"], split="test", ud_root=str(tmp_path))
    (dev,) = resolve(["fr"], split="dev", ud_root=str(tmp_path))
    (both,) = from_files([folder / f"{plain.name}.gz", folder / "fr_gsd-ud-dev.conllu.xz"])
    assert (test.code, dev.code, both.code) == ("fr_gsd", "fr_gsd", "fr_gsd")
    assert test.sha256[f"{plain.name}.gz"] == dev.sha256["fr_gsd-ud-dev.conllu.xz"] == sha256(plain)
    expected = [(s.sent_id, s.forms, s.heads) for s in read_conllu(plain)]
    for treebank in (test, dev):
        assert [(s.sent_id, s.forms, s.heads) for s in all_sentences(treebank)] == expected
    with pytest.raises(
        CoNLLUError, match=r"dev\.conllu\.xz:\d+: duplicate sent_id .*test\.conllu\.gz"
    ):
        list(all_sentences(both))  # the same sentences twice would be duplicated rows

    shutil.copyfile(plain, folder / plain.name)
    with pytest.raises(InputError, match="fr_gsd-ud-test.conllu and fr_gsd-ud-test.conllu.gz"):
        resolve(["fr"], split="test", ud_root=str(tmp_path))

    damaged = folder / "fr_gsd-ud-dev.conllu.xz"
    damaged.write_bytes(damaged.read_bytes()[:4000])
    with pytest.raises(CoNLLUError, match=r"fr_gsd-ud-dev\.conllu\.xz:\d+: cannot decompress"):
        list(all_sentences(dev))


def test_resolve_ud_root_from_environment(monkeypatch):
    monkeypatch.setenv("PERTURBED_UD_ROOT", str(UD_ROOT))
    (treebank,) = resolve(["de"], split="test")
    assert treebank.files == [UD_ROOT / "UD_German-GSD" / "de_gsd-ud-test.conllu"]


def test_resolve_errors_say_where_they_looked():
    with pytest.raises(SourceError, match="UD_Russian-SynTagRus"):
        resolve(["ru"], split="test", ud_root=str(UD_ROOT))  # default ru treebank is absent
    with pytest.raises(SourceError, match="--treebank xx=UD_Name"):
        resolve(["xx"], split="test", ud_root=str(UD_ROOT))
    with pytest.raises(SourceError, match="UD root .*nowhere is not a folder"):
        resolve(["en"], split="test", ud_root=str(UD_ROOT / "nowhere"))
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
    """``/<UD_Name>/<release>/<file>`` -> ``UD_ROOT/<UD_Name>/<file>``; 404 otherwise.
    Under ``/no-readme/`` the same, but README.md is missing."""

    def do_GET(self):
        with self.server.lock:
            self.server.requests.append(self.path)
        withheld = self.path.startswith("/no-readme/")
        parts = self.path.removeprefix("/no-readme").split("/")
        served = (
            len(parts) == 4
            and parts[0] == ""
            and parts[1].startswith("UD_")
            and parts[2] == UD_RELEASE
            and parts[3] not in ("", ".", "..")
            and not (withheld and parts[3] == "README.md")
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
    loopback_direct(monkeypatch)
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
    assert (treebank.release, treebank.release_source) == (UD_RELEASE, "download")
    assert UD_RELEASE == "r2.16"
    expected = SAMPLE_COUNTS["en_ewt-ud-test.conllu"]["sentences"]
    assert len(list(read_conllu(treebank.files[0]))) == expected

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
        resolve(["en"], split="test", fetch=True, offline=True)
    assert ud_server.requests == []
    assert not (tmp_path / "perturbed-ud-cache").exists()


def test_download_404_names_url(ud_server, tmp_path):
    url = f"{ud_server.url}/UD_Klingon-Nowhere/{UD_RELEASE}/kl_nowhere-ud-test.conllu"
    with pytest.raises(SourceError) as err:
        download("kl", "UD_Klingon-Nowhere", "test", base_url=ud_server.url)
    assert url in str(err.value)
    assert "404" in str(err.value)

    with pytest.raises(SourceError, match="en_pud-ud-dev.conllu"):
        download("en", "UD_English-PUD", "dev", base_url=ud_server.url)
    assert not (tmp_path / "perturbed-ud-cache").exists(), "no empty cache folders left"


def test_download_is_all_or_nothing(ud_server, tmp_path):
    """The data file arrives, README.md is missing upstream: nothing is cached."""
    (tmp_path / "perturbed-ud-cache").mkdir()
    with pytest.raises(SourceError, match="README.md.*404"):
        download("de", "UD_German-GSD", "test", base_url=f"{ud_server.url}/no-readme")
    assert [p.name for p in (tmp_path / "perturbed-ud-cache").rglob("*")] == []


def test_failed_downloads_say_what_to_do_instead(tmp_path, monkeypatch):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # nothing listens: connection refused
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", f"http://127.0.0.1:{port}")
    out = tmp_path / "out"
    args = ["build", "perturbed-ud", "--download", "--langs", "en", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "could not download" in result.stderr and "refused" in result.stderr
    assert "leave out --download" in result.stderr and "--ud-root DIR" in result.stderr
    assert "https://universaldependencies.org" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "perturbed-ud-cache").exists()
    assert not out.exists()


def test_a_silent_server_times_out(tmp_path, monkeypatch):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()  # accepts connections, never answers
    monkeypatch.setattr(download_module, "TIMEOUT", 0.5)
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(SourceError, match="timed out"):
            download("en", "UD_English-EWT", "test", base_url=url)
    finally:
        listener.close()
    assert not (tmp_path / "perturbed-ud-cache").exists()


def test_a_spud_build_through_download_fetches_its_pool_too(ud_server, monkeypatch):
    """spud reads its pool splits and inflection lexicon from what was downloaded, and only
    from the cache offline: the options --download and --offline say so to its settings."""
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", ud_server.url)
    spud = FAMILIES.get("spud")
    fetched = spud.from_options({"download": True, "langs": "en", "limit": 3}).settings
    assert (fetched.fetched, fetched.offline) == (True, False)
    cached = spud.from_options({"download": True, "offline": True, "langs": "en"}).settings
    assert (cached.fetched, cached.offline) == (True, True)
    local = spud.from_options({"ud_root": str(UD_ROOT), "langs": "en"}).settings
    assert (local.fetched, local.offline) == (False, False)


def test_cli_build_through_download(ud_server, tmp_path):
    out = tmp_path / "out"
    args = ["build", "perturbed-ud", "--download", "--langs", "en", "--limit", "30"]
    args += ["--seeds", "1"]
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
    with pytest.raises(InputError, match="either a limit or a sample"):
        Selection(limit=5, sample=5)
    for bad in ({"limit": 0}, {"sample": -1}):
        with pytest.raises(InputError, match="positive"):
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
    args += ["--sample", "20", "--sample-seed", "3", "--seeds", "1", "--scrambles", "full"]
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


FILES = [UD_ROOT / "UD_English-EWT" / "en_ewt-ud-test.conllu",
         UD_ROOT / "UD_German-GSD" / "de_gsd-ud-test.conllu"]  # fmt: skip


@pytest.mark.parametrize(
    ("langs", "read"), [(None, ["en", "de"]), (["de"], ["de"]), (["de", "en"], ["en", "de"])]
)
def test_files_are_read_of_the_languages_given(langs, read):
    """--langs chooses among --files; left out, every file is read (not the family's
    default languages, which would drop files silently)."""
    family = FAMILIES.get("perturbed-ud").from_options(
        {"files": [str(f) for f in FILES], "langs": langs, "limit": 2, "seeds": "1"}
    )
    assert [t.lang for t in family.settings.treebanks] == read


def test_a_language_no_file_is_of_is_refused(tmp_path):
    args = ["build", "spud", "--files", str(FILES[0]), "--langs", "en,ru", "--limit", "2",
            "--seeds", "1", "--out", str(tmp_path / "out")]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: --langs ru: no file given is of that language")
    assert not (tmp_path / "out").exists()


def test_a_missing_default_treebank_names_those_of_its_language_that_are_there(tmp_path):
    """A root without the language's default treebank (UD_English-EWT) but with another of
    the language: the error names it and the option that reads it."""
    root = tmp_path / "ud"
    shutil.copytree(UD_ROOT / "UD_English-PUD", root / "UD_English-PUD")
    args = ["build", "perturbed-ud", "--ud-root", str(root), "--langs", "en", "--seeds", "1",
            "--limit", "5", "--out", str(tmp_path / "out")]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "the root has UD_English-PUD of that language: pass --treebank en=UD_English-PUD" in (
        result.output
    )
    again = CliRunner().invoke(main, [*args, "--treebank", "en=UD_English-PUD"])
    assert again.exit_code == 0, again.output
