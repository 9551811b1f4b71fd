"""Rule aggregate_metrics: concatenate the per-run tables into one long table with provenance."""

from pathlib import Path

from ufskit.results import concat_metrics
from ufskit.runlog import start

log = start(snakemake.log[0])
repo = Path(snakemake.scriptdir).parent
frame = concat_metrics(snakemake.input, experiment=snakemake.wildcards.experiment, repo=repo,
                       config=dict(snakemake.config))
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d rows from %d runs; git %s (modified: %s); config sha256 %s", len(frame), len(snakemake.input),
         frame["git_commit"].iat[0], frame["git_modified"].iat[0], frame["config_sha256"].iat[0])
