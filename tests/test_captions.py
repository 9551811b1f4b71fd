"""Report captions from the run: ufskit.captions' facts, and every caption rendered as Snakemake does.

Every output that the smoke run puts in the report (each registered paper's tables and figures, the
scorecard) has its caption rendered with Jinja (strict: a missing key fails) from the params and
wildcards of its job in the smoke DAG, then published by docutils: it must state the protocol, the
datasets that ran and the settings, never the full protocol's. A paper outside the package (the toy
paper) is rendered on its own smoke run (its folder's protocols/smoke.yaml, the folder in `paper_folders`).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from docutils.core import publish_parts
from jinja2 import Environment, StrictUndefined

from conftest import ROOT
from ufskit import captions as C
from ufskit import papers
from ufskit.papers import benchmark as B
from ufskit.protocols import load_config, read_protocols

REPORT = ROOT / "workflow/report"
TOY = ROOT / "tests/papers/toy"


@pytest.fixture(scope="module")
def smoke():
    return load_config(ROOT, ROOT / "config/smoke.yaml")


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


def report_jobs(tmp, *configs):
    """(caption, rule, params, wildcards, config) of each report output of the DAG under `configs` (tests/report_jobs.py)."""
    out = tmp / "jobs.pickle"
    proc = subprocess.run([sys.executable, str(ROOT / "tests/report_jobs.py"), str(ROOT / "Snakefile"), str(out),
                           *map(str, configs)], cwd=tmp, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return pickle.loads(out.read_bytes())


@pytest.fixture(scope="module")
def smoke_jobs(tmp_path_factory, smoke):
    """The report outputs of the smoke config with every paper experiment in `run` (the benchmark's too), and of
    the toy paper's smoke run."""
    folder = tmp_path_factory.mktemp("smoke")
    every = folder / "every_paper.yaml"
    every.write_text(yaml.safe_dump({"run": [n for _, block in read_protocols(papers.registry(), "smoke")
                                             for n in block["experiments"]]}))
    toy = tmp_path_factory.mktemp("toy")
    (toy / "toy.yaml").write_text(yaml.safe_dump({"paper_folders": [str(TOY.parent)], "run": ["smoke_toy_wine"]}))
    return (report_jobs(folder, ROOT / "config/smoke.yaml", every)
            + report_jobs(toy, ROOT / "config/smoke.yaml", toy / "toy.yaml"))


def _render(caption, params, wildcards, config):
    template = Environment(trim_blocks=True, lstrip_blocks=True, undefined=StrictUndefined).from_string(
        Path(caption).read_text())
    snakemake = SimpleNamespace(params=SimpleNamespace(**params), config=config,
                                wildcards=SimpleNamespace(**wildcards))
    return template.render(snakemake=snakemake)


def _job(jobs, caption, report, **wildcards):
    """The job whose report output has the caption named `caption`, in report folder `report` (and `wildcards`)."""
    return next(j for j in jobs if Path(j[0]).stem == caption and report in (j[3].get("report"), j[3].get("folder"))
                and wildcards.items() <= j[3].items())


def _render_job(jobs, caption, report, wildcards=None, config=None, **params):
    """The caption of that job rendered, with `params` changed, or its run facts under `config` instead."""
    path, _, job_params, job_wildcards, job_config = _job(jobs, caption, report, **(wildcards or {}))
    if config is not None:
        names = [n for n in config["run"] if config["experiments"][n].get("report_dir") == report]
        params = {"run": C.run_facts(config, names), **params}
    return _render(path, {**job_params, **params}, job_wildcards, config or job_config)


def test_every_registered_papers_captions_are_in_its_smoke_run(smoke_jobs):
    rendered = {Path(j[0]) for j in smoke_jobs}
    for spec in papers.registry().values():
        assert {spec.caption(c) for c in spec.captions} <= rendered, spec.name
    toy = {j[3].get("report") for j in smoke_jobs if j[1] == "toy_table1"}
    assert toy == {"toy"}


def test_captions_render_from_the_run(smoke_jobs):
    for caption, rule, params, wildcards, config in smoke_jobs:
        text = _render(caption, params, wildcards, config)
        html = publish_parts(text, writer="html", settings_overrides={"report_level": 2, "halt_level": 2})["body"]
        assert "smoke protocol" in text and "{{" not in text and "{%" not in text, (rule, wildcards)
        assert any(d in text for d in params["run"]["datasets"]), (rule, wildcards)
        assert "System Message" not in html, (rule, wildcards)  # valid reStructuredText
        if rule != "scorecard":
            assert "Run settings." in text and "Experiment ``" in text, (rule, wildcards)


def test_captions_name_what_ran_not_the_full_protocol(smoke_jobs, smoke):
    fig1 = _render_job(smoke_jobs, "ils_fig1", "smoke_ils")
    assert "3-fold" in fig1 and "2 repeat(s)" in fig1 and "(wine; the paper: eight)" in fig1
    kudfs = _render_job(smoke_jobs, "kudfs_fig1", "smoke_kudfs")
    assert "on thyroid (the paper: ionosphere" in kudfs
    fig5 = _render_job(smoke_jobs, "nrfs_fig5", "smoke_nrfs")
    assert "Brain_Tumor2 at 20, 60 features" in " ".join(fig5.split())
    band = "quantiles of Random's runs (4 repetitions; kmeans n_runs = 1): uniformly random feature subsets"
    assert band in " ".join(fig5.split())
    curves = _render_job(smoke_jobs, "ivfs_curves", "smoke_ivfs", {"figure": "fig3"})
    assert "Random's runs (4 repetitions; knn n_splits = 1)" in curves
    assert "Random's runs" not in _render_job(smoke_jobs, "ils_orl_figure", "smoke_ils", {"figure": "fig3"})
    full = _render_job(smoke_jobs, "nrfs_fig5", "smoke_nrfs", config={**smoke, "protocol": "full"})
    assert "reduced" not in full and "protocol" not in full.split("Run settings.")[0].replace("(the paper", "")


def test_the_statistics_of_added_methods_render(smoke):
    # no method is added in the smoke run: the caption of paper_stats rendered on its facts as the rule gives them
    run = C.run_facts(smoke, [n for n in smoke["run"] if smoke["experiments"][n].get("report_dir") == "smoke_ivfs"])
    text = _render(REPORT / "paper_stats.rst", {"run": run, "table": "Table 1",
                                                 "values": "best over the Table 1 settings and counts"},
                   {"report": "smoke_ivfs"}, smoke)
    assert "smoke protocol" in text and "Run settings." in text and "{{" not in text


@pytest.mark.parametrize("name", sorted(papers.registry()["benchmark"].captions))
def test_a_users_benchmark_captions_name_it(name, smoke_jobs):
    title = B.title("own_benchmark", ["own_data"], "smoke")
    text = _render_job(smoke_jobs, name, "smoke_benchmark", title=title)
    assert title == "Benchmark: own_data" and f"**{title}" in text and "Cross-paper" not in text
