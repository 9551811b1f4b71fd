"""Rule excluded_datasets: list every dataset left out of this run, with the reason."""

from ufskit.runlog import start

start(snakemake.log[0])
excluded = snakemake.params.excluded
with open(snakemake.output[0], "w") as fh:
    fh.write("# Datasets excluded from this run\n\n")
    if not excluded:
        fh.write("None: every dataset of the configured experiments was included.\n")
    else:
        fh.write("Set by config `data.exclude`; every table that would use them says so here.\n\n")
        fh.write("| dataset | reason |\n|---|---|\n")
        fh.writelines(f"| {name} | {why} |\n" for name, why in excluded.items())
