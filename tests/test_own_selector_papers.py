"""A user's selector in every paper's protocol: the ``extra_methods`` overlay (config/examples/
own_selector_papers.yaml) merged into the paper experiments, marked "not in the paper", checked like any method."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
from snakemake.utils import validate

from conftest import ROOT
from ufskit import config_check, readings, startup
from ufskit.configio import ConfigError, merge_extra_methods
from ufskit.papers import EXTRA_MARK, EXTRA_NOTE, extra_labels, ils, kudfs, nrfs, paper_rows, with_in_paper
from ufskit.papers import scored as scored_papers
from ufskit.papers.benchmark_stats import paper_table_stats
from ufskit.papers.ivfs import check_protocol, fixed_slug
from ufskit.papers.ivfs import report as ivfs_report
from ufskit.protocols import load_config
from ufskit.registry import registry_from_config
from ufskit.scorecard import load_report

SCHEMA = str(ROOT / "workflow/schemas/config.schema.yaml")
OVERLAY = ROOT / "config/examples/own_selector_papers.yaml"
MINE = {"selector": "my_selector:ClusterSeparation", "params": {"n_clusters": "n_classes"}}


def quick_with_overlay() -> dict:
    """config.yaml, quick.yaml and the example overlay merged as Snakemake merges them, then the extras merged."""
    config = load_config(ROOT, ROOT / "config/quick.yaml", OVERLAY)
    merge_extra_methods(config)
    return config


def test_the_example_overlay_adds_the_selector_to_every_paper_and_passes_every_check(tmp_path):
    config = quick_with_overlay()
    validate(config, schema=SCHEMA)
    papers = {config["experiments"][name]["paper"] for name in config["extra_methods"]}
    assert papers == {"ils", "kudfs", "nrfs", "ivfs"}
    for name in config["extra_methods"]:
        methods = config["experiments"][name]["methods"]
        assert extra_labels(methods) == ["ClusterSeparation"]
        assert methods["ClusterSeparation"]["selector"] == MINE["selector"]
    startup.use_python_path([str(OVERLAY.parent)])
    readings.derive(config, scored_papers())
    config_check.check_config(config, registry_from_config(config, ROOT), tmp_path / "local", tmp_path / "cache")


def test_the_merge_marks_the_added_methods_and_is_idempotent():
    config = {"extra_methods": {"e": {"Mine": MINE}},
              "experiments": {"e": {"methods": {"LS": {"selector": "LaplacianScore"}}}}}
    merge_extra_methods(config)
    once = copy.deepcopy(config)
    merge_extra_methods(config)
    assert config == once
    methods = config["experiments"]["e"]["methods"]
    assert methods["Mine"] == {**MINE, "extra": True} and "extra" not in methods["LS"]
    assert extra_labels(methods) == ["Mine"]


@pytest.mark.parametrize("extras, message", [
    ({"quick_ivf": {"Mine": MINE}}, r"extra_methods.quick_ivf: unknown experiment. Did you mean 'quick_ivfs'\?"),
    ({"quick_ivfs": {"SPEC": MINE}}, r"extra_methods.quick_ivfs.SPEC: experiment 'quick_ivfs' already has a method"),
    ({"quick_ivfs": {}}, r"extra_methods.quick_ivfs must map method labels to method blocks"),
    ({"quick_ivfs": {"Mine": "my_selector:ClusterSeparation"}}, r"extra_methods.quick_ivfs.Mine must be a method"),
    (["quick_ivfs"], r"extra_methods must be a mapping"),
])
def test_a_wrong_overlay_is_refused_naming_the_key(extras, message):
    config = load_config(ROOT, ROOT / "config/quick.yaml")
    config["extra_methods"] = extras
    with pytest.raises(ConfigError, match=message):
        merge_extra_methods(config)


def test_an_added_method_is_checked_like_any_method():
    config = quick_with_overlay()
    config["experiments"]["quick_ivfs"]["methods"]["ClusterSeparation"]["params"]["n_clusterz"] = 3
    startup.use_python_path([str(OVERLAY.parent)])
    with pytest.raises(ConfigError, match=r"experiments.quick_ivfs.methods.ClusterSeparation: .*n_clusterz"):
        config_check.check_methods({"quick_ivfs": config["experiments"]["quick_ivfs"]})


def test_an_added_ivfs_method_needs_a_fixed_setting_only_with_a_grid():
    exp = quick_with_overlay()["experiments"]["quick_ivfs"]
    protocol = check_protocol(exp["protocol"], exp["methods"])
    assert fixed_slug(exp["methods"], protocol, "ClusterSeparation")
    exp["methods"]["ClusterSeparation"]["grid"] = {"n_init": [1, 5]}
    with pytest.raises(ValueError, match=r"protocol.fixed.ClusterSeparation = \{\} matches 2 settings"):
        check_protocol(exp["protocol"], exp["methods"])


def _ivfs_long(methods: dict) -> pd.DataFrame:
    """An IVFS Table 1 in long form, one dataset, every metric 1.0, published only for the paper's method."""
    rows = [{"dataset": "lymphoma", "n": 96, "d": 4026, "classes": 9, "method": m, "metric": metric, "reproduced": 1.0,
             "published": None if methods[m].get("extra") else 2.0, "params": "p", "n_features": 50, "status": "ok",
             "beyond_ranked": False} for m in methods for metric in ivfs_report.TABLE1]
    return with_in_paper(pd.DataFrame(rows), methods)


