"""Rules ivfs_chance and kudfs_chance: a dataset's pool of random orders, the concatenation of its shards in draw
order (ufskit.chance.concat_shards: the draws 0..N-1 of the one-job pool, each seeded by its index only)."""

from ufskit.chance import concat_shards
from ufskit.intermediates import read_parquet
from ufskit.runlog import start

log = start(snakemake.log[0])
pool = concat_shards([read_parquet(path) for path in snakemake.input], snakemake.params.draws)
pool.to_parquet(snakemake.output[0], index=False)
log.info("%d shards, %d draws, %d metric rows", len(snakemake.input), snakemake.params.draws, len(pool))
