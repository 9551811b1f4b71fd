"""The scorecard (ufskit.scorecard): hand-made frames and the committed published files (end to end with the report:
tests/test_kudfs_workflow.py, on the kernel-UDFS smoke run)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT
from ufskit import scorecard as S
from ufskit.papers import claims_frame, kudfs, normalise_verdict, scored
from ufskit.papers import spec as paper_spec

TOL = {"kmeans_acc": {"absolute": 2.0}, "n_samples": {"absolute": 0}, "n_features": {"absolute": 0},
       "n_classes": {"absolute": 0}}


def published():
    return S.published_tables()


def reference():
    return S.read_reference(S.claim_lists())


def n_published():
    """One row per published number of every registered paper (their published/ folders)."""
    return len(S.published_numbers(published()))


def all_tolerances():
    return yaml.safe_load((ROOT / "config/config.yaml").read_text())["scorecard"]["tolerances"]


def kudfs_table(**values):
    """A kernel-UDFS table1.csv with the given (all_features, udfs, kernel_udfs) per dataset."""
    return pd.DataFrame([{"dataset": d, "all_features": a, "udfs": u, "kernel_udfs": k}
                         for d, (a, u, k) in values.items()])


def numbers_of(card, paper):
    return card[(card["kind"] == "number") & (card["paper"] == paper)]


# ---------------------------------------------------------------- published numbers


def test_one_row_per_published_number_in_the_papers_order():
    tables, pub = published(), S.published_numbers(published())
    for paper, block in S.published_blocks():  # every value of the block's columns (statistics: once per dataset)
        frame = tables[block.file]
        stats = [c for c, (_, method) in block.columns.items() if method == ""]
        values = frame[[c for c in block.columns if c not in stats]].notna().sum().sum()
        values += frame.drop_duplicates("dataset")[stats].notna().sum().sum() if stats else 0
        assert len(pub[(pub["paper"] == paper) & (pub["table"] == block.table)]) == values, (paper, block.table)
    ivfs = pub[(pub["paper"] == "ivfs") & (pub["table"] == "Table 1")]
    first = ivfs.head(8)  # IVFS: CLL-SUB-111, SPEC, its seven columns, then MCFS
    assert first["metric"].tolist()[:7] == ["knn_acc", "w11", "winf", "Linf", "L1_over_n2", "L2", "fit_seconds"]
    assert first["published"].tolist()[:7] == [58.2, 2.35, 0.05, 0.42, 9.49, 13.86, 0.85]
    assert first.iloc[7][["method", "metric"]].tolist() == ["MCFS", "knn_acc"]
    nrfs = pub[pub["table"] == "Table I"].set_index(["method", "metric"])["published"]
    assert nrfs[("NDFS", "nmi_normal")] == 0.5004 and (pub.loc[pub["table"] == "Table I", "dataset"]
                                                        == "nrfs_synthetic").all()
    assert list(dict.fromkeys(pub["paper"])) == list(S.scored())  # the registry's order


def test_the_configured_tolerances_cover_every_published_metric():
    S.check_tolerances(all_tolerances(), S.published_numbers(published())["metric"].unique())
    with pytest.raises(ValueError, match="no scorecard tolerance.*kmeans_acc"):
        S.check_tolerances({}, ["kmeans_acc"])
    with pytest.raises(ValueError, match="absolute and/or relative, or factor"):
        S.check_tolerances({"L2": {"absolute": 1, "factor": 2}}, ["L2"])
    with pytest.raises(ValueError, match="out of range"):
        S.check_tolerances({"L2": {"factor": 0.5}}, ["L2"])


def test_within_tolerance_and_its_text():
    assert S.within_tolerance(78.7, 80.6, {"absolute": 2.0}) and not S.within_tolerance(78.7, 80.8, {"absolute": 2.0})
    assert S.within_tolerance(10.0, 12.5, {"relative": 0.25}) and not S.within_tolerance(10.0, 12.6, {"relative": 0.25})
    both = {"absolute": 5.0, "relative": 0.2}  # max(5, 20 %): 5 below 25, 20 % above
    assert S.within_tolerance(4.4, 9.4, both) and not S.within_tolerance(4.4, 9.5, both)
    assert S.within_tolerance(200.0, 240.0, both) and not S.within_tolerance(200.0, 241.0, both)
    assert S.within_tolerance(2.0, 5.9, {"factor": 3.0}) and not S.within_tolerance(2.0, 0.6, {"factor": 3.0})
    assert S.within_tolerance(13, 13, {"absolute": 0}) and not S.within_tolerance(13, 14, {"absolute": 0})
    assert [S.tolerance_text(t) for t in ({"absolute": 0}, {"absolute": 2.0}, {"relative": 0.25}, both,
                                          {"factor": 3.0})] == ["exact", "± 2", "± 25 %", "± max(5, 20 %)", "x/÷ 3"]


# ---------------------------------------------------------------- numbers of a run


def test_differences_tolerance_and_not_compared_rows():
    table = kudfs_table(thyroid=(77.67, 80.37, 92.33), german=(54.26, 67.91, 60.0))  # german kernel: -9.6
    runs = {"kudfs": [S.ReportResults("kudfs", {"table1": table})]}
    excluded = {"spect": "not in the mirror"}
    rows = numbers_of(S.scorecard(published(), reference(), runs, excluded=excluded, tolerances=all_tolerances()),
                      "kudfs").set_index(["dataset", "method"])
    assert len(rows) == 18 and (rows["report"] == "kudfs").all()
    thyroid = rows.loc[("thyroid", "UDFS")]
    assert thyroid["published"] == 78.5 and thyroid["reproduced"] == 80.37
    assert np.isclose(thyroid["difference"], 1.87) and thyroid["within_tolerance"] == "yes"
    assert thyroid["outcome"] == "within tolerance" and thyroid["evidence"] == "results/kudfs/table1.csv"
    german = rows.loc[("german", "KernelUDFS")]
    assert np.isclose(german["difference"], 60.0 - 69.6) and german["within_tolerance"] == "no"
    assert german["outcome"] == "outside tolerance"
    spect = rows.loc[("spect", "UDFS")]  # excluded: listed with the reason, never dropped
    assert spect["outcome"] == "not obtained: not in the mirror" and pd.isna(spect["difference"])
    assert spect["within_tolerance"] == ""
    assert rows.loc[("wdbc", "UDFS"), "outcome"] == "not in this run"  # the run's experiments skip wdbc


def test_a_paper_without_results_gives_not_run_rows():
    card = S.scorecard(published(), reference(), {}, excluded={}, tolerances=all_tolerances())
    numbers, claims = card[card["kind"] == "number"], card[card["kind"] == "claim"]
    assert len(numbers) == n_published() and (numbers["outcome"] == "not run").all() and (numbers["report"] == "").all()
    assert len(claims) == len(reference()) and (claims["outcome"] == "not run").all()


def test_a_run_of_one_paper_or_part_of_its_experiments_gives_not_run_rows():
    """`run` holding one paper's experiments, or only some of a paper's (its folder builds no table)."""
    table = kudfs_table(thyroid=(77.67, 80.37, 92.33))
    for runs in ({"kudfs": [S.ReportResults("smoke_kudfs", {"table1": table})]},
                 {"kudfs": [S.ReportResults("smoke_kudfs")], "ivfs": [S.ReportResults("smoke_ivfs")]}):
        card = S.scorecard(published(), reference(), runs, excluded={}, tolerances=all_tolerances(), protocol="smoke")
        numbers = card[card["kind"] == "number"]
        assert len(numbers) == n_published() and (numbers.loc[numbers["paper"].isin(["nrfs", "ils"]), "outcome"] == "not run").all()
        md = S.scorecard_markdown(card, excluded={}, tolerances=all_tolerances())
        assert "| IVFS (Li, Wu & Li, AAAI 2020) |" in md and "| NRFS (Huang, Yoo, Yu & Qin, ICDM 2014) | not run |" in md
    kudfs = numbers_of(card, "kudfs")  # the second run: a folder that built nothing keeps its name
    assert (kudfs["outcome"] == "not run").all() and (kudfs["report"] == "smoke_kudfs").all()
    claims = card[(card["kind"] == "claim") & (card["paper"] == "kudfs")]
    assert (claims["outcome"] == "not run").all() and claims["numbers"].str.contains("is not built").all()


def test_dataset_statistics_come_from_the_prepared_summaries():
    summaries = {name: {"dataset": name, "chain": "default", "n_samples": n, "n_features": d, "n_classes": c,
                        "preprocessing": [{"step": "drop_constant", "n_removed": r}]}
                 for name, n, d, c, r in (("wine", 178, 13, 3, 0), ("parkinsons", 195, 22, 2, 0),
                                          ("ionosphere", 351, 33, 2, 1))}
    runs = {"ils": [S.ReportResults("ils", summaries=summaries)]}
    rows = numbers_of(S.scorecard(published(), reference(), runs, excluded={}, tolerances=all_tolerances()), "ils")
    rows = rows.set_index(["dataset", "metric"])
    assert rows.loc[("wine", "n_features"), "outcome"] == "within tolerance"
    assert rows.loc[("wine", "n_features"), "evidence"] == "resources/prepared/default/wine.json"
    parkinsons = rows.loc[("parkinsons", "n_samples")]
    assert parkinsons[["published", "reproduced", "within_tolerance"]].tolist() == [57, 195, "no"]
    assert rows.loc[("zoo", "n_classes"), "outcome"] == "not in this run"
    ionosphere = rows.loc[("ionosphere", "n_features")]  # d as loaded: 33 kept + 1 constant column dropped
    assert ionosphere["reproduced"] == 34 and ionosphere["outcome"] == "within tolerance"
    assert ionosphere["evidence"] == "resources/prepared/default/ionosphere.json (prepared: 33 features, 1 dropped)"


def test_ivfs_tables_keep_their_own_status():
    t1 = pd.DataFrame({"dataset": ["lymphoma", "CLL-SUB-111"], "method": "IVFS-linf", "metric": "knn_acc",
                       "reproduced": [93.0, None], "status": ["ok", "not obtained: excluded for the test"]})
    t2 = pd.DataFrame({"dataset": ["lymphoma"], "method": ["SPEC"], "reproduced": [150.0], "status": ["ok"]})
    runs = {"ivfs": [S.ReportResults("ivfs", {"table1": t1, "table2": t2})]}
    rows = numbers_of(S.scorecard(published(), reference(), runs, excluded={}, tolerances=all_tolerances()), "ivfs")
    rows = rows.set_index(["table", "dataset", "method", "metric"])
    assert rows.loc[("Table 1", "lymphoma", "IVFS-linf", "knn_acc"), "outcome"] == "within tolerance"  # 94.0
    cll = rows.loc[("Table 1", "CLL-SUB-111", "IVFS-linf", "knn_acc")]
    assert cll["outcome"] == "not obtained: excluded for the test"
    spec = rows.loc[("Table 2", "lymphoma", "SPEC", "bootstrap_differences")]
    assert spec["published"] == 156.6 and spec["outcome"] == "within tolerance"  # |150 - 156.6| <= 31.3
    assert spec["evidence"] == "results/ivfs/table2.csv"
    with pytest.raises(ValueError, match="no published table read from"):
        S.reproduced_numbers("ils", S.ReportResults("ils", {"table1": t1}))


def test_load_report_reads_what_the_paper_rules_wrote(tmp_path):
    kudfs_table(thyroid=(77.7, 80.4, 92.3)).to_csv(tmp_path / "table1.csv", index=False)
    claims_frame([{"id": "KUDFS/T1", "claim": "T1", "verdict": "holds", "numbers": ""}]).to_csv(
        tmp_path / "claims.csv", index=False)
    (tmp_path / "thyroid.json").write_text('{"dataset": "thyroid", "chain": "default", "n_samples": 215}')
    res = S.load_report("kudfs", {"table1": str(tmp_path / "table1.csv"), "claims": str(tmp_path / "claims.csv")},
                        [str(tmp_path / "thyroid.json")])
    assert res.tables["table1"].loc[0, "kernel_udfs"] == 92.3 and res.claims.loc[0, "numbers"] == ""
    assert res.summaries["thyroid"]["n_samples"] == 215
    other = S.load_report("kudfs", {"fig2": str(tmp_path / "table1.csv")})  # any output name: what readers name
    with pytest.raises(ValueError, match=r"paper 'kudfs' has no published table read from \['fig2'\]"):
        S.reproduced_numbers("kudfs", other)
    twice = pd.concat([kudfs_table(thyroid=(1, 2, 3))] * 2)
    with pytest.raises(ValueError, match="several values"):
        S.reproduced_numbers("kudfs", S.ReportResults("kudfs", {"table1": twice}))


# ---------------------------------------------------------------- claims


def test_verdict_words_and_their_combination():
    assert [normalise_verdict(v) for v in ("Holds", "**partly holds**", "does not hold", True, False,
                                             "not run")] == ["holds", "partly holds", "does not hold", "holds",
                                                             "does not hold", "not run"]
    for retired in ("mostly", "supported", "reproduced", "not evaluated"):  # one vocabulary only
        with pytest.raises(ValueError, match="unknown verdict"):
            normalise_verdict(retired)
    assert S.combine_verdicts(["holds", "holds"]) == "holds"
    assert S.combine_verdicts(["does not hold", "does not hold"]) == "does not hold"
    assert S.combine_verdicts(["holds", "does not hold"]) == "partly holds"
    assert S.combine_verdicts(["not run", "holds"]) == "holds"
    assert S.combine_verdicts(["not run"]) == "not run"


def test_claims_are_mapped_by_id_and_parts_combined():
    claims = claims_frame([
        {"id": "KUDFS/T1", "claim": "Table 1", "verdict": True, "numbers": "6/6"},
        {"id": "KUDFS/Fig1", "claim": "Fig. 1 (gamma=0.001).", "verdict": False, "numbers": "0.94 vs 0.91"},
        {"id": "KUDFS/Fig1", "claim": "Fig. 1 (gamma=1)", "verdict": True, "numbers": "0.67 vs 0.91"},
    ])
    runs = {"kudfs": [S.ReportResults("kudfs", claims=claims)], "ils": [S.ReportResults("smoke_ils")]}
    rows = S.claim_rows(reference(), runs, excluded={"spect": "gone"},
                        published=S.published_numbers(published())).set_index("claim_id")
    assert len(rows) == len(reference())  # one row per listed claim of every registered paper
    assert rows.loc["KUDFS/T1", ["outcome", "evidence"]].tolist() == ["holds", "results/kudfs/claims.md"]
    assert rows.loc["KUDFS/T1", "numbers"].startswith("6/6 [Datasets not obtained, left out: spect (gone).]")
    fig1 = rows.loc["KUDFS/Fig1"]
    assert fig1["outcome"] == "partly holds"
    assert "[Fig. 1 (gamma=0.001): does not hold] 0.94 vs 0.91 [Fig. 1 (gamma=1): holds] 0.67" in fig1["numbers"]
    assert rows.loc["KUDFS/Fig2", "outcome"] == "not run"  # no verdict computed for it
    assert rows.loc["ILS/Fig1", "outcome"] == "not run"  # that report folder built no claims.csv
    assert "claims.csv is not built" in rows.loc["ILS/Fig1", "numbers"]
    assert (rows.loc[rows["paper"].isin(["ivfs", "nrfs"]), "outcome"] == "not run").all()

    stray = claims_frame([{"id": "KUDFS/T9", "claim": "x", "verdict": True, "numbers": ""}])
    with pytest.raises(ValueError, match=r"ids \['KUDFS/T9'\] not in the claims list"):
        S.claim_rows(reference(), {"kudfs": [S.ReportResults("kudfs", claims=stray)]}, excluded={})
    with pytest.raises(ValueError, match="needs an id"):
        claims_frame([{"id": "", "claim": "x", "verdict": True, "numbers": ""}])


def test_the_claims_list_matches_the_ids_the_paper_code_gives():
    ref = reference()
    assert set(ref["paper"]) == {name for name, spec in scored().items() if spec.claims is not None}
    prefixes = "|".join(sorted({i.split("/")[0] for i in ref["id"]}))
    sources = [path for spec in scored().values() for path in spec.home.rglob("*.py")]
    used = {m for path in sources for m in re.findall(rf'"((?:{prefixes})/[\w-]+)"', path.read_text())}
    assert used == set(ref["id"])  # every listed claim has code giving its verdict, and no code id is unlisted


def test_kudfs_claims_table_uses_the_listed_ids():
    table = pd.DataFrame({"dataset": ["a"], "kernel_udfs": [85.0], "udfs": [70.0], "all_features": [65.0]})
    frame = kudfs.claims_table([kudfs.claim_table1(table)])
    assert frame.to_dict("records")[0]["id"] == "KUDFS/T1" and frame["verdict"].tolist() == ["holds"]


def test_duplicate_claim_ids_are_rejected(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("# c\nid,paper,element,claim\nX/1,ivfs,T,a\nX/1,ivfs,T,b\n")
    with pytest.raises(ValueError, match="duplicate claim ids"):
        S.read_reference(path)


def test_markdown_has_the_overview_claims_and_every_number():
    table = kudfs_table(thyroid=(77.67, 80.37, 92.33))
    runs = {"kudfs": [S.ReportResults("kudfs", {"table1": table})]}
    card = S.scorecard(published(), reference(), runs, excluded={"spect": "gone"}, tolerances=all_tolerances())
    md = S.scorecard_markdown(card, excluded={"spect": "gone"}, tolerances=all_tolerances())
    assert "| Kernel UDFS (Liu & Wang) | results/kudfs/ | main | 18 | 3 | 0 | 15 | 0 | 0 | 0 | 3 |" in md
    assert "| IVFS (Li, Wu & Li, AAAI 2020) | not run | main | 350 | 0 | 0 | 350 |" in md
    assert "- spect: gone" in md
    assert "| thyroid | UDFS | kmeans_acc | 78.5 | 80.37 | +1.87 | ± 2 | within tolerance | |" in md
    tables = card[card["kind"] == "number"].groupby(["paper", "table", "base"], dropna=False).ngroups
    # + one overview row per scored paper (each ran once or not at all), the overview and claims headers, and the
    # header of each published table
    assert md.count("\n| ") == len(card) + len(scored()) + 2 + tables


def test_a_quick_run_is_marked_and_counts_nothing_as_reproduced():
    table = kudfs_table(thyroid=(77.67, 80.37, 92.33), german=(60.0, 55.0, 75.0))  # thyroid within, german not
    claims = claims_frame([{"id": "KUDFS/T1", "claim": "x", "verdict": True, "numbers": "n"}])
    runs = {"kudfs": [S.ReportResults("quick_kudfs", {"table1": table}, claims)]}
    full = S.scorecard(published(), reference(), runs, excluded={}, tolerances=all_tolerances())
    quick = S.scorecard(published(), reference(), runs, excluded={}, tolerances=all_tolerances(), protocol="quick")
    assert (full["protocol"] == "full").all() and (quick["protocol"] == "quick").all()
    changed = full["outcome"] != quick["outcome"]
    assert set(full.loc[changed, "outcome"]) == {"within tolerance", "outside tolerance", "holds"}
    assert (quick.loc[changed, "outcome"] == "quick: " + full.loc[changed, "outcome"]).all()
    assert not quick["outcome"].isin(S.JUDGED).any()  # nothing a reader could count as reproduced
    assert (quick.loc[~changed, "outcome"] == full.loc[~changed, "outcome"]).all()  # not run, not in this run
    md = S.scorecard_markdown(quick, excluded={}, tolerances=all_tolerances())
    assert md.startswith("# Scorecard (quick protocol):") and "no row counts as reproduced" in md
    assert "| quick: within tolerance | quick: outside |" in md
    assert "| Kernel UDFS (Liu & Wang) | results/quick_kudfs/ | main | 18 | 3 | 3 | 12 | 1 | 0 | 0 | 2 |" in md
    assert "| Kernel UDFS (Liu & Wang) | unexplained | 3 |" in md  # german's three, no group for them
    assert "**quick: holds**" in md
    assert "protocol" not in S.scorecard_markdown(full, excluded={}, tolerances=all_tolerances()).split("\n")[0]
    with pytest.raises(ValueError, match="protocol must be one of"):
        S.mark_protocol(full, "fast")


# ---------------------------------------------------------------- readings and groups


def test_the_closest_reading_is_the_nearest_value_and_ties_go_to_the_main_reading():
    # published thyroid: all 78.7, UDFS 78.5, kernel 92.8 (kudfs/published/kudfs_table1.csv)
    main = S.ReportResults("kudfs", {"table1": kudfs_table(thyroid=(70.7, 80.0, 90.3))})
    sigma2 = S.ReportResults("readings/w/kudfs", {"table1": kudfs_table(thyroid=(70.7, 77.0, 92.3))},
                             reading="w", base="kudfs")
    rnd = S.ReportResults("readings/r/kudfs", {"table1": kudfs_table(thyroid=(86.7, 80.0, 95.3))},
                          reading="r", base="kudfs")
    card = S.scorecard(published(), reference(), {"kudfs": [main, sigma2, rnd]}, excluded={},
                       tolerances=all_tolerances(), reading_order=["w", "r"])
    rows = numbers_of(card, "kudfs")
    thyroid = rows[rows["dataset"] == "thyroid"]
    assert set(thyroid["reading"]) == {"main", "w", "r"} and set(thyroid["base"]) == {"kudfs"}
    closest = thyroid.drop_duplicates("method").set_index("method")["closest_reading"]
    # All Features 8 (main, w) vs 8 (r): a tie, so main; UDFS 1.5 (main, r) vs 1.5 (w): main;
    # kernel: 2.5, 0.5, 2.5 -> w
    assert closest.to_dict() == {"All Features": "main", "UDFS": "main", "KernelUDFS": "w"}
    assert (rows[rows["dataset"] == "german"]["closest_reading"] == "").all()  # no reading has a value
    md = S.scorecard_markdown(card, excluded={}, tolerances=all_tolerances())
    assert "| thyroid | KernelUDFS | kmeans_acc | 92.8 | 90.3 | -2.5 | ± 2 | outside tolerance | unexplained | 92.3 | 95.3 | w |" in md
    assert "| Kernel UDFS (Liu & Wang) | results/kudfs/ and its readings | closest per number | 18 | 2 | 1 | 15 |" in md


@pytest.mark.parametrize(("std", "expected"), [(1.0, "w"), (3.0, "too close to call")])
def test_readings_apart_by_less_than_one_try_of_chance_are_too_close_to_call(std, expected):
    """Kernel UDFS on thyroid: main 2.5 from the published 92.8, reading w 0.5; w is closest only when the 2.0
    between them is more than one standard deviation of Random's best of G."""
    def with_chance(table):
        return table.assign(kernel_udfs_G=2, kernel_udfs_chance=50.0, kernel_udfs_chance_std=std,
                            kernel_udfs_chance_se=std / 2)

    main = S.ReportResults("kudfs", {"table1": with_chance(kudfs_table(thyroid=(70.7, 80.0, 90.3)))})
    w = S.ReportResults("readings/w/kudfs", {"table1": with_chance(kudfs_table(thyroid=(70.7, 77.0, 92.3)))},
                        reading="w", base="kudfs")
    card = S.scorecard(published(), reference(), {"kudfs": [main, w]}, excluded={}, tolerances=all_tolerances(),
                       reading_order=["w"])
    rows = numbers_of(card, "kudfs")
    kernel = rows[(rows["dataset"] == "thyroid") & (rows["method"] == "KernelUDFS")]
    assert set(kernel["closest_reading"]) == {expected}
    md = S.scorecard_markdown(card, excluded={}, tolerances=all_tolerances())
    # a number whose closest reading is too close to call counts under its main reading (2.5: outside)
    assert "| Kernel UDFS (Liu & Wang) | results/kudfs/ and its readings | closest per number |" in md


