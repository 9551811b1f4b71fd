"""Numeric preprocessing steps, composed per dataset by a chain from the config.

Each step is ``step(X, **options) -> (X_new, keep, info)``: ``keep`` is a boolean
mask of the kept columns when the step removes features (None otherwise) and
``info`` records what the step did, so a dataset's JSON summary tells every
cleaning decision. The steps follow the papers: IVFS standardises features
(``zscore``); NRFS takes microarrays through ``log10`` -> ``quantile`` ->
``double_center`` and text through ``tfidf`` -> ``l2`` -> ``binormalize``.
docs/fidelity/preprocessing.md explains each choice (floor, ties, idf, ddof).
Steps never modify their input.
"""

from __future__ import annotations

import copy
import inspect
import logging
import numbers

import numpy as np
from scipy.stats import rankdata

from .data import Dataset
from .validation import check_data, check_no_constant, flat_features, input_dtypes

QUANTILE_TIES = ("interpolate", "mean")
# drop_constant's summary names at most this many of the removed columns
DROPPED_LISTED = 20

logger = logging.getLogger(__name__)


def _matrix(X, step: str) -> np.ndarray:
    """X as a finite float64 matrix, with errors naming the step."""
    return check_data(X, name=f"input of step {step!r}", min_samples=1)


def _check_nonnegative(X: np.ndarray, step: str) -> None:
    if X.min() < 0:
        raise ValueError(
            f"step {step!r} needs a non-negative matrix, but {int((X < 0).sum())} values are negative "
            f"(min {X.min():g})."
        )


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and bool(np.isfinite(value))


def _inv_sqrt(v: np.ndarray) -> np.ndarray:
    """1/sqrt(v) where v > 0, and 0 where v == 0 (empty rows/columns keep scale factor 0)."""
    out = np.zeros_like(v, dtype=np.float64)
    np.divide(1.0, np.sqrt(v), out=out, where=v > 0)
    return out


def zscore(X):
    """Each feature to mean 0 and population standard deviation 1 (ddof=0, as in IVFS).

    A flat feature (constant, or near-constant by ``validation.flat_features``) has no
    meaningful z-score: it is an error, pointing to ``drop_constant``.
    """
    X = _matrix(X, "zscore")
    check_no_constant(X, name="input of step 'zscore'")
    return (X - X.mean(axis=0)) / X.std(axis=0), None, {"ddof": 0}


def log10(X, floor=10.0, ceiling=None, require_positive=False):
    """log10 of the values clipped to [floor, ceiling].

    Raw microarray intensities (GEMS, Gordon) include zeros and negatives; they
    are floored before the log. ``floor=None`` takes the log as it is, which then
    needs every value > 0, as does ``require_positive=True`` whatever the floor.
    """
    X = _matrix(X, "log10")
    if floor is not None and not (_is_number(floor) and floor > 0):
        raise ValueError(f"log10: floor must be a positive number or None, got {floor!r}.")
    if ceiling is not None and not (_is_number(ceiling) and ceiling > (floor or 0)):
        raise ValueError(f"log10: ceiling must be a number above the floor ({floor!r}), got {ceiling!r}.")
    n_nonpositive = int((X <= 0).sum())
    if n_nonpositive and (require_positive or floor is None):
        raise ValueError(
            f"log10: {n_nonpositive} values are <= 0 (min {X.min():g}); "
            "set a floor, or check that the data is not already on a log scale."
        )
    n_floored = int((X < floor).sum()) if floor is not None else 0
    if n_floored == X.size:
        raise ValueError(f"log10: every value is below the floor {floor!r}; is the data already log-scaled?")
    n_ceiled = int((X > ceiling).sum()) if ceiling is not None else 0
    info = {
        "floor": None if floor is None else float(floor),
        "ceiling": None if ceiling is None else float(ceiling),
        "n_floored": n_floored,
        "n_ceiled": n_ceiled,
        "n_cells": int(X.size),
    }
    return np.log10(np.clip(X, floor, ceiling)), None, info


def quantile(X, ties="interpolate"):
    """Quantile normalisation across samples (Bolstad et al. 2003): every row gets one distribution.

    The reference r_k is the mean over rows of the k-th smallest value; a value of
    rank k is replaced by r_k. A block of tied values spanning positions lo..hi gets
    ``ties="interpolate"``: r linearly interpolated at the average rank (lo+hi)/2, as
    limma's ``normalizeQuantiles(ties=TRUE)`` and preprocessCore do; or
    ``ties="mean"``: the mean of r_lo..r_hi, which keeps every row's mean at mean(r).
    """
    X = _matrix(X, "quantile")
    if ties not in QUANTILE_TIES:
        raise ValueError(f"quantile: ties must be one of {QUANTILE_TIES}, got {ties!r}.")
    reference = np.sort(X, axis=1).mean(axis=0)
    lo = rankdata(X, axis=1, method="min").astype(np.intp) - 1  # 0-based first position of each tie block
    hi = rankdata(X, axis=1, method="max").astype(np.intp) - 1  # ... and its last position
    if ties == "interpolate":
        out = np.interp((lo + hi) / 2, np.arange(X.shape[1]), reference)
    else:
        csum = np.concatenate(([0.0], np.cumsum(reference)))
        out = (csum[hi + 1] - csum[lo]) / (hi - lo + 1)
    return out, None, {"ties": ties, "n_tied_cells": int((hi > lo).sum())}


def double_center(X):
    """x_ij - row mean - column mean + grand mean (= H_n X H_d): every row and column then has mean 0."""
    X = _matrix(X, "double_center")
    return X - X.mean(axis=1, keepdims=True) - X.mean(axis=0) + X.mean(), None, {}


