"""The synthetic data of the NRFS paper (ICDM 2014, Fig. 1 and Table I).

Four clusters of ``n_per_cluster`` instances plus ``n_noise`` noisy instances,
``n_features`` features of which f1-f4 are informative:

* in the (f1, f2) plane (axes 0-400 x 0-200 in Fig. 1a) the red and blue clusters
  are Gaussian blobs and the green and yellow ones uniform rectangles;
* in the (f3, f4) plane (axes 0-200 x 0-200 in Fig. 1b) it is the other way round;
* every other feature is "noisy": uniform on [0, 150] (the range of Fig. 1c) for
  every instance, whatever its cluster;
* the noisy (purple) instances are uniform over the whole plotted range of f1-f4
  and follow the same noise features as the others.

The paper gives no coordinates, so the centres, rectangles and spreads below are
read off the figure's axes and chosen so that each plane alone separates the four
clusters (NRFS reaches NMI 1 on f1-f4 in Table I). Rows are ordered cluster by
cluster, the noisy instances last. A noisy instance is labelled with the cluster
whose centre is nearest in (f1, ..., f4), since labels must be 0..3.
"""

from __future__ import annotations

import numpy as np

from .data import Dataset

N_CLUSTERS = 4
N_INFORMATIVE = 4
# Per cluster (red, blue, green, yellow), per plane: ("gauss", centre, sd) or ("uniform", low, high).
_PLANE_12 = (
    ("gauss", (100.0, 150.0), 15.0),
    ("gauss", (300.0, 50.0), 15.0),
    ("uniform", (50.0, 20.0), (150.0, 80.0)),
    ("uniform", (250.0, 120.0), (350.0, 180.0)),
)
_PLANE_34 = (
    ("uniform", (20.0, 120.0), (80.0, 180.0)),
    ("uniform", (120.0, 20.0), (180.0, 80.0)),
    ("gauss", (50.0, 50.0), 10.0),
    ("gauss", (150.0, 150.0), 10.0),
)
_INFORMATIVE_RANGE = (np.zeros(4), np.array([400.0, 200.0, 200.0, 200.0]))
NOISE_DISTRIBUTIONS = ("uniform", "gaussian")

# The reading of Fig. 1 used until the calibration (issue 22): its axes taken at face value.
FIGURE_READING = {
    "noise_scale": 150.0,  # noise features on [0, 150], Fig. 1c's axes
    "noise_distribution": "uniform",
    "cluster_spread": 1.0,  # the sds and rectangle half-widths above, unscaled
    "cluster_separation": 1.0,  # the centres above, unmoved
}


_PLANE_MIDDLES = (np.array([200.0, 100.0]), np.array([100.0, 100.0]))  # centres of Fig. 1a's and 1b's axes


def _plane(spec, n: int, rng: np.random.Generator) -> np.ndarray:
    kind, a, b = spec
    if kind == "gauss":
        return rng.normal(a, b, size=(n, 2))
    return rng.uniform(a, b, size=(n, 2))


def _centre(spec) -> np.ndarray:
    kind, a, b = spec
    return np.asarray(a) if kind == "gauss" else (np.asarray(a) + np.asarray(b)) / 2


def _reshape(spec, middle: np.ndarray, spread: float, separation: float):
    """One cluster's plane spec with its centre moved to ``middle + separation * (centre - middle)`` and its
    sd or rectangle half-widths multiplied by ``spread``."""
    kind, a, b = spec
    centre = middle + separation * (_centre(spec) - middle)
    if kind == "gauss":
        return kind, centre, b * spread
    half = spread * (np.asarray(b) - np.asarray(a)) / 2
    return kind, centre - half, centre + half


def _planes(spread: float = 1.0, separation: float = 1.0):
    """(plane (f1, f2), plane (f3, f4)) per cluster, reshaped by ``_reshape``."""
    return [tuple(_reshape(spec, middle, spread, separation) for spec, middle in zip(pair, _PLANE_MIDDLES))
            for pair in zip(_PLANE_12, _PLANE_34)]


def cluster_centres(cluster_separation: float = 1.0) -> np.ndarray:
    """The 4 x 4 centres (Gaussian means, rectangle midpoints) of the clusters in f1-f4."""
    return np.array([np.r_[_centre(p), _centre(q)] for p, q in _planes(separation=cluster_separation)])


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}.")
    return int(value)