def test_a_reading_computed_beside_the_main_one_reads_its_own_metrics():
    pub = published()["ivfs_table1.csv"]
    first = pub.iloc[0]
    table = pd.DataFrame([
        {"dataset": first["dataset"], "method": first["method"], "metric": "w11", "reproduced": 0.0},
        {"dataset": first["dataset"], "method": first["method"], "metric": "w11_literal",
         "reproduced": float(first["w11"])},
    ])
    runs = {"ivfs": [S.ReportResults("ivfs", {"table1": table})]}
    card = S.scorecard(published(), reference(), runs, excluded={}, tolerances=all_tolerances(),
                       beside={"ivfs": {"eps": {"w11": "w11_literal"}}})
    w11 = numbers_of(card, "ivfs")
    w11 = w11[(w11["metric"] == "w11") & (w11["dataset"] == first["dataset"]) & (w11["method"] == first["method"])]
    by_reading = w11.set_index("reading")
    assert by_reading.loc["eps", "reproduced"] == pytest.approx(first["w11"])
    assert by_reading.loc["eps", "outcome"] == "within tolerance" and by_reading.loc["main", "outcome"] == "outside tolerance"
    assert (w11["closest_reading"] == "eps").all()
    assert by_reading.loc["main", "group"] == "unexplained"  # no groups file given
    assert not (numbers_of(card, "ivfs")["reading"] == "eps").groupby(numbers_of(card, "ivfs")["metric"]).any().drop("w11").any()


