"""Release definitions in builders/: each one builds what the same command line builds, under
its own version; a broken definition is a readable error."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import REPO, UD_ROOT

from perturbed_ud.cli import build, main
from perturbed_ud.errors import InputError
from perturbed_ud.releases import parse_version

RELEASES = sorted((REPO / "builders").glob("*.toml"))


def invoke(*args) -> click.testing.Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("path", RELEASES, ids=[p.name for p in RELEASES])
def test_every_release_names_a_dataset_and_its_options(path):
    with click.Context(build) as ctx:
        command = build.get_command(ctx, str(path))
    assert command is not None
    assert {p.name for p in command.params} == {"out", "overwrite", "ud_root"}
    assert path.read_text(encoding="utf-8").startswith("# "), "a header says what it builds"


@pytest.mark.full_build
def test_a_release_builds_what_its_command_line_builds(tmp_path):
    released = invoke("build", REPO / "builders" / "clams.toml", "--out", tmp_path / "a")
    assert released.exit_code == 0, released.output
    direct = invoke("build", "clams", "--langs", "en,fr,de,he,ru", "--out", tmp_path / "b")
    assert direct.exit_code == 0, direct.output
    assert digests(tmp_path / "a" / "clams") == digests(tmp_path / "b" / "clams")


def test_a_release_carries_its_version(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(
        'dataset = "perturbed-ud"\nversion = "1.1.0"\n\n[options]\nlangs = "en"\n'
        'limit = 20\nseeds = "1"\ntreebank = "en=UD_English-PUD"\n',
        encoding="utf-8",
    )
    result = invoke("build", path, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "out" / "perturbed-ud" / "build.json").read_text())
    assert manifest["version"] == "1.1.0"
    assert manifest["selection"] == {"mode": "first", "n": 20}
    assert [t["name"] for t in manifest["treebanks"]] == ["UD_English-PUD"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('dataset = "clams"\nversion = "1.0"\n', "'1.0' is not a version of the form x.y.z"),
        ('dataset = "clams"\n', "missing keys ['version']"),
        ('dataset = "clams"\nversion = "1.0.0"\nlangs = "en"\n', "unknown keys ['langs']"),
        ('dataset = "nothing"\nversion = "1.0.0"\n', "no dataset 'nothing' to build"),
        ('dataset = "clams"\nversion = "1.0.0"\n[options]\nseeds = "1"\n',
         "clams has no option --seeds"),
        ('dataset = "spud"\nversion = "1.0.0"\n[options]\nlimit = "many"\n',
         "option limit: 'many' is not a valid integer"),
        ('dataset = "clams"\nversion = "1.0.0"\n[options]\nout = "x"\n',
         "'out' is not part of a release"),
        ('dataset = "clams"\nversion = "1.0.0"\n[options]\nversion = "2.0.0"\n',
         "'version' is not part of a release"),
        ("dataset = \n", "cannot read the release"),
    ],
)  # fmt: skip
def test_a_broken_release_is_a_readable_error(tmp_path, text, message):
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    result = invoke("build", path, "--out", tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


@pytest.mark.parametrize("version", ["1.0.0\n", "١.٠.٠", "01.00.000", "1.0.0 ", "v1.0.0"])
def test_a_version_is_three_plain_numbers_and_nothing_else(version):
    """A newline would reach the card and the tag; other digits and leading zeros would
    name one release in two ways."""
    with pytest.raises(InputError, match="is not a version of the form x.y.z"):
        parse_version(version)
    assert parse_version("10.0.21") == (10, 0, 21) and parse_version("0.0.0") == (0, 0, 0)


DOWNLOADING = (
    'dataset = "perturbed-ud"\nversion = "2.0.0"\n\n[options]\ndownload = true\n'
    'langs = "en,de"\nlimit = 4\nseeds = "1"\n'
)


def served_ud(root: Path) -> Path:
    """UD's GitHub as a download reads it, <UD_Name>/<release>/<file>, holding the test
    excerpts of EWT and GSD."""
    from perturbed_ud.ud.sources import UD_RELEASE

    for name in ("UD_English-EWT", "UD_German-GSD"):
        (root / name / UD_RELEASE).mkdir(parents=True)
        for file in (UD_ROOT / name).iterdir():
            (root / name / UD_RELEASE / file.name).write_bytes(file.read_bytes())
    return root


def test_a_downloading_release_rebuilt_from_a_local_ud_copy_has_the_same_content(
    tmp_path, file_server, monkeypatch
):
    """Offline, --ud-root stands in for a release's download: the same files, the same rows."""
    path = tmp_path / "downloading.toml"
    path.write_text(DOWNLOADING, encoding="utf-8")
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", file_server(served_ud(tmp_path / "served")))
    downloaded = invoke("build", path, "--out", tmp_path / "downloaded")
    assert downloaded.exit_code == 0, downloaded.output
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", "http://127.0.0.1:9")  # nothing answers
    local = invoke("build", path, "--ud-root", UD_ROOT, "--out", tmp_path / "local")
    assert local.exit_code == 0, local.output
    a, b = (json.loads((tmp_path / run / "perturbed-ud" / "build.json").read_text())
            for run in ("downloaded", "local"))  # fmt: skip
    assert a["content_sha256"] == b["content_sha256"]
    assert [t["files"] for t in a["treebanks"]] == [t["files"] for t in b["treebanks"]]
    assert [t["release_source"] for t in b["treebanks"]] == ["changelog", "changelog"]


def test_offline_a_downloading_release_names_the_local_override(tmp_path, monkeypatch):
    monkeypatch.setenv("PERTURBED_UD_BASE_URL", "http://127.0.0.1:9")  # nothing answers
    result = invoke("build", REPO / "builders" / "perturbed-ud.toml", "--out", tmp_path / "out")
    assert result.exit_code == 1 and result.stderr.startswith("error: could not download")
    assert "perturbed-ud build builders/<name>.toml --ud-root DIR --out OUT" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_release_that_downloads_nothing_refuses_a_local_ud_copy(tmp_path):
    pud = REPO / "builders" / "perturbed-ud-pud.toml"
    result = invoke("build", pud, "--ud-root", UD_ROOT, "--out", tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert "downloads no treebanks, so --ud-root has nothing to replace" in result.stderr
    assert not (tmp_path / "out").exists()
