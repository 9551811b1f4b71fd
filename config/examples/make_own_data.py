"""Write own_data.csv and own_data_b.csv, the small example inputs of own_data.yaml (synthetic, deterministic).

own_data.csv: 120 samples of 3 classes (40 each) and 10 features: f1-f3 separate the classes (class
means -2, 0, 2 plus unit noise), f4-f10 are noise of the same spread, so a good selector puts f1-f3 first.
own_data_b.csv: the same design with 4 classes (30 each), 4 informative and 8 noise features, and a
`sample` id column first (own_data.yaml drops it). Two datasets, because the benchmark's Friedman test
compares the methods over several. Run from anywhere: python config/examples/make_own_data.py
"""

from pathlib import Path

import numpy as np


def make(seed: int = 20, n_classes: int = 3, n_per_class: int = 40, informative: int = 3, noise: int = 7):
    """Features and string labels: class means spaced 2 apart on the informative columns, noise of equal spread."""
    rng = np.random.default_rng(seed)
    levels = 2.0 * (np.arange(n_classes) - (n_classes - 1) / 2)
    labels = np.repeat(np.array(list("abcdefgh"[:n_classes])), n_per_class)
    means = np.repeat(levels, n_per_class)[:, None]
    signal = means + rng.standard_normal((labels.size, informative))
    spread = np.sqrt(1 + levels.var())  # the informative columns' total variance
    return np.hstack([signal, rng.normal(0.0, spread, (labels.size, noise))]), labels


def write(path: Path, X, labels, ids: bool = False) -> None:
    header = ["sample"] * ids + [f"f{i + 1}" for i in range(X.shape[1])] + ["class"]
    rows = [",".join([f"s{i}"] * ids + [f"{v:.4f}" for v in x] + [label])
            for i, (x, label) in enumerate(zip(X, labels))]
    path.write_text("\n".join([",".join(header), *rows]) + "\n")
    print(f"wrote {path} ({X.shape[0]} x {X.shape[1]}, {len(set(labels))} classes)")


if __name__ == "__main__":
    here = Path(__file__).parent
    write(here / "own_data.csv", *make())
    write(here / "own_data_b.csv", *make(seed=21, n_classes=4, n_per_class=30, informative=4, noise=8), ids=True)
