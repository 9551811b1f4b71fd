"""Every registered selector at its library defaults on wide data (n = 50, d = 20,000 standard normals).

    OPENBLAS_NUM_THREADS=1 python benchmarks/defaults_wide.py [--samples N] [--features D] [--repeats R] [NAME ...]

Each selector is fitted R times in this process (a seeded instance where it draws) and the fastest fit
is reported, with its ratio to the median of the others: a default that does not finish on such data is
a bug (docs/performance.md, "Defaults on wide data"). One BLAS thread keeps a shared machine's load from
distorting the small products.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from ufskit.selectors import SELECTORS


def fit_seconds(name: str, X: np.ndarray, repeats: int) -> float:
    """The fastest of ``repeats`` default fits of selector ``name`` on X."""
    best = np.inf
    for _ in range(repeats):
        est = SELECTORS[name]()
        if "random_state" in est.get_params():
            est.set_params(random_state=0)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=sorted(SELECTORS))
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--features", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X = np.random.default_rng(0).standard_normal((args.samples, args.features))
    seconds = {}
    for name in args.names:
        seconds[name] = fit_seconds(name, X, args.repeats)
        print(f"{name}: {seconds[name]:.2f} s", flush=True)
    for name, value in seconds.items():
        others = [v for k, v in seconds.items() if k != name]
        if others:
            print(f"{name}: {value / np.median(others):.2f} x the median of the others")


if __name__ == "__main__":
    main()
