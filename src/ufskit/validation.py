"""Input checks shared by every selector and metric: fail early, with a clear message."""

from __future__ import annotations

import numbers
import warnings

import numpy as np


def check_data(X, *, name: str = "X", min_samples: int = 2) -> np.ndarray:
    """Return X as a C-contiguous float64 2-D array, or raise ValueError.

    Rejects sparse input, non-2-D arrays, NaN/inf values and fewer than
    ``min_samples`` rows, naming the offending cells so the user can find them.
    """
    if hasattr(X, "toarray"):
        raise TypeError(f"{name} is sparse; pass a dense array (X.toarray()).")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (samples x features), got shape {X.shape}.")
    n, d = X.shape
    if n < min_samples or d < 1:
        raise ValueError(f"{name} needs at least {min_samples} samples and 1 feature, got {n} x {d}.")
    bad = ~np.isfinite(X)
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise ValueError(
            f"{name} has {bad.sum()} NaN or infinite values (first at sample {rows[0]}, "
            f"feature {cols[0]}); impute or drop them before feature selection."
        )
    return np.ascontiguousarray(X)


def check_no_constant(X: np.ndarray, *, name: str = "X") -> None:
    """Raise if a feature is flat (``flat_features``): several scores are 0/0 on such columns."""
    const = np.flatnonzero(flat_features(X))
    if const.size:
        raise ValueError(
            f"{name} has {const.size} constant or near-constant features (first: {const[:5].tolist()}); "
            "remove them first (preprocessing step 'drop_constant')."
        )


# Degenerate input, one policy for every selector and for the preprocessing step 'drop_constant'
# (docs/fidelity/numerics.md). A column is flat when its range (its centred spread: an offset does not change
# it) is at most FLAT_RELATIVE of the largest column range of X, or at most FLAT_ULPS units in the last place
# of its own magnitude (it varies only by rounding). Flat columns are constant for every purpose and are
# scored last, never first. A column with std 1 on an offset of 1e12 is not flat: its range is that of the
# other columns and some 10^4 ulps of its magnitude.
FLAT_RELATIVE = 1e-10
FLAT_ULPS = 16
# Beyond these magnitudes squared distances and Gram matrices over- or underflow in float64: an X whose
# largest value lies outside is refused; a column entirely below MIN_ABS_VALUE (its squares underflow) is flat.
MAX_ABS_VALUE = 1e100
MIN_ABS_VALUE = 1e-100
# Scale-sensitive selectors warn (ScaleWarning) when a scored column's range is below this fraction of the
# largest one: their regressions reward a column for being small (docs/fidelity/numerics.md).
SCALE_WARN_RATIO = 1e-6


class ScaleWarning(UserWarning):
    """A scale-sensitive selector was given columns of very different spreads: standardise X first."""