def test_out_of_tolerance_rows_take_the_first_matching_group():
    groups = pd.DataFrame([
        {"paper": "kudfs", "table": "Table 1", "dataset": "german", "method": "*", "metric": "*", "group": "g1",
         "reason": "r1", "doc": "d1"},
        {"paper": "kudfs", "table": "*", "dataset": "*", "method": "UDFS", "metric": "*", "group": "g2",
         "reason": "r2", "doc": "d2"},
    ])
    table = kudfs_table(german=(60.0, 55.0, 75.0), thyroid=(78.5, 70.0, 92.5))
    card = S.scorecard(published(), reference(), {"kudfs": [S.ReportResults("kudfs", {"table1": table})]},
                       excluded={}, tolerances=all_tolerances(), groups=groups)
    rows = numbers_of(card, "kudfs").set_index(["dataset", "method"])
    assert rows.loc[("german", "UDFS"), "group"] == "g1" and rows.loc[("thyroid", "UDFS"), "group"] == "g2"
    assert rows.loc[("thyroid", "KernelUDFS"), "group"] == ""  # within tolerance: no group
    md = S.scorecard_markdown(card, excluded={}, tolerances=all_tolerances(), groups=groups)
    assert "| Kernel UDFS (Liu & Wang) | g1 | 3 | r1 | d1 |" in md and "| Kernel UDFS (Liu & Wang) | g2 | 1 | r2 | d2 |" in md


