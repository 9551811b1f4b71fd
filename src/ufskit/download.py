"""Fetch raw data files: the mirror first, then the upstream URL, each checked by its checksum.

Every registry file has a sha256 or a git blob id. A download goes to a temporary file beside its
destination and is renamed into place only after the checksum matched, so a failed, truncated or
interrupted download never leaves a file that the workflow could take for data.
"""

from __future__ import annotations

import csv
import hashlib
import http.client
import os
import re
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path, PurePosixPath

from .data import atomic_path

MIRROR_ENV = "UFS_DATA_MIRROR"
CHUNK = 1 << 20
BACKOFF_SECONDS = 1.0  # pause before the first network retry; doubled before each further one
FILE_LIST_COLUMNS = ("path", "sha256", "upstream_url")
ADVICE = (
    f"What to do: set {MIRROR_ENV} (or data.mirror in the config) to a folder or http(s) URL that holds "
    "this file, check the network connection, or leave the dataset out with data.exclude in the config."
)
_HEX_DIGITS = {"sha256": 64, "git blob": 40}


class DownloadError(RuntimeError):
    """No source gave the file with the expected checksum."""


class _AttemptFailed(Exception):
    """One attempt at one source failed; ``retry`` says whether trying that source again may help."""

    def __init__(self, reason: str, retry: bool = False):
        super().__init__(reason)
        self.reason, self.retry = reason, retry


def _hash_file(path, h, prefix: bytes = b"") -> str:
    h.update(prefix)
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def sha256_of(path) -> str:
    """SHA-256 of a file's bytes (hex), read in chunks."""
    return _hash_file(path, hashlib.sha256())


def git_blob_of(path) -> str:
    """Git's blob id of a file (what ``git hash-object`` prints): SHA-1 of b"blob <size>\\0" + bytes."""
    return _hash_file(path, hashlib.sha1(), b"blob %d\0" % os.path.getsize(path))


def _expected(sha256, git_blob) -> tuple[str, str]:
    """(kind, lower-case hex digest) from exactly one of the two checksums."""
    if (sha256 is None) == (git_blob is None):
        raise ValueError("give exactly one of sha256= or git_blob=.")
    kind, value = ("sha256", sha256) if sha256 is not None else ("git blob", git_blob)
    value = str(value).strip().lower()
    if not re.fullmatch(f"[0-9a-f]{{{_HEX_DIGITS[kind]}}}", value):
        raise ValueError(f"{kind} must be {_HEX_DIGITS[kind]} hex digits; got {value!r}.")
    return kind, value


def _digest(path, kind: str) -> str:
    return sha256_of(path) if kind == "sha256" else git_blob_of(path)


def file_digest_ok(path, *, sha256=None, git_blob=None) -> bool:
    """True when ``path`` is a file whose sha256 (or git blob id) is the one given."""
    kind, want = _expected(sha256, git_blob)
    return Path(path).is_file() and _digest(path, kind) == want


def resolve_mirror(config_value=None) -> str | None:
    """The mirror to use: env ``UFS_DATA_MIRROR`` wins over the config value; empty means none."""
    for value in (os.environ.get(MIRROR_ENV), config_value):
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


def _relative(rel_path) -> PurePosixPath:
    """``rel_path`` as a relative POSIX path that cannot leave the folder it is joined to."""
    rel = PurePosixPath(str(rel_path))
    if not rel.parts or rel.is_absolute() or ".." in rel.parts or "\\" in str(rel_path):
        raise ValueError(f"file path must be relative, with '/' separators and no '..'; got {rel_path!r}.")
    return rel


def _mirror_root(mirror: str) -> str | Path:
    """The mirror as a base URL (http or https) or as a local folder (a plain path or a file:// URL)."""
    parts = urllib.parse.urlsplit(mirror)
    if parts.scheme in ("http", "https"):
        return mirror.rstrip("/")
    return Path(urllib.request.url2pathname(parts.path)) if parts.scheme == "file" else Path(mirror).expanduser()


def _copy_local(src: Path, fh) -> None:
    if not src.is_file():
        raise _AttemptFailed("not found in the mirror folder")
    with open(src, "rb") as inp:
        shutil.copyfileobj(inp, fh, CHUNK)


