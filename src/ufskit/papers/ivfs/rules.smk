# IVFS paper (Li, Wu & Li, AAAI 2020): Table 1, Table 2 (bootstrap stability), Figs. 2-4 and the claims.
# The paper's grid is large, so its experiments do not use one job per run: every method runs batched
# (rule run_batched_method), its settings on one dataset cut into shards (IVFS: one per (d~, n~), whose
# k values share one fit, the largest cut by repetition; other methods: one shard, `all`), as data given by ivfs_batch_plan
# (common.smk). The experiment's `protocol` is checked by ufskit.papers.ivfs.check_protocol;
# outputs go to results/<report_dir>/.


include: "common.smk"


rule ivfs_stability:
    input:
        prepared_data,
    output:
        "results/{experiment}/ivfs/stability/{dataset}.parquet",
    log:
        "logs/ivfs/stability/{experiment}/{dataset}.log",
    benchmark:
        "logs/times/ivfs/stability/{experiment}/{dataset}.tsv"
    wildcard_constraints:
        experiment=IVFS_EXPERIMENT,
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
    params:
        methods=lambda w: paper_methods(config["experiments"][w.experiment]["methods"]),
        protocol=lambda w: ivfs_protocol(w.experiment),
        seed=config["seed"],
    script:
        "scripts/ivfs_stability.py"


# Random under Table 1's selection: a pool of random orders per dataset, evaluated with the methods' metric options
# in shards of ufskit.chance.SHARD_DRAWS draws (each draw seeded by its index only: the concatenation is the
# one-job pool); Table 1 takes each method's best of G from it (ufskit.chance).
rule ivfs_chance_shard:
    input:
        unpack(evaluation_data),
    output:
        "results/{experiment}/ivfs/chance/{dataset}/shard{part}.parquet",
    log:
        "logs/ivfs/chance/{experiment}/{dataset}/shard{part}.log",
    benchmark:
        "logs/times/ivfs/chance/{experiment}/{dataset}/shard{part}.tsv"
    wildcard_constraints:
        experiment=IVFS_EXPERIMENT,
        part=r"\d+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
    params:
        chance=ivfs_chance_params,
        n_features=experiment_value("n_features"),
    script:
        "scripts/ivfs_chance.py"


rule ivfs_chance:
    input:
        ivfs_chance_shards,
    output:
        "results/{experiment}/ivfs/chance/{dataset}.parquet",
    log:
        "logs/ivfs/chance/{experiment}/{dataset}.log",
    wildcard_constraints:
        experiment=IVFS_EXPERIMENT,
    conda:
        ENV
    params:
        draws=lambda w: ivfs_chance_draws(w.experiment),
    script:
        shared_script("chance_pool.py")


# ---- tables, figures and claims of a report folder --------------------------------------

# The ILS paper's report rules write the same file names to their own folders.


rule ivfs_table1:
    input:
        published=published("ivfs", "ivfs_table1.csv"),
        summary=ivfs_report_input("summary"),
        info=ivfs_report_input("info"),
        chance=ivfs_report_input("chance"),
    output:
        csv="results/{report}/table1.csv",
        md="results/{report}/table1.md",
        html=paper_report("results/{report}/table1.html", "ivfs", "ivfs_table1"),
    log:
        "logs/ivfs/{report}/table1.log",
    wildcard_constraints:
        report=IVFS_REPORT,
    conda:
        ENV
    params:
        run=report_run,
        config=ivfs_report_params,
        chance_reps=lambda w: ivfs_chance_reps(ivfs_experiment(w.report)),
    script:
        "scripts/ivfs_table1.py"


rule ivfs_table2:
    input:
        published=published("ivfs", "ivfs_table2.csv"),
        stability=ivfs_report_input("stability"),
    output:
        csv="results/{report}/table2.csv",
        md="results/{report}/table2.md",
        html=paper_report("results/{report}/table2.html", "ivfs", "ivfs_table2"),
    log:
        "logs/ivfs/{report}/table2.log",
    wildcard_constraints:
        report=IVFS_REPORT,
    conda:
        ENV
    params:
        run=report_run,
        config=ivfs_report_params,
    script:
        "scripts/ivfs_table2.py"


rule ivfs_curve_figure:
    input:
        published=published("ivfs", "ivfs_table1.csv"),
        summary=ivfs_report_input("summary"),
        metrics=ivfs_report_input("metrics"),
        info=ivfs_report_input("info"),
    output:
        csv="results/{report}/{figure}.csv",
        png=paper_report("results/{report}/{figure}.png", "ivfs", "ivfs_curves"),
        pdf="results/{report}/{figure}.pdf",
    log:
        "logs/ivfs/{report}/{figure}.log",
    wildcard_constraints:
        report=IVFS_REPORT,
        figure="fig2|fig3",
    conda:
        ENV
    params:
        run=report_run,
        config=ivfs_report_params,
    script:
        "scripts/ivfs_curve_figure.py"


rule ivfs_fig4:
    input:
        summary=ivfs_report_input("summary"),
    output:
        csv="results/{report}/fig4.csv",
        png=paper_report("results/{report}/fig4.png", "ivfs", "ivfs_fig4"),
        pdf="results/{report}/fig4.pdf",
    log:
        "logs/ivfs/{report}/fig4.log",
    wildcard_constraints:
        report=IVFS_REPORT,
    conda:
        ENV
    params:
        run=report_run,
        config=ivfs_report_params,
    script:
        "scripts/ivfs_fig4.py"


rule ivfs_claims:
    input:
        table1="results/{report}/table1.csv",
        table2="results/{report}/table2.csv",
        fig2="results/{report}/fig2.csv",
        fig3="results/{report}/fig3.csv",
        fig4="results/{report}/fig4.csv",
    output:
        md="results/{report}/claims.md",
        html=paper_report("results/{report}/claims.html", "ivfs", "ivfs_claims"),
        csv="results/{report}/claims.csv",
    log:
        "logs/ivfs/{report}/claims.log",
    wildcard_constraints:
        report=IVFS_REPORT,
    conda:
        ENV
    params:
        run=report_run,
    script:
        "scripts/ivfs_claims.py"


# ---- the agreement of IVFS's scores between seeds, beside Table 2 -----------------------------------------------


rule ivfs_seed_correlation:
    input:
        data=ivfs_seed_data,
    output:
        csv="results/{report}/ivfs_seed_correlation.csv",
        md="results/{report}/ivfs_seed_correlation.md",
        html=paper_report("results/{report}/ivfs_seed_correlation.html", "ivfs", "ivfs_seed_correlation"),
    log:
        "logs/ivfs/{report}/seed_correlation.log",
    benchmark:
        "logs/times/ivfs/seed_correlation/{report}.tsv"
    wildcard_constraints:
        report=IVFS_REPORT,
    conda:
        ENV
    threads: 1
    params:
        run=report_run,
        plan=ivfs_seed_plan,
        top=lambda w: ivfs_protocol(ivfs_experiment(w.report))["stability_features"],
    script:
        "scripts/ivfs_seed_correlation.py"
