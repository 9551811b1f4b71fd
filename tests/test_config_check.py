"""The config's cross-references, checked once at start-up (ufskit.config_check): the project's configs pass,
and a method whose ranking the preprocessing leaves undefined, or a misspelled placeholder, is named."""

from __future__ import annotations

import copy

import pytest
from snakemake.utils import validate

from conftest import ROOT
from ufskit import config_check, readings
from ufskit.configio import ConfigError
from ufskit.metrics.registry import fill_metric_defaults
from ufskit.papers import scored as scored_papers
from ufskit.protocols import load_config
from ufskit.registry import RegistryError, merge_overlay, registry_from_config

SCHEMA = str(ROOT / "workflow/schemas/config.schema.yaml")


def merged_config(*overlays) -> dict:
    """config/config.yaml with ``overlays`` (file names under config/) merged as Snakemake merges them."""
    config = load_config(ROOT, *(ROOT / "config" / name for name in overlays))  # the papers' protocol files too
    validate(config, schema=SCHEMA)
    fill_metric_defaults(config["experiments"])  # as workflow/rules/common.smk, after the schema
    return config


@pytest.mark.parametrize("overlays", [(), ("offline.yaml",), ("quick.yaml",), ("smoke.yaml",)])
def test_the_project_configs_pass_every_check(overlays, tmp_path):
    config = merged_config(*overlays)
    readings.derive(config, scored_papers())
    config_check.check_config(config, registry_from_config(config, ROOT), tmp_path / "local", tmp_path / "cache")


def _baselines_with(**methods) -> dict:
    config = merged_config()
    config["experiments"]["baselines"]["methods"].update(methods)
    return config


def test_variance_after_z_scoring_is_refused_naming_experiment_method_and_chain():
    config = _baselines_with(Variance={"selector": "Variance"})
    registry = registry_from_config(config, ROOT)
    with pytest.raises(ConfigError, match=r"^experiments\.baselines\.methods\.Variance: the ranking of selector "
                                          r"'Variance' is undefined on dataset 'lymphoma' after the preprocessing "
                                          r"drop_constant -> zscore \(chain 'zscore'\): z-scoring gives every "
                                          r"feature variance 1"):
        config_check.check_protocols(config["experiments"], config["chains"], registry)
    # excluded datasets (by the method, with its reason, or from every experiment) are not run, so not refused
    variance = config["experiments"]["baselines"]["methods"]["Variance"]
    variance["exclude"] = {"lymphoma": "z-scored", "Prostate-GE": "z-scored", "COIL20": "z-scored"}
    config_check.check_protocols(config["experiments"], config["chains"], registry, excluded={"RELATHE": "why"})
    # a chain where the variances differ again, or none at all: defined
    config["experiments"]["baselines"]["preprocess"] = "z_then_l2"
    config_check.check_protocols(config["experiments"], {**config["chains"], "z_then_l2": ["zscore", "l2"]}, registry)
    # dropping columns after z-scoring leaves every variance 1
    with pytest.raises(ConfigError, match=r"dataset 'RELATHE' after the preprocessing zscore -> drop_constant"):
        chains = {**config["chains"], "z_then_l2": ["zscore", {"drop_constant": {}}]}
        config_check.check_protocols(config["experiments"], chains, registry)


def test_a_method_s_metric_options_are_checked_by_the_metrics_registry(tmp_path):
    config = _baselines_with(Random={"selector": "Random", "metrics": {"kmeans": {"n_runs": 0}}})
    with pytest.raises(ValueError, match=r"experiments\.baselines\.methods\.Random\.metrics\.kmeans\.n_runs: 0 "):
        config_check.check_config(config, registry_from_config(config, ROOT), tmp_path / "local", tmp_path / "cache")


def test_the_default_chain_is_each_datasets_own():
    config = merged_config()
    exp = copy.deepcopy(config["experiments"]["benchmark_highdim"])
    exp["methods"] = {"Var": {"selector": "Variance"}}
    registry = registry_from_config(config, ROOT)
    with pytest.raises(ConfigError, match=r"experiments\.e\.methods\.Var: .* on dataset 'CLL-SUB-111' after the "
                                          r"preprocessing drop_constant -> zscore \(the registry's default chain\)"):
        config_check.check_protocols({"e": exp}, config["chains"], registry)
    exp["datasets"] = ["ORL"]  # its default chain is [drop_constant]: the variances differ
    config_check.check_protocols({"e": exp}, config["chains"], registry)


def test_the_check_runs_at_start_up_with_the_rest():
    config = _baselines_with(Variance={"selector": "Variance"})
    with pytest.raises(ConfigError, match=r"experiments\.baselines\.methods\.Variance: .*undefined"):
        config_check.check_config(config, registry_from_config(config, ROOT))


