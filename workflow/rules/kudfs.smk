# Kernel UDFS paper (Liu & Wang): Table 1, Figs. 1-2, the nonlinear competitors, the claims.
# A report's experiments are told apart by the last part of their name:
#   *_udfs    UDFS on the datasets, n_features: all (1..d); its count d is "All Features";
#   *_table1  kernel UDFS over the kernel-width grid (Sec. 4.2);
#   *_fig1    kernel UDFS settings on one dataset (Sec. 4.1): the distance-ratio curves;
#   *_fig2    kernel UDFS with a fixed sigma over a gamma x lambda grid (Sec. 4.3), plus Kernel PCA and
#             Kernel K-means with the same RBF kernel.
# Tables and figures go to results/<report_dir>/ (ufskit.papers.kudfs).

import re

from ufskit.papers import kudfs as KUDFS_PAPER

# ---- input functions (to move to common.smk) --------------------------------------------

KUDFS_ROLES = ("udfs", "table1", "fig1", "fig2")
KUDFS_REPORTS = sorted({report_dir(n) for n, e in config["experiments"].items() if e["paper"] == "kudfs"})
KUDFS_PUBLISHED = str(REPO / "config/published/kudfs_table1.csv")


def kudfs_experiment(report, role):
    """The one experiment of `report` named *_<role>, or None."""
    names = [n for n in report_experiments(report)
             if config["experiments"][n]["paper"] == "kudfs" and n.endswith(f"_{role}")]
    if len(names) > 1:
        raise ValueError(f"report {report!r} has several kernel-UDFS {role!r} experiments: {names}.")
    return names[0] if names else None


def kudfs_require(report, role):
    name = kudfs_experiment(report, role)
    if name is None:
        raise ValueError(f"report {report!r}: no experiment named *_{role} in `run`.")
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
    sigmas = {p.get("sigma") for m in kudfs_methods(name) for p in ex.settings_by_slug(config["experiments"][name], m).values()}
    if len(sigmas) != 1 or None in sigmas:
        raise ValueError(f"experiment {name!r}: Kernel PCA / Kernel K-means need one fixed kernel-UDFS sigma, got {sigmas}.")
    return float(sigmas.pop())


def kudfs_setting_labels(name):
    """Params slug -> short label (the grid's keys, else the kernel and l2,1 parameters) of the kernel-UDFS settings."""
    labels = {}
    for method in kudfs_methods(name):
        spec = config["experiments"][name]["methods"][method]
        keys = sorted(spec.get("grid", {})) or [k for k in ("kernel_const", "sigma", "gamma", "lam")
                                                 if k in spec.get("params", {})]
        for slug, params in ex.settings_by_slug(config["experiments"][name], method).items():
            labels[slug] = ", ".join(f"{k}={params[k]:g}" for k in keys)
    return labels


def kudfs_competitor_files(name):
    return [f"results/{name}/kudfs/{d}/{what}.parquet" for d in experiment_datasets(name)
            for what in ("kernel_pca", "kernel_kmeans")]


def kudfs_ratio_files(name):
    """Setting label -> distance-ratio curves of the fig1 experiment's kernel-UDFS runs (first repetition)."""
    datasets = experiment_datasets(name)
    if len(datasets) != 1:
        raise ValueError(f"experiment {name!r}: Fig. 1 is drawn for one dataset, got {datasets}.")
    labels = kudfs_setting_labels(name)
    return {labels[slug]: f"results/{name}/kudfs/distance_ratio/{datasets[0]}/{m}/{slug}/rep0.parquet"
            for m in kudfs_methods(name) for slug in ex.settings_by_slug(config["experiments"][name], m)}


def kudfs_targets(report):
    """The paper's tables and figures for `report`, for the roles its experiments cover."""
    have = {role for role in KUDFS_ROLES if kudfs_experiment(report, role)}
    out = []
    if {"udfs", "table1"} <= have:
        out += ["table1.csv", "table1.md"]
    if "fig1" in have:
        out += ["fig1.png", "fig1.pdf"]
    if "fig2" in have:
        out += ["fig2.csv", "fig2.png", "fig2.pdf"]
    if have == set(KUDFS_ROLES):
        out.append("claims.md")
    return [f"results/{report}/{f}" for f in out]


PAPER_TARGETS["kudfs"] = kudfs_targets

KUDFS_REPORT_RE = "|".join(re.escape(r) for r in KUDFS_REPORTS) or "(?!)"


# ---- the nonlinear competitors and the distance ratio -----------------------------------


