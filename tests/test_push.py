"""Publishing a built folder: local checks, dry run, and the Hub calls, faked at HfApi or
answered by a real HTTP server on loopback; no token on the command line or in an error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from conftest import NC_TREEBANK, UD_ROOT, non_commercial_ud_root
from datasets import load_dataset
from huggingface_hub.errors import OfflineModeIsEnabled

import perturbed_ud.data.push as push_module
from perturbed_ud.builders.engine import build
from perturbed_ud.cli import main
from perturbed_ud.data.push import push_folder, redact
from perturbed_ud.errors import InputError, PushError
from perturbed_ud.ud.selection import Selection
from perturbed_ud.ud.sources import resolve

REPO_ID = "someone/perturbed-ud"


def _build(tmp_path_factory, non_commercial: bool):
    out = tmp_path_factory.mktemp("nc" if non_commercial else "en")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("PERTURBED_UD_CACHE", str(out / "cache"))
        sources = resolve(["en"], split="test", ud_root=str(UD_ROOT))
        if non_commercial:
            root = non_commercial_ud_root(out / "ud")
            overrides = {"tr": NC_TREEBANK}
            sources += resolve(["tr"], split="test", ud_root=str(root), overrides=overrides)
        selection = Selection(limit=20)
        # the version pushed below, whatever the family's default
        return build("perturbed-ud", out / "build", treebanks=sources, seeds=[1],
                     selection=selection, version="1.0.0")  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """English only: every licence publishable."""
    return _build(tmp_path_factory, non_commercial=False)


@pytest.fixture(scope="module")
def folder_nc(tmp_path_factory):
    """English plus a Turkish treebank under CC BY-NC-SA."""
    return _build(tmp_path_factory, non_commercial=True)


def _files(folder) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix(): p.stat().st_size for p in folder.rglob("*") if p.is_file()
    }


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    """A recording HfApi; set ``tags`` to the tags the remote repo already has, ``tagged`` to
    the build.json they name."""

    class FakeHub:
        calls: list[tuple[str, tuple, dict]] = []
        tags: list[str] = []
        tagged: dict = {}  # build.json at the existing tag
        folder = tmp_path

        def __init__(self, *args, **kwargs):
            FakeHub.calls.append(("__init__", args, kwargs))

        def create_repo(self, *args, **kwargs):
            FakeHub.calls.append(("create_repo", args, kwargs))

        def list_repo_refs(self, *args, **kwargs):
            FakeHub.calls.append(("list_repo_refs", args, kwargs))
            return SimpleNamespace(tags=[SimpleNamespace(name=t) for t in FakeHub.tags])

        def hf_hub_download(self, repo_id, filename, **kwargs):
            FakeHub.calls.append(("hf_hub_download", (repo_id, filename), kwargs))
            path = FakeHub.folder / f"{filename}@{kwargs['revision']}"
            path.write_text(json.dumps(FakeHub.tagged), encoding="utf-8")
            return str(path)

        def upload_folder(self, *args, **kwargs):
            FakeHub.calls.append(("upload_folder", args, kwargs))
            return SimpleNamespace(oid=UPLOAD_COMMIT)  # huggingface_hub's CommitInfo

        def create_tag(self, *args, **kwargs):
            FakeHub.calls.append(("create_tag", args, kwargs))

        @classmethod
        def names(cls) -> list[str]:
            return [name for name, _, _ in cls.calls]

        @classmethod
        def call(cls, name: str) -> tuple[tuple, dict]:
            found = [(a, k) for n, a, k in cls.calls if n == name]
            assert len(found) == 1, f"{name} called {len(found)} times"
            return found[0]

    monkeypatch.setattr(push_module, "HfApi", FakeHub)
    return FakeHub


UPLOAD_COMMIT = "c0ffee" * 6 + "abcd"  # the commit a fake upload made


@pytest.fixture
def no_token(monkeypatch):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(push_module, "get_token", lambda: None)


def test_dry_run_lists_every_file_and_makes_no_hub_call(folder, no_hub, no_token):
    lines: list[str] = []
    tag = push_folder(folder, REPO_ID, "1.0.0", dry_run=True, echo=lines.append)
    out = "\n".join(lines)
    files = _files(folder)
    assert "README.md" in files and "build.json" in files
    parquet = [f for f in files if f.endswith(".parquet")]
    assert len(parquet) >= 3
    for name, size in files.items():
        assert f"  {name}  {size} bytes" in lines
    assert f"files: {len(files)}" in out
    assert REPO_ID in out
    assert "v1.0.0" in out
    assert "licences: every treebank licence allows publishing" in out
    assert tag == "v1.0.0"


def test_missing_token_is_an_error(folder, no_hub, no_token):
    with pytest.raises(PushError, match=r"no Hugging Face token.*hf auth login.*HF_TOKEN"):
        push_folder(folder, REPO_ID, "1.0.0", echo=lambda _: None)


def test_push_creates_repo_uploads_then_tags(folder, fake_hub):
    tag = push_folder(folder, REPO_ID, "1.0.0", token="hf_test", echo=lambda _: None)
    assert tag == "v1.0.0"
    names = fake_hub.names()
    assert names == ["__init__", "create_repo", "list_repo_refs", "upload_folder", "create_tag"]
    assert fake_hub.call("__init__")[1] == {"token": "hf_test"}

    args, kwargs = fake_hub.call("create_repo")
    assert args == (REPO_ID,)
    assert kwargs == {"repo_type": "dataset", "exist_ok": True, "private": False}

    _, kwargs = fake_hub.call("upload_folder")
    assert kwargs["repo_id"] == REPO_ID
    assert kwargs["repo_type"] == "dataset"
    assert kwargs["folder_path"] == str(folder)
    assert sorted(kwargs["allow_patterns"]) == sorted(_files(folder))  # the built files only
    assert kwargs["commit_message"] == "perturbed-ud v1.0.0"
    assert kwargs["delete_patterns"] == ["*/*.parquet"]

    args, kwargs = fake_hub.call("create_tag")
    assert args == (REPO_ID,)
    assert kwargs == {"tag": "v1.0.0", "repo_type": "dataset", "revision": UPLOAD_COMMIT}


def test_push_uses_the_saved_token_and_private_flag(folder, fake_hub, monkeypatch):
    monkeypatch.setattr(push_module, "get_token", lambda: "hf_saved")
    push_folder(folder, REPO_ID, "1.0.0", private=True, echo=lambda _: None)
    assert fake_hub.call("__init__")[1] == {"token": "hf_saved"}
    assert fake_hub.call("create_repo")[1]["private"] is True


def test_a_tag_naming_other_content_stops_before_upload(folder, fake_hub):
    fake_hub.tags = ["v0.9.0", "v1.0.0"]
    fake_hub.tagged = {"version": "1.0.0", "content_sha256": "0" * 64}
    with pytest.raises(PushError, match=r"already has tag v1\.0\.0 for other content.*--version"):
        push_folder(folder, REPO_ID, "1.0.0", token="hf_test", echo=lambda _: None)
    _, kwargs = fake_hub.call("hf_hub_download")
    assert kwargs == {"repo_type": "dataset", "revision": "v1.0.0"}
    assert "upload_folder" not in fake_hub.names()
    assert "create_tag" not in fake_hub.names()


def test_a_tag_naming_the_same_content_is_already_pushed(folder, fake_hub):
    fake_hub.tags = ["v1.0.0"]
    fake_hub.tagged = json.loads((folder / "build.json").read_text())
    lines: list[str] = []
    assert push_folder(folder, REPO_ID, "1.0.0", token="hf_test", echo=lines.append) == "v1.0.0"
    assert lines == [f"{REPO_ID} already has this content at tag v1.0.0: nothing to push"]
    assert "upload_folder" not in fake_hub.names()
    assert "create_tag" not in fake_hub.names()


def test_hub_failure_is_a_push_error_naming_the_step(folder, fake_hub):
    def refuse(self, *args, **kwargs):
        raise OfflineModeIsEnabled("Cannot reach the Hub: offline mode is enabled.")

    fake_hub.create_tag = refuse
    with pytest.raises(PushError, match=r"creating tag v1\.0\.0 on someone/perturbed-ud failed"):
        push_folder(folder, REPO_ID, "1.0.0", token="hf_test", echo=lambda _: None)
    assert "upload_folder" in fake_hub.names()


def test_non_commercial_licence_is_refused(folder_nc, no_hub, no_token):
    for dry_run in (True, False):
        with pytest.raises(PushError) as info:
            push_folder(folder_nc, REPO_ID, "1.0.0", dry_run=dry_run, echo=lambda _: None)
        message = str(info.value)
        assert NC_TREEBANK in message
        assert "forbids commercial use" in message
        assert "--allow-licence-risk" in message
        assert "UD_English-EWT" not in message


def test_non_commercial_licence_is_accepted_with_the_flag(folder_nc, fake_hub):
    lines: list[str] = []
    tag = push_folder(
        folder_nc, REPO_ID, "1.0.0", allow_licence_risk=True, token="hf_test", echo=lines.append
    )
    assert tag == "v1.0.0"
    assert fake_hub.names()[-2:] == ["upload_folder", "create_tag"]
    out = "\n".join(lines)
    assert "overridden by --allow-licence-risk" in out
    assert NC_TREEBANK in out


def test_dry_run_reports_an_overridden_licence(folder_nc, no_hub, no_token):
    lines: list[str] = []
    push_folder(
        folder_nc, REPO_ID, "1.0.0", dry_run=True, allow_licence_risk=True, echo=lines.append
    )
    out = "\n".join(lines)
    assert "1 problem(s), overridden by --allow-licence-risk" in out
    assert f"{NC_TREEBANK}: licence 'CC BY-NC-SA 4.0' forbids commercial use" in out


def test_version_must_match_the_build(folder, no_hub):
    with pytest.raises(PushError, match=r"built as version 1\.0\.0.*rebuild with --version"):
        push_folder(folder, REPO_ID, "1.1.0", dry_run=True, echo=lambda _: None)


@pytest.mark.parametrize("version", ["v1.0", "1.0", "1.0.0-rc1", ""])
def test_version_must_be_x_y_z(folder, no_hub, version, tmp_path):
    with pytest.raises(InputError, match=r"not a version of the form x\.y\.z"):
        push_folder(folder, REPO_ID, version, dry_run=True, echo=lambda _: None)
    result = CliRunner().invoke(
        main, ["build", "clams", "--langs", "fr", "--version", version, "--out", str(tmp_path)]
    )
    assert result.exit_code == 1 and "not a version of the form x.y.z" in result.stderr
    assert not (tmp_path / "clams").exists()


def test_the_version_is_chosen_at_build_time(tmp_path, no_hub):
    args = ["build", "perturbed-ud", "--langs", "en", "--limit", "10", "--seeds", "1"]
    result = CliRunner().invoke(main, [*args, "--version", "1.1.0", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "perturbed-ud"
    manifest = json.loads((folder / "build.json").read_text())
    assert manifest["version"] == "1.1.0" and manifest["signature"].startswith(
        "perturbed-ud:1.1.0|"
    )
    ds = load_dataset(str(folder), "en_full_seed1", cache_dir=str(tmp_path / "cache"))
    assert ds["orig"].info.version.version_str == "1.1.0"
    assert push_folder(folder, REPO_ID, "1.1.0", dry_run=True, echo=lambda _: None) == "v1.1.0"


def test_bad_repo_id(folder, no_hub):
    with pytest.raises(PushError, match="bad --repo-id"):
        push_folder(folder, "someone/bad name", "1.0.0", dry_run=True, echo=lambda _: None)


def test_folder_must_be_a_build(tmp_path, folder, no_hub):
    with pytest.raises(PushError, match="is not a folder"):
        push_folder(tmp_path / "missing", REPO_ID, "1.0.0", dry_run=True)
    partial = tmp_path / "partial"
    shutil.copytree(folder, partial)
    (partial / "build.json").unlink()
    with pytest.raises(PushError, match="has no build.json"):
        push_folder(partial, REPO_ID, "1.0.0", dry_run=True)
    (partial / "build.json").write_text(json.dumps({"dataset": "perturbed-ud"}))
    with pytest.raises(PushError, match="lacks version, treebanks, configs"):
        push_folder(partial, REPO_ID, "1.0.0", dry_run=True)


def test_cli_refuses_non_commercial_licence(folder_nc, no_hub, no_token):
    result = CliRunner().invoke(
        main, ["push", str(folder_nc), "--repo-id", REPO_ID, "--version", "1.0.0"]
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("error: refusing to publish")
    assert NC_TREEBANK in result.stderr
    assert "--allow-licence-risk" in result.stderr
    assert "Traceback" not in result.output


def test_cli_dry_run(folder, no_hub, no_token):
    result = CliRunner().invoke(
        main, ["push", str(folder), "--repo-id", REPO_ID, "--version", "1.0.0", "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert "tag: v1.0.0" in result.stdout
    assert "  build.json  " in result.stdout
    # without --version: the version build.json records
    default = CliRunner().invoke(main, ["push", str(folder), "--repo-id", REPO_ID, "--dry-run"])
    assert default.exit_code == 0 and default.stdout == result.stdout, default.output


def test_cli_takes_the_token_from_hf_token(folder, fake_hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_env")
    args = ["push", str(folder), "--repo-id", REPO_ID, "--version", "1.0.0"]
    result = CliRunner().invoke(main, [*args, "--private"])
    assert result.exit_code == 0, result.output
    assert fake_hub.call("__init__")[1] == {"token": "hf_env"}
    assert fake_hub.call("create_repo")[1]["private"] is True
    assert "at tag v1.0.0" in result.stdout


def test_cli_refuses_a_token_on_the_command_line(folder, no_hub):
    """`ps` shows a command line to every user of the machine."""
    args = ["push", str(folder), "--repo-id", REPO_ID, "--version", "1.0.0", "--token", "hf_cli"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "--token is not accepted" in result.stderr
    assert "set HF_TOKEN or run `hf auth login`" in result.stderr
    assert "hf_cli" not in result.output
    shown = CliRunner().invoke(main, ["push", "--help"]).stdout
    assert "--token" not in shown and "HF_TOKEN" in shown and "hf auth login" in shown


HF_SHAPED = "hf_" + "aBcD1234" * 4 + "xy"  # hf_ and 34 letters or digits, as Hub tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the-token in a message", "[redacted] in a message"),  # the token, whatever its shape
        ("{'authorization': 'Bearer abc.DEF-1'}", "{'authorization': 'Bearer [redacted]'}"),
        ("auth=bearer xyz, next", "auth=bearer [redacted], next"),
        (f"token {HF_SHAPED}.", "token [redacted]."),
        ("see hf_hub_download", "see hf_hub_download"),
    ],
)
def test_redact(text, expected):
    assert redact(text, "the-token") == expected


class EchoingHub(BaseHTTPRequestHandler):
    """A Hub that answers every request with an error quoting the request's headers, as some
    servers and proxies do; it records the Authorization header it was sent."""

    def answer(self) -> None:
        self.server.authorizations.append(self.headers.get("Authorization"))
        body = json.dumps({"error": f"bad request with headers {dict(self.headers)}"}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = answer

    def log_message(self, *args) -> None:
        """Quiet: pytest shows what a test prints."""


@pytest.fixture
def echoing_hub():
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoingHub)
    server.authorizations = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.subprocess
def test_a_server_echoing_the_token_does_not_get_it_printed(folder, echoing_hub, tmp_path):
    """The real client against a real server on loopback, from a fresh process: HF_ENDPOINT
    and HF_HUB_OFFLINE are read when huggingface_hub is imported."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env |= {
        "HF_ENDPOINT": f"http://127.0.0.1:{echoing_hub.server_port}",
        "HF_HUB_OFFLINE": "0",
        "HF_HOME": str(tmp_path / "hf"),
        "HF_TOKEN": HF_SHAPED,
    }
    args = ["push", str(folder), "--repo-id", REPO_ID, "--version", "1.0.0"]
    result = subprocess.run([sys.executable, "-m", "perturbed_ud.cli", *args], env=env,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert f"Bearer {HF_SHAPED}" in echoing_hub.authorizations  # sent, and echoed
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"error: creating the repo on {REPO_ID} failed: ")
    assert "'Bearer [redacted]'" in result.stderr
    assert HF_SHAPED not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_server_text_in_our_own_errors_is_redacted(folder, fake_hub):
    fake_hub.tags = ["v1.0.0"]
    fake_hub.tagged = {"content_sha256": "hf_test"}
    with pytest.raises(PushError, match=r"already has tag v1\.0\.0 for other content") as info:
        push_folder(folder, REPO_ID, "1.0.0", token="hf_test", echo=lambda _: None)
    assert "hf_test" not in str(info.value) and "sha256 [redacted]" in str(info.value)


