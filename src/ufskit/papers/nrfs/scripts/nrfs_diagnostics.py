"""Rule nrfs_diagnostics: the synthetic data's graph spectrum and NRFS with the cluster indicators as its target."""

import pandas as pd

from ufskit.data import load_dataset
from ufskit.experiments import resolve_params
from ufskit.intermediates import read_parquet
from ufskit.papers.nrfs import diagnostics as diag
from ufskit.plots import save_figure
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0], snakemake.threads)
(count,) = snakemake.params.n_features  # Table I evaluates one number of features
spec = snakemake.params.spec
spectra, runs = [], []
for name, path, table1 in zip(snakemake.params.datasets, snakemake.input.data, snakemake.input.runs):
    ds = load_dataset(path)
    informative = ds.info["informative_features"]
    params = resolve_params(spec["params"], n_classes=ds.n_classes, n_samples=ds.X.shape[0])
    spectrum = diag.spectrum_table(ds.X, ds.y, informative, params, n_eigen=diag.EIGEN_PER_CLUSTER * ds.n_classes)
    spectra.append(spectrum.assign(dataset=name))
    oracle = diag.oracle_runs(ds.X, ds.y, informative, spec, count=count, seed=snakemake.params.seed)
    runs += [diag.spectra_runs(read_parquet(table1), informative).assign(dataset=name), oracle.assign(dataset=name)]
    log.info("%s: mean informative picked, spectra %.2f, indicators %.2f", name, runs[-2]["n_informative"].mean(),
             oracle["n_informative"].mean())
spectrum = pd.concat(spectra, ignore_index=True)
spectrum = spectrum[["dataset", *spectrum.columns.drop("dataset")]]
spectrum.to_csv(snakemake.output.spectrum_csv, index=False)
write_markdown(diag.spectrum_markdown(spectrum), snakemake.output.spectrum, snakemake.output.spectrum_html)
save_figure(diag.spectrum_figure(spectrum, protocol=snakemake.config.get("protocol", "full")),
            snakemake.output.png, snakemake.output.pdf)
runs = pd.concat(runs, ignore_index=True)
summary = diag.oracle_summary(runs, len(informative))
summary.to_csv(snakemake.output.oracle_csv, index=False)
write_markdown(diag.oracle_markdown(summary, count, len(informative)), snakemake.output.oracle,
               snakemake.output.oracle_html)
