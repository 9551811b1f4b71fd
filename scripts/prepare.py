"""Rule prepare_dataset: raw files (checked again) -> Dataset -> preprocessing chain -> npz + JSON summary."""

from pathlib import Path

from ufskit.data import check_classes, save_dataset
from ufskit.integrity import verify_local, verify_source
from ufskit.loaders import load
from ufskit.preflight import index_like_message
from ufskit.preprocess import apply_chain
from ufskit.registry import registry_from_config
from ufskit.runlog import start

log = start(snakemake.log[0])
name = snakemake.wildcards.dataset
entry = snakemake.params.entry
# a raw file edited after download, or a local file changed since its first use, never goes in silently
if "path" in entry:
    verify_local(name, entry["path"], snakemake.input[0], f"resources/hashcache/local/{name}.json")
elif entry.get("source"):
    source = registry_from_config(snakemake.config, Path(snakemake.scriptdir).parent)["sources"][entry["source"]]
    checked = verify_source(entry["source"], source, "resources/raw", f"resources/hashcache/raw/{entry['source']}.json")
    log.info("%d raw file(s) of source %s match their checksums", checked, entry["source"])
ds = load(name, entry, "resources/raw", seed=snakemake.params.seed)
log.info("%s loaded: %d x %d, %d classes", name, *ds.X.shape, ds.n_classes)
check_classes(ds, name)  # one class, or one per sample: no score could mean anything
if ds.info.get("index_like_columns"):
    log.warning(index_like_message(name, Path(entry.get("path", name)).name, ds.info["index_like_columns"]))
ds = apply_chain(ds, snakemake.params.steps)
ds.info.update(dataset=name, chain=snakemake.wildcards.chain)
log.info("after %s: %d x %d", snakemake.params.steps, *ds.X.shape)
save_dataset(ds, snakemake.output.npz, snakemake.output.summary)