rule kudfs_kernel_pca:
    input:
        data=prepared_data,
    output:
        "results/{experiment}/kudfs/{dataset}/kernel_pca.parquet",
    params:
        sigma=lambda w: kudfs_kernel_sigma(w.experiment),
        kmeans=lambda w: config["experiments"][w.experiment]["metrics"]["kmeans"],
        n_features=lambda w: config["experiments"][w.experiment]["n_features"],
        seed=lambda w: derive_seed(config["seed"], w.experiment, w.dataset, "KernelPCA"),
    log:
        "logs/kudfs/{experiment}/{dataset}/kernel_pca.log",
    benchmark:
        "benchmarks/kudfs/{experiment}/{dataset}/kernel_pca.tsv"
    threads: 1
    resources:
        mem_mb=4000,
    conda:
        ENV
    script:
        "../../scripts/kudfs_competitor.py"


rule kudfs_kernel_kmeans:
    input:
        data=prepared_data,
    output:
        "results/{experiment}/kudfs/{dataset}/kernel_kmeans.parquet",
    params:
        sigma=lambda w: kudfs_kernel_sigma(w.experiment),
        kmeans=lambda w: config["experiments"][w.experiment]["metrics"]["kmeans"],
        seed=lambda w: derive_seed(config["seed"], w.experiment, w.dataset, "KernelKMeans"),
    log:
        "logs/kudfs/{experiment}/{dataset}/kernel_kmeans.log",
    benchmark:
        "benchmarks/kudfs/{experiment}/{dataset}/kernel_kmeans.tsv"
    threads: 1
    resources:
        mem_mb=4000,
    conda:
        ENV
    script:
        "../../scripts/kudfs_competitor.py"


rule kudfs_distance_ratio:
    input:
        data=prepared_data,
        selection="results/{experiment}/selections/{dataset}/{method}/{params}/rep{rep}.npz",
    output:
        "results/{experiment}/kudfs/distance_ratio/{dataset}/{method}/{params}/rep{rep}.parquet",
    log:
        "logs/kudfs/{experiment}/distance_ratio/{dataset}/{method}/{params}/rep{rep}.log",
    benchmark:
        "benchmarks/kudfs/{experiment}/distance_ratio/{dataset}/{method}/{params}/rep{rep}.tsv"
    threads: 1
    conda:
        ENV
    script:
        "../../scripts/kudfs_distance_ratio.py"


# ---- tables, figures, claims ------------------------------------------------------------


rule kudfs_table1:
    input:
        udfs=lambda w: f"results/{kudfs_require(w.report, 'udfs')}/metrics.parquet",
        kernel=lambda w: f"results/{kudfs_require(w.report, 'table1')}/metrics.parquet",
        summaries=lambda w: kudfs_summaries(kudfs_require(w.report, "udfs")),
        published=KUDFS_PUBLISHED,
    output:
        csv="results/{report}/table1.csv",
        md="results/{report}/table1.md",
    params:
        labels=lambda w: kudfs_setting_labels(kudfs_require(w.report, "table1")),
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    log:
        "logs/kudfs/{report}/table1.log",
    conda:
        ENV
    script:
        "../../scripts/kudfs_table1.py"


rule kudfs_fig1:
    input:
        ratios=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1")).values()),
    output:
        png="results/{report}/fig1.png",
        pdf="results/{report}/fig1.pdf",
    params:
        labels=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1"))),
        dataset=lambda w: experiment_datasets(kudfs_require(w.report, "fig1"))[0],
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    log:
        "logs/kudfs/{report}/fig1.log",
    conda:
        ENV
    script:
        "../../scripts/kudfs_fig1.py"


rule kudfs_fig2_data:
    input:
        kernel=lambda w: f"results/{kudfs_require(w.report, 'fig2')}/metrics.parquet",
        competitors=lambda w: kudfs_competitor_files(kudfs_require(w.report, "fig2")),
        summaries=lambda w: kudfs_summaries(kudfs_require(w.report, "fig2")),
    output:
        "results/{report}/fig2.csv",
    params:
        labels=lambda w: kudfs_setting_labels(kudfs_require(w.report, "fig2")),
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    log:
        "logs/kudfs/{report}/fig2_data.log",
    conda:
        ENV
    script:
        "../../scripts/kudfs_fig2_data.py"


rule kudfs_fig2:
    input:
        curves="results/{report}/fig2.csv",
        published=KUDFS_PUBLISHED,
    output:
        png="results/{report}/fig2.png",
        pdf="results/{report}/fig2.pdf",
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    log:
        "logs/kudfs/{report}/fig2.log",
    conda:
        ENV
    script:
        "../../scripts/kudfs_fig2.py"


rule kudfs_claims:
    input:
        ratios=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1")).values()),
        table1="results/{report}/table1.csv",
        fig2="results/{report}/fig2.csv",
    output:
        "results/{report}/claims.md",
    params:
        labels=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1"))),
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    log:
        "logs/kudfs/{report}/claims.log",
    conda:
        ENV
    script:
        "../../scripts/kudfs_claims.py"
