"""Everything the workflow can check before its first job (called from workflow/rules/common.smk).

* every config file, re-read strictly (duplicate keys; Snakemake's own loader keeps the last);
* ``n_features`` values, with the accepted forms in the message;
* paths of an overlay (local datasets' ``path``, ``python_path``), resolved against the folder of
  the config file that names them;
* every method's selector (built in, import path or entry point), its parameter names and values, and its
  own metric options;
* explicit feature counts against each dataset's d where the registry knows it;
* local data files against the hash recorded at their first use.

The readings (config ``readings``, ``run_readings``) are checked and derived into experiments by
``ufskit.readings.derive`` before these checks, so the derived experiments go through all of them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .configio import ConfigError, check_n_features, load_yaml
from .experiments import is_placeholder, method_metrics, method_settings
from .integrity import verify_local
from .registry import is_local


def config_files_in_merge_order(all_files, cli_files) -> list[Path]:
    """The config files as Snakemake merged them: the Snakefile's ``configfile:`` first, then ``--configfile``."""
    cli = [Path(f).absolute() for f in cli_files]
    directive = [Path(f).absolute() for f in all_files if Path(f).absolute() not in cli]
    return directive + cli


def check_config_files(files, config: dict) -> list[tuple[Path, dict]]:
    """Re-read every config file strictly and check the merged ``n_features`` values; return (file, content)."""
    parsed = [(Path(f), load_yaml(f) or {}) for f in files]
    check_n_features(config.get("experiments"))
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
    """Make local dataset paths and ``python_path`` absolute, relative to the config file naming them (in place).

    A value set only on the command line (``--config``) is relative to the working directory ``cwd``.
    """
    def absolute(value, folder):
        path = Path(os.path.expanduser(str(value)))
        return str(path if path.is_absolute() else (Path(folder or cwd) / path).resolve())

    for name, entry in (config.get("datasets") or {}).items():
        if isinstance(entry, dict) and "path" in entry:
            entry["path"] = absolute(entry["path"], _last_file_setting(parsed, "datasets", name, "path"))
    if config.get("python_path"):
        folder = _last_file_setting(parsed, "python_path")
        config["python_path"] = [absolute(p, folder) for p in config["python_path"]]


def use_python_path(paths) -> None:
    """Put ``paths`` first on this process's import path and in PYTHONPATH (inherited by the jobs)."""
    paths = [str(p) for p in paths or []]
    sys.path[:0] = [p for p in paths if p not in sys.path]
    inherited = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + ([inherited] if inherited else []))


def check_methods(experiments: dict) -> None:
    """Resolve every method's selector, check its parameter names and values (fixed and grid; placeholders such
    as ``n_classes`` are checked on each dataset by ``fit``) and its own metric options, naming the experiment
    and the method."""
    from .selectors import check_selector  # heavy import, only when checking
    from .selectors.plugins import check_param_values

    for name, exp in experiments.items():
        for label, settings in method_settings(exp).items():
            selector = exp["methods"][label]["selector"]
            try:
                method_metrics(exp, label)
                for params in settings:
                    cls = check_selector(selector, params)
                    check_param_values(cls, selector, {k: v for k, v in params.items() if not is_placeholder(v)})
            except ValueError as e:
                raise ConfigError(f"experiments.{name}.methods.{label}: {e}") from None


def _largest_count(spec) -> int | None:
    """The largest count an ``n_features`` value names outright (None for 'all' and fractions)."""
    if isinstance(spec, list):
        return max(spec)
    if isinstance(spec, dict) and "upto" in spec:
        return spec["upto"]
    return None


def check_counts(experiments: dict, registry: dict, excluded=()) -> None:
    """Fail when an experiment asks for more features than a dataset has (d from the registry, where known).

    Methods that rank derived features (``kernel_features``: one per sample) are not compared with d.
    """
    from .selectors import selector_class

    for name, exp in experiments.items():
        largest = _largest_count(exp["n_features"])
        if largest is None:
            continue
        on_inputs = [m for m, spec in exp["methods"].items()
                     if not hasattr(selector_class(spec["selector"]), "kernel_features")]
        for dataset in exp["datasets"]:
            shape = registry["datasets"][dataset].get("shape") or [None, None]
            if dataset in excluded or shape[1] is None or largest <= shape[1] or not on_inputs:
                continue
            raise ConfigError(
                f"experiments.{name}.n_features = {exp['n_features']!r} asks for up to {largest} features, but "
                f"dataset {dataset!r} has d = {shape[1]} (registry) for method(s) {on_inputs}. Use counts <= d, "
                "or fractions of d ({fractions: [...]})."
            )


def check_local_files(names, registry: dict, record_dir, cache_dir) -> None:
    """Check the local data file of every dataset in ``names`` against its recorded hash (if recorded)."""
    for name in names:
        entry = registry["datasets"][name]
        if is_local(entry):
            verify_local(name, entry["path"], Path(record_dir) / f"{name}.json", Path(cache_dir) / f"{name}.json")
