"""Paper-specific evaluations, tables and figures (one module per paper; no Snakemake here)."""

import pandas as pd


def read_published(path) -> pd.DataFrame:
    """A published-numbers CSV of config/published/ (its '#' lines name the paper's table it comes from)."""
    return pd.read_csv(path, comment="#")
