"""Paper-specific evaluations, tables and figures (one module per paper; no Snakemake here)."""

import pandas as pd

# The one vocabulary of claim verdicts, in every claims.md, claims.csv and the scorecard.
VERDICTS = ("holds", "partly holds", "does not hold", "not run")
NOT_RUN = VERDICTS[3]


def verdict(ok: bool, partly: bool = False) -> str:
    """The verdict of a judged claim: "holds" when ``ok``, else "partly holds" when ``partly``, else "does not hold"."""
    return VERDICTS[0] if ok else (VERDICTS[1] if partly else VERDICTS[2])


def read_published(path) -> pd.DataFrame:
    """A published-numbers CSV of config/published/ (its '#' lines name the paper's table it comes from)."""
    return pd.read_csv(path, comment="#")
