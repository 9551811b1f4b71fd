"""Shared behaviour checks for selectors (imported by the per-selector test files).

Stable API:

* ``make_planted(...) -> Planted(X, y, informative)``: a few cluster-carrying
  features hidden at random positions among pure-noise features;
* ``assert_finds_planted(selector, data, top=None)``: the planted features are
  all in the ``top`` best ranks (default: exactly the first ``len(informative)``);
* ``assert_permutation_equivariant(selector, X, random_state=0)``: permuting the
  columns permutes scores and ranks the same way;
* ``assert_deterministic(selector, X)``: two fits of clones on the same input
  give bit-identical scores and ranks;
* ``run_check_estimator(estimator, expected_failed_checks=None)``: scikit-learn's
  ``check_estimator``, reporting every failing check at once and failing if a
  check listed as expected-to-fail in fact passes (so the list stays honest);
* ``fit_peak_bytes(selector, X)``: peak traced allocation (tracemalloc) of one
  fit, to show that no d x d matrix is formed when d >> n;
* ``load_mat_zscored(path)``: X of an ASU ``.mat`` file, constant columns
  dropped, z-scored (for comparisons with reference implementations).
"""

from __future__ import annotations

import tracemalloc
from typing import NamedTuple

import numpy as np
import scipy.io
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.utils.estimator_checks import check_estimator


class Planted(NamedTuple):
    X: np.ndarray  # n x d, z-scored columns
    y: np.ndarray  # cluster label of each sample
    informative: np.ndarray  # sorted indices of the planted features


def make_planted(
    n_samples: int = 60,
    n_informative: int = 4,
    n_noise: int = 40,
    n_clusters: int = 3,
    separation: float = 4.0,
    random_state: int = 0,
    pattern: str = "permuted",
) -> Planted:
    """Clustered samples visible only in ``n_informative`` features; the rest is N(0, 1) noise.

    ``pattern`` sets the cluster means of the informative features.
    "permuted" (default): in each one a random permutation of
    ``separation * linspace(-1, 1, n_clusters)``, so every such feature
    separates all clusters on its own (redundant features). "onehot":
    informative feature j is ``separation`` on cluster j mod n_clusters and 0
    elsewhere, so the features are complementary (each marks one cluster: the
    multi-cluster structure MCFS is built for).

    Within-cluster noise is N(0, 1). Columns are z-scored so that no method can
    win by variance alone, and the informative columns are scattered at random
    positions (not first: ties broken by index must not help). Keep the noise
    share moderate: z-scoring caps each informative feature's cluster gap at a
    few units, so dozens of noise features can drown the kNN graph.
    """
    rng = np.random.default_rng(random_state)
    d = n_informative + n_noise
    y = np.arange(n_samples) % n_clusters
    if pattern == "permuted":
        levels = separation * np.linspace(-1.0, 1.0, n_clusters)
        means = np.stack([rng.permutation(levels) for _ in range(n_informative)], axis=1)  # c x m
    elif pattern == "onehot":
        means = separation * (np.arange(n_clusters)[:, None] == np.arange(n_informative) % n_clusters)
    else:
        raise ValueError(f"unknown pattern {pattern!r}; use 'permuted' or 'onehot'.")
    X = rng.standard_normal((n_samples, d))
    informative = np.sort(rng.choice(d, size=n_informative, replace=False))
    X[:, informative] += means[y]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return Planted(X, y, informative)


def assert_finds_planted(selector, data: Planted, top: int | None = None):
    """Fit ``selector`` on ``data.X``; every planted feature must be among the ``top`` best."""
    top = data.informative.size if top is None else top
    est = clone(selector).fit(data.X)
    best = est.order_[:top]
    missing = np.setdiff1d(data.informative, best)
    assert missing.size == 0, (
        f"{type(est).__name__} missed planted features {missing.tolist()}: ranks "
        f"{est.ranking_[data.informative].tolist()} (need <= {top})."
    )
    return est


