# Kernel UDFS paper (Liu & Wang): Table 1, Figs. 1-2, the nonlinear competitors, the claims.
# A report's experiments are told apart by their config `role` (kudfs_experiment, role_experiment):
#   udfs      UDFS on the datasets, n_features: all (1..d); its count d is "All Features";
#   table1    kernel UDFS over the kernel-width grid (Sec. 4.2);
#   fig1      kernel UDFS settings on one dataset (Sec. 4.1): the distance-ratio curves;
#   fig2      kernel UDFS with a fixed sigma over a gamma x lambda grid (Sec. 4.3), plus Kernel PCA and
#             Kernel K-means with the same RBF kernel.
# Tables and figures go to results/<report_dir>/ (ufskit.papers.kudfs).


include: "common.smk"


# ---- the nonlinear competitors and the distance ratio -----------------------------------


rule kudfs_kernel_pca:
    input:
        data=prepared_data,
    output:
        "results/{experiment}/kudfs/{dataset}/kernel_pca.parquet",
    log:
        "logs/kudfs/{experiment}/{dataset}/kernel_pca.log",
    benchmark:
        "logs/times/kudfs/{experiment}/{dataset}/kernel_pca.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
    params:
        sigma=lambda w: kudfs_kernel_sigma(w.experiment),
        kmeans=experiment_value("metrics", "kmeans"),
        n_features=experiment_value("n_features"),
        seed=lambda w: experiment_seed(w.experiment, w.dataset, "KernelPCA"),
    script:
        "scripts/kudfs_competitor.py"


rule kudfs_kernel_kmeans:
    input:
        data=prepared_data,
    output:
        "results/{experiment}/kudfs/{dataset}/kernel_kmeans.parquet",
    log:
        "logs/kudfs/{experiment}/{dataset}/kernel_kmeans.log",
    benchmark:
        "logs/times/kudfs/{experiment}/{dataset}/kernel_kmeans.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
    params:
        sigma=lambda w: kudfs_kernel_sigma(w.experiment),
        kmeans=experiment_value("metrics", "kmeans"),
        seed=lambda w: experiment_seed(w.experiment, w.dataset, "KernelKMeans"),
    script:
        "scripts/kudfs_competitor.py"


rule kudfs_distance_ratio:
    input:
        data=prepared_data,
        selection="results/{experiment}/selections/{dataset}/{method}/{params}/rep{rep}.npz",
    output:
        "results/{experiment}/kudfs/distance_ratio/{dataset}/{method}/{params}/rep{rep}.parquet",
    log:
        "logs/kudfs/{experiment}/distance_ratio/{dataset}/{method}/{params}/rep{rep}.log",
    benchmark:
        "logs/times/kudfs/{experiment}/distance_ratio/{dataset}/{method}/{params}/rep{rep}.tsv"
    conda:
        ENV
    threads: 1
    script:
        "scripts/kudfs_distance_ratio.py"


# One dataset's pool of random feature orders, evaluated with the metric options of the method Table 1 takes
# from the experiment, in shards of ufskit.chance.SHARD_DRAWS draws concatenated by rule kudfs_chance (the
# one-job pool: each draw seeded by its index only); Table 1 takes that method's Random best of G from it.
rule kudfs_chance_shard:
    input:
        data=prepared_data,
    output:
        "results/{experiment}/kudfs/chance/{dataset}/shard{part}.parquet",
    log:
        "logs/kudfs/chance/{experiment}/{dataset}/shard{part}.log",
    benchmark:
        "logs/times/kudfs/chance/{experiment}/{dataset}/shard{part}.tsv"
    wildcard_constraints:
        experiment=KUDFS_CHANCE_EXPERIMENT,
        part=r"\d+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
    params:
        chance=kudfs_chance_params,
    script:
        "scripts/kudfs_chance.py"


rule kudfs_chance:
    input:
        kudfs_chance_shards,
    output:
        "results/{experiment}/kudfs/chance/{dataset}.parquet",
    log:
        "logs/kudfs/chance/{experiment}/{dataset}.log",
    wildcard_constraints:
        experiment=KUDFS_CHANCE_EXPERIMENT,
    conda:
        ENV
    params:
        draws=lambda w: kudfs_chance_draws(w.experiment),
    script:
        shared_script("chance_pool.py")


