"""Calibration of the NRFS synthetic generator and its sensitivity sweep (ufskit.papers.nrfs.calibration)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufskit.papers.nrfs import calibration as C

PUBLISHED = pd.DataFrame({
    "method": ["K-means", "NJW", "SPEC", "LS", "MCFS", "NDFS", "NRFS"],
    "nmi_all_instances": [0.1571, 0.1002, 0.0017, 0.0069, 0.0032, 0.3147, 1.0],
    "nmi_normal_instances": [0.2665, 0.1097, 0.0032, 0.0071, 0.0094, 0.5004, 1.0],
})


def nmi_frame(offsets: dict, nrfs: float = 0.0) -> pd.DataFrame:
    """The published baselines moved by ``offsets[(method, variant)]``; NRFS far from its 1.0."""
    pub = PUBLISHED.set_index("method")
    rows = [{"method": m, "variant": v, "nmi": pub.loc[m, col] + offsets.get((m, v), 0.0)}
            for m in C.BASELINES for v, col in (("all", "nmi_all_instances"), ("normal", "nmi_normal_instances"))]
    rows += [{"method": "NRFS", "variant": v, "nmi": nrfs} for v in ("all", "normal")]
    return pd.DataFrame(rows)


def test_objective_is_the_sum_of_squared_baseline_gaps_without_nrfs():
    # hand-computed: 0.1^2 + (-0.2)^2 + 0.3^2 = 0.01 + 0.04 + 0.09 = 0.14; NRFS (off by 1.0) does not count
    frame = nmi_frame({("K-means", "all"): 0.1, ("K-means", "normal"): -0.2, ("LS", "all"): 0.3})
    assert C.objective(frame, PUBLISHED) == pytest.approx(0.14)
    assert C.objective(nmi_frame({}, nrfs=0.0), PUBLISHED) == pytest.approx(0.0)


def test_objective_skips_missing_published_cells_and_needs_every_baseline():
    pub = PUBLISHED.copy()
    pub.loc[pub["method"] == "NJW", "nmi_normal_instances"] = np.nan
    assert C.objective(nmi_frame({("NJW", "normal"): 0.5}), pub) == pytest.approx(0.0)
    frame = nmi_frame({})
    with pytest.raises(ValueError, match="MCFS"):
        C.objective(frame[frame["method"] != "MCFS"], PUBLISHED)


def test_search_finds_the_planted_minimum_and_records_every_point():
    """A fake evaluation whose K-means gap is zero at noise_scale 500, spread 1.25, separation 0.75."""
    calls = []

    def evaluate(setting):
        calls.append(setting)
        gap = (np.log(setting["noise_scale"] / 500) + (setting["cluster_spread"] - 1.25)
               + (setting["cluster_separation"] - 0.75) + (setting["noise_distribution"] == "gaussian"))
        return nmi_frame({("K-means", "all"): gap})

    grid = {"noise_distribution": ["uniform", "gaussian"], "noise_scale": [150.0, 400.0, 1000.0],
            "cluster_spread": [1.0, 2.0], "cluster_separation": [0.5, 1.0]}
    frame = C.search(evaluate, PUBLISHED, grid=grid, starts=2, rounds=4)
    assert len(frame) == len(calls) == len({tuple(sorted(c.items())) for c in calls})  # no point twice
    assert (frame["stage"] == "grid").sum() == 24 and frame["stage"].str.startswith("refine").any()
    best = frame[frame["chosen"]].iloc[0]
    assert frame["chosen"].sum() == 1 and best["objective"] == frame["objective"].min()
    assert best["noise_distribution"] == "uniform"
    assert best["objective"] < 0.01 < frame[frame["stage"] == "grid"]["objective"].min()
    assert {"K-means_all", "NDFS_normal", "NRFS_all"} <= set(frame.columns)


def test_search_chooses_among_the_confirmed_points():
    """The cheap evaluation flatters the largest noise scale; the confirming one does not."""
    def evaluate(setting, lucky=True):
        gap = abs(np.log(setting["noise_scale"] / 400))
        if lucky and setting["noise_scale"] >= 1000:
            gap = 0.0
        return nmi_frame({("LS", "all"): gap})

    grid = {"noise_distribution": ["uniform"], "noise_scale": [150.0, 400.0, 1000.0],
            "cluster_spread": [1.0], "cluster_separation": [1.0]}
    frame = C.search(evaluate, PUBLISHED, grid=grid, starts=1, rounds=1, confirm=lambda s: evaluate(s, False),
                     n_confirm=3)
    confirmed = frame[frame["stage"] == "confirm"]
    assert len(confirmed) == 3 and frame.loc[frame["chosen"], "stage"].tolist() == ["confirm"]
    assert frame.loc[frame["chosen"], "noise_scale"].item() == 400.0


def test_method_nmi_sees_the_noise_scale():
    """Small data: on Fig. 1's axes K-means and LS find the clusters; with noise features 30x wider they do not."""
    sizes = {"n_per_cluster": 40, "n_noise": 8, "n_features": 10}
    methods = {"K-means": None, "LS": {"selector": "LaplacianScore", "params": {"n_neighbors": 5}}}
    clear = C.method_nmi({**sizes}, methods, kmeans={"n_init": 3}).set_index(["method", "variant"])["nmi"]
    noisy = C.method_nmi({**sizes, "noise_scale": 5000.0}, methods, kmeans={"n_init": 3})
    assert clear.min() > 0.9
    assert noisy.set_index(["method", "variant"])["nmi"].max() < 0.3
    again = C.method_nmi({**sizes}, methods, kmeans={"n_init": 3}).set_index(["method", "variant"])["nmi"]
    pd.testing.assert_series_equal(clear, again)  # deterministic from the seeds


