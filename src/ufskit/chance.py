"""Chance under the same selection: Random's value when it is given the same "best over G settings" as a method.

A published number that is the best over a grid (IVFS Table 1: the best mean over the table's settings and
feature counts) is compared with a baseline that had one try. The fair chance reference is Random under the
same rule: G independent random feature orders play the G settings, each "setting" the mean of as many
random orders as the method has repetitions, and the best over the G settings and the counts is taken, in
the metric's direction. One such best-of-G value is one *try*; its expectation is the chance value.

**The estimator.** A pool of N random orders (``draws_needed``: ``POOL_GROUPS`` x the largest G R of the
methods it serves) is cut ``PARTITIONS`` times into groups of G R draws: partition p is a permutation of the
draws seeded by (the pool's seed, "partition", p), cut into k = N // (G R) groups (the last N mod G R draws of
that permutation are left out of it). Each group is one try (its draws are distinct and independent), so every
group's best-of-G value has the distribution of one try, and the chance value is their mean over all groups of
all partitions. Averaging over partitions uses every subset the pool offers instead of k disjoint ones: the
same expectation as k disjoint groups, with a smaller error for the draws spent.

**Its spread** (``spread``), honest although the groups of different partitions share draws:

* ``chance_std``, the standard deviation of one try (what a method's single value is compared with): within
  one partition the k groups are independent tries, so their variance (ddof 1) is an unbiased estimate of a
  try's variance; ``chance_std`` is the square root of its mean over the partitions (still unbiased).
* ``chance_se``, the standard error of the chance value: ``chance_std / sqrt(k)``. That is the exact standard
  error of one partition's mean (k independent tries); the chance value is the mean of P such estimates, each
  with that same distribution, and a mean of identically distributed variables has at most their variance
  (Cauchy-Schwarz), so the stated error is an upper bound: what partition averaging gains is not claimed.

A pool of draws serves every method of a table: draw i is the same random order whatever G and R ask for it
and however large the pool (its seeds depend on i only), so a pool is a prefix of any larger one and may be
evaluated in shards of ``SHARD_DRAWS`` draws (``shards``) whose concatenation is the one-job pool.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .metrics.registry import higher_is_better
from .seeds import derive_seed

POOL_GROUPS = 2  # the pool holds POOL_GROUPS x the largest G R of the methods it serves (k >= 2 groups each)
MIN_DRAWS = 20  # and at least this many draws: a method with G R = 1 gets 20 tries, its sd 19 degrees of freedom
PARTITIONS = 100  # random partitions of the pool into groups of G R draws, averaged (module docstring)
SHARD_DRAWS = 25  # draws per shard job of a pool (a few minutes on the largest datasets)
DRAW_PREFIX = "draw"
SEED_COLUMN = "pool_seed"  # the pool's seed, written on its rows: the partitions are drawn from it
COLUMNS = ["chance_best_of_g", "chance_std", "chance_se"]  # what a table gets per chance value (``spread``)
# how the tables' notes name the estimator
ESTIMATOR_NOTE = (f"the mean over every group of {PARTITIONS} random partitions of the dataset's pool of random "
                  "orders into groups of G x reps orders; the mean's standard error is in table1.csv")


def _largest_try(shapes, groups: int) -> int:
    """The largest G reps of ``shapes``, each checked (G >= 1, reps >= 1, groups >= 2)."""
    for g, reps in shapes:
        if g < 1 or reps < 1:
            raise ValueError(f"best-of-G needs G >= 1 and reps >= 1, got G={g}, reps={reps}.")
    if groups < 2:
        raise ValueError(f"groups must be >= 2 for a spread, got {groups}.")
    return max((g * reps for g, reps in shapes), default=0)


def draws_needed(shapes, groups: int = POOL_GROUPS) -> int:
    """Random orders a pool needs: every (G, reps) of ``shapes`` gets at least ``groups`` groups, and the pool
    at least ``MIN_DRAWS`` draws, so that a small G R still has enough tries for an honest spread."""
    largest = _largest_try(shapes, groups)
    return max(groups * largest, MIN_DRAWS) if largest else 0


def shards(n_draws: int, size: int = SHARD_DRAWS) -> list[range]:
    """The draws of a pool of ``n_draws`` cut into consecutive shards of ``size`` (the last one may be smaller)."""
    if size < 1:
        raise ValueError(f"a shard needs size >= 1 draws, got {size}.")
    return [range(start, min(start + size, n_draws)) for start in range(0, n_draws, size)]


def chance_runs(draws: range, spec: dict, *, seed: int, metrics: dict) -> list[dict]:
    """The pool's draws (indices ``draws``) as runs of ``ufskit.runs.run_batched``: draw i is the setting
    ``draw<i>``, repetition 0.

    Its fit and evaluation seeds are derived from ``seed`` (the run's identity) and i only, so a larger pool
    keeps the draws of a smaller one and a shard's draws are those of the one-job pool.
    """
    return [{"params": f"{DRAW_PREFIX}{i}", "rep": 0, "spec": spec, "fit_seed": derive_seed(seed, "fit", i),
             "evaluation_seed": derive_seed(seed, "evaluation", i), "prefixes": True, "metrics": metrics}
            for i in draws]


def concat_shards(frames: list[pd.DataFrame], n_draws: int) -> pd.DataFrame:
    """The pool of ``n_draws`` draws from its shards (``shards``' order): their tables concatenated, checked to
    hold exactly draws 0..n_draws-1 (a shard missing, repeated or of another pool size fails here)."""
    pool = pd.concat(frames, ignore_index=True)
    if pool.duplicated(["params", "n_features", "metric"]).any():
        raise ValueError("the shards repeat a draw: each draw belongs to one shard.")
    if pool_draws(pool) != n_draws:
        raise ValueError(f"the shards hold {pool_draws(pool)} draws, the pool has {n_draws}.")
    return pool


def pool_draws(values: pd.DataFrame) -> int:
    """The number N of draws of a pool (its draws must be 0..N-1, none missing)."""
    have = values["params"].str.removeprefix(DRAW_PREFIX).astype(int).unique()
    n = int(have.max()) + 1 if len(have) else 0
    if len(have) != n:
        raise ValueError(f"the pool lacks draws: it has {len(have)} of draw0..draw{n - 1}.")
    return n


def pool_seed(values: pd.DataFrame) -> int:
    """The pool's seed (column ``SEED_COLUMN``, one value), from which its partitions are drawn."""
    seeds = values[SEED_COLUMN].unique() if SEED_COLUMN in values else []
    if len(seeds) != 1:
        raise ValueError(f"a pool needs one seed in column {SEED_COLUMN!r}, got {list(seeds)}.")
    return int(seeds[0])


def partitions(n_draws: int, g: int, reps: int, *, seed: int, count: int = PARTITIONS) -> np.ndarray:
    """``count`` random partitions of draws 0..n_draws-1 into k = n_draws // (g reps) groups: an array
    (count, k, g, reps) of draw indices, partition p a permutation seeded by (``seed``, "partition", p)."""
    need = 2 * _largest_try([(g, reps)], 2)  # two groups at least; also checks G and reps
    if n_draws < need or count < 1:
        raise ValueError(f"best of G={g} over reps={reps} needs >= 1 partition into >= 2 groups, i.e. "
                         f"{need} draws; the pool has {n_draws} (partitions: {count}).")
    k = n_draws // (g * reps)
    perms = [np.random.default_rng(derive_seed(seed, "partition", p)).permutation(n_draws) for p in range(count)]
    return np.stack(perms)[:, :k * g * reps].reshape(count, k, g, reps)


def grouped_best(values: pd.DataFrame, groups: np.ndarray) -> pd.DataFrame:
    """Per metric, partition and group of ``groups`` (draw indices (P, k, G, R)): the best over the G settings
    and the counts of the mean over a setting's R draws. Returns columns metric, partition, group, best."""
    draw = values["params"].str.removeprefix(DRAW_PREFIX).astype(int)
    wide = values.assign(draw=draw).set_index(["metric", "draw", "n_features"])["value"].unstack("n_features")
    n_parts, k = groups.shape[:2]
    rows = []
    for metric in wide.index.unique("metric"):
        table = wide.loc[metric].reindex(range(int(draw.max()) + 1)).to_numpy(float)  # (draws, counts)
        with warnings.catch_warnings():  # a setting or group without any value (all NaN) stays NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            means = np.nanmean(table[groups], axis=3)  # (P, k, G, counts)
            best = (np.nanmax if higher_is_better(metric) else np.nanmin)(means, axis=(2, 3))
        rows.append(pd.DataFrame({"metric": metric, "partition": np.repeat(np.arange(n_parts), k),
                                  "group": np.tile(np.arange(k), n_parts), "best": best.ravel()}))
    columns = ["metric", "partition", "group", "best"]
    return pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)


def best_of_g(values: pd.DataFrame, *, g: int, reps: int, count: int = PARTITIONS) -> pd.DataFrame:
    """Per metric, partition and group: one try of Random's best of G (``grouped_best``) over ``count`` random
    partitions of the whole pool (``partitions``, seeded by the pool's seed).

    ``values``: the tidy table of the pool (columns params = ``draw<i>``, n_features, metric, value, pool_seed).
    """
    groups = partitions(pool_draws(values), g, reps, seed=pool_seed(values), count=count)
    return grouped_best(values.dropna(subset=["value", "n_features"]), groups)  # timings: no count


def spread(best: pd.DataFrame) -> pd.DataFrame:
    """Per metric: the chance value (mean of every group's best-of-G), ``chance_std`` (the standard deviation of
    one try: the root of the partitions' mean within-partition variance, ddof 1), ``chance_se`` (its standard
    error, bounded by chance_std / sqrt(k)), k = ``groups`` per partition and the ``partitions``."""
    rows = []
    for metric, one in best.dropna(subset=["best"]).groupby("metric"):
        per = one.groupby("partition")["best"]
        k = int(per.size().max())
        std = float(np.sqrt(per.var(ddof=1).mean()))
        rows.append({"metric": metric, "chance_best_of_g": float(one["best"].mean()), "chance_std": std,
                     "chance_se": std / np.sqrt(k), "groups": k, "partitions": per.ngroups})
    return pd.DataFrame(rows, columns=["metric", "chance_best_of_g", "chance_std", "chance_se", "groups", "partitions"])


TOO_CLOSE = "too close to call"  # a value within one try's spread of the chance value


def chance_verdict(value, chance, std, metric: str) -> str:
    """Whether ``value`` beats the chance value in ``metric``'s direction: "yes", "no", or ``TOO_CLOSE``.

    A value within ``std`` (``chance_std``: the spread of one try of Random's best of G, the noise one
    best-over-a-grid number carries) of the chance value is too close to call: another machine, whose last
    bits flip a K-means start, can move it across the chance value, so neither yes nor no is claimed. A
    missing std (no spread known) leaves no band. "" when the value or the chance value is missing.
    """
    if value is None or chance is None or pd.isna(value) or pd.isna(chance):
        return ""
    margin = (value - chance) if higher_is_better(metric) else (chance - value)
    band = 0.0 if std is None or pd.isna(std) else float(std)
    if abs(margin) <= band:
        return TOO_CLOSE
    return "yes" if margin > 0 else "no"


def verdict_count(verdicts: pd.Series) -> str:
    """"yes/n" of ``chance_verdict``'s answers, with "(k too close to call)" when some are."""
    close = int((verdicts == TOO_CLOSE).sum())
    return f"{int((verdicts == 'yes').sum())}/{len(verdicts)}" + (f" ({close} too close to call)" if close else "")
