"""The dataset registry (config/datasets.yaml): checked on load against its schema, and look-ups.

``sources`` are download jobs (files with url and sha256 or git blob id, or a file-list TSV);
``datasets`` say which source, loader and options give each dataset, its shape and class count,
its default preprocessing chain and the papers that use it. The YAML file's header documents the
keys; workflow/schemas/datasets.schema.yaml states them. A malformed entry fails on load with a
message naming the entry and the key.

A config overlay adds ``sources`` and ``datasets`` of the same form (``merge_overlay``), and local
datasets: ``path`` (a file on this machine) instead of ``source``, with ``shape`` and ``n_classes``
optional. The registry file and overlays are read with the strict YAML loader (no duplicate keys).
"""

from __future__ import annotations

import difflib
from pathlib import Path

from .configio import ConfigError, load_yaml

# the registry's JSON schema (in the repository, beside the config's; the package is used from its checkout)
SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "datasets.schema.yaml"
# what an overlay dataset may leave out (a registry entry of config/datasets.yaml states every key)
OVERLAY_DEFAULTS = {"options": {}, "preprocess": [], "papers": []}


class RegistryError(ValueError):
    """The registry file is malformed; the message names the entry and the key."""


def _check_names(registry: dict) -> str | None:
    """What the schema cannot see: a dataset's unknown source, files not of its source, a file in two sources."""
    owner = {}
    for name in registry["sources"]:
        for f in source_files(registry, name):
            if f["path"] in owner:
                return f"sources.{name}: file {f['path']!r} is already in source {owner[f['path']]!r}"
            owner[f["path"]] = name
    for name, entry in registry["datasets"].items():
        source = None if is_local(entry) else entry["source"]
        if source is not None and source not in registry["sources"]:
            hint = _suggest(str(source), registry["sources"])
            return f"datasets.{name}.source: unknown source {source!r}; {hint}use a name from 'sources' or null"
        files = entry.get("options", {}).get("files")
        if files is not None and not is_local(entry):
            known = {f["path"] for f in source_files(registry, source)} if source else set()
            if not (isinstance(files, list) and files and all(isinstance(f, str) and f in known for f in files)):
                return f"datasets.{name}.options.files: must list files of source {source!r} ({sorted(known)}), got {files!r}"
    return None


def validate_registry(registry, origin: str = "registry") -> dict:
    """Check a parsed registry against its schema and its names; return it unchanged, or raise ``RegistryError``."""
    from .schema import load_schema, problem

    why = problem(registry, load_schema(SCHEMA)) or _check_names(registry)
    if why:
        raise RegistryError(f"{origin}: {why}")
    return registry


def load_registry(path) -> dict:
    """Read (strictly: a duplicate key is an error) and validate the registry YAML file at ``path``."""
    path = Path(path)
    try:
        registry = load_yaml(path)
    except ConfigError as e:
        raise RegistryError(str(e)) from None
    return validate_registry(registry, origin=str(path))


def merge_overlay(registry: dict, sources: dict | None, datasets: dict | None, origin: str = "config") -> dict:
    """The registry plus the ``sources`` and ``datasets`` of a config overlay, validated together.

    An overlay name that is already in the registry is an error (a partial override would mix two
    entries); overlay datasets may leave out ``options``, ``preprocess`` and ``papers``.
    """
    merged = {"sources": dict(registry["sources"]), "datasets": dict(registry["datasets"])}
    for section, extra in (("sources", sources or {}), ("datasets", datasets or {})):
        if not isinstance(extra, dict):
            raise RegistryError(f"{origin}: {section} must be a mapping of names to entries")
        clash = sorted(set(extra) & set(registry[section]))
        if clash:
            raise RegistryError(f"{origin}: {section} {clash} already in the registry; give your entries other names")
        for name, entry in extra.items():
            merged[section][name] = {**OVERLAY_DEFAULTS, **entry} if section == "datasets" and isinstance(entry, dict) else entry
    return validate_registry(merged, origin=f"{origin} (merged with the registry)")


def registry_from_config(config: dict, root) -> dict:
    """The registry the workflow uses: ``data.registry`` (relative to ``root``) merged with the config's overlay."""
    base = load_registry(Path(root) / config["data"]["registry"])
    if not (config.get("sources") or config.get("datasets")):
        return base  # no overlay: checked once, on load
    return merge_overlay(base, config.get("sources"), config.get("datasets"))


def is_local(entry: dict) -> bool:
    """True for a dataset read from a local file (``path``) rather than from a registry source."""
    return "path" in entry


def _suggest(name: str, known) -> str:
    """The hint 'did you mean ...? ' for names close to ``name`` (case-insensitive), or ''."""
    lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(name.lower(), list(lower), n=3, cutoff=0.6)
    return f"did you mean {' or '.join(repr(lower[c]) for c in close)}? " if close else ""


def _lookup(registry: dict, section: str, kind: str, name: str) -> dict:
    entries = registry[section]
    if name not in entries:
        raise ValueError(f"unknown {kind} {name!r}; {_suggest(str(name), entries)}known: {', '.join(sorted(entries))}")
    return entries[name]


def dataset_entry(registry: dict, name: str) -> dict:
    """The registry entry of dataset ``name``; an unknown name fails, suggesting close names."""
    return _lookup(registry, "datasets", "dataset", name)


def source_files(registry: dict, source_name: str) -> list[dict]:
    """The file entries (path, url, checksum) of a source, its file list (if any) last.

    The first entry of ``files`` is the data file of single-file loaders (mat, rdata_list); the
    files a file list names are known only once the list is downloaded (``download.read_file_list``).
    """
    source = _lookup(registry, "sources", "source", source_name)
    return list(source.get("files") or []) + ([source["file_list"]] if source.get("file_list") else [])
