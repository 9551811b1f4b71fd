"""How much of an IVFS-l_inf ranking is signal: the same fit under two seeds, and random features beside it.

For each data set and setting (k = 1000, n~ = 0.1 n, the paper's timing and
Table 2 setting, and k = 5000, n~ = 0.5 n, Fig. 4's reference; d~ = 0.3 d and
the l_inf loss unless given) it fits IVFS twice on the same data with two
seeds and prints

- the correlation of the two score vectors (1: the ranking is a property of
  the data; 0: it is the draw's),
- how many of the top ``--top`` features of one fit are not in the other's,
  beside the number two random choices differ by on average, top (1 - top/d),
- ||D - D_F||_2 (both divided by their maximum, as Table 1) of the first fit's
  top and bottom features, beside the mean and sd over ``--random`` random
  feature sets of the same size (a ranking that knows nothing scores as random
  at both ends),
- the rank correlation of the first fit's scores with each feature's share of
  the largest distance, (x_if - x_jf)^2 for the pair (i, j) that attains max D:
  negative when the ranking favours features that do not separate that pair.

It explains Table 2 and Fig. 4 of this reproduction (docs/fidelity/ivfs-paper.md).

    python benchmarks/ivfs_rank_noise.py --mirror DATA_DIR [--datasets lymphoma warpPIE10P ...]
        [--loss l2] [--subset-features 0.1]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from ivfs_timing import prepared
from scipy.stats import spearmanr

from ufskit.metrics import distance_norms, normalized_distance_matrix
from ufskit.runs import fit_selector
from ufskit.seeds import derive_seed
from ufskit.selectors.ivfs import LOSSES

SETTINGS = [(1000, 0.1), (5000, 0.5)]  # (k, n~/n)
SMALL = ["lymphoma", "orlraws10P", "pixraw10P", "Prostate-GE", "warpPIE10P"]


def l2_loss(D: np.ndarray, X: np.ndarray, features: np.ndarray) -> float:
    """Table 1's ||D - D_F||_2, each matrix divided by its own maximum."""
    return distance_norms(D, normalized_distance_matrix(X[:, features]))["L2"]


def rank_noise(X: np.ndarray, name: str, top: int, n_random: int, n_classes: int, **ivfs) -> None:
    """Print one table row per setting for data set ``name``."""
    d = X.shape[1]
    D = normalized_distance_matrix(X)
    rng = np.random.default_rng(derive_seed(0, "ivfs_rank_noise", name))
    random_l2 = np.array([l2_loss(D, X, rng.choice(d, top, replace=False)) for _ in range(n_random)])
    i, j = np.unravel_index(np.argmax(D), D.shape)
    max_pair_share = (X[i] - X[j]) ** 2
    for k, ratio in SETTINGS:
        spec = {"selector": "IVFS", "params": {"n_subsets": k, "subset_samples": ratio, **ivfs}}
        a, b = (fit_selector(spec, X, seed=derive_seed(0, "ivfs_rank_noise", name, seed), n_classes=n_classes,
                             label=name)[0] for seed in (1, 2))
        differ = np.setdiff1d(a.order_[:top], b.order_[:top]).size
        print(f"| {name} | {k} | {ratio:g}n | {np.corrcoef(a.scores_, b.scores_)[0, 1]:.2f} | {differ} | "
              f"{top * (1 - top / d):.0f} | {l2_loss(D, X, a.order_[:top]):.2f} | "
              f"{l2_loss(D, X, a.order_[-top:]):.2f} | {random_l2.mean():.2f} +- {random_l2.std():.2f} | "
              f"{spearmanr(a.scores_, max_pair_share)[0]:.2f} |", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("UFS_DATA_MIRROR"),
                        help="folder of raw data files (default $UFS_DATA_MIRROR)")
    parser.add_argument("--datasets", nargs="+", default=SMALL)
    parser.add_argument("--top", type=int, default=300, help="features compared (the paper: 300)")
    parser.add_argument("--random", type=int, default=40, help="random feature sets for the baseline")
    parser.add_argument("--loss", choices=LOSSES, default="linf")
    parser.add_argument("--subset-features", type=float, default=0.3, help="d~ as a fraction of d")
    args = parser.parse_args(argv)
    if args.mirror is None:
        parser.error("give --mirror or set UFS_DATA_MIRROR")
    print("| data set | k | n~ | score corr. (2 seeds) | top differ | random pairs differ | L2 of top | "
          "L2 of bottom | L2 of random (mean +- sd) | score vs max-pair share |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.datasets:
        data = prepared(args.mirror, name)
        rank_noise(data.X, name, args.top, args.random, np.unique(data.y).size,
                   loss=args.loss, subset_features=args.subset_features)
    return 0


if __name__ == "__main__":
    sys.exit(main())