def _shards(folder) -> list:
    return sorted(folder.rglob("*.parquet"))


def test_an_edited_parquet_file_is_refused_before_any_hub_call(folder, no_hub, tmp_path):
    """The tag would name the content build.json records, not what goes up."""
    edited = shutil.copytree(folder, tmp_path / "edited")
    with _shards(edited)[0].open("ab") as f:
        f.write(b"\0")
    for dry_run in (True, False):
        with pytest.raises(PushError, match=r"Parquet files are not those build\.json records"):
            push_folder(edited, REPO_ID, "1.0.0", dry_run=dry_run, token="hf_test",
                        echo=lambda _: None)  # fmt: skip


def test_what_the_build_did_not_write_is_refused_by_name(folder, no_hub, tmp_path):
    stray = shutil.copytree(folder, tmp_path / "stray")
    secret = tmp_path / "secret_token"
    secret.write_text("hf_notForTheWorld")
    (stray / ".env").write_text("HF_TOKEN=hf_notForTheWorld")
    (stray / ".hidden").mkdir()
    (stray / ".hidden" / "a").write_text("a")
    (stray / "notes.txt").symlink_to(secret)
    (stray / "outside").symlink_to(tmp_path, target_is_directory=True)
    os.mkfifo(stray / "pipe")
    lines: list[str] = []
    for dry_run in (True, False):
        with pytest.raises(PushError) as info:
            push_folder(stray, REPO_ID, "1.0.0", dry_run=dry_run, token="hf_test",
                        echo=lines.append)  # fmt: skip
        message = str(info.value)
        assert message.startswith(f"{stray} holds what the build did not write: .env, ")
        for name in (".env", ".hidden/a", "notes.txt (a symlink)", "outside (a symlink)",
                     "pipe (not a regular file)"):  # fmt: skip
            assert name in message
        assert "hf_notForTheWorld" not in message
    assert lines == []


