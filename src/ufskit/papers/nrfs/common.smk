# Input functions, targets and constants of the NRFS paper's rules (rules.smk).


from ufskit.papers import extra_labels
from ufskit.papers.nrfs import REFERENCES, ROLE_REAL, ROLE_SYNTHETIC, SYNTHETIC
from ufskit.papers.nrfs.calibration import check_sensitivity

# ---- input functions -----------------------------------------------

NRFS_SYNTHETIC = SYNTHETIC  # the dataset of Table I (the generator's base options)
# the report folders of NRFS experiments: the {folder} rules below match only these (never another
# paper's results/<report>/fig1.png)
NRFS_FOLDERS = exactly(paper_reports("nrfs"))
# the NRFS experiments of role `synthetic`, readings' included: rule nrfs_synthetic_batch matches only these
NRFS_SYNTHETIC_EXPERIMENTS = exactly(
    n for n, e in config["experiments"].items() if e["paper"] == "nrfs" and e["role"] == ROLE_SYNTHETIC
)


def nrfs_synthetic_experiment(folder):
    """The report's experiment of role `synthetic` (Table I, Fig. 1 and 4), or None."""
    return role_experiment(folder, "nrfs", ROLE_SYNTHETIC)


def nrfs_real_experiments(folder):
    """The report's experiments of role `real`, on the paper's real datasets (Fig. 5-7, Table II)."""
    return [
        e
        for e in report_experiments(folder)
        if config["experiments"][e]["paper"] == "nrfs" and config["experiments"][e]["role"] == ROLE_REAL
    ]


def nrfs_total_runs(experiment):
    """The paper's "30 runs": selector runs x K-means runs per selection of the experiment."""
    exp = config["experiments"][experiment]
    return int(exp.get("reps", 1)) * int(exp["metrics"]["kmeans"].get("n_runs", 10))


def nrfs_single_setting(experiment, method):
    """(slug, spec, reps) of a method that has exactly one parameter setting."""
    exp = config["experiments"][experiment]
    settings = ex.settings_by_slug(exp, method)
    if len(settings) != 1:
        raise ValueError(f"experiment {experiment!r}: Table I needs one setting of {method!r}, got {sorted(settings)}.")
    ((slug, params),) = settings.items()
    selector = exp["methods"][method]["selector"]
    return slug, {"selector": selector, "params": params}, ex.method_reps(exp, method)


def nrfs_table1_methods(experiment):
    return list(REFERENCES) + list(config["experiments"][experiment]["methods"])


def nrfs_synthetic_batch_plan(wildcards):
    """Every method of a synthetic experiment runs batched, one job per dataset, which keeps the selections for
    Table I (rule nrfs_synthetic_batch); the other NRFS experiments run as configured."""
    if config["experiments"][wildcards.experiment]["role"] == ROLE_SYNTHETIC:
        return {WHOLE_METHOD: method_runs(wildcards)}
    return configured_batch_plan(wildcards)


BATCH_PLANS["nrfs"] = nrfs_synthetic_batch_plan


def nrfs_table1_kept(wildcards):
    """The folder of the selector's batched runs (rule nrfs_synthetic_batch); none for K-means and NJW."""
    if wildcards.method in REFERENCES:
        return []
    w = wildcards
    return [f"results/{w.experiment}/selections/{w.dataset}/{w.method}/batch/{WHOLE_METHOD}"]


def nrfs_table1_selections(wildcards):
    """The selector's runs on all instances, in the folder of nrfs_table1_kept; none for K-means and NJW."""
    if wildcards.method in REFERENCES:
        return []
    slug, _, reps = nrfs_single_setting(wildcards.experiment, wildcards.method)
    (folder,) = nrfs_table1_kept(wildcards)
    return [f"{folder}/{slug}/rep{r}.npz" for r in range(reps)]


def nrfs_table1_spec(wildcards):
    if wildcards.method in REFERENCES:
        return None
    return nrfs_single_setting(wildcards.experiment, wildcards.method)[1]


def nrfs_synthetic_data(wildcards):
    exp = nrfs_synthetic_experiment(wildcards.folder)
    return f"resources/prepared/{config['experiments'][exp]['preprocess']}/{NRFS_SYNTHETIC}.npz"


def nrfs_table1_runs(wildcards):
    """Every method's runs on every synthetic dataset of the experiment (the calibrated one, the figure reading)."""
    exp = nrfs_synthetic_experiment(wildcards.folder)
    return [
        f"results/{exp}/nrfs_table1/{d}/{m}.parquet" for d in experiment_datasets(exp) for m in nrfs_table1_methods(exp)
    ]


def nrfs_sensitivity(folder):
    """The synthetic experiment's checked `protocol.sensitivity` (the sweeps of the sensitivity figure), or None."""
    exp = nrfs_synthetic_experiment(folder)
    spec = (config["experiments"][exp].get("protocol") or {}).get("sensitivity") if exp else None
    return None if spec is None else check_sensitivity(spec)