def test_an_added_method_is_a_marked_row_of_ivfs_table1_and_no_claim_or_scorecard_number(tmp_path):
    paper = {"IVFS-linf": {"selector": "IVFS"}}
    assert "in_paper" not in _ivfs_long(paper)  # no overlay: the table as before
    long = _ivfs_long({**paper, "Mine": {**MINE, "extra": True}})
    assert long.groupby("method")["in_paper"].all().to_dict() == {"IVFS-linf": True, "Mine": False}
    md = ivfs_report.table1_markdown(long)
    assert f"| Mine{EXTRA_MARK} |" in md and "| IVFS-linf |" in md and md.rstrip().endswith(EXTRA_NOTE)
    chance = ivfs_report.table1_chance_markdown(long.assign(G=2, chance_best_of_g=0.5, chance_std=0.1))
    assert f"| Mine{EXTRA_MARK} | 2 |" in chance and "| IVFS-linf | 2 |" in chance
    assert set(paper_rows(long)["method"]) == {"IVFS-linf"}
    path = tmp_path / "table1.csv"
    long.to_csv(path, index=False)
    loaded = load_report("quick_ivfs", {"table1": str(path)})
    assert set(loaded.tables["table1"]["method"]) == {"IVFS-linf"}


def test_an_added_method_is_a_marked_column_of_kudfs_table1_and_ranked_with_the_paper_s(rng):
    rows = [{"dataset": ds, "method": m, "params": "p", "n_features": k, "metric": "kmeans_acc",
             "value": base + 0.01 * k + rng.uniform(0, 0.0001)}
            for ds in ("thyroid", "wdbc", "ionosphere") for m, base in (("UDFS", 0.5), ("Mine", 0.6)) for k in (1, 2)]
    udfs = pd.DataFrame(rows)
    kernel = udfs[udfs["method"] == "UDFS"].assign(method="KernelUDFS", value=lambda f: f["value"] + 0.2)
    dims = {"thyroid": 5, "wdbc": 30, "ionosphere": 33}
    published = pd.DataFrame({"all_features": [1.0], "udfs": [2.0], "kernel_udfs": [3.0]}, index=["thyroid"])
    table = kudfs.table1(udfs, kernel, dims, published, extra=["Mine"])
    assert table["extra_Mine"].round(1).tolist() == [62.0] * 3 and table["extra_Mine_n_features"].tolist() == [2] * 3
    md = kudfs.table1_markdown(table)
    assert f"| Mine{EXTRA_MARK} |" in md and "62.0 at 2 features" in md and md.rstrip().endswith(EXTRA_NOTE)
    assert "extra_Mine" not in kudfs.table1(udfs, kernel, dims, published)  # no overlay: the table as before
    # the scorecard reads the published columns only; the statistics rank the three methods on the three datasets
    assert set(kudfs.PAPER.readers["table1"](table)["method"]) == {"All Features", "UDFS", "KernelUDFS"}
    stats, results = paper_table_stats(kudfs.table1_values(table))
    res = results["kmeans_acc"]
    assert (res["n_datasets"], res["n_methods"]) == (3, 3)
    assert res["mean_ranks"].to_dict() == {"UDFS": 3.0, "KernelUDFS": 1.0, "Mine": 2.0}
    assert set(stats["method"]) == {"UDFS", "KernelUDFS", "Mine"}


def test_nrfs_table1_and_fig5_mark_an_added_method_and_ils_fig1_values_take_its_best_setting():
    methods = {"NRFS": {"selector": "NRFS"}, "Mine": {**MINE, "extra": True}}
    table = with_in_paper(pd.DataFrame({"method": ["K-means", "NRFS", "Mine"], "nmi_all": [0.5, 0.9, 0.7],
                                        "nmi_all_std": 0.0, "nmi_normal": 0.5, "nmi_normal_std": 0.0, "runs": 3,
                                        "informative_share_all": 0.0, "informative_share_normal": 0.0,
                                        "nmi_all_fig": 0.0, "nmi_normal_fig": 0.0, "informative_share_all_fig": 0.0,
                                        "published_nmi_all": [0.4, 1.0, None],
                                        "published_nmi_normal": [0.4, 1.0, None]}), methods)
    md = nrfs.table1_markdown(table, 4)
    assert f"| Mine{EXTRA_MARK} |" in md and "| NRFS |" in md and md.rstrip().endswith(EXTRA_NOTE)
    assert set(nrfs.PAPER.readers["table1"](paper_rows(table))["method"]) == {"K-means", "NRFS"}
    curves = pd.DataFrame({"dataset": ["a", "a", "a", "a"], "method": ["NRFS", "NRFS", "Mine", "Mine"],
                           "n_features": [10, 20, 10, 20], "nmi": [0.2, 0.4, 0.1, 0.5]})
    assert nrfs.fig5_values(curves).set_index("method")["value"].round(6).to_dict() == {"NRFS": 0.3, "Mine": 0.3}
    summary = pd.DataFrame({"dataset": "wine", "method": ["Mine", "Mine", "Mine", "Mine"],
                            "params": ["k=1", "k=1", "k=2", "k=2"], "n_features": [1, 2, 1, 2],
                            "metric": "cv1nn_acc", "mean": [0.5, 0.7, 0.8, 0.9]})
    assert ils.fig1_values(summary)["value"].round(6).tolist() == [0.85]
