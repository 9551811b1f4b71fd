"""IVFS (Li, Wu & Li, AAAI 2020): inclusion-value feature selection for distance/topology preservation.

Algorithm 1 of the paper with the loss of Eq. 5 and its Extensions: k times,
draw d~ features and n~ samples at random, compare the distance matrix of the
n~ samples on all features (D) with the one on the d~ drawn features (D_F),
each divided by its own largest entry, and charge the loss ||D - D_F|| to every
drawn feature. A feature's inclusion value is minus its mean loss over the
subsets that drew it; the features with the highest values are kept.

The subsets are evaluated in batches by ``ivfs_kernel.subset_losses`` (one
gather and one stacked symmetric BLAS product per batch, the distances formed
on one triangle only; ``benchmarks/ivfs_kernel.py`` measures it against GEMM).
"""

from __future__ import annotations

import numbers
import time
import warnings

import numpy as np
from sklearn.utils._param_validation import StrOptions

from ..validation import centred, resolve_count
from .base import ScoreSelector
from .constraints import FRACTION, POSITIVE_INT, RANDOM_STATE
from .ivfs_kernel import DTYPES, LOSSES, default_batch_size, full_distances, subset_losses  # noqa: F401 (re-exported)

# Least n~ a fractional subset_samples resolves to (IVFS.subset_samples explains why)
MIN_SUBSET_SAMPLES = 10


def draw_subsets(n_samples: int, n_features: int, n_subsets: int, subset_samples: int, subset_features: int, rng):
    """The k random subsets of Algorithm 1, as two sorted index arrays.

    Subset t draws its features first, then its samples, each by
    ``rng.choice(..., replace=False)`` (uniform without replacement); sorting
    only improves memory locality. Returns ``samples`` (k x n~) and
    ``features`` (k x d~).
    """
    samples = np.empty((n_subsets, subset_samples), dtype=np.intp)
    features = np.empty((n_subsets, subset_features), dtype=np.intp)
    for t in range(n_subsets):  # measured faster than one batched (k x d) argpartition of random keys
        features[t] = np.sort(rng.choice(n_features, subset_features, replace=False))
        samples[t] = np.sort(rng.choice(n_samples, subset_samples, replace=False))
    return samples, features


def inclusion_values(losses: np.ndarray, features: np.ndarray, n_features: int):
    """Per-feature draw counts c_f and mean scores S_f / c_f with s_F(f) = -loss (Eq. 5); NaN where c_f = 0."""
    return _mean_values(*_inclusion_totals(losses, features, n_features))


def _inclusion_totals(losses: np.ndarray, features: np.ndarray, n_features: int, counts=None, totals=None):
    """c_f and S_f = sum of -loss over the subsets that drew f, added to ``counts`` and ``totals`` if given.

    S_f is summed in draw order (``np.add.at``), so continuing the totals of the first k' subsets with
    the next ones gives the same bits as one pass over all of them: a checkpoint's scores and the
    final ones equal separate fits with fewer subsets exactly.
    """
    drawn = features.ravel()
    counts = np.zeros(n_features, dtype=np.int64) if counts is None else counts
    totals = np.zeros(n_features) if totals is None else totals
    counts += np.bincount(drawn, minlength=n_features)
    np.add.at(totals, drawn, np.repeat(-losses, features.shape[1]))
    return counts, totals