def tfidf(X):
    """Classic tf-idf of a document x term count matrix: raw count * ln(n / df).

    df = number of documents containing the term. Not sklearn's smoothed idf. A term
    in every document gets weight 0; a term in none has an all-zero column anyway.
    """
    X = _matrix(X, "tfidf")
    _check_nonnegative(X, "tfidf")
    n = X.shape[0]
    df = np.count_nonzero(X, axis=0)
    idf = np.log(n / np.maximum(df, 1))
    info = {
        "tf": "raw count",
        "idf": "ln(n/df)",
        "n_empty_terms": int((df == 0).sum()),
        "n_terms_in_every_document": int((df == n).sum()),
    }
    return X * idf, None, info


def l2(X):
    """Each row (document) divided by its Euclidean norm; all-zero rows stay zero."""
    X = _matrix(X, "l2")
    scale = _inv_sqrt(np.einsum("ij,ij->i", X, X))
    return X * scale[:, None], None, {"n_zero_rows": int((scale == 0).sum())}


def binormalize(X):
    """Dhillon's (KDD 2001) bipartite normalisation D1^{-1/2} A D2^{-1/2}.

    D1 = row sums, D2 = column sums of A >= 0; empty rows/columns get factor 0.
    """
    X = _matrix(X, "binormalize")
    _check_nonnegative(X, "binormalize")
    row_scale = _inv_sqrt(X.sum(axis=1))
    col_scale = _inv_sqrt(X.sum(axis=0))
    out = X * row_scale[:, None]
    out *= col_scale
    info = {"n_empty_rows": int((row_scale == 0).sum()), "n_empty_columns": int((col_scale == 0).sum())}
    return out, None, info


def drop_constant(X):
    """Remove the flat features: the library's one rule (``validation.flat_features``); ``keep`` marks the survivors.

    Flat = constant, or varying only by round-off of its own magnitude: a
    range of at most ``validation.ROUNDOFF_RELATIVE`` (1e-10) of it, e.g.
    ``3 + 1e-12 * noise`` (each column judged alone, never against the
    others), so that a later ``zscore`` cannot blow round-off up to unit variance. The summary
    counts the exactly constant and the near-constant columns removed and
    names the first of them; the step logs the same. A float32 matrix is
    judged in float32 precision (in a chain, X is the Dataset's float64).
    """
    dtype = input_dtypes(X)
    X = _matrix(X, "drop_constant")
    flat = flat_features(X, dtype=dtype)
    if flat.all():
        raise ValueError("drop_constant: every feature is constant; nothing would be left.")
    removed = np.flatnonzero(flat)
    n_near = int(np.count_nonzero(np.ptp(X[:, removed], axis=0)))
    info = {
        "n_removed": int(removed.size),
        "n_kept": int(X.shape[1] - removed.size),
        "n_near_constant": n_near,
        "first_removed": removed[:DROPPED_LISTED].tolist(),
    }
    if removed.size:
        logger.info("drop_constant: removed %d of %d features (%d exactly constant, %d near-constant; first: %s)",
                    removed.size, X.shape[1], removed.size - n_near, n_near, info["first_removed"])
    return X[:, ~flat], ~flat, info


STEPS = {
    "zscore": zscore,
    "log10": log10,
    "quantile": quantile,
    "double_center": double_center,
    "tfidf": tfidf,
    "l2": l2,
    "binormalize": binormalize,
    "drop_constant": drop_constant,
}


def parse_chain(chain) -> list[tuple[str, dict]]:
    """Chain items (``"name"`` or ``{name: {options}}``) as (name, options) pairs.

    Unknown step names and option names fail here, so a bad config stops before any work.
    """
    if not isinstance(chain, (list, tuple)):
        raise ValueError(f"a preprocessing chain must be a list of steps, got {chain!r}.")
    steps = []
    for item in chain:
        if isinstance(item, str):
            name, options = item, {}
        elif isinstance(item, dict) and len(item) == 1:
            ((name, options),) = item.items()
            options = {} if options is None else options
        else:
            raise ValueError(f"chain item {item!r} must be a step name or {{name: {{options}}}}.")
        if name not in STEPS:
            raise ValueError(f"unknown preprocessing step {name!r}; known steps: {', '.join(STEPS)}.")
        if not isinstance(options, dict):
            raise ValueError(f"options of step {name!r} must be a mapping, got {options!r}.")
        try:
            inspect.signature(STEPS[name]).bind(None, **options)
        except TypeError as err:
            raise ValueError(f"step {name!r} does not take options {sorted(options)}: {err}.") from None
        steps.append((name, dict(options)))
    return steps


def apply_chain(ds: Dataset, chain) -> Dataset:
    """A new Dataset: ``ds`` taken through the steps in order, each logged in info["preprocessing"]."""
    steps = parse_chain(chain)
    X, names = ds.X, ds.feature_names
    log = copy.deepcopy(ds.info.get("preprocessing", []))
    for name, options in steps:
        X, keep, info = STEPS[name](X, **options)
        bad = ~np.isfinite(X)
        if bad.any():
            raise ValueError(f"step {name!r} produced {int(bad.sum())} NaN/inf values; check its input range.")
        if keep is not None and names is not None:
            info = {**info, "removed_names": names[~keep][:DROPPED_LISTED].tolist()}
            names = names[keep]
        log.append({"step": name, **info})
    if X is ds.X:  # empty chain: still hand back a Dataset that shares nothing with the input
        X = X.copy()
    info = copy.deepcopy(ds.info)
    info["preprocessing"] = log
    return Dataset(X, ds.y.copy(), None if names is None else names.copy(), info)