def test_a_papers_groups_file_lists_only_its_own_numbers(tmp_path, monkeypatch):
    home = tmp_path / "kudfs"
    home.mkdir()
    monkeypatch.setitem(paper_spec._REGISTRY, "kudfs", replace(scored()["kudfs"], home=home))
    row = "Table 1,*,*,*,g,r,d\n"
    (home / "groups.csv").write_text(",".join(S.GROUP_COLUMNS) + "\n" + "kudfs," + row)
    assert S.read_groups([home / "groups.csv"])["group"].tolist() == ["g"] and home / "groups.csv" in S.group_files()
    (home / "groups.csv").write_text(",".join(S.GROUP_COLUMNS) + "\n" + "ils," + row)
    with pytest.raises(ValueError, match=r"rows of paper\(s\) \['ils'\] in the folder of paper 'kudfs'"):
        S.read_groups(home / "groups.csv")
    assert S.read_groups([]).columns.tolist() == S.GROUP_COLUMNS  # no paper has one: no group


def _anchor(heading: str) -> str:
    """GitHub's anchor of a markdown heading."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip("# ").lower()).replace(" ", "-")


def test_the_groups_files_cover_their_rows_and_name_real_doc_sections():
    files = S.group_files()  # each scored paper's groups.csv, in its folder
    assert files == [spec.groups for spec in scored().values() if spec.groups.is_file()] and files
    for path in files:
        assert set(S.read_groups(path)["paper"]) == {path.parent.name}  # a paper's file lists its own numbers
    groups = S.read_groups(files)
    pub = S.published_numbers(published())
    for g in groups.itertuples(index=False):
        match = pub["paper"] == g.paper
        for key in ("table", "dataset", "method", "metric"):
            if getattr(g, key) not in ("*", ""):
                match &= pub[key] == getattr(g, key)
        assert match.any(), f"groups.csv row {g} matches no published number"
        path, _, anchor = g.doc.partition("#")
        text = (ROOT / path).read_text()
        assert anchor in {_anchor(line) for line in text.splitlines() if line.startswith("#")}, g.doc
    # the out-of-tolerance numbers docs/results.md names per paper each have a group
    for paper, table, dataset, method, metric in [("ils", "Table 1", "parkinsons", "", "n_samples"),
                                                   ("ils", "Table 1", "horse_colic", "", "n_features"),
                                                   ("nrfs", "Table I", "nrfs_synthetic", "LS", "nmi_all"),
                                                   ("ivfs", "Table 1", "COIL20", "IVFS-linf", "L2")]:
        row = pd.Series({"paper": paper, "table": table, "dataset": dataset, "method": method, "metric": metric})
        assert S.group_of(row, groups) != S.UNEXPLAINED
