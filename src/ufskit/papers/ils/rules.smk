# Iterative Laplacian Score paper (Zhu, Miao & Zhang 2012): Table 1, Figs. 1-3, the two variants, the claims.
# Experiments name their study by their config `role` (uci | orl_clusters | orl_train_size: ufskit.papers.ils.STUDIES,
# found with role_experiment), its settings in `protocol`; their tables and figures go to results/<report_dir>/.


include: "common.smk"


wildcard_constraints:
    report=exactly(paper_reports("ils")),
    n_clusters=r"\d+",
    n_train=r"\d+",


# ---- ORL studies the generic metrics do not cover -------------------------------------


rule ils_cluster_study:
    input:
        ils_prepared,
    output:
        "results/{experiment}/ils/clusters_c{n_clusters}.parquet",
    log:
        "logs/ils/{experiment}/clusters_c{n_clusters}.log",
    benchmark:
        "logs/times/ils/{experiment}/clusters_c{n_clusters}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
    params:
        methods=experiment_value("methods"),
        n_features=experiment_value("n_features"),
        kmeans=experiment_value("metrics", "kmeans"),
        seed=lambda w: experiment_seed(w.experiment, "clusters", int(w.n_clusters)),
    script:
        "scripts/ils_cluster_study.py"


rule ils_train_size_study:
    input:
        ils_prepared,
    output:
        "results/{experiment}/ils/train_t{n_train}.parquet",
    log:
        "logs/ils/{experiment}/train_t{n_train}.log",
    benchmark:
        "logs/times/ils/{experiment}/train_t{n_train}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
    params:
        methods=experiment_value("methods"),
        n_features=experiment_value("n_features"),
        n_splits=experiment_value("protocol", "n_splits"),
        seed=lambda w: experiment_seed(w.experiment, "train_size", int(w.n_train)),
    script:
        "scripts/ils_train_size_study.py"


# ---- tables, curves and figures of a report folder -------------------------------------


rule ils_table1:
    input:
        published=published("ils", "ils_table1.csv"),
        summaries=ils_report_input("uci", "summaries"),
    output:
        md="results/{report}/table1.md",
        html=paper_report("results/{report}/table1.html", "ils", "ils_table1"),
    log:
        "logs/ils/{report}/table1.log",
    conda:
        ENV
    params:
        run=report_run,
        names=lambda w: experiment_datasets(ils_experiment(w.report, "uci")),
    script:
        "scripts/ils_table1.py"


rule ils_variants:
    input:
        unpack(ils_report_input("uci", "selections")),
        summary=ils_report_input("uci", "summary"),
    output:
        paper_report("results/{report}/variants.csv", "ils", "ils_variants"),
    log:
        "logs/ils/{report}/variants.log",
    conda:
        ENV
    params:
        run=report_run,
    script:
        "scripts/ils_variants.py"


rule ils_fig2_curves:
    input:
        summary=ils_report_input("orl_clusters", "summary"),
        metrics=ils_report_input("orl_clusters", "metrics"),
        parts=ils_report_input("orl_clusters", "parts"),
        orl=ils_report_input("orl_clusters", "orl_summary"),
    output:
        curves="results/{report}/fig2.csv",
        band="results/{report}/fig2_band.csv",
    log:
        "logs/ils/{report}/fig2_curves.log",
    conda:
        ENV
    params:
        reference=ils_fig2_reference,
    script:
        "scripts/ils_fig2_curves.py"


rule ils_fig3_curves:
    input:
        ils_report_input("orl_train_size", "parts"),
    output:
        "results/{report}/fig3.csv",
    log:
        "logs/ils/{report}/fig3_curves.log",
    conda:
        ENV
    script:
        "scripts/ils_fig3_curves.py"


rule ils_fig1:
    input:
        summary=ils_report_input("uci", "summary"),
        summaries=ils_report_input("uci", "summaries"),
    output:
        png=paper_report("results/{report}/fig1.png", "ils", "ils_fig1"),
        pdf="results/{report}/fig1.pdf",
    log:
        "logs/ils/{report}/fig1.log",
    conda:
        ENV
    params:
        run=report_run,
        cv1nn=lambda w: config["experiments"][ils_experiment(w.report, "uci")]["metrics"]["cv1nn"],
        methods=lambda w: config["experiments"][ils_experiment(w.report, "uci")]["methods"],
        names=lambda w: experiment_datasets(ils_experiment(w.report, "uci")),
    script:
        "scripts/ils_fig1.py"


rule ils_orl_figure:
    input:
        unpack(ils_figure_inputs),
    output:
        png=paper_report("results/{report}/{figure}.png", "ils", "ils_orl_figure"),
        pdf="results/{report}/{figure}.pdf",
    log:
        "logs/ils/{report}/{figure}.log",
    wildcard_constraints:
        figure="fig2|fig3",
    conda:
        ENV
    params:
        run=report_run,
        settings=lambda w: ils_figure_settings(w.report, w.figure),
    script:
        "scripts/ils_orl_figure.py"


rule ils_claims:
    input:
        uci=ils_report_input("uci", "summary"),
        variants="results/{report}/variants.csv",
        fig2="results/{report}/fig2.csv",
        fig3="results/{report}/fig3.csv",
    output:
        md="results/{report}/claims.md",
        html=paper_report("results/{report}/claims.html", "ils", "ils_claims"),
        csv="results/{report}/claims.csv",
    log:
        "logs/ils/{report}/claims.log",
    conda:
        ENV
    params:
        run=report_run,
    script:
        "scripts/ils_claims.py"
