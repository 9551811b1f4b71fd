"""The quick protocol (config/quick.yaml) end to end, then `snakemake --report`: the README's quick start.

One quick run serves every test of this file (module fixture): its outputs, its numbers against the stored
snapshot, the README's report command, the report in a browser, then the own-selector overlay on top.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pandas as pd
import pytest
import yaml
from test_report_browser import CHROMIUM, browse, distinct_colours
from test_workflow import snakemake

from conftest import ROOT
from ufskit.blas import blas_kernel
from ufskit.compare import cells, compare, read_cells
from ufskit.compare import report as comparison_report
from ufskit.configio import load_yaml
from ufskit.papers import EXTRA_MARK, EXTRA_NOTE, registry, scored
from ufskit.papers.spec import GENERIC
from ufskit.protocols import load_config, read_protocols

pytestmark = pytest.mark.workflow

QUICK = ("--configfile", str(ROOT / "config/quick.yaml"))
SNAPSHOTS = ROOT / "tests/data/quick_snapshot"  # one per BLAS kernel: <architecture>.csv.gz
# The quick run's config (each registered paper's protocols/quick.yaml merged), its report folders (report_dir ->
# paper) and each paper's figures and tables in the report (its PaperSpec): nothing here names a paper.
CONFIG = load_config(ROOT, ROOT / "config/quick.yaml")
RUN = [CONFIG["experiments"][n] for n in CONFIG["run"]]
REPORTS = {e["report_dir"]: e["paper"] for e in RUN if e["paper"] != GENERIC}
FIGURES = {paper: set(registry()[paper].figures) for paper in REPORTS.values()}


def outputs(paper: str) -> set[str]:
    """The files a paper's quick report folder must hold: its figures and tables in the report, its claims."""
    spec = registry()[paper]
    return FIGURES[paper] | set(spec.tables) | ({"claims.md", "claims.csv"} if spec.claims is not None else set())


def test_quick_config_covers_every_paper_and_only_mirrored_datasets():
    offline = yaml.safe_load((ROOT / "config/offline.yaml").read_text())["data"]["exclude"]
    read = read_protocols(registry(), "quick")  # each paper folder's protocols/quick.yaml
    assert {path.parent.parent.name for path, _ in read} == set(registry()), "a paper without protocols/quick.yaml"
    defined = {n for _, block in read for n in block["experiments"]}
    assert CONFIG["protocol"] == "quick" and set(CONFIG["run"]) == defined
    # every paper with published numbers or claims runs, each experiment into a report folder of its paper only
    assert set(scored()) <= set(REPORTS.values()) and all(e["paper"] != GENERIC for e in RUN)
    assert all("report_dir" in e for e in RUN)
    assert len({(e["report_dir"], e["paper"]) for e in RUN}) == len(REPORTS)
    used = {d for e in RUN for d in e["datasets"]}
    assert not used & set(offline), f"quick uses datasets that are not in the mirror: {used & set(offline)}"


def snapshots_for(kernel: str) -> tuple[list[Path], bool]:
    """The stored cells to hold a quick run on ``kernel`` to, and whether they are of that kernel.

    A kernel with its own snapshot is held to identity with it. Any other is held to the stored kernels'
    snapshots through the rule of `ufskit compare` (every scorecard number within its metric's tolerance, no
    verdict changed, no row renamed) and must agree with at least one of them: what the README promises a user
    on another machine. One of them, not each: a number whose spread over kernels exceeds its tolerance (kernel
    UDFS on wdbc: 88.9-91.0 over four kernels against 2 points, docs/fidelity/ils-kudfs.md) can lie within
    tolerance of one stored kernel and not of another (Sandybridge: 90.98, SkylakeX 90.91, Haswell 88.93).
    """
    own = SNAPSHOTS / f"{kernel}.csv.gz"
    stored = sorted(SNAPSHOTS.glob("*.csv.gz"))
    assert stored, f"no quick-run snapshot in {SNAPSHOTS}; write one with tests/quick_snapshot.py"
    return ([own], True) if own.is_file() else (stored, False)


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
        expected = outputs(paper)
        assert expected <= names, f"{report}: {sorted(expected - names)} missing"
    card = pd.read_csv(results / "scorecard.csv", keep_default_na=False)
    assert (card["protocol"] == "quick").all()
    ran = card[card["report"] != ""]
    assert set(ran["paper"]) == set(scored()) & set(REPORTS.values())
    assert not ran["outcome"].isin(["within tolerance", "outside tolerance", "holds", "partly holds",
                                    "does not hold"]).any(), "a quick run counts nothing as reproduced"
    assert ran["outcome"].str.startswith("quick: ").any()
    # the quick run's readings (config/quick.yaml run_readings), beside the main one
    assert set(ran["reading"]) == {"main", *CONFIG["run_readings"]}
    assert (results / "scorecard.md").read_text().startswith("# Scorecard (quick protocol)")


def test_every_number_agrees_with_the_stored_snapshot(quick):
    """On a BLAS kernel with a stored snapshot, every table's values (times aside) are identical to it; on any
    other, the run agrees with one stored kernel's by the rule of `ufskit compare` (another kernel moves K-means-
    and tie-dependent numbers within their tolerances: docs/readings-and-tolerances.md). Never skipped."""
    snapshots, same_kernel = snapshots_for(blas_kernel())
    tolerances = load_yaml(ROOT / "config/config.yaml")["scorecard"]["tolerances"]
    mine = cells(quick[0] / "results")
    results = {path.name: compare(mine, read_cells(path), tolerances) for path in snapshots}
    texts = "\n".join(f"against {name}:\n{comparison_report(result)}" for name, result in results.items())
    if same_kernel:
        assert all(r.all_identical for r in results.values()), \
            f"the quick run's tables differ from their kernel's snapshot:\n{texts}"
    else:
        assert any(r.agrees for r in results.values()), \
            f"on {blas_kernel()}, the quick run agrees with no stored kernel's snapshot:\n{texts}"


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
    # each paper's category: its title's short name (workflow/rules/report_common.smk), then the scorecard's
    papers = [registry()[p].title.split(" (")[0] for p in dict.fromkeys(REPORTS.values())] + ["Scorecard"]
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
