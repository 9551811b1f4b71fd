"""Rule ivfs_table1: Table 1 (best over settings and counts per metric) beside the published values, and each
method's value beside Random's under the same selection (best of G)."""


from ufskit.intermediates import read_csv, read_json, read_parquet
from ufskit.papers import with_in_paper
from ufskit.papers.ivfs.report import read_published, table1, table1_chance, table1_chance_markdown, table1_markdown
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
c = snakemake.params.config
info = {s["dataset"]: s for s in (read_json(path) for path in snakemake.input.info)}
long = table1(read_csv(snakemake.input.summary), datasets=c["datasets"], info=info, excluded=c["excluded"],
              methods=c["methods"], protocol=c["protocol"], published=read_published(snakemake.input.published))
pools = {pool["dataset"].iloc[0]: pool for pool in (read_parquet(path) for path in snakemake.input.chance)}
long = table1_chance(long, pools, methods=c["methods"], protocol=c["protocol"], reps=snakemake.params.chance_reps,
                     info=info)
long = with_in_paper(long, c["methods"])  # an added method's rows: in_paper False
long.to_csv(snakemake.output.csv, index=False)
write_markdown(f"# IVFS Table 1 (experiment {c['experiment']})\n\n" + table1_markdown(long) + table1_chance_markdown(long),
               snakemake.output.md, snakemake.output.html)
log.info("%d rows", len(long))
