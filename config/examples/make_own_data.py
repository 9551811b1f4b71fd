"""Write own_data.csv, the small example input of own_data.yaml (synthetic, deterministic).

120 samples of 3 classes (40 each) and 10 features: f1-f3 separate the classes (class means
-2, 0, 2 plus unit noise), f4-f10 are noise of the same spread, so a good selector puts f1-f3 first.
Run from anywhere: python config/examples/make_own_data.py
"""

from pathlib import Path

import numpy as np

N_PER_CLASS, INFORMATIVE, NOISE = 40, 3, 7


def make(seed: int = 20):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.array(["a", "b", "c"]), N_PER_CLASS)
    means = np.repeat([-2.0, 0.0, 2.0], N_PER_CLASS)[:, None]
    informative = means + rng.standard_normal((labels.size, INFORMATIVE))
    noise = rng.normal(0.0, np.sqrt(1 + 8 / 3), (labels.size, NOISE))  # the informative columns' total variance
    return np.hstack([informative, noise]), labels


if __name__ == "__main__":
    X, labels = make()
    header = ",".join([f"f{i + 1}" for i in range(X.shape[1])] + ["class"])
    rows = [",".join([f"{v:.4f}" for v in x] + [label]) for x, label in zip(X, labels)]
    out = Path(__file__).with_name("own_data.csv")
    out.write_text("\n".join([header, *rows]) + "\n")
    print(f"wrote {out} ({X.shape[0]} x {X.shape[1]}, 3 classes)")
