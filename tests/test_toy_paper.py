"""A paper as one unit (ufskit.papers.spec): the built-in specs, the registry's checks, and a toy paper
registered from tests/toy_paper/ through the normal workflow (its scorecard rows and claim verdict)."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from ufskit import papers
from ufskit import scorecard as S
from ufskit.papers import spec as SPEC

TOY = ROOT / "tests/toy_paper"
REPORT = ROOT / "workflow/report"


@pytest.fixture
def toy(monkeypatch):
    """The toy paper registered in a copy of the registry (the other tests see the built-in papers only)."""
    monkeypatch.setattr(SPEC, "_REGISTRY", dict(papers.registry()))
    monkeypatch.syspath_prepend(str(TOY))
    return papers.register("toy_paper")


def test_the_registry_holds_the_built_in_papers_in_the_scorecards_order():
    assert list(papers.registry()) == ["ivfs", "nrfs", "ils", "kudfs", "benchmark"]
    assert list(papers.scored()) == ["ivfs", "nrfs", "ils", "kudfs"]  # the benchmark publishes nothing
    assert papers.titles()["benchmark"] == "Cross-paper benchmark"
    assert papers.registry()["kudfs"].roles == ("udfs", "table1", "fig1", "fig2")


def test_every_caption_belongs_to_one_paper():
    captions = {c for s in papers.registry().values() for c in s.captions}
    # not one paper's: the landing page, the scorecard and the statistics of methods added to any paper
    assert captions == {p.stem for p in REPORT.glob("*.rst")} - {"workflow", "scorecard", "paper_stats"}
    owners = [s.name for s in papers.registry().values() for c in s.captions]
    assert len(owners) == len(captions)  # no caption shared by two papers


def test_experiments_name_a_known_paper_and_one_of_its_roles():
    ok = {"a": {"paper": "kudfs", "role": "fig2"}, "b": {"paper": "generic"}, "c": {"paper": "ils"}}
    papers.check_experiments(ok)
    with pytest.raises(ValueError, match="'x': paper must be 'generic' or a registered paper.*got 'kudf'"):
        papers.check_experiments({"x": {"paper": "kudf"}})
    with pytest.raises(ValueError, match=r"'x': paper 'kudfs' needs a `role`, one of \['udfs'"):
        papers.check_experiments({"x": {"paper": "kudfs"}})
    with pytest.raises(ValueError, match=r"'x': role must be one of \['udfs', 'table1', 'fig1', 'fig2'\].*'fig3'"):
        papers.check_experiments({"x": {"paper": "kudfs", "role": "fig3"}})
    with pytest.raises(ValueError, match=r"role must be one of \[\] for paper 'ivfs'"):
        papers.check_experiments({"x": {"paper": "ivfs", "role": "table1"}})


def test_a_paper_module_needs_a_spec_and_a_new_name(toy):
    assert papers.register("toy_paper") is toy  # registering again changes nothing
    with pytest.raises(ValueError, match="'ufskit.results' must define SPEC, a PaperSpec; got NoneType"):
        papers.register("ufskit.results")
    twin = SPEC.PaperSpec(name="ils", title="another ILS")
    with pytest.raises(ValueError, match="paper 'ils' is already registered"):
        SPEC._add(twin)
    clash = SPEC.PaperSpec(name="other", title="t", published=(SPEC.Published("ils_table1.csv", "T", {}),))
    with pytest.raises(ValueError, match=r"published file name\(s\) \['ils_table1.csv'\] already used"):
        SPEC._add(clash)


def test_the_toy_papers_numbers_and_claim_in_the_scorecard(toy):
    assert list(papers.scored())[-1] == "toy" and toy.captions == set()
    published = {b.file: papers.read_published(papers.registry()[p].path(b.file, ROOT))
                 for p, b in S.published_blocks()}
    reference = S.read_reference(S.claim_lists(ROOT))
    assert reference["id"].iloc[-1] == "TOY/LS-beats-Variance"
    table = pd.DataFrame({"dataset": ["wine", "wine"], "method": ["Variance", "LS"], "kmeans_acc": [74.0, 95.0]})
    claims = papers.claims_frame([{"id": "TOY/LS-beats-Variance", "claim": "c", "verdict": True, "numbers": "n"}])
    runs = {"toy": [S.ReportResults("toy", {"table1": table}, claims)]}
    card = S.scorecard(published, reference, runs, excluded={}, tolerances={
        m: {"absolute": 2.0} for m in S.published_numbers(published)["metric"].unique()})
    mine = card[card["paper"] == "toy"].set_index(["kind", "method"])
    assert mine.loc[("number", "Variance"), "outcome"] == "within tolerance"
    assert mine.loc[("number", "LS"), ["published", "reproduced", "outcome"]].tolist() == [90.0, 95.0,
                                                                                           "outside tolerance"]
    assert mine.xs("claim")["outcome"].tolist() == ["holds"]
    assert set(card.loc[card["paper"] == "ivfs", "outcome"]) == {"not run"}


@pytest.mark.workflow
def test_a_toy_paper_runs_through_the_workflow(tmp_path, mirror):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "--cores", "2",
           "--configfile", str(ROOT / "config/smoke.yaml"), str(TOY / "overlay.yaml")]
    proc = subprocess.run(cmd, cwd=tmp_path, env={**os.environ, "UFS_DATA_MIRROR": str(mirror)},
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    card = pd.read_csv(tmp_path / "results/scorecard.csv", keep_default_na=False)
    toy = card[card["paper"] == "toy"]
    numbers = toy[toy["kind"] == "number"].set_index("method")
    assert numbers["published"].astype(float).to_dict() == {"Variance": 74.4, "LS": 90.0}
    assert (numbers["evidence"] == "results/toy/table1.csv").all()
    assert numbers["outcome"].str.match(r"smoke: (within|outside) tolerance$").all()
    claim = toy[toy["kind"] == "claim"]
    assert claim["claim_id"].tolist() == ["TOY/LS-beats-Variance"]
    assert claim["outcome"].str.match(r"smoke: (holds|partly holds|does not hold)$").all()
    assert (tmp_path / claim["evidence"].iloc[0]).is_file()  # results/toy/claims.md
    assert "| Toy paper (tests) | results/toy/ | main | 2 |" in (tmp_path / "results/scorecard.md").read_text()
