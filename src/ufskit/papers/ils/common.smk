# Input functions and targets of the ILS paper's rules (rules.smk).

from ufskit.papers import ils as ILS_PAPER
from ufskit.papers import reference_labels


def ils_experiment(report, study):
    """The one experiment of `report` running `study` (its config `role`), or None."""
    return role_experiment(report, "ils", study)


def ils_figure_settings(report, figure):
    """Keyword arguments of ILS Fig. 2 (K-means runs per point) or Fig. 3 (random splits per point) from the config."""
    if figure == "fig2":
        return {"runs": config["experiments"][ils_experiment(report, "orl_clusters")]["metrics"]["kmeans"]["n_runs"]}
    return {"n_splits": config["experiments"][ils_experiment(report, "orl_train_size")]["protocol"]["n_splits"]}


def ils_fig2_reference(wildcards):
    """The labels of the Random methods of the report's ORL cluster study (Fig. 2's band)."""
    return reference_labels(config["experiments"][ils_experiment(wildcards.report, "orl_clusters")]["methods"])


def ils_figure_inputs(wildcards):
    """The curves of Fig. 2 or Fig. 3, and Fig. 2's band of random features."""
    inputs = {"curves": f"results/{wildcards.report}/{wildcards.figure}.csv"}
    if wildcards.figure == "fig2":
        inputs["band"] = f"results/{wildcards.report}/fig2_band.csv"
    return inputs


def ils_only_dataset(name):
    """The single dataset of an ORL study (its protocol is about one face set)."""
    datasets = experiment_datasets(name)
    if len(datasets) != 1:
        raise ValueError(f"experiment {name!r}: an ORL study takes exactly one dataset, got {datasets}.")
    return datasets[0]


def ils_prepared_path(name, suffix="npz"):
    """The prepared ORL matrix (or its JSON summary) of an ORL study."""
    return f"resources/prepared/{config['experiments'][name]['preprocess']}/{ils_only_dataset(name)}.{suffix}"


def ils_prepared(wildcards):
    return ils_prepared_path(wildcards.experiment)


def ils_study_parts(name, study):
    """The per-size tables of an ORL study (one job per number of clusters / training size)."""
    protocol = config["experiments"][name]["protocol"]
    if study == "orl_clusters":
        return [f"results/{name}/ils/clusters_c{c}.parquet" for c in protocol["cluster_counts"]]
    return [f"results/{name}/ils/train_t{t}.parquet" for t in protocol["train_per_class"]]


def ils_report_input(study, what):
    """Input function: `what` (summary, summaries, parts, selections, orl_summary) of the report's `study` experiment."""

    def inputs(wildcards):
        name = ils_experiment(wildcards.report, study)
        if what == "summary":
            return f"results/{name}/summary.csv"
        if what == "metrics":
            return f"results/{name}/metrics.parquet"
        if what == "summaries":
            chain = config["experiments"][name]["preprocess"]
            return [f"resources/prepared/{chain}/{d}.json" for d in experiment_datasets(name)]
        if what == "orl_summary":
            return ils_prepared_path(name, "json")
        if what == "parts":
            return ils_study_parts(name, study)
        return {
            f"{d}:{m}": ils_selection(name, d, m)
            for d in experiment_datasets(name)
            for m in (ILS_PAPER.ILS, ILS_PAPER.ILS2)
        }

    return inputs


def ils_selection(name, dataset, method):
    """The selection file of the single setting, first repetition, of `method` (the variants comparison)."""
    slugs = list(ex.settings_by_slug(config["experiments"][name], method))
    if len(slugs) != 1:
        raise ValueError(f"experiment {name!r}: method {method!r} must have one setting, got {slugs}.")
    return f"results/{name}/selections/{dataset}/{method}/{slugs[0]}/rep0.npz"


def ils_targets(report):
    """The ILS paper's tables and figures for `report`, for the studies its experiments run."""
    out = []
    if ils_experiment(report, "uci"):
        out += [f"results/{report}/{f}" for f in ("table1.md", "table1.html", "fig1.png", "fig1.pdf", "variants.csv")]
    if ils_experiment(report, "orl_clusters"):
        out += [f"results/{report}/{f}" for f in ("fig2.csv", "fig2.png", "fig2.pdf")]
    if ils_experiment(report, "orl_train_size"):
        out += [f"results/{report}/{f}" for f in ("fig3.csv", "fig3.png", "fig3.pdf")]
    if all(ils_experiment(report, s) for s in ILS_PAPER.STUDIES):
        out += [f"results/{report}/claims.{ext}" for ext in ("md", "html", "csv")]
    return out


PAPER_TARGETS["ils"] = ils_targets

for _exp in config["experiments"].values():
    if _exp["paper"] == "ils":
        ILS_PAPER.check_protocol(_exp["role"], _exp.get("protocol"))  # a bad protocol fails at start-up
