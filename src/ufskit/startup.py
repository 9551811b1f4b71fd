"""The config files as read at start-up (called from workflow/rules/common.smk, before the schema).

* every config file, re-read strictly (duplicate keys; Snakemake's own loader keeps the last);
* ``n_features`` values, with the accepted forms in the message;
* the ``extra_methods`` of an overlay, merged into the experiments they name (marked ``extra: true``);
* paths of an overlay (local datasets' ``path``, ``python_path``), resolved against the folder of
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


def check_config_files(files, config: dict) -> list[tuple[Path, dict]]:
    """Re-read every config file strictly, check the merged ``n_features`` values and merge the ``extra_methods``
    into their experiments (before the schema validates them); return (file, content)."""
    parsed = [(Path(f), load_yaml(f) or {}) for f in files]
    check_n_features(config.get("experiments"))
    merge_extra_methods(config)
    return parsed


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


def resolve_overlay_paths(config: dict, parsed, cwd) -> None:
    """Make local dataset paths, ``python_path`` and ``paper_folders`` absolute, relative to the config file naming
    them (in place).

    A value set only on the command line (``--config``) is relative to the working directory ``cwd``.
    """
    def absolute(value, folder):
        path = Path(os.path.expanduser(str(value)))
        return str(path if path.is_absolute() else (Path(folder or cwd) / path).resolve())

    for name, entry in (config.get("datasets") or {}).items():
        if isinstance(entry, dict) and "path" in entry:
            entry["path"] = absolute(entry["path"], _last_file_setting(parsed, "datasets", name, "path"))
    for key in ("python_path", "paper_folders"):
        if config.get(key):
            folder = _last_file_setting(parsed, key)
            config[key] = [absolute(p, folder) for p in config[key]]


def use_python_path(paths) -> None:
    """Put ``paths`` first on this process's import path and in PYTHONPATH (inherited by the jobs)."""
    paths = [str(p) for p in paths or []]
    sys.path[:0] = [p for p in paths if p not in sys.path]
    inherited = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + ([inherited] if inherited else []))