def _download(url: str, fh, timeout: float) -> None:
    """Stream ``url`` into ``fh``; a short body (fewer bytes than Content-Length) is an error."""
    got, expected = 0, None
    request = urllib.request.Request(url, headers={"User-Agent": "ufskit-download"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            length = resp.headers.get("Content-Length")
            expected = int(length) if length and length.isdigit() else None
            while chunk := resp.read(CHUNK):
                fh.write(chunk)
                got += len(chunk)
    except urllib.error.HTTPError as e:
        raise _AttemptFailed(f"HTTP {e.code}", retry=e.code >= 500 or e.code == 429) from None
    except urllib.error.URLError as e:
        timed_out = isinstance(e.reason, TimeoutError)
        raise _AttemptFailed("timed out" if timed_out else f"unreachable ({e.reason})", retry=True) from None
    except TimeoutError:
        raise _AttemptFailed("timed out", retry=True) from None
    except http.client.IncompleteRead as e:
        got += len(e.partial)
    except (http.client.HTTPException, OSError) as e:
        raise _AttemptFailed(f"connection failed ({e})", retry=True) from None
    if expected is not None and got != expected:
        raise _AttemptFailed(f"truncated (received {got} of {expected} bytes)", retry=True)


def _fetch_once(location: str | Path, dest: Path, kind: str, want: str, timeout: float) -> None:
    """Copy or download into a temporary sibling of ``dest``; rename it only if the checksum matches."""
    tmp = atomic_path(dest)
    try:
        with open(tmp, "wb") as fh:
            if isinstance(location, Path):
                _copy_local(location, fh)
            else:
                _download(location, fh, timeout)
        got = _digest(tmp, kind)
        if got != want:
            raise _AttemptFailed(f"checksum mismatch (expected {kind} {want}, got {got})")
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def _try_source(location, dest, kind, want, *, timeout, retries, log) -> str | None:
    """Fetch from one source, retrying a network source on transient errors; None or the last reason."""
    attempts = 1 + max(0, int(retries)) if isinstance(location, str) else 1
    reason = None
    for attempt in range(attempts):
        if attempt:
            log(f"  retrying {location} after: {reason}")
            time.sleep(BACKOFF_SECONDS * 2 ** (attempt - 1))
        try:
            _fetch_once(location, dest, kind, want, timeout)
            return None
        except _AttemptFailed as failure:
            reason = failure.reason
            if not failure.retry:
                break
    return reason


def fetch_file(rel_path, dest, *, url, sha256=None, git_blob=None, mirror=None, timeout=60, retries=3,
               log=print) -> Path:
    """Make ``dest`` a verified copy of the registry file ``rel_path``; return ``dest``.

    Sources, in order: the mirror (a folder, a file:// URL or an http(s) base URL, the file being
    ``mirror/rel_path``), then the upstream ``url`` (None = the file is only in the mirror). A
    ``dest`` that already has the right checksum is left alone. Failure is a ``DownloadError``
    naming the file, every source tried with why it failed, and what to do.
    """
    kind, want = _expected(sha256, git_blob)
    rel, dest = _relative(rel_path), Path(dest)
    if dest.is_file():
        if _digest(dest, kind) == want:
            return dest
        log(f"{rel}: the existing file has the wrong {kind}; fetching it again")
    sources, failures = [], []
    root = _mirror_root(os.fspath(mirror)) if mirror else None
    if isinstance(root, str):
        sources.append(("mirror", f"{root}/{urllib.parse.quote(str(rel))}"))
    elif root is not None and root.is_dir():
        sources.append(("mirror", root / rel))
    elif root is not None:
        failures.append(f"mirror {root}: no such folder")
    else:
        failures.append(f"mirror: none set ({MIRROR_ENV} and data.mirror are empty)")
    if url:
        sources.append(("upstream", str(url)))
    else:
        failures.append("upstream: none (this file is published only in the data mirror)")
    for label, location in sources:
        reason = _try_source(location, dest, kind, want, timeout=timeout, retries=retries, log=log)
        if reason is None:
            log(f"fetched {rel} from {label} {location}")
            return dest
        failures.append(f"{label} {location}: {reason}")
    lines = "\n".join(f"  - {f}" for f in failures)
    raise DownloadError(f"could not obtain {rel} ({kind} {want}). Tried:\n{lines}\n{ADVICE}")


def read_file_list(path) -> list[dict]:
    """Rows of a file-list TSV (columns path, sha256, ..., upstream_url), as dicts."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        missing = [c for c in FILE_LIST_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"file list {path} lacks column(s) {missing}; it needs {list(FILE_LIST_COLUMNS)}.")
        return list(reader)


def fetch_source(source: dict, raw_root, *, mirror=None, timeout=60, retries=3, log=print) -> list[Path]:
    """Fetch every file of one registry source into ``raw_root``, including those its file list names.

    The paths listed in a ``file_list`` TSV are relative to the TSV's own folder. Returns the local
    paths, the file list's rows after the list itself.
    """
    raw_root = Path(raw_root)
    opts = {"mirror": mirror, "timeout": timeout, "retries": retries, "log": log}

    def fetch(rel, url, sha256=None, git_blob=None):
        return fetch_file(rel, raw_root / _relative(rel), url=url, sha256=sha256, git_blob=git_blob, **opts)

    def fetch_entry(entry):
        return fetch(entry["path"], entry.get("url"), entry.get("sha256"), entry.get("git_blob"))

    paths = [fetch_entry(entry) for entry in source.get("files") or []]
    listing = source.get("file_list")
    if listing:
        tsv = fetch_entry(listing)
        paths.append(tsv)
        folder = _relative(listing["path"]).parent
        rows = read_file_list(tsv)
        paths += [fetch(str(folder / _relative(r["path"])), r["upstream_url"] or None, r["sha256"]) for r in rows]
        log(f"{listing['path']}: {len(rows)} listed files ready")
    return paths
