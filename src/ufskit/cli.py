"""The ``ufskit`` command: ``ufskit compare RESULTS [REFERENCE]`` tells whether a run agrees with the reference.

Exit status 0 when every number both sides have is within the scorecard's tolerance and no verdict changed,
1 when one is beyond it or a verdict changed, 2 on bad arguments (a folder that is not there, no tolerances).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .compare import compare_runs, report

PROVENANCE = "provenance.json"  # a reference folder's provenance: commit, config hash, machine, tolerances


def load_tolerances(reference: Path, config: Path | None) -> dict:
    """The scorecard tolerances: ``config``'s, else the reference's provenance, else ./config/config.yaml's."""
    if config is None and (reference / PROVENANCE).is_file():
        return json.loads((reference / PROVENANCE).read_text())["tolerances"]
    path = config or Path("config/config.yaml")
    if not path.is_file():
        raise FileNotFoundError(
            f"no tolerances: {reference / PROVENANCE} is not there and neither is {path}; name a config with "
            "--config (its scorecard.tolerances are used), or run from the repository's root folder.")
    from .configio import load_yaml  # the workflow's YAML reader, only when a config is read

    return load_yaml(path)["scorecard"]["tolerances"]


def _compare(args) -> int:
    for name, folder in (("RESULTS", args.results), ("REFERENCE", args.reference)):
        if not folder.exists():
            hint = " (the shipped reference is the repository's reference/ folder)" if name == "REFERENCE" else ""
            raise FileNotFoundError(f"{name}: {folder} does not exist{hint}.")
    result = compare_runs(args.results, args.reference, load_tolerances(args.reference, args.config))
    print(f"comparing {args.results} with {args.reference}")
    print(report(result, limit=args.limit))
    return 0 if result.agrees else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ufskit", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    cmp = commands.add_parser(
        "compare", help="compare a results folder with the reference, number by number",
        description="Compare every table of RESULTS with REFERENCE (a results folder, the shipped reference/ "
        "folder, or a stored cells file) within the scorecard's tolerances; list what only one side has.")
    cmp.add_argument("results", type=Path, help="a results folder (e.g. results/)")
    cmp.add_argument("reference", type=Path, nargs="?", default=Path("reference"),
                     help="the folder to compare with (default: reference/)")
    cmp.add_argument("--config", type=Path, help="a config whose scorecard.tolerances to use")
    cmp.add_argument("--limit", type=int, default=20, help="cells listed per part at most (default 20)")
    args = parser.parse_args(argv)
    try:
        return _compare(args)
    except (FileNotFoundError, KeyError, ValueError) as err:
        print(f"ufskit {args.command}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
