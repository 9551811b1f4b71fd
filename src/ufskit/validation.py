"""Input checks shared by every selector and metric: fail early, with a clear message."""

from __future__ import annotations

import numbers
import warnings
from contextlib import contextmanager

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
# it) is at most ROUNDOFF_RELATIVE = 1e-10 of its own magnitude max(|min|, |max|), or at most FLAT_ULPS units in
# the last place of that magnitude in the precision of the dtype it arrived in (float32 input: float32 ulps, the
# larger bound): it varies only by round-off. 1e-10 is some 5 x 10^5 float64 ulps: the error a value picks up in
# a long computation (a sum of 10^5-10^6 terms, an iterative solver stopped at 1e-10) before it reaches the file,
# so `3 + 1e-12 * noise` is round-off about 3, which z-scoring would blow up to unit variance. Each column is
# judged alone, so no column's verdict depends on another column's scale: a column of 1e11 beside columns of
# order 1 leaves them all scored. The price: a column whose offset exceeds 1e10 times its range (std 1 on
# 1e11) is flat too. Flat columns are constant for every purpose and are scored last, never first.
FLAT_ULPS = 16
ROUNDOFF_RELATIVE = 1e-10
# Beyond these magnitudes squared distances and Gram matrices over- or underflow in float64: an X whose
# largest value lies outside is refused; a column entirely below MIN_ABS_VALUE (its squares underflow) is flat.
MAX_ABS_VALUE = 1e100
MIN_ABS_VALUE = 1e-100
# Scale-sensitive selectors check their ranking against the column-standardised X when the standard deviations
# of the scored columns differ by more than this factor (``ScoreSelector.fit``, docs/fidelity/numerics.md):
# a second fit on X with each column divided by its standard deviation, and a ScaleWarning when the first
# features of its ranking differ. 4x: a column with a quarter of another's spread weighs 16 times less in a
# squared distance. z-scored columns all have standard deviation 1, so standardised data are never checked (no
# second fit, no warning). float("inf") turns the check (and the warning) off.
SCALE_CHECK_FACTOR = 4.0
# the head of the ranking compared: the first min(SCALE_TOP, ceil(d' / 4)) of the d' scored features, in order
SCALE_TOP = 10


@contextmanager
def scale_check_off():
    """Inside, no scale check and no second fit, whatever ``SCALE_CHECK_FACTOR`` says; restored on exit.

    The workflow fits inside it: its preprocessing chains are the papers' protocols, chosen on purpose, and
    its dataset tables already report each prepared dataset's spread ratio, so the check would only double
    the cost of every fit on unstandardised data (NRFS on the text sets, the raw UCI sets).
    """
    global SCALE_CHECK_FACTOR
    saved, SCALE_CHECK_FACTOR = SCALE_CHECK_FACTOR, float("inf")
    try:
        yield
    finally:
        SCALE_CHECK_FACTOR = saved
# a ScaleWarning gives the standard deviation of at most this many of the features that drop out
SCALE_WARN_LISTED = 5


class ScaleWarning(UserWarning):
    """A scale-sensitive selector was given columns of very different spreads: standardise X first."""