class IVFS(ScoreSelector):
    """Inclusion Value Feature Selection with the l_inf loss (IVFS-l_inf) or its l1/l2 extensions.

    Parameters
    ----------
    n_features_to_select : int, float or None
        Features kept by ``transform`` (count, fraction of d, or None for half).
    n_subsets : int
        k, the number of random subsets (the paper: 1000, 3000 or 5000).
    subset_features : int or float
        d~, features per subset (count or fraction of d; the paper: 0.1d .. 0.5d).
    subset_samples : int or float
        n~, samples per subset (count or fraction of n; the paper: 0.1n, 0.3n,
        0.5n, or 100 when n > 1000). A count must be at least 3: the distances
        of 2 points divided by their largest are always [[0, 1], [1, 0]], so
        every loss would be 0 and the ranking column order. A fraction resolves
        to at least ``MIN_SUBSET_SAMPLES`` = 10 samples (all n when n < 10), the
        paper's smallest setting (0.1n on lymphoma, n = 96), so that small data
        keeps enough distances per subset to tell features apart.
    loss : {"linf", "l1", "l2"}
        ||D - D_F|| as max |.|, sum |.| or the Frobenius norm over all entries.
    random_state : None, int or numpy Generator
        Seed of the subset draws; an int gives bit-identical reruns.
    batch_size : int or None
        Subsets evaluated per stacked BLAS call (None: about 1 MB of work
        space per batch). The scores do not depend on it beyond rounding.
    checkpoints : sequence of int or None
        Smaller k whose result is also kept: the subsets are drawn one after
        the other from one stream, so the first k' of a fit with k subsets are
        exactly the subsets of a fit with k' (same seed). One fit with the
        largest k then gives every k of the paper's grid.
    dtype : {"float64", "float32"}
        Precision of the subset products and distances. float32 is about twice
        as fast; its losses differ in the 7th digit, which can swap features
        whose scores are that close (see docs/fidelity/ivfs-paper.md).

    Attributes
    ----------
    subset_samples_, subset_features_ : n~ and d~ as the counts the fit used.
    ivfs_scores_ : the paper's S_f / c_f = -(mean loss of the subsets that drew f); NaN if never drawn.
    inclusion_counts_ : c_f, how many subsets drew each feature (0 for the
        flat columns ``fit`` leaves unscored, whose ``ivfs_scores_`` are NaN).
    n_never_drawn_ : number of features no subset drew. They cannot be scored;
        ``scores_`` puts them after every drawn feature (min drawn score - 1),
        tied among themselves: ``ranking_`` orders them by the seeded tie-break
        permutation (``ties.tie_keys``), ``n_ranked_`` leaves them out, and a
        warning is issued.
    subset_losses_ : the k losses, in draw order.
    checkpoint_scores_, checkpoint_seconds_ : for each checkpoint k', the
        ``scores_`` a fit with k' subsets gives and the seconds the fit had
        taken when it had evaluated them (measured, drawing included).
    """

    _parameter_constraints: dict = {
        **ScoreSelector._parameter_constraints, "loss": [StrOptions(set(LOSSES))],
        "n_subsets": [POSITIVE_INT], "subset_features": [POSITIVE_INT, FRACTION],
        "subset_samples": [POSITIVE_INT, FRACTION], "batch_size": [None, POSITIVE_INT],
        "checkpoints": [None, list], "dtype": [StrOptions(set(DTYPES))],
        "random_state": RANDOM_STATE,
    }

    def __init__(
        self,
        n_features_to_select=None,
        n_subsets=1000,
        subset_features=0.3,
        subset_samples=0.1,
        loss="linf",
        random_state=None,
        batch_size=None,
        checkpoints=None,
        dtype="float64",
    ):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_subsets = n_subsets
        self.subset_features = subset_features
        self.subset_samples = subset_samples
        self.loss = loss
        self.random_state = random_state
        self.batch_size = batch_size
        self.checkpoints = checkpoints
        self.dtype = dtype

    def _subset_sizes(self, n_samples: int, n_features: int) -> tuple[int, int, int]:
        """k, n~ and d~ as counts."""
        if isinstance(self.n_subsets, bool) or not isinstance(self.n_subsets, numbers.Integral) or self.n_subsets < 1:
            raise ValueError(f"n_subsets must be a positive int, got {self.n_subsets!r}.")
        p = resolve_count(self.subset_features, n_features, name="subset_features")
        if isinstance(self.subset_samples, numbers.Integral) and not isinstance(self.subset_samples, bool):
            m = resolve_count(self.subset_samples, n_samples, name="subset_samples", minimum=min(3, n_samples))
        else:
            m = resolve_count(self.subset_samples, n_samples, name="subset_samples")
            m = max(m, min(MIN_SUBSET_SAMPLES, n_samples))
        return int(self.n_subsets), m, p

    def _draw_subsets(self, n_samples: int, n_features: int):
        """The (samples, features) index arrays that ``fit`` on an n x d matrix draws, from ``random_state``."""
        k, m, p = self._subset_sizes(n_samples, n_features)
        return draw_subsets(n_samples, n_features, k, m, p, np.random.default_rng(self.random_state))

    def _checkpoints(self) -> list[int]:
        """The checkpoints, sorted, then k itself."""
        values = list(self.checkpoints or [])
        for value in values:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value < self.n_subsets:
                raise ValueError(f"checkpoints must be ints in [1, n_subsets), got {value!r}.")
        return sorted(set(values)) + [int(self.n_subsets)]

    def _score(self, X):
        n, d = X.shape
        if n < 3:
            raise ValueError(f"IVFS needs X with at least 3 samples, got {n}: the distances of 2 points, divided "
                             "by their largest, are the same on every feature subset.")
        _, m, p = self._subset_sizes(n, d)
        X = centred(X)  # distances are shift-invariant; the subset Gram matrices lose nothing to an offset
        self.subset_samples_, self.subset_features_ = m, p
        stops = self._checkpoints()
        rng = np.random.default_rng(self.random_state)
        t0 = time.perf_counter()
        losses, counts, totals = [], np.zeros(d, dtype=np.int64), np.zeros(d)
        # the full-data distances: gathered when cheaper than per-subset (decided by all k subsets, as one call
        # would), computed once for every stretch between checkpoints
        full = full_distances(X, self.dtype) if n * n <= stops[-1] * m * m else None
        self.checkpoint_scores_, self.checkpoint_seconds_ = {}, {}
        for start, stop in zip([0, *stops[:-1]], stops):
            # the next stop - start subsets of the one stream: identical to drawing all k at once
            samples, features = draw_subsets(n, d, stop - start, m, p, rng)
            losses.append(subset_losses(X, samples, features, self.loss, self.batch_size, precompute=full is not None,
                                        dtype=self.dtype, full=full))
            _inclusion_totals(losses[-1], features, d, counts, totals)
            if stop < stops[-1]:
                self.checkpoint_scores_[stop] = self._to_full(_ranked_scores(*_mean_values(counts, totals)), -np.inf)
                self.checkpoint_seconds_[stop] = time.perf_counter() - t0
        self.subset_losses_ = np.concatenate(losses)
        counts, values = _mean_values(counts, totals)
        self.inclusion_counts_, self.ivfs_scores_ = self._to_full(counts, 0), self._to_full(values, np.nan)
        self.n_never_drawn_ = int((counts == 0).sum())
        if self.n_never_drawn_:
            warnings.warn(
                f"IVFS: {self.n_never_drawn_} of {d} features were never drawn and are ranked last; "
                "increase n_subsets or subset_features.",
                stacklevel=3,
            )
        return _ranked_scores(counts, values)


def _mean_values(counts: np.ndarray, totals: np.ndarray):
    """(c_f, S_f / c_f) from draw counts and summed scores; NaN where c_f = 0."""
    values = np.full(counts.size, np.nan)
    np.divide(totals, counts, out=values, where=counts > 0)
    return counts, values


def _ranked_scores(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Scores for the ranking: never-drawn features after every drawn one (min drawn value - 1)."""
    never = counts == 0
    return np.where(never, np.nanmin(values) - 1.0, values)
