# Input functions, targets and constants of the IVFS paper's rules (ivfs.smk).


import re

from ufskit.papers import ivfs as IVFS_PAPER
from ufskit.papers import paper_methods, reference_labels

# ---- input functions --------------------------------------------


def ivfs_names():
    """Every IVFS experiment defined (run or not); the IVFS rules match only these."""
    return [n for n, e in config["experiments"].items() if e["paper"] == "ivfs"]


def ivfs_protocol(name):
    exp = config["experiments"][name]
    return IVFS_PAPER.check_protocol(exp.get("protocol"), exp["methods"])


def ivfs_experiment(report):
    """The single IVFS experiment of a report folder."""
    names = [n for n in report_experiments(report) if n in ivfs_names()]
    if len(names) != 1:
        raise ValueError(f"report {report!r} needs exactly one IVFS experiment in `run`, got {names}.")
    return names[0]


def ivfs_shards(name, method):
    """The selection shards of one method of an IVFS experiment: name -> its settings."""
    exp = config["experiments"][name]
    return IVFS_PAPER.selection_shards(exp["methods"][method]["selector"], ex.method_settings(exp)[method])


def ivfs_shard_settings(wildcards):
    """The settings one ivfs_select job fits."""
    shards = ivfs_shards(wildcards.experiment, wildcards.method)
    if wildcards.shard not in shards:
        raise ValueError(
            f"{wildcards.method} of {wildcards.experiment} has no shard {wildcards.shard!r}; "
            f"its shards: {sorted(shards)}"
        )
    return shards[wildcards.shard]


def ivfs_metric_files(wildcards):
    """The per (dataset, method, shard) metric tables of an IVFS experiment."""
    exp = config["experiments"][wildcards.experiment]
    return [
        f"results/{wildcards.experiment}/ivfs/metrics/{d}/{m}/{shard}.parquet"
        for d in experiment_datasets(wildcards.experiment)
        for m in exp["methods"]
        for shard in ivfs_shards(wildcards.experiment, m)
    ]


def ivfs_report_input(what):
    """Input function of a report rule: `what` of the report's IVFS experiment."""

    def inputs(wildcards):
        name = ivfs_experiment(wildcards.report)
        if what == "summary":
            return f"results/{name}/summary.csv"
        if what == "metrics":
            return f"results/{name}/metrics.parquet"
        if what == "stability":
            return [f"results/{name}/ivfs/stability/{d}.parquet" for d in experiment_datasets(name)]
        chain = config["experiments"][name]["preprocess"]
        return [f"resources/prepared/{chain}/{d}.json" for d in experiment_datasets(name)]

    return inputs


def ivfs_report_params(wildcards):
    """What the report scripts need from the config: datasets (excluded ones too), the paper's methods (Random
    left out: it is no row of a table or claim), the Random methods' labels (the figures' band), protocol."""
    name = ivfs_experiment(wildcards.report)
    exp = config["experiments"][name]
    return {
        "experiment": name,
        "datasets": exp["datasets"],
        "excluded": EXCLUDED,
        "methods": paper_methods(exp["methods"]),
        "reference": reference_labels(exp["methods"]),
        "protocol": ivfs_protocol(name),
    }


def ivfs_targets(report):
    files = ["table1.csv", "table1.md", "table2.csv", "table2.md", "claims.md", "claims.csv"]
    files += [f"{fig}.{ext}" for fig in ("fig2", "fig3", "fig4") for ext in ("csv", "png", "pdf")]
    return [f"results/{report}/{f}" for f in files]


PAPER_TARGETS["ivfs"] = ivfs_targets

for _name in ivfs_names():
    ivfs_protocol(_name)  # a bad protocol fails at start-up


IVFS_EXPERIMENT = exactly(ivfs_names())
IVFS_REPORT = exactly(paper_reports("ivfs"))
