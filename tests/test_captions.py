"""Report captions from the run: ufskit.captions' facts, and every workflow/report/*.rst rendered as Snakemake does.

Each caption is rendered with Jinja (strict: a missing key fails) on the facts of the smoke
config's report folders, then published by docutils, and must state the protocol, the datasets
that ran and the settings, never the full protocol's.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml
from docutils.core import publish_parts
from jinja2 import Environment, StrictUndefined

from conftest import ROOT
from ufskit import captions as C
from ufskit.papers import benchmark as B

REPORT = ROOT / "workflow/report"


@pytest.fixture(scope="module")
def smoke():
    return yaml.safe_load((ROOT / "config/smoke.yaml").read_text())


def test_counts_are_written_as_a_reader_would():
    assert C.counts_text([20, 60]) == "20, 60"
    assert C.counts_text("all") == "1, 2, ..., d (every count)"
    assert C.counts_text({"upto": 6, "step": 2}) == "2, 4, ... up to min(6, d)"
    assert C.counts_text({"fractions": [0.2, 0.5]}) == "ceil(f x d) for f = 0.2, 0.5"
    with pytest.raises(ValueError, match="n_features"):
        C.counts_text(7)


def test_facts_name_the_protocol_datasets_settings_and_repetitions(smoke):
    facts = C.run_facts(smoke, ["smoke_ivfs"])
    assert facts["protocol"] == "smoke" and not facts["full"]
    assert facts["extent"] == "reproduced in reduced form (smoke protocol)"
    assert facts["datasets"] == ["lymphoma"] and facts["n_datasets"] == 1
    text = facts["produced_by"]
    assert "Experiment ``smoke_ivfs``: dataset lymphoma;" in text and "2 repetitions" in text
    assert "MCFS (MCFS: max_nonzero = 10, n_neighbors = 5; n_clusters in {2, 3}) x 1 rep." in text
    assert "feature counts 2, 5, 10" in text
    full = C.run_facts({**smoke, "protocol": "full"}, ["smoke_ivfs"])
    assert full["extent"] == "reproduced" and full["full"]
    assert C.run_facts({k: v for k, v in smoke.items() if k != "protocol"}, [])["protocol"] == "full"
    with pytest.raises(ValueError, match="protocol"):
        C.run_facts({**smoke, "protocol": "fast"}, [])


def test_a_reading_folder_says_which_reading_it_computes(smoke):
    derived = "readings/kudfs_width_sigma2/smoke_kudfs_table1"
    config = {**smoke, "experiments": {**smoke["experiments"], derived: smoke["experiments"]["smoke_kudfs_table1"]}}
    facts = C.run_facts(config, ["smoke_kudfs_udfs", derived])
    assert facts["readings"] == ["kudfs_width_sigma2"]
    assert facts["extent"] == ("reproduced in reduced form (smoke protocol) under the alternative reading "
                               "kudfs_width_sigma2 (docs/fidelity/readings.md)")
    assert C.run_facts(smoke, ["smoke_kudfs_udfs"])["readings"] == []


# caption -> (report folder of the smoke config, wildcards, the rule's other params)
CASES = {
    "ils_fig1": ("smoke_ils", {}, {"cv1nn": {"n_folds": 3, "n_repeats": 2}}),
    "ils_orl_figure": ("smoke_ils", {"figure": "fig2"}, {"settings": {"runs": 2}}),
    "ils_table1": ("smoke_ils", {}, {}),
    "ils_variants": ("smoke_ils", {}, {}),
    "ils_claims": ("smoke_ils", {}, {}),
    "ivfs_curves": ("smoke_ivfs", {"figure": "fig3"}, {}),
    "ivfs_fig4": ("smoke_ivfs", {}, {}),
    "ivfs_table1": ("smoke_ivfs", {}, {}),
    "ivfs_table2": ("smoke_ivfs", {}, {}),
    "ivfs_claims": ("smoke_ivfs", {}, {}),
    "ivfs_seed_correlation": ("smoke_ivfs", {}, {}),
    "kudfs_fig1": ("smoke_kudfs", {}, {"dataset": "thyroid", "kernel": "RBF kernel, sigma = 1",
                                       "labels": ["sigma=1, gamma=1, lam=1000"]}),
    "kudfs_fig2": ("smoke_kudfs", {}, {"kernel": "RBF kernel, sigma = 1"}),
    "kudfs_table1": ("smoke_kudfs", {}, {}),
    "kudfs_claims": ("smoke_kudfs", {}, {}),
    "nrfs_fig1": ("smoke_nrfs", {}, {}),
    "nrfs_fig4": ("smoke_nrfs", {}, {}),
    "nrfs_fig5": ("smoke_nrfs", {}, {}),
    "nrfs_fig6": ("smoke_nrfs", {}, {}),
    "nrfs_fig7": ("smoke_nrfs", {}, {}),
    "nrfs_table1": ("smoke_nrfs", {}, {}),
    "nrfs_sensitivity": ("smoke_nrfs", {}, {}),
    "nrfs_table2": ("smoke_nrfs", {}, {}),
    "nrfs_claims": ("smoke_nrfs", {}, {}),
    "nrfs_spectrum": ("smoke_nrfs", {}, {}),
    "nrfs_oracle": ("smoke_nrfs", {}, {}),
    "benchmark_heatmap": ("smoke_benchmark", {}, {"title": B.TITLE}),
    "benchmark_summary": ("smoke_benchmark", {}, {"title": B.TITLE}),
    "benchmark_stats": ("smoke_benchmark", {}, {"title": B.TITLE}),
    "benchmark_cd": ("smoke_benchmark", {}, {"title": B.TITLE}),
    "benchmark_vs_random": ("smoke_benchmark", {}, {"title": B.TITLE}),
    "paper_stats": ("smoke_ivfs", {}, {"table": "Table 1", "values": "best over the Table 1 settings and counts"}),
    "scorecard": (None, {}, {}),
}


def _experiments(config, report):
    names = list(config["experiments"]) if report == "smoke_benchmark" else config["run"]
    return [n for n in names if report is None or config["experiments"][n].get("report_dir") == report]


def _render(name, config, report, wildcards, params):
    template = Environment(trim_blocks=True, lstrip_blocks=True, undefined=StrictUndefined).from_string(
        (REPORT / f"{name}.rst").read_text())
    run = C.run_facts(config, _experiments(config, report))
    snakemake = SimpleNamespace(params=SimpleNamespace(run=run, **params), config=config,
                                wildcards=SimpleNamespace(report=report, **wildcards))
    return template.render(snakemake=snakemake)


def test_every_caption_has_a_case():
    assert {p.stem for p in REPORT.glob("*.rst")} - {"workflow"} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_captions_render_from_the_run(name, smoke):
    report, wildcards, params = CASES[name]
    text = _render(name, smoke, report, wildcards, params)
    html = publish_parts(text, writer="html", settings_overrides={"report_level": 2, "halt_level": 2})["body"]
    assert "smoke protocol" in text and "{{" not in text and "{%" not in text
    run = C.run_facts(smoke, _experiments(smoke, report))
    assert any(d in text for d in run["datasets"])
    assert "System Message" not in html  # valid reStructuredText
    if name not in {"scorecard"}:
        assert "Run settings." in text and "Experiment ``" in text


def test_captions_name_what_ran_not_the_full_protocol(smoke):
    fig1 = _render("ils_fig1", smoke, "smoke_ils", {}, {"cv1nn": {"n_folds": 3, "n_repeats": 2}})
    assert "3-fold" in fig1 and "2 repeat(s)" in fig1 and "(wine; the paper: eight)" in fig1
    kudfs = _render("kudfs_fig1", smoke, "smoke_kudfs", {}, CASES["kudfs_fig1"][2])
    assert "on thyroid (the paper: ionosphere" in kudfs
    fig5 = _render("nrfs_fig5", smoke, "smoke_nrfs", {}, {})
    assert "Brain_Tumor2 at 20, 60 features" in " ".join(fig5.split())
    band = "quantiles of Random's runs (4 repetitions; kmeans n_runs = 1): uniformly random feature subsets"
    assert band in " ".join(fig5.split())
    assert "Random's runs (4 repetitions; knn n_splits = 1)" in _render("ivfs_curves", smoke, *CASES["ivfs_curves"][:2], {})
    assert "Random's runs" not in _render("ils_orl_figure", smoke, "smoke_ils", {"figure": "fig3"}, {"settings": {"n_splits": 2}})
    full = _render("nrfs_fig5", {**smoke, "protocol": "full"}, "smoke_nrfs", {}, {})
    assert "reduced" not in full and "protocol" not in full.split("Run settings.")[0].replace("(the paper", "")


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if n.startswith("benchmark_")])
def test_a_users_benchmark_captions_name_it(name, smoke):
    title = B.title("own_benchmark", ["own_data"], "smoke")
    text = _render(name, smoke, "smoke_benchmark", {}, {"title": title})
    assert title == "Benchmark: own_data" and f"**{title}" in text and "Cross-paper" not in text