def column_extremes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column minimum and maximum: the one pass over X that ``flat_features`` and ``check_scale`` share."""
    return X.min(axis=0), X.max(axis=0)


def flat_features(X: np.ndarray, extremes=None) -> np.ndarray:
    """Boolean mask of the flat columns of X (the rule above), and of the columns entirely below MIN_ABS_VALUE.

    The range hi - lo is the column's spread about any centre, so shifting a
    column does not make it flat; the comparison with the largest range makes
    ``3 + 1e-12 * noise`` beside columns of order 1 flat, whatever its offset.
    The second kind (e.g. a column of 1e-150 among columns of order 1) has
    squares that underflow, so no score built on it means anything.
    ``extremes``: ``column_extremes(X)``, if known.
    """
    lo, hi = column_extremes(X) if extremes is None else extremes
    spread = hi - lo
    magnitude = np.maximum(np.abs(lo), np.abs(hi))
    rounding = FLAT_ULPS * np.finfo(np.float64).eps * magnitude
    largest = spread.max() if spread.size else 0.0
    return (spread <= FLAT_RELATIVE * largest) | (spread <= rounding) | (magnitude < MIN_ABS_VALUE)


def shifted_to_minimum(X: np.ndarray, *others: np.ndarray) -> tuple[np.ndarray, ...]:
    """X and ``others`` (same columns) minus the columns' common minimum, as new C-ordered arrays.

    Distances and Gram matrices of the shifted data lose no precision to a
    column's offset (||x||^2 of a column at 1e7 swamps its spread). The shift
    is a data value, so a column moved by an exactly representable constant
    gives bit-identical output ((x + c) - (min + c) rounds as x - min does),
    and integer data stays integer (exact distances, exact ties).
    """
    lo = X.min(axis=0)
    for other in others:
        lo = np.minimum(lo, other.min(axis=0))
    return tuple(np.subtract(A, lo, order="C") for A in (X, *others))


def centred(X: np.ndarray) -> np.ndarray:
    """X with every column at mean 0: ``shifted_to_minimum``, then the mean of the result subtracted.

    For the selectors whose computation is shift-invariant, or made so (an
    intercept): the output is bit-identical under an exact offset, and does
    not depend on X's memory layout.
    """
    (Xc,) = shifted_to_minimum(X)
    Xc -= Xc.mean(axis=0)
    return Xc


def power_of_two(value: float) -> float:
    """``value`` rounded to the nearest power of 2 (in log scale): dividing by it is exact."""
    return float(2.0 ** np.round(np.log2(value)))


def warn_if_scale_sensitive(X: np.ndarray, selector: str) -> None:
    """Warn (``ScaleWarning``) when the smallest column range of X is below SCALE_WARN_RATIO of the largest.

    Called by the selectors whose scores depend on each column's scale
    (regression coefficients: MCFS, NDFS, UDFS, GLSPFS; MCFS and UDFS rank a
    near-constant column first), so that such a column never wins silently.
    """
    spread = np.ptp(X, axis=0)
    if spread.size and spread.min() < SCALE_WARN_RATIO * spread.max():
        warnings.warn(
            f"{selector} is scale-sensitive: a scored feature spans {spread.min():.3g}, below {SCALE_WARN_RATIO:g} "
            f"of the largest feature range ({spread.max():.3g}), and a column's coefficient depends on its scale; "
            "standardise X (preprocessing 'zscore') or drop such columns.",
            ScaleWarning,
            stacklevel=4,
        )


def check_scale(X: np.ndarray, *, name: str = "X", extremes=None) -> None:
    """Raise if X's magnitude would over- or underflow squared distances (|x| outside [1e-100, 1e100])."""
    if not X.size:
        return
    lo, hi = column_extremes(X) if extremes is None else extremes
    largest = float(max(-lo.min(), hi.max()))
    if largest > MAX_ABS_VALUE:
        raise ValueError(
            f"{name}'s largest absolute value is {largest:.3g}, above {MAX_ABS_VALUE:.0e}: squared distances "
            "overflow in float64. Rescale X first (e.g. sklearn's StandardScaler)."
        )
    if 0 < largest < MIN_ABS_VALUE:
        raise ValueError(
            f"{name}'s largest absolute value is {largest:.3g}, below {MIN_ABS_VALUE:.0e}: squared distances "
            "underflow to 0 in float64. Rescale X first (e.g. sklearn's StandardScaler)."
        )


def resolve_count(value, total: int, *, name: str, minimum: int = 1) -> int:
    """Turn an int count or a fraction in (0, 1] of ``total`` into an int in [minimum, total].

    Used for ``n_features_to_select`` and for the IVFS subset sizes; a value
    outside the range is an error rather than a silent clip.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an int or a fraction, got {value!r}.")
    if isinstance(value, numbers.Integral):
        count = int(value)
    elif 0 < value <= 1:
        count = max(minimum, int(round(value * total)))
    else:
        raise ValueError(f"{name}={value!r}: a float must be a fraction in (0, 1].")
    if not minimum <= count <= total:
        raise ValueError(f"{name}={value!r} gives {count}, outside [{minimum}, {total}].")
    return count


def check_int(value, name: str, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int in [low, high] (no bools, no floats), or a ValueError naming the parameter."""
    bad_type = isinstance(value, bool) or not isinstance(value, numbers.Integral)
    if bad_type or value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}.")
    return int(value)


def auto_or_int(value, name: str, auto: int, low: int = 1) -> int:
    """A size parameter that may be "auto": ``auto`` (already fitted to the data) or ``value`` checked as an int >= low.

    Data-size-dependent defaults (a number of clusters, of neighbours) resolve
    this way at fit time; an explicit value is never clipped, so an
    impossible one still fails with the caller's message.
    """
    if isinstance(value, str) and value == "auto":
        return int(auto)
    return check_int(value, name, low=low)


# k of every kNN graph by default (He et al., Cai's constructW); "auto" resolves to min(this, n - 1)
DEFAULT_NEIGHBORS = 5


def resolve_n_neighbors(value, n_samples: int, name: str = "n_neighbors") -> int:
    """k of a kNN graph on ``n_samples`` points: "auto" = min(5, n - 1), else an int in [1, n - 1].

    The default fits any n >= 2 (a graph of 2 points has one neighbour each);
    an explicit impossible value is refused with the limit, never clipped.
    """
    k = auto_or_int(value, name, min(DEFAULT_NEIGHBORS, n_samples - 1))
    if k > n_samples - 1:
        raise ValueError(f"{name}={k} must be at most n_samples - 1 = {n_samples - 1}.")
    return k


def check_positive(value, name: str) -> float:
    """``value`` as a finite float > 0, or a ValueError naming the parameter (bools are refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {value!r}.")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}.")
    return float(value)