def column_extremes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column minimum and maximum: the one pass over X that ``flat_features`` and ``check_scale`` share."""
    return X.min(axis=0), X.max(axis=0)


def input_dtypes(X):
    """The dtype(s) X arrives in, before conversion to float64: one per column for a DataFrame, else one.

    ``flat_features`` judges each column in this precision; anything that is
    not a NumPy dtype (a list, a pandas extension type without one) counts as float64.
    """
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and not isinstance(dtypes, np.dtype):
        return [getattr(t, "numpy_dtype", t) for t in dtypes]
    return getattr(X, "dtype", np.float64)


def _epsilon(dtype) -> float:
    """Machine epsilon of a column held in ``dtype`` and computed in float64 (never finer than float64's)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        return float(np.finfo(np.float64).eps)
    own = np.finfo(dtype).eps if np.issubdtype(dtype, np.floating) else 0.0
    return float(max(own, np.finfo(np.float64).eps))


def flat_features(X: np.ndarray, extremes=None, *, dtype=np.float64) -> np.ndarray:
    """Boolean mask of the flat columns of X (the rule above), and of the columns entirely below MIN_ABS_VALUE.

    The range hi - lo is the column's spread about any centre; it is compared
    with the column's own magnitude max(|lo|, |hi|): flat when at most
    ROUNDOFF_RELATIVE (1e-10) of it, or FLAT_ULPS rounding units of the
    arrival dtype if that is more, so the verdict on one column never
    depends on the others (and an offset up to 1e10 times the range keeps a
    column scored). The second kind (e.g. a column
    of 1e-150 among columns of order 1) has squares that underflow, so no
    score built on it means anything. ``extremes``: ``column_extremes(X)``,
    if known (X may then be None). ``dtype``: the dtype X arrived in
    (``input_dtypes``), one for all columns or one per column: a float32
    column constant up to a float32 rounding is flat.
    """
    lo, hi = column_extremes(X) if extremes is None else extremes
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    if isinstance(dtype, (list, tuple, np.ndarray)):
        eps = np.array([_epsilon(t) for t in dtype], dtype=np.float64)
    else:
        eps = _epsilon(dtype)
    spread = hi - lo
    magnitude = np.maximum(np.abs(lo), np.abs(hi))
    return (spread <= np.maximum(FLAT_ULPS * eps, ROUNDOFF_RELATIVE) * magnitude) | (magnitude < MIN_ABS_VALUE)


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


def spread_ratio(extremes) -> float:
    """Largest over smallest column range (``column_extremes``); inf when some range is 0, nan without columns."""
    lo, hi = extremes
    spread = np.asarray(hi, dtype=np.float64) - np.asarray(lo, dtype=np.float64)
    if not spread.size:
        return float("nan")
    smallest, largest = spread.min(), spread.max()
    return float("inf") if smallest == 0 else float(largest / smallest)


def scale_warning(selector: str, stds, columns, before=(), after=(), failure: str | None = None) -> None:
    """Issue the ``ScaleWarning`` of ``ScoreSelector``'s scale check (docs/fidelity/numerics.md).

    ``stds``: the standard deviations of the scored columns, ``columns`` their
    numbers in X; ``before`` and ``after``: the first features of the ranking
    on X and on the column-standardised X (X's columns, or KernelUDFS's kernel
    features); ``failure``: why the second ranking could not be had.
    """
    stds, columns = np.asarray(stds, dtype=np.float64), np.asarray(columns)
    narrow, wide = int(np.argmin(stds)), int(np.argmax(stds))
    by_column = dict(zip(columns.tolist(), stds.tolist()))
    head = (f"{selector} is scale-sensitive and X's column standard deviations differ by "
            f"{stds[wide] / stds[narrow]:.3g}x (column {columns[narrow]}: {stds[narrow]:.3g}, column {columns[wide]}: "
            f"{stds[wide]:.3g})")
    if failure is None:
        left = [j for j in before if j not in after]
        stated = ", ".join(f"{j} (std {by_column[j]:.3g})" if j in by_column else str(j)
                           for j in left[:SCALE_WARN_LISTED])
        effect = (f"; standardising the columns changes its first {len(before)} features from {list(before)} to "
                  f"{list(after)}" + (f" (dropping out: {stated})" if left else " (the same features, reordered)"))
    else:
        effect = f"; whether standardising changes its ranking could not be checked ({failure})"
    warnings.warn(
        f"{head}{effect}. Its ranking then reflects the columns' units more than their structure; standardise X "
        "first (sklearn's StandardScaler, or the preprocessing chain step 'zscore').",
        ScaleWarning,
        stacklevel=4,
    )


def count_distinct_rows(X: np.ndarray, enough: int) -> int:
    """The number of distinct rows of X, counted up to ``enough`` (the count stops there: O(enough d) when the
    first rows differ, one pass over X otherwise). -0.0 and 0.0 are the same value."""
    seen = set()
    for row in np.asarray(X, dtype=np.float64):
        seen.add((row + 0.0).tobytes())
        if len(seen) >= enough:
            break
    return len(seen)


def check_distinct_rows(X: np.ndarray, n_clusters: int, selector: str) -> None:
    """Raise unless X has at least ``n_clusters`` distinct rows (samples): c cluster indicators need c distinct
    points, and K-means on fewer leaves clusters empty (RUFS's start then solves a singular system)."""
    distinct = count_distinct_rows(X, n_clusters)
    if distinct < n_clusters:
        raise ValueError(
            f"{selector}: n_clusters={n_clusters} needs at least {n_clusters} distinct samples, but X has only "
            f"{distinct} distinct row(s) among its {X.shape[0]} samples (over its non-flat columns); set n_clusters "
            f"to at most {distinct}."
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
