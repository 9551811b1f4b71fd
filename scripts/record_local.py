"""Rule record_local_file: the sha256 of a local data file at its first use (checked at every later use)."""

from ufskit.integrity import record_local
from ufskit.runlog import start

log = start(snakemake.log[0])
record = record_local(snakemake.params.path, snakemake.output[0])
log.info("%s: sha256 %s (%d bytes) recorded", record["path"], record["sha256"], record["size"])
