"""Input files checked on every use: registry raw files against their checksums, local files against
the hash recorded at their first use (intermediates are checked when read: ``data.reading``).

Hashing is kept cheap by a cache keyed by (size, mtime_ns): a file whose size and modification
time are those of the cached entry is not read again; any change makes it hashed anew.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from .data import IntegrityError, write_json
from .download import git_blob_of, read_file_list, sha256_of
from .intermediates import read_json

__all__ = ["HashCache", "IntegrityError", "record_local", "verify_local", "verify_source"]


class HashCache:
    """Digests of files by path, trusted while a file's size and mtime stay those cached; saved as JSON."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            self.entries = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.entries = {}
        self.changed = False

    def digest(self, file, kind: str = "sha256") -> str:
        """The ``kind`` ('sha256' or 'git_blob') digest of ``file``, from the cache when its stat is unchanged."""
        stat = os.stat(file)
        key = f"{kind}:{Path(file).resolve()}"
        hit = self.entries.get(key)
        if hit and hit["size"] == stat.st_size and hit["mtime_ns"] == stat.st_mtime_ns:
            return hit["digest"]
        value = sha256_of(file) if kind == "sha256" else git_blob_of(file)
        self.entries[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "digest": value}
        self.changed = True
        return value

    def save(self) -> None:
        if self.changed:
            write_json(self.entries, self.path)
            self.changed = False


def _source_checks(source: dict, raw_root: Path):
    """(local path, kind, expected digest) of every file of a registry source, its file list's rows included."""
    entries = list(source.get("files") or []) + ([source["file_list"]] if source.get("file_list") else [])
    for entry in entries:
        kind = "sha256" if "sha256" in entry else "git_blob"
        yield raw_root / entry["path"], kind, entry[kind]
    if source.get("file_list"):
        listing = raw_root / source["file_list"]["path"]
        for row in read_file_list(listing):
            yield listing.parent / row["path"], "sha256", row["sha256"]


def verify_source(name: str, source: dict, raw_root, cache_path) -> int:
    """Check every raw file of registry source ``name`` against its checksum; return how many were checked.

    A changed or missing file is an ``IntegrityError`` naming it and how to fetch it again.
    """
    raw_root, cache = Path(raw_root), HashCache(cache_path)
    checked = 0
    try:
        for path, kind, want in _source_checks(source, raw_root):
            got = cache.digest(path, kind) if path.is_file() else "(missing)"
            if got != want:
                raise IntegrityError(
                    f"raw file {path} of source {name!r} changed after download: its {kind} is {got}, the registry "
                    f"says {want}. Delete resources/raw/{name}.manifest.json and rerun: the source is fetched "
                    "again (a file with the wrong checksum is replaced) and everything built on it is redone."
                )
            checked += 1
    finally:
        cache.save()
    return checked


def record_local(path, record_path) -> dict:
    """Hash a local data file at its first use and write the record (path, sha256, size, mtime, time)."""
    path = Path(path)
    if not path.is_file():
        raise IntegrityError(f"local data file {path} does not exist.")
    stat = path.stat()
    record = {"path": str(path), "sha256": sha256_of(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
              "recorded_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(record, record_path)
    return record


def verify_local(dataset: str, path, record_path, cache_path) -> None:
    """Fail if the local file of ``dataset`` is missing or differs from the hash recorded at its first use."""
    path, record_path = Path(path), Path(record_path)
    if not path.is_file():
        raise IntegrityError(f"dataset {dataset!r}: local data file {path} does not exist (config datasets.{dataset}.path).")
    if not record_path.is_file():
        return  # not used yet: the record is written by its first use
    record = read_json(record_path)
    stat = path.stat()
    if (stat.st_size, stat.st_mtime_ns) == (record["size"], record["mtime_ns"]):
        return
    cache = HashCache(cache_path)
    got = cache.digest(path)
    cache.save()
    if got != record["sha256"]:
        raise IntegrityError(
            f"dataset {dataset!r}: local data file {path} changed since its first use (sha256 {got}; recorded "
            f"{record['sha256']} on {record['recorded_utc']} in {record_path}). Results from the old and the new "
            f"file must not mix. Restore the file, or, if the change is intended, delete {record_path} and rerun: "
            "the dataset is prepared again and everything computed from it is rebuilt."
        )