def _untied(scores: np.ndarray, rtol: float) -> np.ndarray:
    """Mask of features whose score differs from every other by more than rtol * scale."""
    order = np.argsort(scores, kind="stable")
    s = scores[order]
    gap = np.diff(s) > rtol * max(np.abs(s).max(), 1e-300)
    ok = np.ones(s.size, dtype=bool)
    ok[1:] &= gap
    ok[:-1] &= gap
    mask = np.empty_like(ok)
    mask[order] = ok
    return mask


def assert_permutation_equivariant(selector, X: np.ndarray, random_state: int = 0, rtol: float = 1e-7):
    """Fitting on X[:, perm] must give scores[perm], and the same rank to each untied feature.

    Features whose scores tie (e.g. MCFS's zero coefficients) are ranked by
    index, which a permutation legitimately changes, so only untied features'
    ranks are compared; their relative order among themselves must be kept.
    """
    perm = np.random.default_rng(random_state).permutation(X.shape[1])
    a = clone(selector).fit(X)
    b = clone(selector).fit(X[:, perm])
    scale = max(np.abs(a.scores_).max(), 1e-300)
    assert_allclose(b.scores_, a.scores_[perm], rtol=rtol, atol=rtol * scale)
    untied = _untied(a.scores_, rtol=1e3 * rtol)[perm]
    assert untied.any(), "all scores tie: the permutation check would be vacuous."
    assert_array_equal(b.ranking_[untied], a.ranking_[perm][untied])


def assert_deterministic(selector, X: np.ndarray):
    """Two fits of fresh clones on copies of X give identical scores and ranks, and leave X untouched."""
    X0 = X.copy()
    a = clone(selector).fit(X.copy())
    b = clone(selector).fit(X)
    assert_array_equal(X, X0)
    assert_array_equal(a.scores_, b.scores_)
    assert_array_equal(a.ranking_, b.ranking_)


def run_check_estimator(estimator, expected_failed_checks: dict[str, str] | None = None):
    """scikit-learn's ``check_estimator``, collecting all failures into one AssertionError.

    ``expected_failed_checks`` maps a check name to the reason it cannot apply;
    a listed check that passes is reported too.
    """
    expected = dict(expected_failed_checks or {})
    results = []
    check_estimator(
        estimator,
        expected_failed_checks=expected,
        on_fail=None,
        on_skip=None,
        callback=lambda **kw: results.append(kw),
    )
    failed = [f"{r['check_name']}: {r['exception']!r}" for r in results if r["status"] == "failed"]
    ran = {r["check_name"]: r["status"] for r in results}
    unexpected_pass = [name for name in expected if ran.get(name) == "passed"]
    problems = failed + [f"{name}: listed as expected to fail but passed" for name in unexpected_pass]
    unknown = sorted(set(expected) - set(ran))
    problems += [f"{name}: listed as expected to fail but no such check ran" for name in unknown]
    assert not problems, "check_estimator problems:\n" + "\n".join(problems)
    return results


def fit_peak_bytes(selector, X: np.ndarray) -> int:
    """Peak memory traced by tracemalloc (numpy buffers included) while fitting a clone on X."""
    est = clone(selector)
    tracemalloc.start()
    try:
        est.fit(X)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def load_mat_zscored(path) -> np.ndarray:
    """The ``X`` matrix of a .mat file as float64, constant columns dropped, columns z-scored."""
    X = np.asarray(scipy.io.loadmat(path)["X"], dtype=np.float64)
    X = X[:, np.ptp(X, axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def planted_copies(n=300, seed=0, strong=0.3, weak=0.6):
    """y = 2u + v for independent bits u, v: a feature of u (noise sd ``strong``), a near-copy of it, a feature of
    v (noise sd ``weak``; uncorrelated with the other two), noise and a flat column, as columns
    [noise, a, noise, copy, b, flat]. Once a is chosen its copy adds nothing; b separates the rest."""
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, 2, n), rng.integers(0, 2, n)
    a = u + strong * rng.standard_normal(n)
    copy = a + 0.05 * rng.standard_normal(n)
    b = v + weak * rng.standard_normal(n)
    X = np.column_stack([rng.standard_normal(n), a, rng.standard_normal(n), copy, b, np.full(n, 3.0)])
    return X, 2 * u + v