@pytest.mark.parametrize(("value", "hint"), [
    ("n_clases", "did you mean 'n_classes'"),
    ("n_class", "did you mean 'n_classes'"),
    ("upto 100", r"'upto<m>' takes an integer m >= 1"),
])
def test_a_misspelled_placeholder_is_named_with_the_parameter_method_and_placeholders(value, hint):
    exp = {"datasets": ["wine"], "n_features": [2], "metrics": {"kmeans": {"n_runs": 1}},
           "methods": {"M": {"selector": "MCFS", "params": {"n_clusters": value}}}}
    with pytest.raises(ConfigError, match=rf"^experiments\.e\.methods\.M: parameter 'n_clusters' of selector 'MCFS' "
                                          rf"= '{value}' is not a placeholder \({hint}.*\)\. The placeholders, "
                                          r"replaced on each dataset, are 'n_classes', 'upto<m>', 'ivfs_table'\.$"):
        config_check.check_methods({"e": exp})


def test_a_refused_string_unlike_any_placeholder_keeps_the_selectors_message():
    exp = {"datasets": ["wine"], "n_features": [2], "metrics": {"kmeans": {"n_runs": 1}},
           "methods": {"M": {"selector": "LaplacianScore", "params": {"weight": "gauss"}}}}
    with pytest.raises(ConfigError, match=r"experiments\.e\.methods\.M: selector 'LaplacianScore': "
                                          r"The 'weight' parameter of LaplacianScore must be"):
        config_check.check_methods({"e": exp})


# ---- the registry's schema (workflow/schemas/datasets.schema.yaml) -----------------------

LOCAL = {"path": "x.csv", "loader": "table", "description": "mine"}


@pytest.mark.parametrize(("entry", "message"), [
    ({**LOCAL, "shape": [3]}, r"datasets\.mine\.shape: must be \[n, d\], two positive ints \(d may be null\), or null, "
                              r"got \[3\]"),
    ({**LOCAL, "n_classes": 2.0}, r"datasets\.mine\.n_classes: must be a positive int or null, got 2\.0"),
    ({**LOCAL, "path": " "}, r"datasets\.mine\.path: must be the path of a data file, got ' '"),
    ({**LOCAL, "source": "wine_uci"}, r"datasets\.mine: unknown key\(s\) 'source'; allowed: description, loader, "
                                      r"n_classes, options, papers, path, preprocess, shape$"),
    ({"loader": "mat", "description": "d"}, r"datasets\.mine: missing key\(s\) 'source', 'shape', 'n_classes'$"),
])
def test_overlay_datasets_are_checked_against_the_schema(entry, message):
    registry = registry_from_config({"data": {"registry": "config/datasets.yaml"}}, ROOT)
    with pytest.raises(RegistryError, match=r"^config \(merged with the registry\): " + message):
        merge_overlay(registry, None, {"mine": entry})


def test_schema_messages_name_the_innermost_key_with_a_message():
    registry = registry_from_config({"data": {"registry": "config/datasets.yaml"}}, ROOT)
    source = {"mirrored": False, "files": [{"path": "m/m.mat", "url": None, "sha256": "0" * 64}]}
    with pytest.raises(RegistryError, match=r"sources\.s\.files\[0\]\.url: a file that is not in the mirror needs "
                                            r"an upstream URL, got None"):
        merge_overlay(registry, {"s": source}, None)
    with pytest.raises(RegistryError, match=r"sources\.s\.files\[0\]: must be a mapping, got int$"):
        merge_overlay(registry, {"s": {**source, "files": [3]}}, None)
    with pytest.raises(RegistryError, match=r"sources\.s: needs a non-empty 'files' list or a 'file_list'$"):
        merge_overlay(registry, {"s": {**source, "files": []}}, None)


def test_an_experiment_a_reading_derives_is_checked_against_the_experiment_schema(tmp_path):
    config = merged_config()
    config["readings"]["kudfs_kmeans_random"]["overrides"]["metrics"]["kmeans"]["n_runs"] = "three"
    folders = readings.derive(config, scored_papers())
    derived = sorted({n for f in folders.values() for n in f["experiments"] if n.startswith("readings/")})
    assert "readings/kudfs_kmeans_random/kudfs_table1" in derived
    config_check.check_experiment_schema(config["experiments"], derived, SCHEMA)  # metrics: the registry's
    with pytest.raises(ValueError, match=r"^experiments\.readings/kudfs_kmeans_random/kudfs_\w+\.metrics\.kmeans\."
                                         r"n_runs: 'three' is not of type 'integer'"):
        config_check.check_config(config, registry_from_config(config, ROOT), tmp_path / "local", tmp_path / "cache")


def test_the_selector_checks_are_skipped_only_while_nothing_they_read_changes(tmp_path, monkeypatch):
    config = merged_config("smoke.yaml")
    registry = registry_from_config(config, ROOT)
    record = tmp_path / "checked.sha256"
    calls = []
    monkeypatch.setattr(config_check, "check_methods", lambda experiments: calls.append("methods"))

    def check():
        config_check.check_config(config, registry, tmp_path / "local", tmp_path / "cache", record)

    check()
    assert calls == ["methods"] and record.is_file()
    check()
    assert calls == ["methods"]  # unchanged: skipped
    config["experiments"]["smoke"]["methods"]["LS"]["params"]["n_neighbors"] = 7
    check()
    assert calls == ["methods"] * 2  # a parameter changed: checked again
    config["experiments"]["smoke"]["methods"]["Mine"] = {"selector": "my_module:Mine"}
    assert config_check.selector_fingerprint(config["experiments"], registry) is None  # user code: always checked