# ---- tables, figures, claims ------------------------------------------------------------


rule kudfs_table1:
    input:
        udfs=lambda w: f"results/{kudfs_require(w.report, 'udfs')}/metrics.parquet",
        kernel=lambda w: f"results/{kudfs_require(w.report, 'table1')}/metrics.parquet",
        summaries=lambda w: kudfs_summaries(kudfs_require(w.report, "udfs")),
        published=KUDFS_PUBLISHED,
        chance_udfs=lambda w: kudfs_chance_files(w.report, "udfs"),
        chance_table1=lambda w: kudfs_chance_files(w.report, "table1"),
    output:
        csv="results/{report}/table1.csv",
        md="results/{report}/table1.md",
        html=paper_report("results/{report}/table1.html", "kudfs", "kudfs_table1"),
    log:
        "logs/kudfs/{report}/table1.log",
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    conda:
        ENV
    params:
        run=report_run,
        labels=lambda w: kudfs_setting_labels(kudfs_require(w.report, "table1")),
        udfs_methods=lambda w: config["experiments"][kudfs_require(w.report, "udfs")]["methods"],
        chance_shapes=lambda w: kudfs_chance_shapes(w.report),
    script:
        "scripts/kudfs_table1.py"


rule kudfs_fig1:
    input:
        ratios=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1")).values()),
        added=lambda w: list(kudfs_added_ratio_files(kudfs_require(w.report, "fig1")).values()),
    output:
        png=paper_report("results/{report}/fig1.png", "kudfs", "kudfs_fig1"),
        pdf="results/{report}/fig1.pdf",
    log:
        "logs/kudfs/{report}/fig1.log",
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    conda:
        ENV
    params:
        run=report_run,
        labels=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1"))),
        added=lambda w: list(kudfs_added_ratio_files(kudfs_require(w.report, "fig1"))),
        dataset=lambda w: experiment_datasets(kudfs_require(w.report, "fig1"))[0],
        kernel=lambda w: kudfs_kernel_text(kudfs_require(w.report, "fig1")),
    script:
        "scripts/kudfs_fig1.py"


rule kudfs_fig2_data:
    input:
        kernel=lambda w: f"results/{kudfs_require(w.report, 'fig2')}/metrics.parquet",
        competitors=lambda w: kudfs_competitor_files(kudfs_require(w.report, "fig2")),
        summaries=lambda w: kudfs_summaries(kudfs_require(w.report, "fig2")),
    output:
        "results/{report}/fig2.csv",
    log:
        "logs/kudfs/{report}/fig2_data.log",
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    conda:
        ENV
    params:
        labels=lambda w: kudfs_setting_labels(kudfs_require(w.report, "fig2")),
        extra=lambda w: extra_labels(config["experiments"][kudfs_require(w.report, "fig2")]["methods"]),
    script:
        "scripts/kudfs_fig2_data.py"


rule kudfs_fig2:
    input:
        curves="results/{report}/fig2.csv",
        published=KUDFS_PUBLISHED,
    output:
        png=paper_report("results/{report}/fig2.png", "kudfs", "kudfs_fig2"),
        pdf="results/{report}/fig2.pdf",
    log:
        "logs/kudfs/{report}/fig2.log",
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    conda:
        ENV
    params:
        run=report_run,
        kernel=lambda w: kudfs_kernel_text(kudfs_require(w.report, "fig2")),
    script:
        "scripts/kudfs_fig2.py"


rule kudfs_claims:
    input:
        ratios=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1")).values()),
        table1="results/{report}/table1.csv",
        fig2="results/{report}/fig2.csv",
    output:
        md="results/{report}/claims.md",
        html=paper_report("results/{report}/claims.html", "kudfs", "kudfs_claims"),
        csv="results/{report}/claims.csv",
    log:
        "logs/kudfs/{report}/claims.log",
    wildcard_constraints:
        report=KUDFS_REPORT_RE,
    conda:
        ENV
    params:
        run=report_run,
        labels=lambda w: list(kudfs_ratio_files(kudfs_require(w.report, "fig1"))),
    script:
        "scripts/kudfs_claims.py"
