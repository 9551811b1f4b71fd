"""Named readings (ufskit.readings): derived experiments and the start-up errors of a bad overlay."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

from conftest import ROOT
from ufskit import readings as R
from ufskit.papers import scored
from ufskit.protocols import load_config


def full_config():
    return load_config(ROOT)  # config/config.yaml with the papers' protocols/full.yaml


def smoke_config():
    return load_config(ROOT, ROOT / "config/smoke.yaml")


def test_cheap_readings_derive_their_experiments_and_share_the_others():
    config = smoke_config()
    folders = R.derive(config, scored())
    assert R.selected(config) == ["ivfs_literal_epsilon", "kudfs_width_sigma2", "kudfs_kmeans_random", "nrfs_q50",
                                  "nrfs_no_trivial_spectrum", "nrfs_text_l2"]
    other = smoke_config()
    other["readings"]["nrfs_text_l2"]["cost"]["class"] = "expensive"
    assert "nrfs_text_l2" not in R.selected(other)  # the default target leaves expensive ones out
    folder = folders["readings/kudfs_width_sigma2/smoke_kudfs"]
    assert folder["base"] == "smoke_kudfs" and folder["reading"] == "kudfs_width_sigma2"
    assert folder["experiments"] == ["smoke_kudfs_udfs", "readings/kudfs_width_sigma2/smoke_kudfs_table1",
                                     "smoke_kudfs_fig1", "smoke_kudfs_fig2"]  # only table1 changes
    derived = config["experiments"]["readings/kudfs_width_sigma2/smoke_kudfs_table1"]
    assert derived["methods"]["KernelUDFS"]["params"]["width_form"] == "sigma2"
    assert derived["methods"]["KernelUDFS"]["params"]["n_neighbors"] == 5  # merged, not replaced
    assert derived["report_dir"] == "readings/kudfs_width_sigma2/smoke_kudfs"
    assert "width_form" not in config["experiments"]["smoke_kudfs_table1"]["methods"]["KernelUDFS"]["params"]
    assert config["experiments"]["readings/kudfs_kmeans_random/smoke_kudfs_udfs"]["metrics"]["kmeans"] == {
        "n_runs": 3, "n_init": 1, "init": "random"}
    assert "readings/nrfs_no_trivial_spectrum/smoke_nrfs_synthetic" in config["run"]
    assert not any("ivfs" in f for f in folders)  # computed beside the main reading: nothing derived


def test_run_readings_chooses_which_are_derived():
    for choice, expected in [("none", []), (["nrfs_q50"], ["nrfs_q50"]), ("all", list(full_config()["readings"]))]:
        config = smoke_config()
        config["run_readings"] = choice
        assert R.selected(config) == expected
    config = smoke_config()
    config["run_readings"] = ["nrfs_q5"]
    with pytest.raises(ValueError, match=r"run_readings: unknown reading\(s\) \['nrfs_q5'\]"):
        R.derive(config, scored())


@pytest.mark.parametrize("change, message", [
    ({"overrides": {"method": {}}}, r"readings.bad: unknown override key\(s\) \['method'\]"),
    ({"overrides": {"methods": {"KernelUDF": {"params": {"sigma": 1}}}}},
     r"readings.bad: override of method 'KernelUDF': experiment 'kudfs_table1' has methods \['KernelUDFS'\]"),
    ({"overrides": {"methods": {"KernelUDFS": {"param": {}}}}}, r"unknown key\(s\) \['param'\]"),
    ({"overrides": {"methods": {"KernelUDFS": {"params": {"kernel_const": 1}}}}}, r"has them in its grid"),
    ({"overrides": {"metrics": {"knn": {"ks": [1]}}}}, r"override of metric 'knn'"),
    ({"experiments": ["kudfs_tabel1"]}, r"unknown experiment 'kudfs_tabel1'"),
    ({"experiments": ["nrfs_synthetic"]}, r"belongs to paper 'nrfs', not 'kudfs'"),
    ({"cost": {"class": "free", "estimate": "x"}}, r"cost needs class"),
    ({"costs": 1}, r"unknown key\(s\) \['costs'\]"),
    ({"beside": {"w11": "w11_literal"}}, r"either experiments"),
])
def test_a_bad_reading_is_an_error_naming_it_and_the_key(change, message):
    config = full_config()
    bad = {**copy.deepcopy(config["readings"]["kudfs_width_sigma2"]), **change}
    config["readings"]["bad"] = bad
    with pytest.raises(ValueError, match=message):
        R.derive(config, scored())


@pytest.mark.workflow
def test_the_workflow_stops_at_start_up_on_an_unknown_override(tmp_path):
    overlay = tmp_path / "bad.yaml"
    overlay.write_text("readings:\n  kudfs_width_sigma2:\n    overrides: {methods: {KernelUDFS: {params: {width: 1}}}}\n")
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-n", "--cores", "1",
           "--configfile", str(ROOT / "config/smoke.yaml"), str(overlay)]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    # the derived experiment goes through the same parameter-name check as the main ones
    assert "experiments.readings/kudfs_width_sigma2/smoke_kudfs_table1.methods.KernelUDFS" in text
    assert "'width': did you mean 'width_form'?" in text


def test_a_reading_shares_its_main_experiments_seeds():
    """A derived experiment's seeds are the main one's, so a reading differs by its choices alone."""
    assert R.seed_identity("readings/nrfs_q50/nrfs_synthetic") == "nrfs_synthetic"
    assert R.seed_identity("nrfs_synthetic") == "nrfs_synthetic"


def test_the_nrfs_q50_reading_runs_another_q_than_the_main_experiment():
    """Its q on the synthetic data's 34 features: 34 (q = 50 capped at m), not the main experiment's q = 1
    (NRFS's "auto" is 1 on m = 34: an "auto" override made the reading repeat the main run)."""
    import numpy as np

    from ufskit.selectors import NRFS

    config = full_config()
    main = config["experiments"]["nrfs_synthetic"]["methods"]["NRFS"]["params"]
    reading = {**main, **config["readings"]["nrfs_q50"]["overrides"]["methods"]["NRFS"]["params"]}
    X = np.random.default_rng(0).standard_normal((120, 34))
    fitted = [NRFS(**{**params, "n_clusters": 2}).set_params(random_state=0).fit(X).n_neighbors_features_
              for params in (main, reading)]
    assert fitted == [1, 34]
