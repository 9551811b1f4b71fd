"""Paper-specific evaluations, tables and figures (one module per paper; no Snakemake here)."""