def _check_positive(value, name: str, maximum: float = np.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not 0 < value <= maximum:
        raise ValueError(f"{name} must be a number in (0, {maximum}], got {value!r}.")
    return float(value)


def noise_features(n: int, n_noise_features: int, scale: float, distribution: str,
                   rng: np.random.Generator) -> np.ndarray:
    """The uninformative columns: uniform on [0, scale], or Gaussian with mean scale / 2 and sd scale / 6
    (99.7 % of the values inside [0, scale], the range a plot such as Fig. 1c would show)."""
    if distribution == "uniform":
        return rng.uniform(0.0, scale, size=(n, n_noise_features))
    return rng.normal(scale / 2, scale / 6, size=(n, n_noise_features))


def nrfs_synthetic(n_per_cluster: int = 300, n_noise: int = 80, n_features: int = 34, *,
                   noise_scale: float = FIGURE_READING["noise_scale"],
                   noise_distribution: str = FIGURE_READING["noise_distribution"],
                   cluster_spread: float = FIGURE_READING["cluster_spread"],
                   cluster_separation: float = FIGURE_READING["cluster_separation"],
                   random_state=0) -> Dataset:
    """The Fig. 1 data set: 4 x ``n_per_cluster`` normal + ``n_noise`` noisy rows, ``n_features`` columns.

    The paper leaves four choices open; their defaults are the figure reading (``FIGURE_READING``):

    noise_scale, noise_distribution
        The ``n_features - 4`` noise columns are uniform on [0, noise_scale], or Gaussian
        (``noise_features``), for every row.
    cluster_spread
        Multiplies the clusters' sds and rectangle half-widths in f1-f4 (1 = the values above).
    cluster_separation
        Moves each cluster's centre towards (< 1) or away from (> 1) the middle of its plane's axes
        (1 = the centres above); at most 1.5, beyond which centres leave Fig. 1's axes.

    ``info`` holds ``noise_indices`` (rows of the noisy instances), ``informative_features``
    (columns 0-3), how the noisy instances were labelled and the generator's parameters.
    """
    n_per_cluster = _check_count(n_per_cluster, "n_per_cluster", 1)
    n_noise = _check_count(n_noise, "n_noise", 0)
    n_features = _check_count(n_features, "n_features", N_INFORMATIVE)
    noise_scale = _check_positive(noise_scale, "noise_scale")
    cluster_spread = _check_positive(cluster_spread, "cluster_spread")
    cluster_separation = _check_positive(cluster_separation, "cluster_separation", 1.5)
    if noise_distribution not in NOISE_DISTRIBUTIONS:
        raise ValueError(f"noise_distribution must be one of {NOISE_DISTRIBUTIONS}, got {noise_distribution!r}.")
    rng = np.random.default_rng(random_state)

    normal = np.vstack([
        np.hstack([_plane(p, n_per_cluster, rng), _plane(q, n_per_cluster, rng)])
        for p, q in _planes(cluster_spread, cluster_separation)
    ])
    noisy = rng.uniform(*_INFORMATIVE_RANGE, size=(n_noise, N_INFORMATIVE))
    informative = np.vstack([normal, noisy])
    n = informative.shape[0]
    noise = noise_features(n, n_features - N_INFORMATIVE, noise_scale, noise_distribution, rng)

    gaps = ((noisy[:, None, :] - cluster_centres(cluster_separation)[None, :, :]) ** 2).sum(axis=2)
    y = np.r_[np.repeat(np.arange(N_CLUSTERS), n_per_cluster), gaps.argmin(axis=1)]
    info = {
        "generator": "nrfs_synthetic",
        "random_state": int(random_state) if isinstance(random_state, (int, np.integer)) else repr(random_state),
        "n_per_cluster": n_per_cluster,
        "noise_indices": list(range(N_CLUSTERS * n_per_cluster, n)),
        "informative_features": list(range(N_INFORMATIVE)),
        "noise_labels": "nearest cluster centre in f1-f4",
        "label_values": ["red", "blue", "green", "yellow"],
        "noise_scale": noise_scale,
        "noise_distribution": noise_distribution,
        "cluster_spread": cluster_spread,
        "cluster_separation": cluster_separation,
    }
    names = [f"f{j + 1}" for j in range(n_features)]
    return Dataset(np.hstack([informative, noise]), y, names, info)
