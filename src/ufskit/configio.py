"""Reading config files strictly, and the config checks whose schema message would not say why.

YAML silently keeps the last of two equal keys in a mapping (``LS: LaplacianScore`` then
``LS: SPEC`` runs SPEC under the label LS). ``load_yaml`` refuses that, naming the key, the
file and both lines. Merge keys (``<<: *anchor``) stay allowed: a key written beside a merge
overrides the merged one on purpose.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
from pathlib import Path

import yaml

_MERGE_TAG = "tag:yaml.org,2002:merge"


class ConfigError(ValueError):
    """A config file or value is invalid; the message names where and what is expected."""


# libyaml's parser when PyYAML was built with it (about 8 times faster on the config and the registry)
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeLoader):
    """The safe loader, rejecting a key written twice in one mapping."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: SafeLoader reports it itself
                    continue
                line = key_node.start_mark.line + 1
                if first is not None:
                    raise ConfigError(
                        f"{key_node.start_mark.name}, line {line}: duplicate key {key!r} "
                        f"(first at line {first}); YAML would silently keep only the last one. "
                        "Remove or rename one of them."
                    )
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def syntax_error_message(path, error: yaml.YAMLError) -> str:
    """``<path>, line L, column C: not valid YAML (<yaml's explanation>)``, from the error's problem mark."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{path}{where}: not valid YAML ({error})"


def load_yaml(path) -> object:
    """Parse the YAML file at ``path``; a duplicate key or a syntax error is a ``ConfigError`` naming the file
    and the line."""
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        try:
            return yaml.load(fh, Loader=_StrictLoader)  # a (C)SafeLoader subclass: safe
        except yaml.YAMLError as e:
            raise ConfigError(syntax_error_message(path, e)) from None


CONFIGFILE_OPTIONS = ("--configfile", "--configfiles")


def configfiles_in_argv(argv) -> list[Path]:
    """The files given to Snakemake's ``--configfile``/``--configfiles`` (each takes one or more values, up to the
    next option; ``--configfile=FILE`` too) in ``argv``, the command line without the program name."""
    files, taking = [], False
    for arg in argv:
        name, eq, value = arg.partition("=")
        if arg.startswith("-"):
            taking = name in CONFIGFILE_OPTIONS
            if taking and eq:
                files.append(Path(value))
                taking = False
        elif taking:
            files.append(Path(arg))
    return files


def _is_json(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            json.load(fh)
    except ValueError:
        return False
    return True


def report_configfile_syntax(argv=None, stream=None) -> list[str]:
    """Print (to stderr) the YAML syntax error of each ``--configfile`` of the command line, naming the file, the
    line and the column; return the messages.

    Snakemake parses those files itself before the workflow's first line runs and stops with "Config file is not
    valid JSON or YAML", naming neither file nor line; nothing of the workflow runs before that except its
    profile, so ``profiles/default/config.yaml`` (and ``profiles/slurm``) call this while Snakemake reads them
    (a YTE definition). Files that do not exist are left to Snakemake's message; a duplicate key is reported at
    the workflow's start-up (``load_yaml``), where Snakemake gets that far.
    """
    import sys

    argv = sys.argv[1:] if argv is None else argv
    messages = []
    for path in configfiles_in_argv(argv):
        if not path.is_file():
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                yaml.load(fh, Loader=_SafeLoader)  # safe
        except yaml.YAMLError as e:
            if not _is_json(path):  # Snakemake reads JSON first: valid JSON is fine whatever YAML says
                messages.append(f"Error in --configfile {syntax_error_message(path, e)}")
        except (OSError, UnicodeDecodeError) as e:
            messages.append(f"Error in --configfile {path}: unreadable ({e})")
    for message in messages:
        print(message, file=stream or sys.stderr, flush=True)
    return messages


def main(argv=None) -> int:
    """``python -m ufskit.configio FILE...``: parse each config file strictly; print each error, naming the file
    and the line (Snakemake's own message for an overlay given by ``--configfile`` names neither, and the
    workflow's profile adds this one only when Snakemake loads it); exit 1 on any."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ufskit.configio", description=main.__doc__)
    parser.add_argument("files", nargs="+", type=Path)
    failed = 0
    for path in parser.parse_args(argv).files:
        try:
            load_yaml(path)
        except (ConfigError, OSError) as err:
            print(err)
            failed += 1
        else:
            print(f"{path}: valid YAML, no duplicate key")
    return 1 if failed else 0


def config_hash(config: dict) -> str:
    """SHA-256 (hex) of the resolved config as canonical JSON (sorted keys): equal configs, equal hash."""
    text = json.dumps(config, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


N_FEATURES_FORMS = (
    "a list of integers >= 1 (e.g. [10, 20, 50]), 'all' (1..d), {upto: m, step: s} (s, 2s, ..., m) "
    "or {fractions: [f, ...]} with floats 0 < f <= 1 (round(f d), at least 1, per fraction)"
)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def n_features_problem(spec) -> str | None:
    """Why ``spec`` is not a valid ``n_features`` value, or None when it is one of the accepted forms."""
    if spec == "all":
        return None
    if isinstance(spec, list):
        if not spec:
            return "the list is empty"
        bad = [v for v in spec if not (_is_int(v) and v >= 1)]
        return f"{', '.join(map(repr, bad))} {'is not an integer' if len(bad) == 1 else 'are not integers'} >= 1" if bad else None
    if isinstance(spec, dict) and "fractions" in spec:
        if set(spec) != {"fractions"}:
            return f"{{fractions}} takes no other key, got {sorted(spec)}"
        fractions = spec["fractions"]
        if not isinstance(fractions, list) or not fractions:
            return "fractions must be a non-empty list"
        bad = [f for f in fractions if not (isinstance(f, float) and 0 < f <= 1)]
        return f"fractions {bad} are not floats in (0, 1] (write 1.0, not 1)" if bad else None
    if isinstance(spec, dict):
        if set(spec) != {"upto", "step"}:
            return f"a mapping needs exactly the keys upto and step (or only fractions), got {sorted(spec)}"
        bad = [k for k in ("upto", "step") if not (_is_int(spec[k]) and spec[k] >= 1)]
        return f"{' and '.join(bad)} must be integers >= 1" if bad else None
    return f"{spec!r} is neither a list, 'all' nor a mapping"


def check_n_features(experiments: dict) -> None:
    """Fail with the accepted forms and the reason on the first invalid ``n_features`` of the experiments."""
    for name, exp in (experiments or {}).items():
        if not isinstance(exp, dict) or "n_features" not in exp:
            continue  # the schema reports a missing key
        problem = n_features_problem(exp["n_features"])
        if problem:
            raise ConfigError(
                f"experiments.{name}.n_features = {exp['n_features']!r} is invalid: {problem}. "
                f"Expected {N_FEATURES_FORMS}."
            )


EXTRA_METHODS_FORM = "extra_methods: {<experiment>: {<label>: {selector: ..., params: {...}, grid: {...}}}}"


def merge_extra_methods(config: dict) -> None:
    """Add the methods of the config's ``extra_methods`` to the experiments they name, marked ``extra: true``.

    An overlay adds a user's selector to chosen paper experiments without copying their blocks; the mark keeps
    the added methods out of the claims and the scorecard (``ufskit.papers.paper_rows``). The merged methods are
    then validated and checked like any method. Mutates ``config``; repeating it changes nothing.
    """
    extras = config.get("extra_methods")
    if extras is None:
        return
    experiments = config.get("experiments") or {}
    if not isinstance(extras, dict):
        raise ConfigError(f"extra_methods must be a mapping, {EXTRA_METHODS_FORM}; got {extras!r}.")
    for name, methods in extras.items():
        if name not in experiments:
            close = difflib.get_close_matches(str(name), list(experiments), n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"extra_methods.{name}: unknown experiment.{hint} Defined: {sorted(experiments)}.")
        if not isinstance(methods, dict) or not methods:
            raise ConfigError(f"extra_methods.{name} must map method labels to method blocks ({EXTRA_METHODS_FORM}).")
        own = experiments[name].get("methods") if isinstance(experiments[name], dict) else None
        if not isinstance(own, dict):
            continue  # the schema names the experiment's missing methods
        for label, spec in methods.items():
            if not isinstance(spec, dict):
                raise ConfigError(f"extra_methods.{name}.{label} must be a method block (selector, params, grid), "
                                  f"got {spec!r}.")
            if label in own and not own[label].get("extra"):
                raise ConfigError(f"extra_methods.{name}.{label}: experiment {name!r} already has a method "
                                  f"{label!r} of the paper; give the added one another label.")
            own[label] = {**copy.deepcopy(spec), "extra": True}  # YAML aliases share one block


if __name__ == "__main__":
    raise SystemExit(main())
