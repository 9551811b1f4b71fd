"""The quick protocol (config/quick.yaml) end to end, then `snakemake --report`: the README's quick start.

One quick run serves every test of this file (module fixture): its outputs, its numbers against the stored
snapshot, the README's report command, the report in a browser, then the own-selector overlay on top.
"""

from __future__ import annotations

import zipfile

import pandas as pd
import pytest
import yaml
from test_report_browser import CHROMIUM, browse, distinct_colours
from test_workflow import snakemake

from conftest import ROOT
from ufskit.blas import blas_kernel
from ufskit.compare import cells, compare, read_cells
from ufskit.compare import report as comparison_report
from ufskit.papers import EXTRA_MARK, EXTRA_NOTE, registry
from ufskit.protocols import load_config, read_protocols

pytestmark = pytest.mark.workflow

QUICK = ("--configfile", str(ROOT / "config/quick.yaml"))
SNAPSHOTS = ROOT / "tests/data/quick_snapshot"  # one per BLAS kernel: <architecture>.csv.gz
REPORTS = {"quick_ils": "ils", "quick_kudfs": "kudfs", "quick_nrfs": "nrfs", "quick_ivfs": "ivfs",
           "quick_benchmark": "benchmark"}
FIGURES = {"ils": {"fig1.png", "fig2.png", "fig3.png"}, "kudfs": {"fig1.png", "fig2.png"},
           "nrfs": {"fig1.png", "fig4.png", "fig5.png", "fig6.png", "fig7.png", "sensitivity.png"},
           "ivfs": {"fig2.png", "fig3.png", "fig4.png"}, "benchmark": {"heatmap.png"}}


def test_quick_config_covers_every_paper_and_only_mirrored_datasets():
    quick = load_config(ROOT, ROOT / "config/quick.yaml")  # with each paper folder's protocols/quick.yaml
    offline = yaml.safe_load((ROOT / "config/offline.yaml").read_text())["data"]["exclude"]
    defined = {n for _, block in read_protocols(registry(), "quick") for n in block["experiments"]}
    assert quick["protocol"] == "quick" and set(quick["run"]) == defined
    experiments = [quick["experiments"][n] for n in quick["run"]]
    assert {e["report_dir"] for e in experiments} == set(REPORTS)
    assert {e["paper"] for e in experiments} == set(REPORTS.values())
    used = {d for e in experiments for d in e["datasets"]}
    assert not used & set(offline), f"quick uses datasets that are not in the mirror: {used & set(offline)}"


def snapshot_for(kernel: str):
    """The stored cells of a quick run on this BLAS kernel; skipped, saying which exist, when there is none."""
    path = SNAPSHOTS / f"{kernel}.csv.gz"
    if not path.is_file():
        stored = sorted(p.name.split(".")[0] for p in SNAPSHOTS.glob("*.csv.gz"))
        pytest.skip(f"no quick-run snapshot for the {kernel} BLAS kernel (stored: {stored}); write one with "
                    f"tests/quick_snapshot.py from a quick run on this machine")
    return path


@pytest.fixture(scope="module")
def quick(tmp_path_factory, mirror):
    """One quick run, shared by this file's tests (the last one adds the example overlay on top of it)."""
    workdir = tmp_path_factory.mktemp("quick")
    env = {"UFS_DATA_MIRROR": str(mirror)}
    snakemake("--cores", "2", *QUICK, cwd=workdir, env=env)
    return workdir, env


def test_every_paper_gives_its_tables_figures_and_scorecard_rows(quick):
    results = quick[0] / "results"
    for report, paper in REPORTS.items():
        folder = results / report
        names = {p.name for p in folder.iterdir()}
        expected = FIGURES[paper] | ({"summary.md"} if paper == "benchmark" else {"claims.md", "claims.csv"})
        assert expected <= names, f"{report}: {sorted(expected - names)} missing"
    card = pd.read_csv(results / "scorecard.csv", keep_default_na=False)
    assert (card["protocol"] == "quick").all()
    ran = card[card["report"] != ""]
    assert set(ran["paper"]) == {"ils", "kudfs", "nrfs", "ivfs"}
    assert not ran["outcome"].isin(["within tolerance", "outside tolerance", "holds", "partly holds",
                                    "does not hold"]).any(), "a quick run counts nothing as reproduced"
    assert ran["outcome"].str.startswith("quick: ").any()
    # the quick run's two readings (config/quick.yaml run_readings), beside the main one
    assert set(ran["reading"]) == {"main", "ivfs_literal_epsilon", "kudfs_width_sigma2"}
    assert (results / "scorecard.md").read_text().startswith("# Scorecard (quick protocol)")


def test_every_number_equals_the_snapshot_of_this_blas_kernel(quick):
    """Every table's values (times aside) identical to those stored from a quick run on the same BLAS kernel
    (tests/quick_snapshot.py; another kernel moves K-means- and tie-dependent numbers:
    docs/readings-and-tolerances.md), compared by the code behind `ufskit compare`."""
    snapshot = snapshot_for(blas_kernel())
    result = compare(cells(quick[0] / "results"), read_cells(snapshot), {})
    assert result.all_identical, f"the quick run's tables differ from {snapshot.name}:\n{comparison_report(result)}"


