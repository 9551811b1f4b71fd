"""Rule ils_fig2_curves: Fig. 2's K-means curves per number of clusters (drawn people + all people), and the band
of random features (the Random method's runs, 5-95 %)."""



from ufskit.intermediates import read_csv, read_json, read_parquet
from ufskit.papers.ils import cluster_band, cluster_curves
from ufskit.runlog import start

start(snakemake.log[0])
n_classes = read_json(snakemake.input.orl)["n_classes"]
parts = [read_parquet(p) for p in snakemake.input.parts]
reference = snakemake.params.reference
curves = cluster_curves(read_csv(snakemake.input.summary), parts, n_classes, reference)
curves.to_csv(snakemake.output.curves, index=False)
band = cluster_band(parts, read_parquet(snakemake.input.metrics), n_classes, reference)
band.to_csv(snakemake.output.band, index=False)
