"""A repeated eigenvalue's eigenvectors are given a basis fixed by their eigenspace (``spectral.canonical_eigenbasis``).

Any rotation of them is an answer, and LAPACK's depends on the last bits of the matrix, which another BLAS kernel
moves. MCFS regresses on each vector, so the rotation chose its features (pixraw10P's kNN graph has
five components: its MCFS rankings on OpenBLAS's SkylakeX and Haswell kernels differed in 9,361 of 10,000 places).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from ufskit.graph import knn_graph
from ufskit.spectral import EIGENSPACE_SEED, fix_signs, smallest_nontrivial_eigenpairs


def clusters(seed: int = 0, n_per: int = 12, n_clusters: int = 5, d: int = 30) -> np.ndarray:
    """Well separated clusters: their 4-NN graph has one component each, eigenvalue 0 repeated."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=50.0, size=(n_clusters, d))
    return np.vstack([c + rng.normal(size=(n_per, d)) for c in centres])


def components_graph(X: np.ndarray) -> sp.csr_matrix:
    return knn_graph(X, n_neighbors=4, weight="binary")


def last_bits(W: sp.csr_matrix, seed: int) -> sp.csr_matrix:
    """W with every weight moved by a few units in the last place, symmetrically: what another BLAS kernel does."""
    noise = W.copy()
    noise.data = np.random.default_rng(seed).standard_normal(noise.data.size)
    noise = noise + noise.T
    out = W.copy()
    out.data = out.data * (1 + 1e-15 * noise.data)
    return out


@pytest.mark.parametrize("k", [4, 6, 3])  # the whole null space, beyond it, and cut inside it
def test_the_embedding_does_not_depend_on_the_last_bits(k):
    W = components_graph(clusters())
    lam, V = smallest_nontrivial_eigenpairs(W, k)
    assert_allclose(lam[: min(k, 4)], 0.0, atol=1e-12)  # five components: 0 four more times
    for seed in range(3):
        lam_b, V_b = smallest_nontrivial_eigenpairs(last_bits(W, seed), k)
        assert_allclose(lam_b, lam, atol=1e-12)
        assert_allclose(V_b, V, atol=1e-8)


def test_the_basis_spans_the_eigenspace_and_is_orthonormal():
    W = components_graph(clusters())
    lam, V = smallest_nontrivial_eigenpairs(W, 4)
    d = np.asarray(W.sum(axis=1)).ravel()
    L = np.eye(W.shape[0]) - W.toarray() / np.sqrt(np.outer(d, d))
    assert_allclose(L @ V, V * lam, atol=1e-10)
    assert_allclose(V.T @ V, np.eye(4), atol=1e-12)


def test_an_eigenvectors_sign_survives_a_mirrored_pair_of_largest_entries():
    """An antisymmetric vector's two largest entries are a mirrored pair: "largest entry positive" follows whichever
    is larger by a last bit, and another kernel flips it. The sign from a seeded projection does not move."""
    v = np.array([0.5, 0.3, -0.1, 0.1, -0.3, -0.5])
    v /= np.linalg.norm(v)
    bumped = v.copy()
    bumped[-1] *= 1 + 4e-16  # now the last entry, negative, is the largest in magnitude
    assert np.argmax(np.abs(v)) == 0 and np.argmax(np.abs(bumped)) == 5
    signs = [np.sign(fix_signs(u[:, None].copy() * s)[0, 0]) for u in (v, bumped) for s in (1.0, -1.0)]
    assert len(set(signs)) == 1
    g = np.random.default_rng(EIGENSPACE_SEED).standard_normal(v.size)
    assert g @ fix_signs(-v[:, None].copy())[:, 0] > 0
