"""Download with checksums: mirror folder / file:// / http mirror, upstream fallback, and every failure path.

The only network used is a local HTTP server on 127.0.0.1 (ephemeral port) run in a thread.
"""

from __future__ import annotations

import hashlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ufskit import download
from ufskit.download import (
    DownloadError,
    fetch_file,
    fetch_source,
    file_digest_ok,
    git_blob_of,
    resolve_mirror,
)

PAYLOAD = b"feature selection\n" * 500
SHA = hashlib.sha256(PAYLOAD).hexdigest()
REL = "sub/data.bin"


class QuietServer(ThreadingHTTPServer):
    """Handler threads are daemons, and a client that hung up early (timeout test) is not an error."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class Server:
    """A local HTTP server: ``routes`` maps a path to bytes, or to (bytes, mode) with mode
    'truncate' (announce the full length, send half), 'slow' (wait 1 s first) or 'fail-once' (503 once)."""

    def __init__(self):
        self.routes, self.hits = {}, []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                outer.hits.append(self.path)
                route = outer.routes.get(self.path)
                body, mode = route if isinstance(route, tuple) else (route, None)
                if mode == "fail-once" and outer.hits.count(self.path) == 1:
                    return self.send_error(503)
                if body is None:
                    return self.send_error(404)
                if mode == "slow":
                    time.sleep(1)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if mode == "truncate" else body)

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    monkeypatch.setattr(download, "BACKOFF_SECONDS", 0.0)
    monkeypatch.delenv("UFS_DATA_MIRROR", raising=False)


@pytest.fixture
def mirror_dir(tmp_path):
    """A mirror folder holding REL with PAYLOAD."""
    root = tmp_path / "mirror"
    (root / "sub").mkdir(parents=True)
    (root / REL).write_bytes(PAYLOAD)
    return root


@pytest.fixture
def dest(tmp_path):
    return tmp_path / "raw" / REL


def quiet(_msg):
    pass


def test_checksums_known_answers(tmp_path):
    empty, hello = tmp_path / "empty", tmp_path / "hello"
    empty.write_bytes(b"")
    hello.write_bytes(b"hello world\n")
    # ids printed by `git hash-object` for these contents
    assert git_blob_of(empty) == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert git_blob_of(hello) == "3b18e512dba79e4c8300dd08aeb37f8e728b8dad"
    assert file_digest_ok(hello, git_blob="3B18E512DBA79E4C8300DD08AEB37F8E728B8DAD")
    assert file_digest_ok(hello, sha256=hashlib.sha256(b"hello world\n").hexdigest())
    assert not file_digest_ok(hello, sha256=hashlib.sha256(b"hello world").hexdigest())
    assert not file_digest_ok(tmp_path / "absent", sha256=SHA)


def test_checksum_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="exactly one"):
        file_digest_ok(tmp_path, sha256=SHA, git_blob="0" * 40)
    with pytest.raises(ValueError, match="exactly one"):
        file_digest_ok(tmp_path)
    with pytest.raises(ValueError, match="64 hex"):
        file_digest_ok(tmp_path, sha256="abc")


@pytest.mark.parametrize("as_url", [False, True])
def test_mirror_folder_plain_or_file_url(mirror_dir, dest, as_url):
    lines = []
    mirror = mirror_dir.as_uri() if as_url else str(mirror_dir)
    out = fetch_file(REL, dest, url=None, sha256=SHA, mirror=mirror, log=lines.append)
    assert out == dest and dest.read_bytes() == PAYLOAD
    assert any("fetched sub/data.bin from mirror" in line for line in lines)
    assert sorted(p.name for p in dest.parent.iterdir()) == ["data.bin"]


def test_mirror_over_http(server, dest):
    server.routes["/base/sub/data.bin"] = PAYLOAD
    fetch_file(REL, dest, url=None, sha256=SHA, mirror=server.url + "/base/", log=quiet)
    assert dest.read_bytes() == PAYLOAD
    assert server.hits == ["/base/sub/data.bin"]


def test_upstream_used_when_mirror_lacks_file(tmp_path, server, dest):
    (tmp_path / "empty_mirror").mkdir()
    server.routes["/up/data.bin"] = PAYLOAD
    lines = []
    fetch_file(REL, dest, url=server.url + "/up/data.bin", sha256=SHA, mirror=tmp_path / "empty_mirror",
               log=lines.append)
    assert dest.read_bytes() == PAYLOAD
    assert any("from upstream" in line for line in lines)


def test_git_blob_checked_download(server, dest):
    server.routes["/f"] = PAYLOAD
    blob = hashlib.sha1(b"blob %d\0" % len(PAYLOAD) + PAYLOAD).hexdigest()
    fetch_file(REL, dest, url=server.url + "/f", git_blob=blob, log=quiet)
    assert dest.read_bytes() == PAYLOAD
    with pytest.raises(DownloadError, match="git blob"):
        fetch_file(REL, dest.with_name("other"), url=server.url + "/f", git_blob="0" * 40, log=quiet)


def test_checksum_mismatch_names_file_and_every_source(mirror_dir, server, dest):
    (mirror_dir / REL).write_bytes(PAYLOAD + b"edited")
    server.routes["/f"] = PAYLOAD[:-1]
    with pytest.raises(DownloadError) as err:
        fetch_file(REL, dest, url=server.url + "/f", sha256=SHA, mirror=str(mirror_dir), retries=2, log=quiet)
    msg = str(err.value)
    assert REL in msg and SHA in msg
    assert f"mirror {mirror_dir / REL}: checksum mismatch (expected sha256 {SHA}, got" in msg
    assert f"upstream {server.url}/f: checksum mismatch" in msg
    assert "UFS_DATA_MIRROR" in msg and "data.mirror" in msg and "data.exclude" in msg
    assert server.hits == ["/f"]  # a mismatch is not retried
    assert list(dest.parent.iterdir()) == []  # nothing left, not even a temporary file


def test_truncated_download_is_an_error_and_leaves_nothing(server, dest):
    server.routes["/f"] = (PAYLOAD, "truncate")
    with pytest.raises(DownloadError, match=rf"truncated \(received {len(PAYLOAD) // 2} of {len(PAYLOAD)} bytes\)"):
        fetch_file(REL, dest, url=server.url + "/f", sha256=SHA, retries=1, log=quiet)
    assert len(server.hits) == 2  # truncation may be transient: retried once
    assert list(dest.parent.iterdir()) == []


def test_short_file_in_mirror_folder_is_rejected(mirror_dir, dest):
    (mirror_dir / REL).write_bytes(PAYLOAD[:100])
    with pytest.raises(DownloadError, match="checksum mismatch"):
        fetch_file(REL, dest, url=None, sha256=SHA, mirror=str(mirror_dir), log=quiet)
    assert list(dest.parent.iterdir()) == []


def test_missing_everywhere_lists_all_sources(tmp_path, server, dest):
    (tmp_path / "empty_mirror").mkdir()
    with pytest.raises(DownloadError) as err:
        fetch_file(REL, dest, url=server.url + "/nope", sha256=SHA, mirror=str(tmp_path / "empty_mirror"), log=quiet)
    msg = str(err.value)
    assert f"mirror {tmp_path / 'empty_mirror' / REL}: not found in the mirror folder" in msg
    assert f"upstream {server.url}/nope: HTTP 404" in msg
    assert server.hits == ["/nope"]  # a 404 is final, not retried


def test_mirror_folder_that_does_not_exist(tmp_path, server, dest):
    server.routes["/f"] = PAYLOAD
    lines = []
    fetch_file(REL, dest, url=server.url + "/f", sha256=SHA, mirror=str(tmp_path / "typo"), log=lines.append)
    assert dest.read_bytes() == PAYLOAD
    with pytest.raises(DownloadError, match=rf"mirror {tmp_path / 'typo'}: no such folder"):
        fetch_file(REL, dest.with_name("x"), url=None, sha256=SHA, mirror=str(tmp_path / "typo"), log=quiet)


def test_no_mirror_and_no_url_says_so(dest):
    with pytest.raises(DownloadError) as err:
        fetch_file(REL, dest, url=None, sha256=SHA, log=quiet)
    assert "mirror: none set" in str(err.value) and "upstream: none" in str(err.value)


def test_timeout_is_reported(server, dest):
    server.routes["/slow"] = (PAYLOAD, "slow")
    with pytest.raises(DownloadError, match="timed out"):
        fetch_file(REL, dest, url=server.url + "/slow", sha256=SHA, timeout=0.3, retries=0, log=quiet)
    assert list(dest.parent.iterdir()) == []


def test_server_error_is_retried(server, dest):
    server.routes["/f"] = (PAYLOAD, "fail-once")
    fetch_file(REL, dest, url=server.url + "/f", sha256=SHA, retries=1, log=quiet)
    assert dest.read_bytes() == PAYLOAD and server.hits == ["/f", "/f"]


def test_existing_correct_file_is_not_fetched_again(server, dest):
    server.routes["/f"] = PAYLOAD
    dest.parent.mkdir(parents=True)
    dest.write_bytes(PAYLOAD)
    before = dest.stat().st_mtime_ns
    lines = []
    fetch_file(REL, dest, url=server.url + "/f", sha256=SHA, log=lines.append)
    assert server.hits == [] and lines == [] and dest.stat().st_mtime_ns == before


def test_existing_wrong_file_is_replaced(server, dest):
    server.routes["/f"] = PAYLOAD
    dest.parent.mkdir(parents=True)
    dest.write_bytes(b"stale")
    fetch_file(REL, dest, url=server.url + "/f", sha256=SHA, log=quiet)
    assert dest.read_bytes() == PAYLOAD


@pytest.mark.parametrize("bad", ["../escape", "/abs/path", "a\\b", ""])
def test_unsafe_relative_paths_are_refused(bad, tmp_path):
    with pytest.raises(ValueError, match="relative"):
        fetch_file(bad, tmp_path / "x", url=None, sha256=SHA, log=quiet)


def test_fetch_source_with_files_and_file_list(tmp_path, mirror_dir, server):
    listed = {"a/one.txt": b"one\n", "b/two.txt": b"two\n"}
    for rel, body in listed.items():
        (mirror_dir / "corpus" / rel).parent.mkdir(parents=True, exist_ok=True)
        (mirror_dir / "corpus" / rel).write_bytes(body)
    server.routes["/b/two.txt"] = listed["b/two.txt"]
    (mirror_dir / "corpus" / "b" / "two.txt").unlink()  # must come from its upstream URL
    rows = ["path\tsha256\tbytes\tupstream_url"] + [
        f"{rel}\t{hashlib.sha256(body).hexdigest()}\t{len(body)}\t{server.url}/{rel}" for rel, body in listed.items()
    ]
    tsv = ("\n".join(rows) + "\n").encode()
    (mirror_dir / "corpus" / "FILES.tsv").write_bytes(tsv)
    source = {
        "mirrored": True,
        "files": [{"path": REL, "url": None, "sha256": SHA}],
        "file_list": {"path": "corpus/FILES.tsv", "url": None, "sha256": hashlib.sha256(tsv).hexdigest()},
    }
    raw = tmp_path / "raw"
    paths = fetch_source(source, raw, mirror=str(mirror_dir), log=quiet)
    assert paths == [raw / REL, raw / "corpus/FILES.tsv", raw / "corpus/a/one.txt", raw / "corpus/b/two.txt"]
    assert [p.read_bytes() for p in paths[2:]] == list(listed.values())
    assert server.hits == ["/b/two.txt"]


def test_file_list_missing_columns(tmp_path):
    tsv = tmp_path / "list.tsv"
    tsv.write_text("path\tbytes\nx\t1\n")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['sha256', 'upstream_url'\]"):
        download.read_file_list(tsv)


def test_resolve_mirror_env_beats_config(monkeypatch):
    assert resolve_mirror("/from/config") == "/from/config"
    assert resolve_mirror("") is None and resolve_mirror(None) is None
    monkeypatch.setenv("UFS_DATA_MIRROR", "https://mirror.example/data")
    assert resolve_mirror("/from/config") == "https://mirror.example/data"
    monkeypatch.setenv("UFS_DATA_MIRROR", "  ")
    assert resolve_mirror(Path("/from/config")) == "/from/config"