def test_sensitivity_sweeps_one_option_at_a_time():
    base = {"n_per_cluster": 20, "n_noise": 4, "n_features": 6, "noise_scale": 150.0}
    frame = C.sensitivity(base, {"noise_scale": [150.0, 3000.0], "n_noise": [0, 8]}, {"K-means": None},
                          kmeans={"n_init": 2})
    assert list(frame.columns) == ["parameter", "value", "method", "variant", "nmi"]
    assert len(frame) == 8 and set(frame["parameter"]) == {"noise_scale", "n_noise"}
    with pytest.raises(ValueError, match="cluster_spread"):
        C.sensitivity(base, {"cluster_spread": [1.0, 2.0]}, {"K-means": None})


@pytest.mark.parametrize("spec, name", [
    ([1, 2], "mapping"), ({"noise_scale": [100]}, "noise_scale"), ({"noise": [1, 2]}, "sweep"), ({}, "sweep"),
    ({"noise_scale": [1, 2], "data_seeds": 0}, "data_seeds"), ({"n_noise": [0, 8], "kmeans_starts": 1.5}, "kmeans_starts"),
])
def test_check_sensitivity_rejects_bad_protocols(spec, name):
    with pytest.raises(ValueError, match=name):
        C.check_sensitivity(spec)


def test_check_sensitivity_defaults():
    assert C.check_sensitivity({"n_noise": [0, 80]}) == {"sweeps": {"n_noise": [0, 80]}, "data_seeds": 1,
                                                          "kmeans_starts": 10}


def sweep(nrfs_values, best_values):
    rows = []
    for i, (n, b) in enumerate(zip(nrfs_values, best_values)):
        rows += [{"parameter": "noise_scale", "value": 100.0 * (i + 1), "method": m, "variant": "all", "nmi": v}
                 for m, v in (("NRFS", n), ("LS", b), ("K-means", b / 2))]
    return pd.DataFrame(rows)


def test_claim_robustness_judges_only_the_points_that_defeat_the_baselines():
    assert C.claim_robustness(sweep([1.0, 1.0, 0.95], [1.0, 0.3, 0.5]))[0] == "holds"  # first point: all succeed
    verdict, text = C.claim_robustness(sweep([1.0, 1.0, 0.4], [1.0, 0.3, 0.35]))
    assert verdict == "partly holds" and "vanishes at noise_scale = 300" in text
    assert C.claim_robustness(sweep([0.2, 0.3], [0.1, 0.25]))[0] == "does not hold"
    assert C.claim_robustness(sweep([1.0], [1.0]))[0] == "not run"


def test_informative_nmi_tells_separable_settings_from_overlapping_ones():
    sizes = {"n_per_cluster": 60, "n_noise": 10, "n_features": 6}
    assert C.informative_nmi(sizes, n_init=3) >= C.SEPARABLE  # Fig. 1's geometry: f1-f4 separate the clusters
    # wide clusters pulled halfway to the middle of the axes overlap in both planes
    assert C.informative_nmi({**sizes, "cluster_spread": 2.0, "cluster_separation": 0.5}, n_init=3) < 0.7


def falling(scale_at_half: float):
    """An NMI that falls from 1 to 0 with log s, through 0.5 at ``scale_at_half`` (a planted transition)."""
    return lambda setting: float(np.clip(0.5 - 2 * np.log(setting["noise_scale"] / scale_at_half), 0, 1))


