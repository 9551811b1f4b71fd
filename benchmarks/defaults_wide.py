"""Every registered selector at its library defaults on wide data (n = 50, d = 20,000 standard normals).

    OPENBLAS_NUM_THREADS=1 python benchmarks/defaults_wide.py [--samples N] [--features D] [--repeats R]
        [--timeout SECONDS] [NAME ...]

Each selector is fitted R times in a process of its own (a seeded instance where it draws), stopped after
``--timeout`` seconds, and the fastest fit's CPU seconds are reported (wall seconds beside them) with their
ratio to the median of the others, as a markdown table: a default that does not finish on such data is a
bug (docs/performance.md, "Defaults on wide data"). CPU time, because on a shared machine the wall time
mostly measures the other jobs; one BLAS thread keeps the small products from competing with them. A fit
that runs out of time counts as slower than every finished one; one that refuses the data (a clear error
naming its limit) is reported with that error and left out of the median.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import time
import warnings

import numpy as np

from ufskit.selectors import SELECTORS


def fit_seconds(name: str, X: np.ndarray, repeats: int) -> tuple[float, float]:
    """(CPU, wall) seconds of the fastest (by CPU) of ``repeats`` default fits of selector ``name`` on X."""
    best = (np.inf, np.inf)
    for _ in range(repeats):
        est = SELECTORS[name]()
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        cpu, wall = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X)
        best = min(best, (time.process_time() - cpu, time.perf_counter() - wall))
    return best


def measure(name: str, args) -> dict:
    """One selector in a child process: ``{"cpu", "wall"}``, ``{"timeout"}`` or ``{"error"}`` (its last line)."""
    command = [sys.executable, __file__, "--child", name, "--samples", str(args.samples),
               "--features", str(args.features), "--repeats", str(args.repeats)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": args.timeout}
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results: dict[str, dict]) -> str:
    """Markdown rows: selector, CPU and wall seconds, CPU ratio to the median of the others (timeouts as inf)."""
    cpu = {k: v.get("cpu", np.inf if "timeout" in v else np.nan) for k, v in results.items()}
    lines = ["| selector | CPU s | wall s | x median of the others |", "|---|---|---|---|"]
    for name in sorted(results, key=lambda k: (np.nan_to_num(cpu[k], nan=np.inf), "error" in results[k])):
        result = results[name]
        others = [v for k, v in cpu.items() if k != name and not np.isnan(v)]
        if "cpu" in result:
            lines.append(f"| {name} | {result['cpu']:.2f} | {result['wall']:.2f} | {result['cpu'] / np.median(others):.1f} |")
        elif "timeout" in result:
            lines.append(f"| {name} | no result in {result['timeout']:.0f} s | | |")
        else:
            lines.append(f"| {name} | refused: {result['error']} | | |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=sorted(SELECTORS))
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--features", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per selector (all its repeats)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        X = np.random.default_rng(0).standard_normal((args.samples, args.features))
        cpu, wall = fit_seconds(args.child, X, args.repeats)
        print(json.dumps({"cpu": cpu, "wall": wall}))
        return
    results = {}
    for name in args.names:
        results[name] = measure(name, args)
        print(f"{name}: {results[name]}", flush=True)
    print(f"\n{datetime.date.today()}, n = {args.samples}, d = {args.features}, fastest of {args.repeats}:\n")
    print(table(results))


if __name__ == "__main__":
    main()
