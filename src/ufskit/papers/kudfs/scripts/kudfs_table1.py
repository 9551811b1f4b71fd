"""Rule kudfs_table1: the paper's Table 1 (reproduced beside published) as CSV and markdown, with UDFS's and kernel
UDFS's values beside Random's under the same selection (best of G)."""

from ufskit.intermediates import read_parquet
from ufskit.papers import extra_labels, kudfs
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
inp = snakemake.input
dims = kudfs.read_dims(inp.summaries)
table = kudfs.table1(read_parquet(inp.udfs), read_parquet(inp.kernel), dims,
                     kudfs.read_published(inp.published), labels=snakemake.params.labels,
                     extra=extra_labels(snakemake.params.udfs_methods))
pools = {method: {pool["dataset"].iloc[0]: pool for pool in map(read_parquet, inp[f"chance_{role}"])}
         for role, method in kudfs.ROLE_METHOD.items()}
table = kudfs.table1_chance(table, pools, snakemake.params.chance_shapes, dims)
table.to_csv(snakemake.output.csv, index=False, float_format="%.4f")
write_markdown(kudfs.table1_markdown(table), snakemake.output.md, snakemake.output.html)
log.info("Table 1 for %d datasets", len(table))