def test_crossing_scale_finds_the_planted_transition():
    # falling(400) is 0.157 where log(s / 400) = (0.5 - 0.157) / 2, i.e. s = 400 * exp(0.1715) = 474.8
    assert C.crossing_scale(falling(400.0), {"cluster_spread": 1.0}, 0.157) == pytest.approx(474.8, rel=2e-3)
    low, high = C.BOUNDS["noise_scale"]
    assert C.crossing_scale(lambda s: 1.0, {}, 0.5) == pytest.approx(high, rel=2e-3)  # never falls: the bound
    assert C.crossing_scale(lambda s: 0.0, {}, 0.5) == pytest.approx(low, rel=2e-3)


def test_done_when_window_is_empty_when_ls_outlasts_kmeans():
    """K-means holds (>= 0.057) below its crossing, LS (<= 0.107) above its own; the window lies between."""
    def nmi_at(kmeans_half, ls_half):
        return lambda method: falling(kmeans_half if method == "K-means" else ls_half)

    open_ = C.done_when_window(nmi_at(400.0, 300.0), {}, PUBLISHED)
    # K-means falls to 0.1571 - 0.1 = 0.0571 at 400 exp(0.22145); LS to 0.0069 + 0.1 at 300 exp(0.19655)
    assert open_["kmeans_until"] == pytest.approx(400 * np.exp(0.22145), rel=2e-3)
    assert open_["ls_from"] == pytest.approx(300 * np.exp(0.19655), rel=2e-3)
    assert open_["window_width"] > 0.3
    closed = C.done_when_window(nmi_at(300.0, 400.0), {}, PUBLISHED)
    assert closed["window_width"] < 0 and closed["ls_from"] > closed["kmeans_until"]


def test_transition_scores_every_geometry_around_its_kmeans_crossing():
    grid = {"noise_distribution": ["uniform", "gaussian"], "noise_scale": [150.0], "cluster_spread": [0.5, 1.0],
            "cluster_separation": [1.0]}

    def kmeans_nmi(setting):  # the transition moves with the geometry
        return falling(400.0 if setting["noise_distribution"] == "uniform" else 700.0)(setting)

    seen = []

    def evaluate(setting):
        seen.append(setting)
        return nmi_frame({("K-means", "all"): kmeans_nmi(setting) - 0.1571})

    frame = C.transition(evaluate, kmeans_nmi, PUBLISHED, grid=grid, factors=(0.9, 1.0, 1.1))
    assert len(frame) == len(seen) == 12 and set(frame["stage"]) == {"transition"}
    middle = frame[frame["noise_scale"].isin(frame.groupby(["noise_distribution", "cluster_spread"])["noise_scale"]
                                             .transform("median"))]
    assert len(middle) == 4 and middle["objective"].max() < 1e-4  # K-means at its published value there
    assert sorted(middle["noise_scale"].round(-1).unique()) == [470.0, 830.0]


def search_table(points: list[tuple]) -> pd.DataFrame:
    """Rows of a search table: (objective, K-means all, LS all, admissible) per point."""
    return pd.DataFrame([{"objective": o, "K-means_all": k, "LS_all": ls, "admissible": a}
                         for o, k, ls, a in points], index=[10, 11, 12, 13][: len(points)])


def test_meets_done_when_is_both_baselines_within_the_tolerance_on_either_side():
    # published K-means 0.1571, LS 0.0069: K-means passes on [0.0571, 0.2571], LS on [0, 0.1069]
    table = search_table([(0, 0.058, 0.106, True), (0, 0.056, 0.0, True), (0, 0.258, 0.0, True),
                          (0, 0.157, 0.108, True)])
    assert C.meets_done_when(table, PUBLISHED).tolist() == [True, False, False, False]


def test_choose_prefers_points_meeting_the_acceptance_test_over_a_lower_objective():
    table = search_table([(0.10, 0.00, 0.00, True),    # lowest objective, K-means far below 0.157
                          (0.05, 0.15, 0.01, False),   # meets, lower still, but f1-f4 do not separate
                          (0.30, 0.10, 0.05, True),    # meets
                          (0.20, 0.09, 0.04, True)])   # meets, the lowest objective of those: chosen
    assert C.choose(table, PUBLISHED) == 13
    # when no admissible point meets it, the lowest objective among the admissible ones
    assert C.choose(table.loc[[10, 11]], PUBLISHED) == 10
