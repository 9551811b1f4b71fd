"""The ``ufskit`` command.

``ufskit compare RESULTS [REFERENCE]`` tells whether a run agrees with the reference: exit status 0 when every
scorecard number both sides have is within its tolerance and no verdict changed, 1 when one is beyond it or a
verdict changed, 2 on bad arguments (a folder that is not there, no tolerances). Without REFERENCE it is the
repository's ``reference/`` folder, found beside the package (the clone of an editable install), and an error
saying to name one when there is none or it holds no full run yet.
``ufskit reference RESULTS --config FILE ...`` keeps a finished run as the reference (``ufskit.reference``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .compare import compare_runs, report
from .reference import PROVENANCE, build

# the clone the package was installed from in editable mode (src/ufskit/ -> the repository's root); for an install
# from a wheel this is a folder of site-packages, with no reference/ (and no Snakefile) in it
REPOSITORY = Path(__file__).resolve().parents[2]


def default_reference() -> Path:
    """The repository's ``reference/`` folder (``REPOSITORY``), when it holds a shipped full run (its scorecard);
    FileNotFoundError saying to name the folder otherwise."""
    folder = REPOSITORY / "reference"
    if not (REPOSITORY / "Snakefile").is_file() or not folder.is_dir():
        raise FileNotFoundError(
            f"no reference folder to compare with by default: the package is not in a clone of the repository "
            f"({REPOSITORY} has no Snakefile and reference/ beside it); name the reference folder: "
            "ufskit compare RESULTS REFERENCE (the repository's reference/, or any other results folder).")
    if not (folder / "scorecard.csv").is_file():
        raise FileNotFoundError(
            f"{folder} holds no full run yet (no scorecard.csv: the reference run is not shipped); name the folder "
            "to compare with: ufskit compare RESULTS REFERENCE (another results folder, or a reference of your own).")
    return folder


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
    if args.reference is None:
        args.reference = default_reference()
    for name, folder in (("RESULTS", args.results), ("REFERENCE", args.reference)):
        if not folder.exists():
            hint = " (the shipped reference is the repository's reference/ folder)" if name == "REFERENCE" else ""
            raise FileNotFoundError(f"{name}: {folder} does not exist{hint}.")
    result = compare_runs(args.results, args.reference, load_tolerances(args.reference, args.config))
    print(f"comparing {args.results} with {args.reference}")
    print(report(result, limit=args.limit))
    return 0 if result.agrees else 1


def _reference(args) -> int:
    if not args.results.is_dir():
        raise FileNotFoundError(f"RESULTS: {args.results} does not exist.")
    for path in args.config:
        if not path.is_file():
            raise FileNotFoundError(f"--config: {path} does not exist.")
    # the building code's commit (the clone the package is installed from, else the current folder's): the run's
    # own, from its full_run.csv, takes precedence in the provenance
    repo = REPOSITORY if (REPOSITORY / ".git").exists() else Path.cwd()
    summary = build(args.results, args.out, configs=args.config, full_run=args.full_run, job_records=args.job_records,
                    repo=repo)
    built = f" (built with {summary['built_with'][:12]})" if "built_with" in summary else ""
    print(f"{args.out}: {summary['files']} files, {summary['megabytes']} MB, commit {summary['git_commit'][:12]}{built}, "
          f"{summary['machine']['cpu']} ({summary['machine']['blas_kernel']}), {summary['date']}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ufskit", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    cmp = commands.add_parser(
        "compare", help="compare a results folder with the reference, number by number",
        description="Compare every table of RESULTS with REFERENCE (a results folder, the shipped reference/ "
        "folder, or a stored cells file) within the scorecard's tolerances; list what only one side has.")
    cmp.add_argument("results", type=Path, help="a results folder (e.g. results/)")
    cmp.add_argument("reference", type=Path, nargs="?", default=None,
                     help="the folder to compare with (default: the repository's reference/, the shipped full run)")
    cmp.add_argument("--config", type=Path, help="a config whose scorecard.tolerances to use")
    cmp.add_argument("--limit", type=int, default=20, help="cells listed per part at most (default 20)")
    ref = commands.add_parser(
        "reference", help="keep a finished run as the reference folder (tables, texts, PNGs, provenance)",
        description="Copy RESULTS' tables, texts and figures into OUT (written anew), with the run's full_run.csv, "
        "its per-job record job_records.csv (and job_times.csv made from it) and provenance.json (commit, config "
        "hash, machine, BLAS kernel, date, the scorecard's tolerances).")
    ref.add_argument("results", type=Path, help="the finished run's results folder, or one benchmark report of "
                     "it (results/all_selectors/, kept as --out reference/all_selectors)")
    ref.add_argument("--config", type=Path, action="append", required=True,
                     help="a config file of the run, in Snakemake's order (repeat: config/config.yaml first)")
    ref.add_argument("--full-run", type=Path,
                     help="the run's part-by-part times (default: RESULTS/full_run.csv when it is there)")
    ref.add_argument("--job-records", type=Path,
                     help="the run's per-job record (default: RESULTS/job_records.csv when it is there)")
    ref.add_argument("--out", type=Path, default=Path("reference"), help="the folder to write (default: reference/)")
    args = parser.parse_args(argv)
    try:
        return _compare(args) if args.command == "compare" else _reference(args)
    except (FileNotFoundError, KeyError, ValueError) as err:
        print(f"ufskit {args.command}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