def test_the_entry_point_group_is_the_selectors_one():
    from ufskit.selectors.plugins import ENTRY_POINT_GROUP

    assert config_check.ENTRY_POINT_GROUP == ENTRY_POINT_GROUP


def test_an_exclusion_that_empties_an_experiment_is_a_start_up_error_naming_both(tmp_path):
    """Issue 39: it failed at the end with "no metric files to aggregate", never naming the exclusion."""
    config = merged_config("quick.yaml")
    experiment = config["run"][0]
    config["data"]["exclude"] = {d: "not in my mirror" for d in config["experiments"][experiment]["datasets"]}
    first = config["experiments"][experiment]["datasets"][0]
    with pytest.raises(ConfigError, match=rf"removes every dataset of experiment '{experiment}' \({first}: not in my"):
        config_check.check_config(config, registry_from_config(config, ROOT), tmp_path / "local", tmp_path / "cache")


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path, capsys):
    """Snakemake says "Config file is not valid JSON or YAML" for an overlay; the check names file and line."""
    from ufskit.configio import load_yaml, main

    bad = tmp_path / "overlay.yaml"
    bad.write_text("run: [quick_ils_uci]\nexperiments:\n  a: [1, 2\n  b: 3\n")
    with pytest.raises(ConfigError, match=r"overlay\.yaml, line 4, column 4: not valid YAML"):
        load_yaml(bad)
    assert main([str(bad), str(ROOT / "config/quick.yaml")]) == 1
    out = capsys.readouterr().out
    assert "overlay.yaml, line 4" in out and "quick.yaml: valid YAML" in out
    assert "load_yaml(" in (ROOT / "Snakefile").read_text().split("configfile:")[0]  # the Snakefile's own config


def test_variance_may_select_on_the_unscaled_chain_and_the_option_is_checked():
    """`select_preprocess: default_unscaled`: each dataset's registry chain without its final z-scoring, so Variance
    has its natural input where the experiment standardises (the benchmark); an unknown chain or batching is
    refused, naming the key."""
    from ufskit import experiments as ex

    assert ex.unscaled_steps(["drop_constant", "zscore"]) == ["drop_constant"]
    assert ex.unscaled_steps(["zscore", "drop_constant"]) == ["drop_constant"]  # dropping columns commutes
    assert ex.unscaled_steps(["zscore", "l2"]) == ["zscore", "l2"]  # not a final scaling: unchanged
    assert ex.unscaled_steps(["log10", "drop_constant", "quantile", "double_center"])[-1] == "double_center"
    config = merged_config()
    exp = copy.deepcopy(config["experiments"]["benchmark_highdim"])
    exp["methods"] = {"Var": {"selector": "Variance", "select_preprocess": ex.UNSCALED}}
    registry = registry_from_config(config, ROOT)
    assert ex.selection_chain(exp, "Var") == ex.UNSCALED
    config_check.check_protocols({"e": exp}, config["chains"], registry)  # defined on every set now
    exp["methods"]["Var"]["select_preprocess"] = "zscore"
    with pytest.raises(ConfigError, match=r"on dataset 'ORL' .*chain 'zscore' \(methods\.Var\."
                                          r"select_preprocess\)"):
        config_check.check_protocols({"e": exp}, config["chains"], registry)
    exp["methods"]["Var"]["select_preprocess"] = "unscald"
    with pytest.raises(ValueError, match=r"experiments\.e\.methods\.Var\.select_preprocess: unknown chain 'unscald'"):
        config_check._check_experiment("e", exp, config["chains"], registry)
    exp["methods"]["Var"] = {"selector": "Variance", "select_preprocess": ex.UNSCALED, "batch": True}
    with pytest.raises(ValueError, match=r"select_preprocess is not supported with `batch: true`"):
        config_check._check_experiment("e", exp, config["chains"], registry)


def test_a_selection_on_other_columns_than_the_evaluated_ones_is_refused():
    import numpy as np

    from ufskit.data import Dataset
    from ufskit.experiments import check_same_columns

    y = np.zeros(3, dtype=int)
    a = Dataset(np.ones((3, 2)), y, np.array(["f0", "f1"]), {})
    check_same_columns(a, Dataset(np.zeros((3, 2)), y, np.array(["f0", "f1"]), {}))
    with pytest.raises(ValueError, match="differ in their columns"):
        check_same_columns(a, Dataset(np.zeros((3, 2)), y, np.array(["f0", "f2"]), {}))
    with pytest.raises(ValueError, match=r"\(2 columns\) and the data it is evaluated on  \(3 columns\)"):
        check_same_columns(a, Dataset(np.zeros((3, 3)), y, None, {}))
