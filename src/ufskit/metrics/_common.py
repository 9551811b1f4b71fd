"""Input checks and seed handling shared by the metric modules."""

from __future__ import annotations

import numbers

import numpy as np


def check_labels(y, *, name: str = "y", n_samples: int | None = None) -> np.ndarray:
    """Return ``y`` as a 1-D array (any label type), or raise ValueError on a wrong shape or NaN."""
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of labels, got shape {y.shape}.")
    if n_samples is not None and y.size != n_samples:
        raise ValueError(f"{name} has {y.size} labels but there are {n_samples} samples.")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"{name} contains NaN labels.")
    return y


def check_reference_labels(y, *, name: str = "y", n_samples: int | None = None) -> np.ndarray:
    """``check_labels``, and at least 2 classes: against a single class every clustering is "perfect"
    (NMI 1, ACC 1 for one cluster) and every classifier right, so no score on it means anything."""
    y = check_labels(y, name=name, n_samples=n_samples)
    if np.unique(y).size < 2:
        raise ValueError(f"{name} has a single class ({y[0]!r}) over its {y.size} samples: a score against it "
                         "would be perfect whatever the features; the reference labels need at least 2 classes.")
    return y


def as_sklearn_seed(random_state) -> int | None:
    """An int (or None) that scikit-learn accepts, from an int, a numpy Generator or None.

    scikit-learn does not take ``numpy.random.Generator``; one is turned into an
    int by a single draw, so the same Generator state gives the same result.
    """
    if random_state is None:
        return None
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state)
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}.")


def spawn_seeds(random_state, n: int) -> list[int]:
    """``n`` int seeds derived from ``random_state`` (for repeated runs of a randomised method)."""
    rng = np.random.default_rng(as_sklearn_seed(random_state))
    return [int(s) for s in rng.integers(2**31 - 1, size=n)]