def nrfs_sensitivity_methods(wildcards):
    """Table I's rows for the sweep: K-means and NJW (all features), then each method's single setting; those added
    by `extra_methods` marked `extra` (drawn, marked not in the paper; no baseline of the robustness claim)."""
    exp = nrfs_synthetic_experiment(wildcards.folder)
    added = extra_labels(config["experiments"][exp]["methods"])
    return {
        m: (None if m in REFERENCES else {**nrfs_single_setting(exp, m)[1], **({"extra": True} if m in added else {})})
        for m in nrfs_table1_methods(exp)
    }


def nrfs_sampling_spec(wildcards):
    """The synthetic experiment's NRFS setting (with sampling) whose representatives Fig. 4 shows."""
    exp = nrfs_synthetic_experiment(wildcards.folder)
    labels = [
        m
        for m, s in config["experiments"][exp]["methods"].items()
        if s["selector"] == "NRFS" and s.get("params", {}).get("sampling", True)
    ]
    if not labels:
        raise ValueError(f"experiment {exp!r} has no NRFS method with sampling for Fig. 4.")
    return nrfs_single_setting(exp, labels[0])[1]


def nrfs_metric_tables(wildcards):
    return [f"results/{e}/metrics.parquet" for e in nrfs_real_experiments(wildcards.folder)]


def nrfs_dataset_owner(folder):
    """Dataset -> the first real experiment using it (its chain and K-means protocol serve the reference)."""
    owner = {}
    for e in nrfs_real_experiments(folder):
        for d in experiment_datasets(e):
            owner.setdefault(d, e)
    return owner


def nrfs_kmeans_all(wildcards):
    return [f"results/{e}/nrfs_kmeans_all/{d}.parquet" for d, e in nrfs_dataset_owner(wildcards.folder).items()]


def nrfs_summaries(wildcards):
    owner = nrfs_dataset_owner(wildcards.folder)
    return [f"resources/prepared/{config['experiments'][e]['preprocess']}/{d}.json" for d, e in owner.items()]


def nrfs_groups(wildcards):
    """Dataset -> "text" (a tf-idf chain in the registry) or "microarray"."""
    return {
        d: ("text" if "tfidf" in dataset_entry(REGISTRY, d).get("preprocess", []) else "microarray")
        for d in nrfs_dataset_owner(wildcards.folder)
    }


def nrfs_real_configs(wildcards):
    return {e: config["experiments"][e] for e in nrfs_real_experiments(wildcards.folder)}


def nrfs_claim_inputs(wildcards):
    folder = wildcards.folder
    inputs = {}
    if nrfs_synthetic_experiment(folder):
        inputs.update(table1=f"results/{folder}/table1.csv", sampling=f"results/{folder}/nrfs_sampling.npz")
    if nrfs_sensitivity(folder):
        inputs.update(sensitivity=f"results/{folder}/sensitivity.csv")
    if nrfs_real_experiments(folder):
        inputs.update(
            fig5=f"results/{folder}/fig5.csv",
            fig6=f"results/{folder}/fig6.csv",
            fig7=f"results/{folder}/fig7.csv",
            kmeans_all=nrfs_kmeans_all(wildcards),
        )
    return inputs


def nrfs_targets(folder):
    """The NRFS tables and figures under results/<report>/."""
    figures = lambda *names: [f"results/{folder}/{n}.{ext}" for n in names for ext in ("png", "pdf")]
    out = [f"results/{folder}/claims.{ext}" for ext in ("md", "html", "csv")]
    if nrfs_synthetic_experiment(folder):
        out += [f"results/{folder}/table1.{ext}" for ext in ("csv", "md", "html")] + figures("fig1", "fig4")
        out += [f"results/{folder}/nrfs_{f}.{ext}" for f in ("spectrum", "oracle") for ext in ("csv", "md", "html")]
        out += figures("nrfs_spectrum")
    if nrfs_sensitivity(folder):
        out += [f"results/{folder}/sensitivity.csv", *figures("sensitivity")]
    if nrfs_real_experiments(folder):
        out += [f"results/{folder}/table2.md", f"results/{folder}/table2.html", *figures("fig5", "fig6", "fig7")]
    return out


PAPER_TARGETS["nrfs"] = nrfs_targets


def nrfs_diagnostics_method(folder):
    """The synthetic experiment and its first NRFS method (its setting drives the spectrum and the oracle)."""
    exp = nrfs_synthetic_experiment(folder)
    labels = [m for m, s in config["experiments"][exp]["methods"].items() if s["selector"] == "NRFS"]
    if not labels:
        raise ValueError(f"experiment {exp!r} has no NRFS method for the Table I diagnostics.")
    return exp, labels[0]


def nrfs_diagnostics_inputs(wildcards):
    """Every synthetic dataset of the experiment, prepared, and its NRFS runs of Table I."""
    exp, method = nrfs_diagnostics_method(wildcards.folder)
    chain = config["experiments"][exp]["preprocess"]
    names = experiment_datasets(exp)
    return {
        "data": [f"resources/prepared/{chain}/{d}.npz" for d in names],
        "runs": [f"results/{exp}/nrfs_table1/{d}/{method}.parquet" for d in names],
    }
