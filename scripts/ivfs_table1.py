"""Rule ivfs_table1: Table 1 (best over settings and counts per metric) beside the published values."""


from ufskit.intermediates import read_csv, read_json
from ufskit.papers import with_in_paper
from ufskit.papers.ivfs_report import read_published, table1, table1_markdown
from ufskit.runlog import start

log = start(snakemake.log[0])
c = snakemake.params.config
info = {s["dataset"]: s for s in (read_json(path) for path in snakemake.input.info)}
long = table1(read_csv(snakemake.input.summary), datasets=c["datasets"], info=info, excluded=c["excluded"],
              methods=c["methods"], protocol=c["protocol"], published=read_published(snakemake.input.published))
long = with_in_paper(long, c["methods"])  # an added method's rows: in_paper False
long.to_csv(snakemake.output.csv, index=False)
open(snakemake.output.md, "w").write(f"# IVFS Table 1 (experiment {c['experiment']})\n\n" + table1_markdown(long))
log.info("%d rows", len(long))
