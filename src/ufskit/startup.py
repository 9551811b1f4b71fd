"""The config files as read at start-up (called from workflow/rules/common.smk, before the schema).

* every config file, re-read strictly (duplicate keys; Snakemake's own loader keeps the last);
* ``paper_folders`` resolved first (the papers are registered from them, then their protocol files merged:
  ``ufskit.protocols``);
* ``n_features`` values, with the accepted forms in the message;
* the ``extra_methods`` of an overlay, merged into the experiments they name (marked ``extra: true``);
* paths of an overlay (local datasets' ``path``, ``python_path``, ``paper_folders``), resolved against the folder of
  the config file that names them.

The cross-references of the config are checked after the schema, in ``ufskit.config_check``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .configio import check_n_features, load_yaml, merge_extra_methods


def config_files_in_merge_order(all_files, cli_files) -> list[Path]:
    """The config files as Snakemake merged them: the Snakefile's ``configfile:`` first, then ``--configfile``."""
    cli = [Path(f).absolute() for f in cli_files]
    directive = [Path(f).absolute() for f in all_files if Path(f).absolute() not in cli]
    return directive + cli


def read_config_files(files) -> list[tuple[Path, dict]]:
    """Re-read every config file strictly (a duplicate key is an error naming the file and the line); return
    (file, content) in merge order."""
    return [(Path(f), load_yaml(f) or {}) for f in files]


def prepare_experiments(config: dict) -> None:
    """Before the schema: check the merged ``n_features`` values (with the accepted forms in the message) and merge
    the ``extra_methods`` into their experiments."""
    check_n_features(config.get("experiments"))
    merge_extra_methods(config)


def _last_file_setting(parsed, *keys):
    """The folder of the last config file that sets ``keys`` (a nested path), or None."""
    folder = None
    for path, content in parsed:
        node = content
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        if node is not None:
            folder = path.parent
    return folder


def _absolute(value, folder, cwd) -> str:
    path = Path(os.path.expanduser(str(value)))
    return str(path if path.is_absolute() else (Path(folder or cwd) / path).resolve())


def resolve_paper_folders(config: dict, parsed, cwd) -> None:
    """Make ``paper_folders`` absolute, relative to the config file naming them (in place; a value set only on the
    command line is relative to the working directory ``cwd``). Done first: the papers are registered from them."""
    if config.get("paper_folders"):
        folder = _last_file_setting(parsed, "paper_folders")
        config["paper_folders"] = [_absolute(p, folder, cwd) for p in config["paper_folders"]]


def resolve_overlay_paths(config: dict, parsed, cwd) -> None:
    """Make local dataset paths and ``python_path`` absolute, relative to the config file naming them (in place).

    A value set only on the command line (``--config``) is relative to the working directory ``cwd``.
    """
    for name, entry in (config.get("datasets") or {}).items():
        if isinstance(entry, dict) and "path" in entry:
            entry["path"] = _absolute(entry["path"], _last_file_setting(parsed, "datasets", name, "path"), cwd)
    if config.get("python_path"):
        folder = _last_file_setting(parsed, "python_path")
        config["python_path"] = [_absolute(p, folder, cwd) for p in config["python_path"]]


def use_python_path(paths) -> None:
    """Put ``paths`` first on this process's import path and in PYTHONPATH (inherited by the jobs)."""
    paths = [str(p) for p in paths or []]
    sys.path[:0] = [p for p in paths if p not in sys.path]
    inherited = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + ([inherited] if inherited else []))
