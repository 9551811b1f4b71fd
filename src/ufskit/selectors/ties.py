"""Explicit ties in a ranking: broken by a seeded permutation, never by column order, and counted.

A selector leaves features tied when it cannot tell them apart: MCFS's
features with a zero coefficient in every regression (most of them when
d >> n), IVFS's never-drawn features, the flat columns every selector leaves
unscored. Ranking such a block by column index would pad a selection with
columns 0, 1, 2, ... and make the padding look like a choice. Here equal
scores are ordered by a random permutation of the d features instead
(``tie_keys``), and ``n_ranked`` counts the features whose rank the scores
really determine (those tied with no other). Scores closer than round-off
(``ROUND_OFF`` of their own magnitude) are equal here: sums in
another order (another BLAS kernel, a sparse path) would otherwise order them
by their last bits (``snap_round_off``). docs/fidelity/numerics.md has the rule.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

# seed of the tie-break permutation of a selector without an int random_state
TIE_SEED = 20_251_126
# scores closer than this fraction of their magnitude are one tie: about 4500 units in the last place, above the
# last bits NRFS's dense and sparse sums of equal words differ in, far below any difference a selector means
ROUND_OFF = 1e-12


class TieWarning(UserWarning):
    """Every scored feature has the same score: the ranking is the tie-break permutation alone."""


def tie_keys(n_features: int, random_state=None) -> np.ndarray:
    """The tie-break permutation of ``range(n_features)``: among equal scores the lower key ranks first.

    An int ``random_state`` (the selector's seed) gives the stream
    (TIE_SEED, random_state), so repetitions with different seeds break ties
    differently; None or a Generator gives the fixed stream TIE_SEED, so the
    order is reproducible and a caller's generator is never consumed.
    """
    seed = TIE_SEED
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        seed = [TIE_SEED, int(random_state)]
    return np.random.default_rng(seed).permutation(n_features)


def snap_round_off(scores: np.ndarray) -> np.ndarray:
    """``scores`` with each run of finite values closer than round-off made equal (to the run's largest).

    Sorted, consecutive finite scores whose gap is at most ``ROUND_OFF`` times the larger of the two magnitudes
    form one run (a chain: a run ends at the first larger gap), so that two values equal in exact arithmetic
    and apart in their last bits tie on every machine, whatever the other scores' scale (a column in large
    units scores 1e10 times the rest and ties none of them). Non-finite scores (-inf: unscored) are left as
    they are.
    """
    scores = np.asarray(scores, dtype=np.float64)
    finite = np.flatnonzero(np.isfinite(scores))
    if finite.size < 2:
        return scores
    values = scores[finite]
    order = np.argsort(values, kind="stable")
    ascending = values[order]
    starts_run = np.diff(ascending) > ROUND_OFF * np.maximum(np.abs(ascending[1:]), np.abs(ascending[:-1]))
    run_of = np.concatenate(([0], np.cumsum(starts_run)))
    run_max = ascending[np.r_[np.flatnonzero(starts_run), ascending.size - 1]]
    snapped = scores.copy()
    snapped[finite[order]] = run_max[run_of]
    return snapped


def order_with_ties(scores: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Feature indices best first: by score (round-off snapped), higher first, then by ``keys`` among ties."""
    return np.lexsort((keys, -snap_round_off(scores)))


def n_untied(scores: np.ndarray) -> int:
    """How many features have a score (round-off snapped) no other feature shares: their rank is the data's."""
    _, inverse, counts = np.unique(snap_round_off(scores), return_inverse=True, return_counts=True)
    return int(np.count_nonzero(counts[inverse.ravel()] == 1))


def order_from_ranking(ranking: np.ndarray) -> np.ndarray:
    """Feature indices from best to worst: ``order[0]`` is the feature with rank 1."""
    return np.argsort(np.asarray(ranking), kind="stable")


def rank_with_ties(scores: np.ndarray, random_state=None) -> tuple[np.ndarray, int]:
    """RFE-style ranks (1 = best, ``-inf`` = unscored, last) with ties broken by ``tie_keys``; and ``n_ranked``.

    Without ties this is the plain order of the scores. A ``TieWarning`` is
    issued when two or more finite scores exist and all of them are equal:
    then the ranking carries no information from the data.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if np.isnan(scores).any() or np.isposinf(scores).any():
        raise RuntimeError("a selector produced NaN or +inf scores; this is a bug, please report it.")
    scores = snap_round_off(scores)
    scored = scores[np.isfinite(scores)]
    if scored.size > 1 and np.all(scored == scored[0]):
        warnings.warn(
            f"all {scored.size} scored features have the same score ({scored[0]:.3g}): the ranking is the "
            "seeded tie-break permutation, not a property of the data.",
            TieWarning,
            stacklevel=3,
        )
    n_ranked = n_untied(scores)
    order = order_with_ties(scores, tie_keys(scores.size, random_state)) if n_ranked < scores.size else (
        np.argsort(-scores, kind="stable"))
    ranking = np.empty(scores.size, dtype=np.int64)
    ranking[order] = np.arange(1, scores.size + 1)
    return ranking, n_ranked


def tied_order(features: np.ndarray, n_features: int, random_state=None) -> np.ndarray:
    """``features`` (a tied block, e.g. the flat columns) in the order ``rank_with_ties`` gives them."""
    features = np.asarray(features)
    return features[np.argsort(tie_keys(n_features, random_state)[features], kind="stable")]