def test_a_symlinked_parquet_file_is_refused_though_its_content_matches(folder, no_hub, tmp_path):
    linked = shutil.copytree(folder, tmp_path / "linked")
    shard = _shards(linked)[0]
    kept = shutil.copyfile(shard, tmp_path / "kept.parquet")
    shard.unlink()
    shard.symlink_to(kept)
    with pytest.raises(PushError, match=r"did not write: .*\.parquet \(a symlink\)"):
        push_folder(linked, REPO_ID, "1.0.0", dry_run=True, echo=lambda _: None)


def test_a_parquet_file_of_no_listed_split_is_refused(folder, no_hub, tmp_path):
    extra = shutil.copytree(folder, tmp_path / "extra")
    (extra / "other").mkdir()
    shutil.copyfile(_shards(extra)[0], extra / "other" / "orig-00000-of-00001.parquet")
    with pytest.raises(PushError, match=r"did not write: other/orig-00000-of-00001\.parquet;"):
        push_folder(extra, REPO_ID, "1.0.0", dry_run=True, echo=lambda _: None)


@pytest.mark.parametrize("name", ["README.md", "build.json"])
def test_a_credential_in_the_card_or_manifest_is_never_uploaded(folder, no_hub, tmp_path, name):
    copy = shutil.copytree(folder, tmp_path / "copy")
    path = copy / name
    text = path.read_text(encoding="utf-8")
    leak = "hf_LEAKCANARY0123456789abcdefghij"
    if name == "build.json":
        manifest = json.loads(text)
        manifest["pretty_name"] += f" {leak}"
        path.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    else:
        path.write_text(text + f"\nContact token: {leak}\n", encoding="utf-8")
    with pytest.raises(PushError, match=f"{name}:\\d+: holds what looks like a credential"):
        push_folder(copy, REPO_ID, None, dry_run=True, echo=lambda _: None)
