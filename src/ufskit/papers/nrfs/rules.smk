# NRFS paper (Huang et al., ICDM 2014): Table I on the synthetic data, Table II, Fig. 1 and 4-7, claims.
# Its experiments carry `paper: nrfs` and a `role` (role_experiment): the one of role `synthetic` (on
# `nrfs_synthetic`) feeds Table I, Fig. 1/4 and the sensitivity sweep, those of role `real` (microarray and text)
# feed Fig. 5-7 and Table II through their metrics.parquet.


include: "common.smk"


# ---- rules ------------------------------------------------------------------------------------


# The synthetic experiment's batched jobs (nrfs_synthetic_batch_plan) also keep each run's selection for Table I;
# run_batched_method would make the same metrics file without them.
ruleorder: nrfs_synthetic_batch > run_batched_method


rule nrfs_synthetic_batch:
    input:
        unpack(evaluation_data),
    output:
        metrics="results/{experiment}/metrics/{dataset}/{method}/batch/{shard}.parquet",
        selections=directory("results/{experiment}/selections/{dataset}/{method}/batch/{shard}"),
    log:
        "logs/batched/{experiment}/{dataset}/{method}/{shard}.log",
    benchmark:
        "logs/times/batched/{experiment}/{dataset}/{method}/{shard}.tsv"
    wildcard_constraints:
        experiment=NRFS_SYNTHETIC_EXPERIMENTS,
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        runs=batch_runs,
        n_features=experiment_value("n_features"),
        metrics=lambda w: ex.method_metrics(config["experiments"][w.experiment], w.method),
    script:
        shared_script("select_evaluate_batch.py")


rule nrfs_table1_runs:
    input:
        data=prepared_data,
        kept=nrfs_table1_kept,
    output:
        "results/{experiment}/nrfs_table1/{dataset}/{method}.parquet",
    log:
        "logs/nrfs_table1_runs/{experiment}/{dataset}/{method}.log",
    benchmark:
        "logs/times/nrfs_table1_runs/{experiment}/{dataset}/{method}.tsv"
    conda:
        ENV
    threads: 1
    params:
        selections=nrfs_table1_selections,
        spec=nrfs_table1_spec,
        n_features=experiment_value("n_features"),
        total_runs=lambda w: nrfs_total_runs(w.experiment),
        kmeans=experiment_value("metrics", "kmeans"),
        seed=lambda w: experiment_seed(w.experiment, w.dataset, w.method, "table1"),
    script:
        "scripts/nrfs_table1_runs.py"


rule nrfs_table1:
    input:
        runs=nrfs_table1_runs,
        published=published("nrfs", "nrfs_table1.csv"),
    output:
        csv="results/{folder}/table1.csv",
        md="results/{folder}/table1.md",
        html=paper_report("results/{folder}/table1.html", "nrfs", "nrfs_table1"),
    log:
        "logs/nrfs_table1/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
        n_features=lambda w: config["experiments"][nrfs_synthetic_experiment(w.folder)]["n_features"],
        methods=lambda w: config["experiments"][nrfs_synthetic_experiment(w.folder)]["methods"],
    script:
        "scripts/nrfs_table1.py"


rule nrfs_table2:
    input:
        summaries=nrfs_summaries,
        published=published("nrfs", "nrfs_table2.csv"),
    output:
        md="results/{folder}/table2.md",
        html=paper_report("results/{folder}/table2.html", "nrfs", "nrfs_table2"),
    log:
        "logs/nrfs_table2/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
        names=lambda w: list(nrfs_dataset_owner(w.folder)),
    script:
        "scripts/nrfs_table2.py"


rule nrfs_fig1:
    input:
        nrfs_synthetic_data,
    output:
        png=paper_report("results/{folder}/fig1.png", "nrfs", "nrfs_fig1"),
        pdf="results/{folder}/fig1.pdf",
    log:
        "logs/nrfs_fig1/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
    script:
        "scripts/nrfs_fig1.py"


rule nrfs_sampling:
    input:
        nrfs_synthetic_data,
    output:
        "results/{folder}/nrfs_sampling.npz",
    log:
        "logs/nrfs_sampling/{folder}.log",
    benchmark:
        "logs/times/nrfs_sampling/{folder}.tsv"
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        spec=nrfs_sampling_spec,
        seed=lambda w: derive_seed(config["seed"], w.folder, "nrfs_sampling"),
    script:
        "scripts/nrfs_sampling.py"


rule nrfs_fig4:
    input:
        data=nrfs_synthetic_data,
        sampling="results/{folder}/nrfs_sampling.npz",
    output:
        png=paper_report("results/{folder}/fig4.png", "nrfs", "nrfs_fig4"),
        pdf="results/{folder}/fig4.pdf",
    log:
        "logs/nrfs_fig4/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
    script:
        "scripts/nrfs_fig4.py"


rule nrfs_sensitivity:
    output:
        "results/{folder}/sensitivity.csv",
    log:
        "logs/nrfs_sensitivity/{folder}.log",
    benchmark:
        "logs/times/nrfs_sensitivity/{folder}.tsv"
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    threads: 1
    params:
        base=lambda w: dataset_entry(REGISTRY, NRFS_SYNTHETIC)["options"],
        sensitivity=lambda w: nrfs_sensitivity(w.folder),
        methods=nrfs_sensitivity_methods,
        seed=lambda w: derive_seed(config["seed"], w.folder, "nrfs_sensitivity"),
    script:
        "scripts/nrfs_sensitivity.py"


