"""Rule kudfs_claims: a verdict per claim of the kernel-UDFS paper, computed from this run's numbers."""

from ufskit.intermediates import read_csv, read_parquet
from ufskit.papers import kudfs
from ufskit.runlog import start
from ufskit.tables import write_markdown

start(snakemake.log[0])
inp = snakemake.input
claims = [kudfs.claim_table1(read_csv(inp.table1))]
claims += [kudfs.claim_fig1(read_parquet(p), label) for label, p in zip(snakemake.params.labels, inp.ratios)]
claims.append(kudfs.claim_fig2(read_csv(inp.fig2, dtype={"n_features": "Int64"})))
write_markdown(kudfs.claims_markdown(claims), snakemake.output.md, snakemake.output.html)
kudfs.claims_table(claims).to_csv(snakemake.output.csv, index=False)
