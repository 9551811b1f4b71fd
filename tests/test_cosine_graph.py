"""Cosine-weighted kNN graphs: the samples' own cosines (NRFS Eq. 2, Cai's constructW), never the centred ones.

The all-selector run found MCFS (and LS) with ``weight="cosine"`` refusing 20NewsgroupB: they built the graph on
the centred documents, whose cosines with all 5 neighbours were negative for 168 of the 800 documents.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from ufskit.graph import knn_graph
from ufskit.loaders import load
from ufskit.preprocess import apply_chain
from ufskit.registry import load_registry
from ufskit.selectors import MCFS, LaplacianScore
from ufskit.selectors.laplacian import laplacian_score
from ufskit.validation import centred


def documents(rng, n=40, d=120):
    """Non-negative l2-normalised 'tf-idf' rows: sparse words plus a word block shared by half the documents."""
    X = (rng.random((n, d)) < 0.08) * rng.random((n, d))
    X[: n // 2, :10] += (rng.random((n // 2, 10)) < 0.5) * 1.0
    X[X.sum(axis=1) == 0, -1] = 1.0
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_cosine_weights_are_the_samples_own_cosines_dense_and_sparse(rng):
    X = documents(rng)
    W = knn_graph(X, n_neighbors=5, weight="cosine")
    rows, cols = W.nonzero()
    assert_allclose(W[rows, cols].A1, np.einsum("ij,ij->i", X[rows], X[cols]), rtol=1e-12)  # unit rows: dot = cos
    assert_allclose(knn_graph(sp.csr_matrix(X), n_neighbors=5, weight="cosine").toarray(), W.toarray(), rtol=1e-12)
    # a column offset changes the cosines (it is no longer centred away)
    assert not np.allclose(knn_graph(X + 1.0, n_neighbors=5, weight="cosine").toarray(), W.toarray())


def test_ls_and_mcfs_with_cosine_weights_use_that_graph(rng):
    X = documents(rng)
    W = knn_graph(X, n_neighbors=5, weight="cosine")
    ls = LaplacianScore(n_neighbors=5, weight="cosine").fit(X)
    varying = np.isfinite(ls.laplacian_scores_)
    assert_allclose(ls.laplacian_scores_[varying], laplacian_score(X[:, varying], W), rtol=1e-10)
    dense, sparse = MCFS(weight="cosine", n_clusters=2).fit(X), MCFS(weight="cosine", n_clusters=2).fit(sp.csr_matrix(X))
    assert_array_equal(dense.ranking_[: dense.n_ranked_], sparse.ranking_[: dense.n_ranked_])


def test_a_sample_without_a_positive_cosine_is_named():
    """Negative cosines weigh 0; a sample whose every neighbour has one is isolated, and the error says why."""
    X = np.array([[1.0, 0.0], [-1.0, 0.1], [-1.0, -0.1], [-1.2, 0.0]])
    W = knn_graph(X[1:], n_neighbors=1, weight="cosine")
    assert W.min() >= 0
    with pytest.raises(ValueError, match=r"weight='cosine': 1 samples have no neighbour with a positive cosine .*\[0\]"):
        knn_graph(X, n_neighbors=1, weight="cosine")
    with pytest.raises(ValueError, match="weight='cosine'"):
        LaplacianScore(n_neighbors=1, weight="cosine").fit(X)


def test_20newsgroupb_has_a_cosine_graph_for_ls_and_mcfs(mirror):
    """The documents of the failing run: the centred cosines isolate samples, the documents' own do not."""
    registry = load_registry(Path(__file__).parents[1] / "config" / "datasets.yaml")
    entry = registry["datasets"]["20NewsgroupB"]
    ds = apply_chain(load("20NewsgroupB", entry, mirror, seed=0, sources=registry["sources"]),
                     ["tfidf", "drop_constant", "l2", "binormalize"])
    X = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    assert X.min() >= 0
    with pytest.raises(ValueError, match="no neighbour with a positive cosine"):
        knn_graph(centred(X), n_neighbors=5, weight="cosine")  # what LS and MCFS built before
    W = knn_graph(X, n_neighbors=5, weight="cosine")
    assert np.asarray(W.sum(axis=1)).min() > 0
    ls = LaplacianScore(n_neighbors=5, weight="cosine").fit(X)
    assert np.isfinite(ls.laplacian_scores_).sum() == X.shape[1]
