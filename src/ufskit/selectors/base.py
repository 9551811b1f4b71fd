"""The one interface every selector shares (scikit-learn's SelectorMixin, RFE-style ranks)."""

from __future__ import annotations

import logging
import warnings
from contextlib import nullcontext

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import validation
from ..blas import single_threaded_blas
from ..sparse_input import BLOCK_BYTES, is_sparse, per_column, sparse_extremes
from ..validation import (
    check_scale,
    column_extremes,
    flat_features,
    input_dtypes,
    resolve_count,
    scale_warning,
)
from .constraints import FRACTION, POSITIVE_INT
from .ties import order_from_ranking, rank_with_ties

logger = logging.getLogger(__name__)


def ranking_from_scores(scores: np.ndarray) -> np.ndarray:
    """RFE-style ranks (1 = best) from scores where higher is better.

    Ties are broken by feature index (the lower index ranks first), so a
    ranking never depends on the sort algorithm. ``-inf`` marks a feature that
    was not scored (a degenerate column): it ranks last.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if np.isnan(scores).any() or np.isposinf(scores).any():
        raise RuntimeError("a selector produced NaN or +inf scores; this is a bug, please report it.")
    order = np.argsort(-scores, kind="stable")
    ranking = np.empty(scores.size, dtype=np.int64)
    ranking[order] = np.arange(1, scores.size + 1)
    return ranking


def refuse_sparse_unless_accepted(selector, X) -> bool:
    """Whether X is sparse; a TypeError naming the selector when it is and the selector does not accept it."""
    sparse = is_sparse(X)
    if sparse and not selector.accepts_sparse:
        raise TypeError(f"{type(selector).__name__} does not accept sparse input: X is a scipy.sparse matrix. "
                        "Densify it first (X.toarray()); docs/selectors.md lists the selectors that accept it.")
    return sparse


def column_stds(X, columns) -> np.ndarray:
    """Population standard deviations (ddof 0) of ``columns`` of a dense or sparse X, in float64, computed by
    blocks of columns (two passes each, so an offset costs no precision; no n x d temporary)."""
    if is_sparse(X):
        return per_column(X[:, columns], lambda block: block.std(axis=0))
    step = max(1, BLOCK_BYTES // (8 * max(X.shape[0], 1)))
    return np.concatenate([X[:, columns[a : a + step]].std(axis=0) for a in range(0, columns.size, step)])


def standardised_columns(X, columns, stds):
    """X with each of ``columns`` divided by its standard deviation (``stds``): the scales standardising gives,
    offsets and sparsity kept; the other (flat) columns set to 0, flat in any precision, as the fit left them.
    A new array; X is not modified."""
    scale = np.zeros(X.shape[1])
    scale[columns] = 1.0 / stds
    if is_sparse(X):
        return type(X)(X.multiply(scale[None, :]))
    return X * scale


class ScaleCheck:
    """The scale check of a scale-sensitive fit (``ScoreSelector.fit``; docs/fidelity/numerics.md).

    When the scored columns' standard deviations differ by more than
    ``validation.SCALE_CHECK_FACTOR`` (4x), a twin of the estimator (``clone``:
    the same parameters and random state, taken before the fit consumes a
    Generator) is fitted on X with every scored column divided by its standard
    deviation (offsets and sparsity kept), its warnings silenced; a
    ``ScaleWarning`` is issued when the first t = min(``SCALE_TOP``,
    ceil(d'/4)) features of the two rankings differ, in membership or order
    (d' the features ranked, flat ones excluded; so the selection of the best
    k changes for some k <= t), naming both lists. No check, hence no cost, at
    or below the factor: z-scored columns all have standard deviation 1.
    Above it the check costs a second fit (and a scaled copy of X).
    """

    def __init__(self, estimator, X, columns):
        self.twin = None
        if not estimator.scale_sensitive or getattr(estimator, "_scale_twin", False) or columns.size < 2:
            return
        self.stds = column_stds(X, columns)
        ratio = self.stds.max() / self.stds.min()
        if not ratio > validation.SCALE_CHECK_FACTOR:  # read at each fit: a user may change it
            return
        self.name, self.columns, self.ratio = type(estimator).__name__, columns, ratio
        try:
            self.twin = clone(estimator)
            self.failure = None
        except Exception as err:  # a plugin whose parameters do not clone: warn without the measurement
            self.twin, self.failure = False, f"the estimator does not clone: {err}"
        else:
            self.twin._scale_twin = True

    def finish(self, X, y, ranking: np.ndarray, n_ranked: int) -> None:
        """Fit the twin on the standardised X and warn if the top of ``ranking`` (of ``n_ranked`` scored
        features) changes."""
        if self.twin is None:
            return
        top = min(validation.SCALE_TOP, -(-n_ranked // 4))  # ceil(d' / 4), at most SCALE_TOP
        if self.twin is not False:
            logger.info("%s: column standard deviations differ by %.3gx; fitting again on the column-standardised X "
                        "to see whether its top %d changes (ufskit.validation.SCALE_CHECK_FACTOR)", self.name,
                        self.ratio, top)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    Z = standardised_columns(X, self.columns, self.stds)
                    self.twin.fit(Z) if y is None else self.twin.fit(Z, y)
            except Exception as err:
                self.failure = f"the fit on the standardised X failed: {type(err).__name__}: {err}"
        if self.failure is not None:
            scale_warning(self.name, self.stds, self.columns, failure=self.failure)
            return
        mine = order_from_ranking(ranking)[:top].tolist()
        theirs = order_from_ranking(self.twin.ranking_)[:top].tolist()
        if mine != theirs:
            scale_warning(self.name, self.stds, self.columns, mine, theirs)


class ScoreSelector(SelectorMixin, BaseEstimator):
    """Base class: a subclass implements ``_score(X) -> scores`` (one per feature, higher = better).

    ``fit`` validates X (2-D, finite, at least 2 samples, magnitudes within
    [1e-100, 1e100]) and ``n_features_to_select``, then applies the degenerate
    input policy: constant columns, columns varying only by rounding in the
    dtype X arrived in, and columns whose values are all below 1e-100 in
    magnitude (``validation.flat_features``, each column judged alone), are not
    scored; ``_score`` sees only the other columns, and the flat ones get score
    ``-inf`` and the last ranks (``degenerate_features_`` lists them).
    An X with no varying column is refused. A ``scale_sensitive`` selector
    (the default; Variance, Random and SOGFS are not) warns (``ScaleWarning``) when
    its ranking depends on the units: when the scored columns' standard
    deviations differ by more than ``validation.SCALE_CHECK_FACTOR`` (4x),
    a second fit on the column-standardised X, and the warning if its first
    min(10, ceil(d'/4)) features differ (``ScaleCheck``; this doubles the cost
    of such fits, and z-scored X is never checked). ``fit`` stores ``scores_``,
    ``ranking_`` (``ranking_[i]`` is the rank of feature i, 1 = best) and
    ``n_features_in_``, and ``n_ranked_``: equal scores are ordered by a seeded
    permutation, not by column order, and ``n_ranked_`` counts the features
    tied with no other (``ties.rank_with_ties``; d when nothing ties);
    ``get_support``/``transform`` keep the
    ``n_features_to_select`` best (an int, a fraction of d, or None for half).
    A subclass whose maths needs no dense n x d matrix sets ``accepts_sparse =
    True``: ``fit`` then takes scipy.sparse X (CSR or CSC, float32 kept as
    float32; ``ufskit.sparse_input``) and the flat columns are found from
    sparse column extremes; the others refuse sparse X with a TypeError
    naming the selector (docs/selectors.md lists which accept it).
    Selectors whose native score is "smaller is better" negate it in ``scores_``
    and keep the native value in an attribute of their own. Per-feature fitted
    attributes a subclass sets in ``_score`` are in the scored columns' index
    space; ``_to_full`` embeds them back into all d features.
    """

    # a count, a fraction of d, or None (half of d); each subclass merges its own over these
    # (``{**ScoreSelector._parameter_constraints, ...}``) and scikit-learn's ``_validate_params`` checks them
    _parameter_constraints: dict = {"n_features_to_select": [None, POSITIVE_INT, FRACTION]}
    # does the ranking depend on the columns' relative scales (a kNN graph, a kernel or a regression on X)?
    scale_sensitive = True
    # whether fit takes scipy.sparse X (scikit-learn's input tag ``sparse``)
    accepts_sparse = False
    # whether ``_score`` runs on one BLAS thread: many small BLAS/LAPACK calls, each stalled by a descheduled
    # thread on shared cores (ufskit.blas); a selector that needs it only for part of ``_score`` says so there
    single_threaded = False

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def fit(self, X, y=None):
        """Score every feature of X (y is ignored: the selectors are unsupervised)."""
        self._validate_params()
        sparse = refuse_sparse_unless_accepted(self, X)
        dtype = input_dtypes(X)  # flatness is judged in the precision X arrived in
        # sparse X keeps float32 values (each selector computes in float64 block by block); dense X is float64
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32] if sparse else np.float64,
                          ensure_min_samples=2, reset=True)
        extremes = sparse_extremes(X) if sparse else column_extremes(X)
        check_scale(X, extremes=extremes)
        d = X.shape[1]
        self._n_selected(d)  # an impossible n_features_to_select fails here, not at transform
        flat = flat_features(X, extremes, dtype=dtype)
        if flat.all():
            raise ValueError(
                f"X has no varying feature: all {d} columns are constant (up to rounding); nothing to select."
            )
        self.degenerate_features_ = np.flatnonzero(flat)
        self._scored = np.flatnonzero(~flat)
        scale_check = ScaleCheck(self, X, self._scored)  # before the fit: a twin with the same random state
        with single_threaded_blas() if self.single_threaded else nullcontext():
            scores = np.asarray(self._score(X[:, self._scored] if flat.any() else X), dtype=np.float64)
        if scores.shape != (self._scored.size,):
            raise RuntimeError(f"{type(self).__name__}._score returned shape {scores.shape}.")
        self.scores_ = self._to_full(scores, fill=-np.inf)
        self.ranking_, self.n_ranked_ = rank_with_ties(self.scores_, getattr(self, "random_state", None))
        scale_check.finish(X, y, self.ranking_, self._scored.size)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.accepts_sparse
        return tags

    def _to_full(self, values, fill=0.0, axis: int = 0) -> np.ndarray:
        """Embed per-feature ``values`` computed on the scored columns into all d features along ``axis``.

        Positions of degenerate features get ``fill``. Index arrays of feature
        numbers (e.g. neighbour lists) are mapped with ``self._scored[idx]`` instead.
        """
        values = np.asarray(values)
        if self._scored.size == self.n_features_in_:
            return values
        shape = list(values.shape)
        shape[axis] = self.n_features_in_
        full = np.full(shape, fill, dtype=np.result_type(values, np.asarray(fill)))
        index = [slice(None)] * values.ndim
        index[axis] = self._scored
        full[tuple(index)] = values
        return full

    def _score(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def order_(self) -> np.ndarray:
        """Feature indices from best to worst."""
        check_is_fitted(self, "ranking_")
        return order_from_ranking(self.ranking_)

    def _n_selected(self, d: int) -> int:
        """How many of d features ``get_support`` keeps: ``n_features_to_select`` resolved, half when None."""
        if self.n_features_to_select is None:
            return max(1, d // 2)
        return resolve_count(self.n_features_to_select, d, name="n_features_to_select")

    def _get_support_mask(self):
        check_is_fitted(self, "ranking_")
        return self.ranking_ <= self._n_selected(self.ranking_.size)
