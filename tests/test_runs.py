"""The one fit path and the one evaluate path of a run (ufskit.runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufskit import metrics as M
from ufskit import runs as R
from ufskit.selectors import IVFS, IterativeLaplacianScore, KernelUDFS, LaplacianScore

METRICS = {"knn": {"ks": [1, 3], "n_splits": 2}, "distance_norms": {}}


def _data(rng, n=30, d=8):
    X = rng.standard_normal((n, d))
    X[:, :2] *= 4.0
    return X, np.repeat([0, 1, 2], n // 3)


def test_fit_run_resolves_params_seeds_draws_and_checks_the_ranking(rng):
    X, _ = _data(rng)
    spec = {"selector": "IVFS", "params": {"n_subsets": 40, "subset_samples": "upto10"}}
    sel = R.fit_run(X, spec, 7, n_classes=3, n_features=[2, 4])
    alone = IVFS(n_subsets=40, subset_samples=10, random_state=7).fit(X)
    np.testing.assert_array_equal(sel.order, alone.order_)
    assert sel.params["subset_samples"] == 10 and sel.params["selector"] == "IVFS" and sel.seconds > 0
    other = R.fit_run(X, spec, 8, n_classes=3)
    assert not np.array_equal(other.scores, sel.scores)  # the seed reaches the selector
    ls = {"selector": "LaplacianScore", "params": {"n_neighbors": 4}}
    np.testing.assert_array_equal(R.fit_run(X, ls, 1, n_classes=3).order, R.fit_run(X, ls, 2, n_classes=3).order)
    assert R.is_random(spec) and not R.is_random(ls)
    with pytest.raises(ValueError, match=r"feature counts \[99\] are outside \[1, 8\]"):
        R.fit_run(X, ls, 0, n_classes=3, n_features=[99])


def test_to_selection_keeps_per_count_subsets_and_kernel_features(rng):
    X, _ = _data(rng)
    spec = {"selector": "IterativeLaplacianScore", "params": {"variant": 2, "n_drop": 2}}
    sel = R.fit_run(X, spec, 0, n_classes=3, n_features=[2, 5])
    for count in (2, 5):
        fresh = IterativeLaplacianScore(variant=2, n_drop=2, n_features_to_select=count).fit(X)
        np.testing.assert_array_equal(sel.features(count), fresh.order_[:count])
    kernel = R.fit_run(X, {"selector": "KernelUDFS", "params": {"n_clusters": "n_classes"}}, 0, n_classes=3,
                       n_features={"fractions": [0.5]})
    assert kernel.params["n_clusters"] == 3 and kernel.space.shape == (30, 30) and kernel.order.size == 30
    np.testing.assert_array_equal(kernel.space, KernelUDFS(n_clusters=3).fit(X).kernel_features(X))


def test_checkpoint_selection_is_the_smaller_fit(rng):
    X, _ = _data(rng)
    spec = {"selector": "IVFS", "params": {"n_subsets": 30, "subset_samples": 0.5}}
    fitted = R.fit_selector(spec, X, seed=3, n_classes=3, checkpoints=[10])
    sel = R.to_selection(*fitted, spec, X, checkpoint=10)
    alone = IVFS(n_subsets=10, subset_samples=0.5, random_state=3).fit(X)
    np.testing.assert_array_equal(sel.order, alone.order_)
    assert sel.params["n_subsets"] == 10 and sel.seconds <= fitted[1]


def test_persistence_rows_match_direct_diagrams_in_both_readings(rng):
    X, _ = _data(rng, d=8)
    order = np.arange(8)[::-1]
    sel = R.Selection(order=order, scores=np.arange(8.0), seconds=0.0, params={})
    full = M.h1_diagram(M.normalized_distance_matrix(X), max_edge=0.5, min_persistence=0.0)
    rows = pd.DataFrame(R.persistence_rows(X, sel, [3, 8], full, max_edge=0.5, min_persistence=0.0,
                                           literal_min_persistence=0.05))
    sub = M.h1_diagram(M.normalized_distance_matrix(X[:, order[:3]]), max_edge=0.5, min_persistence=0.0)
    direct = M.diagram_distances(full, sub)
    literal = M.diagram_distances(M.h1_diagram(M.normalized_distance_matrix(X), min_persistence=0.05),
                                  M.h1_diagram(M.normalized_distance_matrix(X[:, order[:3]]), min_persistence=0.05))
    got = rows[rows["n_features"] == 3].set_index("metric")["value"]
    assert got["w11"] == pytest.approx(direct["w11"]) and got["winf"] == pytest.approx(direct["winf"])
    assert got["w11_literal"] == pytest.approx(literal["w11"]) and got["winf_literal"] == pytest.approx(literal["winf"])
    # all features: the same geometry, so both distances vanish
    assert rows[rows["n_features"] == 8]["value"].abs().max() == pytest.approx(0.0, abs=1e-9)
    only_main = R.persistence_rows(X, sel, [3], full, max_edge=0.5, min_persistence=0.0, literal_min_persistence=None)
    assert {r["metric"] for r in only_main} == {"w11", "winf"}


def test_evaluate_run_persistence_only_for_the_settings_asked(rng):
    X, y = _data(rng)
    spec = {"selector": "IVFS", "params": {"n_subsets": 40, "subset_samples": 0.1}}
    sel = R.fit_run(X, spec, 0, n_classes=3)
    persistence = {"max_edge": 0.5, "min_persistence": 0.0, "counts": [4], "settings": {"subset_samples": "ivfs_table"}}
    metrics = {**METRICS, "persistence": persistence}
    diagram = np.empty((0, 2))
    frame = R.evaluate_run(X, y, sel, [2, 4], metrics, 1, dataset="d", method="m", params="p", rep=0, diagram=diagram)
    assert set(frame.loc[frame["metric"] == "w11", "n_features"]) == {4}  # n = 30 < 1000: ivfs_table is 0.1
    plain = R.evaluate_run(X, y, sel, [2, 4], METRICS, 1, dataset="d", method="m", params="p", rep=0)
    pd.testing.assert_frame_equal(frame[~frame["metric"].isin(["w11", "winf"])].reset_index(drop=True), plain)
    other = R.fit_run(X, {**spec, "params": {"n_subsets": 40, "subset_samples": 0.5}}, 0, n_classes=3)
    skipped = R.evaluate_run(X, y, other, [2, 4], metrics, 1, dataset="d", method="m", params="p", rep=0,
                             diagram=diagram)
    assert "w11" not in set(skipped["metric"])


def test_run_batched_gives_the_numbers_of_separate_runs_and_fits_a_deterministic_selector_once(rng, monkeypatch):
    X, y = _data(rng)
    runs = [{"params": slug, "rep": rep, "spec": {"selector": name, "params": params}, "fit_seed": 10 + rep,
             "evaluation_seed": 20 + rep}
            for name, slug, params in (("IVFS", "k=12", {"n_subsets": 12}), ("LaplacianScore", "default", {}))
            for rep in (0, 1)]
    separate = pd.concat([R.evaluate_run(X, y, R.fit_run(X, r["spec"], r["fit_seed"], n_classes=3, n_features=[2, 5]),
                                         [2, 5], METRICS, r["evaluation_seed"], dataset="d", method="m",
                                         params=r["params"], rep=r["rep"]) for r in runs], ignore_index=True)
    fitted = []
    monkeypatch.setattr(LaplacianScore, "fit", lambda self, X, y=None, _fit=LaplacianScore.fit: fitted.append(1)
                        or _fit(self, X))
    batched = R.run_batched(X, y, runs, [2, 5], METRICS, n_classes=3, dataset="d", method="m")
    timing = batched["metric"] == "fit_seconds"
    pd.testing.assert_frame_equal(batched[~timing].reset_index(drop=True), separate[~timing].reset_index(drop=True))
    assert len(fitted) == 1  # LS's two repetitions share its one fit


def test_run_batched_prefixes_ignore_per_count_subsets(rng, monkeypatch):
    X, y = _data(rng)
    run = {"params": "default", "rep": 0, "spec": {"selector": "MCFS", "params": {"n_clusters": 3, "n_neighbors": 5}},
           "fit_seed": 0, "evaluation_seed": 0}
    seen = []
    evaluate = R.evaluate_run
    monkeypatch.setattr(R, "evaluate_run", lambda X, y, sel, *args, **kwargs: seen.append(sel) or evaluate(
        X, y, sel, *args, **kwargs))
    R.run_batched(X, y, [{**run, "prefixes": True}, run], [2, 3], {"distance_norms": {}}, n_classes=3, dataset="d",
                  method="m")
    assert not seen[0].subsets  # every count a prefix of the order
    assert sorted(seen[1].subsets) == [2, 3]  # the generic path keeps MCFS's per-count subsets


def test_selection_records_how_many_features_have_a_determined_rank(rng, monkeypatch):
    X, _ = _data(rng)

    class Partial(LaplacianScore):
        def fit(self, X, y=None):
            super().fit(X)
            self.n_ranked_ = 3
            return self

    ls = {"selector": "LaplacianScore", "params": {}}
    assert R.fit_run(X, ls, 0, n_classes=3).n_ranked == X.shape[1]  # no n_ranked_: every feature
    monkeypatch.setattr(R, "make_selector", lambda name, **params: Partial(**params))
    assert R.fit_run(X, ls, 0, n_classes=3).n_ranked == 3
