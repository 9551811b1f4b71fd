"""Rule ils_fig1: Fig. 1 of the ILS paper, 1-NN accuracy vs number of selected features per UCI set."""


from ufskit.intermediates import read_csv, read_json
from ufskit.papers import extra_labels
from ufskit.papers.ils import figure1
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
summaries = {name: read_json(p) for name, p in zip(snakemake.params.names, snakemake.input.summaries)}
titles = {name: f"{name} ({s['n_samples']} x {s['n_features']}, {s['n_classes']} classes)" for name, s in summaries.items()}
cv = snakemake.params.cv1nn  # the folds x repeats that produced the accuracies label the y axis
fig = figure1(read_csv(snakemake.input.summary), titles, n_folds=cv["n_folds"], n_repeats=cv["n_repeats"],
              protocol=protocol, extra=extra_labels(snakemake.params.methods))
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
