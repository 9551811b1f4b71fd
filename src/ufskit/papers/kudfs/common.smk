# Input functions, targets and constants of the KUDFS paper's rules (rules.smk).


from ufskit import chance as CHANCE
from ufskit.papers import EXTRA_MARK, extra_labels
from ufskit.papers import kudfs as KUDFS_PAPER

# ---- input functions --------------------------------------------

KUDFS_ROLES = KUDFS_PAPER.ROLES  # config `role` of its experiments
KUDFS_REPORTS = sorted(paper_reports("kudfs"))
KUDFS_PUBLISHED = str(published("kudfs", "kudfs_table1.csv"))


def kudfs_experiment(report, role):
    """The one experiment of `report` with config `role` `role`, or None."""
    return role_experiment(report, "kudfs", role)


def kudfs_require(report, role):
    name = kudfs_experiment(report, role)
    if name is None:
        raise ValueError(f"report {report!r}: no experiment with role {role!r} in `run`.")
    return name


def kudfs_summaries(name):
    """Prepared-data summaries of an experiment (they give each dataset's original dimension d)."""
    chain = config["experiments"][name]["preprocess"]
    return [f"resources/prepared/{chain}/{d}.json" for d in experiment_datasets(name)]


def kudfs_methods(name):
    """Labels of the experiment's kernel-UDFS methods."""
    return [m for m, spec in config["experiments"][name]["methods"].items() if spec["selector"] == "KernelUDFS"]


def kudfs_kernel_sigma(name):
    """The one fixed RBF width of the experiment's kernel UDFS: the competitors use the same kernel."""
    sigmas = {
        p.get("sigma")
        for m in kudfs_methods(name)
        for p in ex.settings_by_slug(config["experiments"][name], m).values()
    }
    if len(sigmas) != 1 or None in sigmas:
        raise ValueError(
            f"experiment {name!r}: Kernel PCA / Kernel K-means need one fixed kernel-UDFS sigma, got {sigmas}."
        )
    return float(sigmas.pop())


def kudfs_kernel_text(name):
    """The kernel of the experiment's kernel UDFS in words (figure titles): its RBF width(s) sigma."""
    sigmas = sorted(
        {
            p.get("sigma")
            for m in kudfs_methods(name)
            for p in ex.settings_by_slug(config["experiments"][name], m).values()
        },
        key=str,
    )
    return "RBF kernel, sigma = " + ", ".join(
        f"{s:g}" if s is not None else "kernel_const x largest distance" for s in sigmas
    )


def kudfs_setting_labels(name):
    """Params slug -> short label (the grid's keys, else the kernel and l2,1 parameters) of the kernel-UDFS settings."""
    labels = {}
    for method in kudfs_methods(name):
        spec = config["experiments"][name]["methods"][method]
        keys = sorted(spec.get("grid", {})) or [
            k for k in ("kernel_const", "sigma", "gamma", "lam") if k in spec.get("params", {})
        ]
        for slug, params in ex.settings_by_slug(config["experiments"][name], method).items():
            labels[slug] = ", ".join(f"{k}={params[k]:g}" for k in keys)
    return labels


def kudfs_competitor_files(name):
    return [
        f"results/{name}/kudfs/{d}/{what}.parquet"
        for d in experiment_datasets(name)
        for what in ("kernel_pca", "kernel_kmeans")
    ]


def kudfs_ratio_file(name, method, slug):
    """The distance-ratio curves of one setting of a method of the fig1 experiment (first repetition)."""
    datasets = experiment_datasets(name)
    if len(datasets) != 1:
        raise ValueError(f"experiment {name!r}: Fig. 1 is drawn for one dataset, got {datasets}.")
    return f"results/{name}/kudfs/distance_ratio/{datasets[0]}/{method}/{slug}/rep0.parquet"


def kudfs_ratio_files(name):
    """Setting label -> distance-ratio curves of the fig1 experiment's kernel-UDFS runs (first repetition)."""
    labels = kudfs_setting_labels(name)
    return {
        labels[slug]: kudfs_ratio_file(name, m, slug)
        for m in kudfs_methods(name)
        for slug in ex.settings_by_slug(config["experiments"][name], m)
    }


def kudfs_chance_names():
    """The kernel-UDFS experiments Table 1 takes a method from (roles udfs and table1): rule kudfs_chance's."""
    return [
        n
        for n, e in config["experiments"].items()
        if e["paper"] == "kudfs" and e.get("role") in KUDFS_PAPER.ROLE_METHOD
    ]


