"""Downloads that fail cleanly, against a loopback server that misbehaves on purpose: a
connection closed mid-file, a file over its size cap (announced or not), a trickle, an HTML
page in place of the file, a redirect to another host. Each ends in one error line with the
hint, and leaves nothing in the cache. UniMorph tables honour --offline and are checked
against their pins on every read."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import loopback_direct

from perturbed_ud import download
from perturbed_ud.download import fetch_all, git_blob_sha1
from perturbed_ud.errors import InputError, SourceError
from perturbed_ud.resources import unimorph

BODY = b"# sent_id = 1\n1\tx\tx\tX\t_\t_\t0\troot\t_\t_\n\n" * 200


class Faulty(BaseHTTPRequestHandler):
    """Misbehaves by path; counts the requests it was sent."""

    requests: list[str] = []

    def log_message(self, format, *args):
        pass

    def do_GET(self):  # noqa: N802 (the standard library's name)
        Faulty.requests.append(self.path)
        mode = self.path.strip("/").split("/")[0]
        if mode in ("moved", "loop"):
            port = self.server.server_address[1]
            host = "localhost" if mode == "moved" else "127.0.0.1"
            self.send_response(302)
            self.send_header("Location", f"http://{host}:{port}/{mode}/x.conllu")
            self.end_headers()
            return
        self.send_response(200)
        if mode == "html":
            self.send_header("Content-Type", "text/html; charset=utf-8")
        if mode == "short":
            self.send_header("Content-Length", str(len(BODY)))
        elif mode == "huge":
            self.send_header("Content-Length", str(1 << 30))
        elif mode == "ok" or mode == "html":
            self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        with contextlib.suppress(ConnectionError):  # the client gave up: the fault under test
            self._body(mode)

    def _body(self, mode: str) -> None:
        if mode in ("ok", "html"):
            self.wfile.write(BODY)
        elif mode == "short":
            self.wfile.write(BODY[: len(BODY) // 2])
        elif mode == "endless":
            for _ in range(10_000):
                self.wfile.write(b"x" * 4096)
        elif mode == "trickle":
            for _ in range(50):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)


@pytest.fixture
def faulty(monkeypatch):
    loopback_direct(monkeypatch)
    Faulty.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Faulty)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("short", r"the connection closed after 3,800 of 7,600 bytes"),
        ("huge", r"it is 1,073,741,824 bytes, over the 536,870,912 such a file may be"),
        ("endless", r"it is over the 1,048,576 bytes such a file may be"),
        ("trickle", r"it came too slowly \(\d+ bytes in \d+ s\)"),
        ("html", r"the server sent an HTML page, not the file"),
        ("moved", r"redirects to another host \(localhost:\d+\)"),
        ("loop", r"HTTP Error 302: .*infinite loop\. The last 30x error message was: Found$"),
    ],
)
def test_a_misbehaving_server_gives_one_line_and_leaves_nothing(
    faulty, tmp_path, monkeypatch, mode, message
):
    monkeypatch.setitem(download.MAX_BYTES, "", 1 << 20)  # the endless body: a 1 MiB cap
    monkeypatch.setattr(download, "GRACE", 1)
    monkeypatch.setattr(download, "MIN_RATE", 1000)
    folder = tmp_path / "cache" / "UD_X"
    name = "x.conllu" if mode != "endless" else "table"
    with pytest.raises(SourceError) as caught:
        fetch_all(f"{faulty}/{mode}", [name], folder, hint="HINT")
    first, hint = str(caught.value).split("\n")
    assert re.search(message, first, re.M)
    assert first.startswith(f"could not download {faulty}/{mode}/{name}: ")
    assert hint == "HINT"
    assert not (tmp_path / "cache").exists()  # no folder, no partial file


def test_a_good_server_still_gives_the_file(faulty, tmp_path):
    folder = tmp_path / "cache" / "UD_X"
    fetch_all(f"{faulty}/ok", ["x.conllu"], folder, hint="HINT")
    assert (folder / "x.conllu").read_bytes() == BODY


def pin_table(monkeypatch, served: Path) -> Path:
    """A one-line German table served under its pin, as `unimorph.TABLES` names it."""
    table = served / "deu" / "c0ffee" / "deu"
    table.parent.mkdir(parents=True)
    table.write_text("laufen\tläuft\tV;IND;PRS;3;SG\n", encoding="utf-8")
    monkeypatch.setitem(
        unimorph.TABLES, "de", unimorph.Table("deu", "c0ffee", {"deu": git_blob_sha1(table)})
    )
    return table


def test_unimorph_offline_reads_the_cache_only(tmp_path, monkeypatch, file_server):
    pin_table(monkeypatch, tmp_path / "served")
    monkeypatch.setenv("PERTURBED_UD_UNIMORPH_URL", f"{file_server(tmp_path / 'empty')}")
    with pytest.raises(SourceError, match="is not in the cache and --offline was given"):
        unimorph.table_files("de", offline=True)


def test_a_cached_table_is_checked_against_its_pin_on_every_read(
    tmp_path, monkeypatch, file_server
):
    pin_table(monkeypatch, tmp_path / "served")
    monkeypatch.setenv("PERTURBED_UD_UNIMORPH_URL", file_server(tmp_path / "served"))
    (path,) = unimorph.table_files("de")
    # a planted table with a record to match: the record is no pin
    path.write_text("laufen\t<script>\tV;IND;PRS;3;PL\n", encoding="utf-8")
    record = download.record_path(path.parent)
    digests = json.loads(record.read_text()) | {"deu": download._sha256(path)}
    record.write_text(json.dumps(digests), encoding="utf-8")
    with pytest.raises(InputError, match="is not the file downloaded"):
        unimorph.table_files("de")


def test_a_cached_file_that_does_not_parse_names_the_cache(tmp_path, monkeypatch):
    from perturbed_ud.errors import CoNLLUError
    from perturbed_ud.ud.conllu_io import read_conllu

    monkeypatch.setenv("PERTURBED_UD_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "ud" / "r2.16" / "UD_X"
    folder.mkdir(parents=True)
    page = b"<!DOCTYPE html>\n<html>rate limited</html>\n"
    for where in (folder, tmp_path):
        (where / "x_y-ud-test.conllu").write_bytes(page)
    with pytest.raises(CoNLLUError, match=rf"a download cached in {re.escape(str(folder))}: "
                       "delete that folder to download it again"):  # fmt: skip
        list(read_conllu(folder / "x_y-ud-test.conllu"))
    with pytest.raises(CoNLLUError) as outside:
        list(read_conllu(tmp_path / "x_y-ud-test.conllu"))
    assert "a download cached" not in str(outside.value), "a user's own file is no download"
