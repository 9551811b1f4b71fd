"""The shipped reference run (reference/): ``ufskit compare`` holds other runs to it, and it has what the reference
issue asks of it (Random's best of G beside every IVFS and kernel UDFS Table 1 number). Skipped, saying so, until
reference/ holds a full run (its scorecard.csv)."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from conftest import ROOT
from ufskit.cli import main
from ufskit.papers.kudfs import TABLE1_COLUMNS as KUDFS_TABLE1

SHIPPED = ROOT / "reference"
pytestmark = pytest.mark.skipif(not (SHIPPED / "scorecard.csv").exists(),
                                reason="the reference run is not shipped yet (reference/ has no scorecard.csv)")
LARGE_IVFS_SETS = {"COIL20", "RELATHE", "Isolet"}  # n >= 1000: the sets whose chance columns came last


def shipped_reference_check(reference, tmp_path, capsys):
    """``ufskit compare`` of a reference with itself exits 0; a copy with one scorecard number moved three times its
    absolute tolerance away exits 1 naming that row."""
    assert main(["compare", str(reference), str(reference)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("overall: identical")
    absolute = {metric: rule["absolute"] for metric, rule in
                json.loads((reference / "provenance.json").read_text())["tolerances"].items()
                if set(rule) == {"absolute"} and rule["absolute"] > 0}
    copy = tmp_path / "results"
    shutil.copytree(reference, copy)
    card = pd.read_csv(copy / "scorecard.csv", keep_default_na=False, na_values=[""])
    numbers = card[(card["kind"] == "number") & card["metric"].isin(absolute) & card["reproduced"].notna()]
    row = numbers.iloc[0]
    card.loc[row.name, "reproduced"] = row["reproduced"] + 3 * absolute[row["metric"]]
    card.to_csv(copy / "scorecard.csv", index=False)
    assert main(["compare", str(copy), str(reference)]) == 1
    beyond = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  beyond: ")]
    assert len(beyond) == 1 and f"|{row['dataset']}|" in beyond[0] and f"|{row['metric']}|" in beyond[0], beyond


def test_the_reference_agrees_with_itself_and_a_number_moved_beyond_tolerance_is_named(tmp_path, capsys):
    shipped_reference_check(SHIPPED, tmp_path, capsys)


def test_every_ivfs_and_kernel_udfs_table1_number_has_randoms_best_of_g_beside_it():
    card = pd.read_csv(SHIPPED / "scorecard.csv", keep_default_na=False, na_values=[""])
    # a running time has no chance counterpart, nor has kernel UDFS's "All Features" column (no selection)
    main_reading = card[(card["kind"] == "number") & (card["reading"] == "main") & card["reproduced"].notna()
                        & (card["metric"] != "fit_seconds") & (card["method"] != KUDFS_TABLE1["all_features"])]
    for paper in ("ivfs", "kudfs"):
        table1 = main_reading[(main_reading["paper"] == paper) & (main_reading["table"] == "Table 1")]
        missing = table1[table1["chance_best_of_g"].isna()]
        assert len(table1) and missing.empty, missing[["dataset", "method", "metric"]].to_string()
    ivfs_sets = set(main_reading.loc[(main_reading["paper"] == "ivfs") & (main_reading["table"] == "Table 1"),
                                     "dataset"])
    assert LARGE_IVFS_SETS <= ivfs_sets and len(ivfs_sets) == 8, sorted(ivfs_sets)


def test_the_provenance_names_one_commit_and_the_parts_it_ran_in():
    record = json.loads((SHIPPED / "provenance.json").read_text())
    parts = pd.read_csv(SHIPPED / "full_run.csv", keep_default_na=False, dtype=str)
    parts = parts[parts["part"] != "total"]
    assert set(parts["commit"]) == {record["git_commit"]} and [p["part"] for p in record["parts"]] == list(parts["part"])
    assert (parts["exit_code"] == "0").all(), parts[["part", "exit_code"]].to_string()