rule nrfs_sensitivity_figure:
    input:
        sweep="results/{folder}/sensitivity.csv",
        published=published("nrfs", "nrfs_table1.csv"),
    output:
        png=paper_report("results/{folder}/sensitivity.png", "nrfs", "nrfs_sensitivity"),
        pdf="results/{folder}/sensitivity.pdf",
    log:
        "logs/nrfs_sensitivity_figure/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
        base=lambda w: dataset_entry(REGISTRY, NRFS_SYNTHETIC)["options"],
    script:
        "scripts/nrfs_sensitivity_figure.py"


rule nrfs_kmeans_all:
    input:
        prepared_data,
    output:
        "results/{experiment}/nrfs_kmeans_all/{dataset}.parquet",
    log:
        "logs/nrfs_kmeans_all/{experiment}/{dataset}.log",
    benchmark:
        "logs/times/nrfs_kmeans_all/{experiment}/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
    params:
        runs=lambda w: nrfs_total_runs(w.experiment),
        kmeans=experiment_value("metrics", "kmeans"),
        seed=lambda w: experiment_seed(w.experiment, w.dataset, "kmeans_all"),
    script:
        "scripts/nrfs_kmeans_all.py"


rule nrfs_fig5:
    input:
        metrics=nrfs_metric_tables,
        kmeans_all=nrfs_kmeans_all,
        summaries=nrfs_summaries,
    output:
        png=paper_report("results/{folder}/fig5.png", "nrfs", "nrfs_fig5"),
        pdf="results/{folder}/fig5.pdf",
        csv="results/{folder}/fig5.csv",
    log:
        "logs/nrfs_fig5/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
        experiments=nrfs_real_configs,
        groups=nrfs_groups,
        names=lambda w: list(nrfs_dataset_owner(w.folder)),
    script:
        "scripts/nrfs_fig5.py"


rule nrfs_fig6:
    input:
        nrfs_metric_tables,
    output:
        png=paper_report("results/{folder}/fig6.png", "nrfs", "nrfs_fig6"),
        pdf="results/{folder}/fig6.pdf",
        csv="results/{folder}/fig6.csv",
    log:
        "logs/nrfs_fig6/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
        experiments=nrfs_real_configs,
        groups=nrfs_groups,
    script:
        "scripts/nrfs_fig6.py"


rule nrfs_fig7:
    input:
        nrfs_metric_tables,
    output:
        png=paper_report("results/{folder}/fig7.png", "nrfs", "nrfs_fig7"),
        pdf="results/{folder}/fig7.pdf",
        csv="results/{folder}/fig7.csv",
    log:
        "logs/nrfs_fig7/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
        experiments=nrfs_real_configs,
        groups=nrfs_groups,
    script:
        "scripts/nrfs_fig7.py"


rule nrfs_claims:
    input:
        unpack(nrfs_claim_inputs),
    output:
        md="results/{folder}/claims.md",
        html=paper_report("results/{folder}/claims.html", "nrfs", "nrfs_claims"),
        csv="results/{folder}/claims.csv",
    log:
        "logs/nrfs_claims/{folder}.log",
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    params:
        run=report_run,
        groups=nrfs_groups,
    script:
        "scripts/nrfs_claims.py"


# ---- Table I diagnostics: the all-feature graph's spectrum and NRFS with an oracle target ----------------------


rule nrfs_diagnostics:
    input:
        unpack(nrfs_diagnostics_inputs),
    output:
        spectrum="results/{folder}/nrfs_spectrum.md",
        spectrum_html=paper_report("results/{folder}/nrfs_spectrum.html", "nrfs", "nrfs_spectrum"),
        spectrum_csv="results/{folder}/nrfs_spectrum.csv",
        png=paper_report("results/{folder}/nrfs_spectrum.png", "nrfs", "nrfs_spectrum"),
        pdf="results/{folder}/nrfs_spectrum.pdf",
        oracle="results/{folder}/nrfs_oracle.md",
        oracle_html=paper_report("results/{folder}/nrfs_oracle.html", "nrfs", "nrfs_oracle"),
        oracle_csv="results/{folder}/nrfs_oracle.csv",
    log:
        "logs/nrfs_diagnostics/{folder}.log",
    benchmark:
        "logs/times/nrfs_diagnostics/{folder}.tsv"
    wildcard_constraints:
        folder=NRFS_FOLDERS,
    conda:
        ENV
    threads: 1
    params:
        run=report_run,
        datasets=lambda w: experiment_datasets(nrfs_synthetic_experiment(w.folder)),
        spec=lambda w: nrfs_single_setting(*nrfs_diagnostics_method(w.folder))[1],
        n_features=lambda w: config["experiments"][nrfs_synthetic_experiment(w.folder)]["n_features"],
        seed=lambda w: derive_seed(config["seed"], w.folder, "nrfs_oracle"),
    script:
        "scripts/nrfs_diagnostics.py"
