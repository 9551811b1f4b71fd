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
# it) is at most FLAT_ULPS units in the last place of its own magnitude, in the precision of the dtype it
# arrived in (float32 input: float32 ulps): it varies only by rounding. Each column is judged alone, so no
# column's verdict depends on another column's scale: a column of 1e11 beside columns of order 1 leaves them
# all scored, and 3 + 1e-12 * noise (some 7000 float64 ulps of 3) is a real, if small, spread. Flat columns
# are constant for every purpose and are scored last, never first.
FLAT_ULPS = 16
# Beyond these magnitudes squared distances and Gram matrices over- or underflow in float64: an X whose
# largest value lies outside is refused; a column entirely below MIN_ABS_VALUE (its squares underflow) is flat.
MAX_ABS_VALUE = 1e100
MIN_ABS_VALUE = 1e-100
# Scale-sensitive selectors warn (ScaleWarning) when the largest range of the scored columns exceeds the smallest
# by more than this factor (docs/fidelity/numerics.md). z-scored columns have ranges between 2 and about
# sqrt(n) (Samuelson's bound), so standardised data never trigger it below some 4 million samples.
SCALE_WARN_FACTOR = 1e3
# a ScaleWarning names at most this many of the narrow columns
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

    The range hi - lo is the column's spread about any centre, so shifting a
    column does not make it flat; it is compared with FLAT_ULPS rounding
    units of the column's own magnitude max(|lo|, |hi|), so the verdict on
    one column never depends on the others. The second kind (e.g. a column
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
    return (spread <= FLAT_ULPS * eps * magnitude) | (magnitude < MIN_ABS_VALUE)


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


def warn_if_scale_sensitive(extremes, selector: str, columns=None) -> None:
    """Warn (``ScaleWarning``) when the column ranges (``column_extremes``) differ by more than SCALE_WARN_FACTOR.

    Called for the selectors whose ranking depends on each column's scale
    (``ScoreSelector.scale_sensitive``): a kNN graph or a kernel on X is
    dominated by its widest columns, and a regression on X rewards a narrow
    column with a large coefficient (MCFS and UDFS rank it first). The
    warning names the widest column and the narrow ones (``columns`` maps the
    positions of ``extremes`` to X's column numbers) and the fix.
    """
    lo, hi = extremes
    spread = np.asarray(hi, dtype=np.float64) - np.asarray(lo, dtype=np.float64)
    if not spread.size or not spread.max() > SCALE_WARN_FACTOR * spread.min():
        return
    columns = np.arange(spread.size) if columns is None else np.asarray(columns)
    widest = int(np.argmax(spread))
    narrow = np.flatnonzero(spread * SCALE_WARN_FACTOR < spread[widest])
    listed = ", ".join(f"{columns[j]} ({spread[j]:.3g})" for j in narrow[:SCALE_WARN_LISTED])
    more = f" and {narrow.size - SCALE_WARN_LISTED} more" if narrow.size > SCALE_WARN_LISTED else ""
    warnings.warn(
        f"{selector} is scale-sensitive and X's column ranges differ by more than {SCALE_WARN_FACTOR:g}x: "
        f"column {columns[widest]} spans {spread[widest]:.3g}, while {narrow.size} column(s) span less than "
        f"1/{SCALE_WARN_FACTOR:g} of that: {listed}{more}. Its ranking then reflects the columns' units more than "
        "their structure; standardise X first (sklearn's StandardScaler, or the preprocessing chain step 'zscore').",
        ScaleWarning,
        stacklevel=3,
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