def test_the_readmes_report_command_holds_every_paper_without_warnings(quick):
    workdir, env = quick
    report = snakemake("--report", "report.zip", *QUICK, cwd=workdir, env=env)
    output = report.stdout + report.stderr
    assert "warning" not in output.lower(), output[-6000:]
    with zipfile.ZipFile(workdir / "report.zip") as z:
        names = z.namelist()
        html = z.read(next(n for n in names if n.endswith("report.html"))).decode()
    for report_dir, paper in REPORTS.items():
        for figure in FIGURES[paper]:
            assert f"results/{report_dir}/{figure}" in html, f"results/{report_dir}/{figure} not in the report"
    assert any(n.endswith("/scorecard.html") for n in names)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_the_report_renders_in_a_browser(quick, tmp_path):
    """The one-file report of the quick run (every paper, the benchmark, the readings) walked in headless
    Chromium (tests/test_report_browser.py): no JavaScript error, every results folder listed with its files,
    a table page shown, the benchmark's CD diagram (the tallest figure) unclipped, a non-blank screenshot."""
    workdir, env = quick
    snakemake("--report", str(tmp_path / "report.html"), *QUICK, cwd=workdir, env=env)
    found, shot = browse(tmp_path / "report.html", tmp_path)
    assert found["errors"] == [], found["errors"]
    papers = ["IVFS", "NRFS", "Iterative Laplacian Score", "Kernel UDFS", "Cross-paper benchmark", "Scorecard"]
    for paper in papers:
        category = next((c for c in found["categories"] if c.startswith(paper)), None)
        assert category, f"no category {paper!r} in {sorted(found['categories'])}"
    for category, shown in found["categories"].items():
        assert len(shown["files"]) == shown["listed"] and min(shown["tables"]) > 1, (category, shown)
        assert any(f.endswith(".html") for f in shown["files"]), f"{category}: no table listed"
    assert found["landing"]["details"] == 1 and found["landing"]["words"] < 90, found["landing"]  # short, details folded
    assert found["table"]["shown"] and found["table"]["rows"] > 1 and found["table"]["cells"] > 4, found["table"]
    assert found["figure"]["width"] > 300 and found["figure"]["height"] > 200, found["figure"]
    assert found["figure"]["path"].endswith("/cd.png"), found["figure"]
    assert found["figure"]["top"] >= 0 and found["figure"]["left"] >= 0, f"the figure is clipped: {found['figure']}"
    assert distinct_colours(shot) > 50, "the screenshot is blank"


def test_the_own_selector_overlay_adds_its_rows_and_leaves_the_scorecard(quick):
    """config/examples/own_selector_papers.yaml on top (the example selector added to the papers' experiments;
    only its runs and the tables are new jobs): its rows in each paper's main table and in the CD diagram's
    data, marked not in the paper; the scorecard's published numbers and claims unchanged. Last in this file:
    it adds to the shared run."""
    workdir, env = quick
    results = workdir / "results"
    before = _scorecard(results)
    snakemake("--cores", "2", *QUICK, str(ROOT / "config/examples/own_selector_papers.yaml"), cwd=workdir, env=env)
    mine, shown = "ClusterSeparation", f"ClusterSeparation{EXTRA_MARK}"
    ivfs = pd.read_csv(results / "quick_ivfs/table1.csv")
    assert not ivfs.loc[ivfs["method"] == mine, "in_paper"].any() and ivfs.loc[ivfs["method"] != mine, "in_paper"].all()
    assert ivfs.query("method == @mine and metric == 'knn_acc'")["reproduced"].notna().all()
    assert pd.read_csv(results / "quick_kudfs/table1.csv")[f"extra_{mine}"].between(0, 100).all()
    nrfs_t1 = pd.read_csv(results / "quick_nrfs/table1.csv").set_index("method")
    assert not nrfs_t1.loc[mine, "in_paper"] and nrfs_t1.loc["NRFS", "in_paper"]
    assert mine in set(pd.read_csv(results / "quick_nrfs/fig5.csv")["method"])
    for report in ("quick_ivfs", "quick_kudfs", "quick_nrfs"):
        md = (results / report / "table1.md").read_text()
        assert shown in md and EXTRA_NOTE in md
    for report in ("quick_ils", "quick_kudfs", "quick_nrfs", "quick_ivfs"):  # the CD diagram's data
        stats = pd.read_csv(results / report / "stats_main.csv")
        assert shown in set(stats["method"]) and (results / report / "cd_main.png").stat().st_size > 10_000
    pd.testing.assert_frame_equal(_scorecard(results), before)


def _scorecard(results) -> pd.DataFrame:
    """The scorecard's rows (published numbers and claims), in a fixed order."""
    card = pd.read_csv(results / "scorecard.csv", keep_default_na=False)
    return card.sort_values(list(card.columns)).reset_index(drop=True)
