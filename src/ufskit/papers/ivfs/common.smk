# Input functions, targets and constants of the IVFS paper's rules (rules.smk).


import re

from ufskit import chance as CHANCE
from ufskit.papers import ivfs as IVFS_PAPER
from ufskit.papers.ivfs import chance_pool_size
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


def ivfs_batch_plan(wildcards):
    """Every method of an IVFS experiment on a dataset runs batched: shard -> its runs (ufskit.runs.run_batched);
    the largest IVFS shards, by the registry's shape, one or a few repetitions each (ufskit.papers.ivfs.batch_shards).

    A fit is seeded by its setting without k (the settings sharing it), each run's evaluation by its own
    setting; persistence only at the protocol's counts, for Table 1's settings, in both readings."""
    exp = config["experiments"][wildcards.experiment]
    selector = exp["methods"][wildcards.method]["selector"]
    metrics = IVFS_PAPER.run_metrics(
        ex.method_metrics(exp, wildcards.method), ivfs_protocol(wildcards.experiment), wildcards.method
    )

    def seed_of(slug, rep):
        return fit_seed(wildcards, rep, slug)

    reps = ex.method_reps(exp, wildcards.method)
    shape = REGISTRY["datasets"].get(wildcards.dataset, {}).get("shape")  # cuts the largest fits by repetition
    shards = IVFS_PAPER.batch_shards(selector, ex.method_settings(exp)[wildcards.method], reps, shape)
    return {
        shard: IVFS_PAPER.shard_runs(selector, settings, chunk, seed_of=seed_of, metrics=metrics)
        for shard, (settings, chunk) in shards.items()
    }


BATCH_PLANS["ivfs"] = ivfs_batch_plan


def ivfs_report_input(what):
    """Input function of a report rule: `what` of the report's IVFS experiment."""

    def inputs(wildcards):
        name = ivfs_experiment(wildcards.report)
        if what == "summary":
            return f"results/{name}/summary.csv"
        if what == "metrics":
            return f"results/{name}/metrics.parquet"
        if what in ("stability", "chance"):
            return [f"results/{name}/ivfs/{what}/{d}.parquet" for d in experiment_datasets(name)]
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


def ivfs_chance_reps(name):
    """The Table 1 methods Random's best of G is computed for (those evaluated with the experiment's own
    metric options, as the pool of random orders is) -> their repetitions."""
    exp = config["experiments"][name]
    methods = paper_methods(exp["methods"])
    return {m: ex.method_reps(exp, m) for m in methods if not methods[m].get("metrics")}


def ivfs_chance_draws(name):
    """Draws of the experiment's pool of random orders on every dataset (ufskit.papers.ivfs.chance_pool_size)."""
    exp = config["experiments"][name]
    return chance_pool_size(paper_methods(exp["methods"]), ivfs_protocol(name), ivfs_chance_reps(name))


def ivfs_chance_shards(wildcards):
    """The shards of a dataset's pool of random orders (rule ivfs_chance_shard), in draw order."""
    n = len(CHANCE.shards(ivfs_chance_draws(wildcards.experiment)))
    return [f"results/{wildcards.experiment}/ivfs/chance/{wildcards.dataset}/shard{j}.parquet" for j in range(n)]


def ivfs_chance_params(wildcards):
    """Rule ivfs_chance_shard: the random selector (the experiment's Random, else a default one), the pool's metric
    options (the experiment's, persistence on every draw at the protocol's counts), the shard's draws (start,
    stop) and the seed of the pool (the run's identity)."""
    exp = config["experiments"][wildcards.experiment]
    protocol = ivfs_protocol(wildcards.experiment)
    random = next((exp["methods"][m] for m in reference_labels(exp["methods"])), {"selector": "Random"})
    draws = CHANCE.shards(ivfs_chance_draws(wildcards.experiment))[int(wildcards.part)]
    return {
        "spec": {"selector": random["selector"], "params": random.get("params", {})},
        "metrics": IVFS_PAPER.run_metrics(exp["metrics"], protocol, label=""),
        "draws": [draws.start, draws.stop],
        "seed": experiment_seed(wildcards.experiment, wildcards.dataset, "chance"),
    }


def ivfs_targets(report):
    files = [f"{table}.{ext}" for table in ("table1", "table2", "claims") for ext in ("csv", "md", "html")]
    files += [f"{fig}.{ext}" for fig in ("fig2", "fig3", "fig4") for ext in ("csv", "png", "pdf")]
    files += [f"ivfs_seed_correlation.{ext}" for ext in ("csv", "md", "html")]
    return [f"results/{report}/{f}" for f in files]


PAPER_TARGETS["ivfs"] = ivfs_targets

for _name in ivfs_names():
    ivfs_protocol(_name)  # a bad protocol fails at start-up


IVFS_EXPERIMENT = exactly(ivfs_names())
IVFS_REPORT = exactly(paper_reports("ivfs"))


def ivfs_seed_plan(wildcards):
    """Per IVFS method and dataset of the report's experiment: the fit of the method's fixed setting (its
    largest k, the others checkpoints) and the fit seeds of its runs (at least two)."""
    from ufskit.papers.ivfs.diagnostics import fit_group

    name = ivfs_experiment(wildcards.report)
    exp = config["experiments"][name]
    plan = []
    for label, method in paper_methods(exp["methods"]).items():
        if method["selector"] != "IVFS":
            continue
        slug, params, ks = fit_group(exp["methods"], ivfs_protocol(name), label)
        reps = max(2, ex.method_reps(exp, label))
        plan += [
            {
                "dataset": d,
                "method": label,
                "group": slug,
                "params": params,
                "ks": ks,
                "seeds": [experiment_seed(name, d, label, slug, r) for r in range(reps)],
            }
            for d in experiment_datasets(name)
        ]
    return plan


def ivfs_seed_data(wildcards):
    chain = config["experiments"][ivfs_experiment(wildcards.report)]["preprocess"]
    return [f"resources/prepared/{chain}/{run['dataset']}.npz" for run in ivfs_seed_plan(wildcards)]
