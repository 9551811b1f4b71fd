"""Paper-specific evaluations, tables and figures (one module per paper; no Snakemake here)."""

import pandas as pd

# The one vocabulary of claim verdicts, in every claims.md, claims.csv and the scorecard.
VERDICTS = ("holds", "partly holds", "does not hold", "not run")
NOT_RUN = VERDICTS[3]

# The selector whose draws are the chance reference: a method of the experiments feeding the curve figures
# and the benchmark, drawn as a band, tested against, never a row of a paper's table, claim or the scorecard.
REFERENCE = "Random"


def reference_labels(methods: dict) -> list[str]:
    """Labels of the methods (config ``methods``: label -> spec) that run the reference selector."""
    return [label for label, spec in methods.items() if spec["selector"] == REFERENCE]


def paper_methods(methods: dict) -> dict:
    """``methods`` without the reference: the methods a paper's tables, claims and curves are about."""
    return {label: spec for label, spec in methods.items() if spec["selector"] != REFERENCE}


def verdict(ok: bool, partly: bool = False) -> str:
    """The verdict of a judged claim: "holds" when ``ok``, else "partly holds" when ``partly``, else "does not hold"."""
    return VERDICTS[0] if ok else (VERDICTS[1] if partly else VERDICTS[2])


def read_published(path) -> pd.DataFrame:
    """A published-numbers CSV of config/published/ (its '#' lines name the paper's table it comes from)."""
    return pd.read_csv(path, comment="#")
