"""Which methods fall below Random's band on a dataset: worse than 95 % of uniformly random feature subsets.

The benchmark's ``Random`` method draws R random feature orders per dataset; its band is the 5-95 % quantiles of
their summary values (``BAND``). A method whose value is outside the band on the wrong side did worse than
chance on that dataset. It happens to built-in methods too, for reasons docs/results.md gives (e.g. z-scoring
that removes the variance a method relies on); ``NOTE`` points there from the tables and the heat-map.
"""

from __future__ import annotations

import pandas as pd

from ..results import higher_is_better
from . import REFERENCE

BAND = (0.05, 0.95)  # the quantiles of Random's draws shown as its band
MIN_DRAWS = 2  # fewer draws make no band
UNTIMED = ("fit_seconds",)  # a random order costs no time: no band
MARK = "▽"
NOTE = (f"{MARK}: below {REFERENCE}'s band on that dataset (worse than 95 % of its random feature subsets); why a "
        "built-in method can fall there: docs/results.md.")


def below_random(runs: pd.DataFrame, planned: pd.DataFrame, ok: str = "ok") -> pd.DataFrame:
    """Per (dataset, method, metric) of ``runs`` (one summary value per run) whether the method's mean is beyond
    its dataset's Random band on the wrong side: columns dataset, method, metric, below_random (bool).

    ``planned`` (benchmark.plan) says which method is Random on each dataset; datasets without one, or with
    fewer than ``MIN_DRAWS`` draws, mark nothing."""
    ref = planned[(planned["selector"] == REFERENCE) & (planned["status"] == ok)]
    reference = runs["dataset"].map(dict(zip(ref["dataset"], ref["method"])))
    draws = runs[runs["method"] == reference].groupby(["dataset", "metric"])["value"]
    band = pd.DataFrame({"low": draws.quantile(BAND[0]), "high": draws.quantile(BAND[1]), "n": draws.size()})
    means = runs[runs["method"] != reference].groupby(["dataset", "method", "metric"])["value"].mean().reset_index()
    table = means.join(band[band["n"] >= MIN_DRAWS], on=["dataset", "metric"])
    higher = table["metric"].map(higher_is_better).astype(bool)
    below = (higher & (table["value"] < table["low"])) | (~higher & (table["value"] > table["high"]))
    table["below_random"] = below & ~table["metric"].isin(UNTIMED)
    return table[["dataset", "method", "metric", "below_random"]]


def below_by_dataset(summary: pd.DataFrame) -> dict[str, list[str]]:
    """Per dataset the methods below Random's band, each with the metrics where it is: {dataset: ['MCFS (NMI)']}."""
    part = summary[summary["below_random"].fillna(False).astype(bool)]
    out = {}
    for (dataset, method), group in part.groupby(["dataset", "method"], sort=False):
        out.setdefault(dataset, []).append(f"{method} ({', '.join(group['metric'])})")
    return out