def kudfs_chance_draws(name):
    """Draws of the experiment's pool of random orders: ufskit.chance.draws_needed of its Table 1 method's (G, reps)."""
    exp = config["experiments"][name]
    return CHANCE.draws_needed([KUDFS_PAPER.chance_shape(exp, KUDFS_PAPER.ROLE_METHOD[exp["role"]])])


def kudfs_chance_shards(wildcards):
    """The shards of a dataset's pool of random orders (rule kudfs_chance_shard), in draw order."""
    n = len(CHANCE.shards(kudfs_chance_draws(wildcards.experiment)))
    return [f"results/{wildcards.experiment}/kudfs/chance/{wildcards.dataset}/shard{j}.parquet" for j in range(n)]


def kudfs_chance_params(wildcards):
    """Rule kudfs_chance_shard: the metric options of the method Table 1 takes from the experiment (the pool is
    evaluated as the method is), the shard's draws (start, stop) and the seed of the pool (the run's identity)."""
    exp = config["experiments"][wildcards.experiment]
    method = KUDFS_PAPER.ROLE_METHOD[exp["role"]]
    draws = CHANCE.shards(kudfs_chance_draws(wildcards.experiment))[int(wildcards.part)]
    return {
        "metrics": ex.method_metrics(exp, method),
        "draws": [draws.start, draws.stop],
        "seed": experiment_seed(wildcards.experiment, wildcards.dataset, "chance"),
    }


def kudfs_chance_source(name):
    """The experiment whose pools serve `name`: a reading's derived experiment takes its main one's (the same seeds)
    when the pools' other inputs are the same too (prepared data, the method's metric options and (G, reps))."""
    main = READINGS.seed_identity(name)
    if main == name:
        return name
    exp, base = config["experiments"][name], config["experiments"][main]
    method = KUDFS_PAPER.ROLE_METHOD[exp["role"]]
    same = (
        exp["preprocess"] == base["preprocess"]
        and set(experiment_datasets(name)) <= set(experiment_datasets(main))
        and ex.method_metrics(exp, method) == ex.method_metrics(base, method)
        and KUDFS_PAPER.chance_shape(exp, method) == KUDFS_PAPER.chance_shape(base, method)
    )
    return main if same else name


def kudfs_chance_files(report, role):
    """The pools of random orders of the report's experiment of `role`, one per dataset (rule kudfs_chance)."""
    name = kudfs_require(report, role)
    return [f"results/{kudfs_chance_source(name)}/kudfs/chance/{d}.parquet" for d in experiment_datasets(name)]


def kudfs_chance_shapes(report):
    """Method -> (G, reps) of Table 1's chance columns, each from the experiment Table 1 takes the method from."""
    return {
        method: KUDFS_PAPER.chance_shape(config["experiments"][kudfs_require(report, role)], method)
        for role, method in KUDFS_PAPER.ROLE_METHOD.items()
    }


def kudfs_added_ratio_files(name):
    """Label (the method marked not in the paper, and its grid setting) -> distance-ratio curves of the fig1
    experiment's methods added by `extra_methods` (first repetition), one curve per setting as kernel UDFS's."""
    exp = config["experiments"][name]
    files = {}
    for m in extra_labels(exp["methods"]):
        keys = sorted(exp["methods"][m].get("grid", {}))
        for slug, params in ex.settings_by_slug(exp, m).items():
            setting = "".join(f", {k}={params[k]}" for k in keys)
            files[f"{m}{EXTRA_MARK}{setting}"] = kudfs_ratio_file(name, m, slug)
    return files


def kudfs_targets(report):
    """The paper's tables and figures for `report`, for the roles its experiments cover."""
    have = {role for role in KUDFS_ROLES if kudfs_experiment(report, role)}
    out = []
    if {"udfs", "table1"} <= have:
        out += ["table1.csv", "table1.md", "table1.html"]
    if "fig1" in have:
        out += ["fig1.png", "fig1.pdf"]
    if "fig2" in have:
        out += ["fig2.csv", "fig2.png", "fig2.pdf"]
    if have == set(KUDFS_ROLES):
        out += ["claims.md", "claims.html", "claims.csv"]
    return [f"results/{report}/{f}" for f in out]


PAPER_TARGETS["kudfs"] = kudfs_targets

KUDFS_REPORT_RE = exactly(KUDFS_REPORTS)
KUDFS_CHANCE_EXPERIMENT = exactly(kudfs_chance_names())
