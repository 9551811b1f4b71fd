"""Rule download_source: fetch every file of one registry source, mirror first, checksum verified."""

from ufskit.download import fetch_source, resolve_mirror
from ufskit.data import write_json
from ufskit.runlog import start

log = start(snakemake.log[0])
data_cfg = snakemake.config["data"]
mirror = resolve_mirror(data_cfg.get("mirror"))
log.info("source %s; mirror: %s", snakemake.wildcards.source, mirror or "(none: upstream URLs only)")
paths = fetch_source(
    snakemake.params.source,
    "resources/raw",
    mirror=mirror,
    timeout=data_cfg["timeout"],
    retries=data_cfg["retries"],
    log=log.info,
)
write_json({"source": snakemake.wildcards.source, "files": [str(p) for p in paths]}, snakemake.output[0])
