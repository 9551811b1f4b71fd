"""The selector base class, the Variance selector, selection files and result tables."""

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import check_estimator

from ufskit.data import Dataset, check_classes, load_dataset, save_dataset
from ufskit.results import best_over_settings, dataset_table, summarize
from ufskit.selection_io import Selection, load_selection, save_selection
from ufskit.selectors import SELECTORS, Variance, make_selector, ranking_from_scores


def test_ranking_breaks_ties_by_index():
    assert ranking_from_scores(np.array([1.0, 3.0, 3.0, 0.0])).tolist() == [3, 1, 2, 4]


def test_ranking_refuses_nan_scores():
    with pytest.raises(RuntimeError, match="NaN"):
        ranking_from_scores(np.array([1.0, np.nan]))


def test_variance_ranks_by_variance_and_selects_k(rng):
    X = rng.normal(size=(200, 4)) * np.array([1.0, 5.0, 0.1, 2.0])
    sel = Variance(n_features_to_select=2).fit(X)
    assert sel.order_.tolist() == [1, 3, 0, 2]
    assert sel.get_support().tolist() == [False, True, False, True]
    assert sel.transform(X).shape == (200, 2)
    np.testing.assert_allclose(sel.scores_, X.var(axis=0))


def test_variance_passes_sklearn_estimator_checks():
    check_estimator(Variance())


def test_selector_errors_are_clear(rng):
    X = rng.normal(size=(10, 3))
    with pytest.raises(ValueError, match="outside"):
        Variance(n_features_to_select=4).fit(X).get_support()
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Variance().fit(bad)
    with pytest.raises(ValueError, match="unknown selector 'Varience'"):
        make_selector("Varience")
    with pytest.raises(ValueError, match="no parameter"):
        make_selector("Variance", n_neighbours=5)


def test_fraction_of_features(rng):
    sel = Variance(n_features_to_select=0.5).fit(rng.normal(size=(20, 10)))
    assert sel.get_support().sum() == 5


def test_registry_names_resolve():
    for name, cls in SELECTORS.items():
        assert isinstance(make_selector(name), cls)


def test_selection_roundtrip(tmp_path):
    sel = Selection(order=np.array([2, 0, 1]), scores=np.array([0.5, 0.1, 0.9]), seconds=1.5,
                    params={"k": 5}, subsets={2: np.array([2, 1])})
    save_selection(sel, tmp_path / "s.npz")
    back = load_selection(tmp_path / "s.npz")
    assert back.order.tolist() == [2, 0, 1] and back.seconds == 1.5 and back.params == {"k": 5}
    assert back.features(2).tolist() == [2, 1] and back.features(1).tolist() == [2]
    with pytest.raises(ValueError, match="ranks only"):
        back.features(4)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_dataset_roundtrip(tmp_path, rng):
    ds = Dataset(rng.normal(size=(5, 3)), [2, 0, 1, 1, 0], ["a", "b", "c"], {"note": "x"})
    save_dataset(ds, tmp_path / "d.npz", tmp_path / "d.json")
    back = load_dataset(tmp_path / "d.npz")
    np.testing.assert_array_equal(back.X, ds.X)
    assert back.feature_names.tolist() == ["a", "b", "c"] and back.info == {"note": "x"}
    assert ds.summary()["class_sizes"] == [2, 2, 1]


def test_best_over_settings_respects_metric_direction():
    frame = pd.DataFrame({
        "dataset": "d", "method": "m", "params": ["p1", "p2", "p1", "p2"], "n_features": [10, 10, 10, 10],
        "metric": ["knn_acc", "knn_acc", "L2", "L2"], "value": [0.8, 0.9, 3.0, 2.0], "rep": 0,
    })
    best = best_over_settings(summarize(frame)).set_index("metric")
    assert best.loc["knn_acc", "value"] == 0.9 and best.loc["knn_acc", "params"] == "p2"
    assert best.loc["L2", "value"] == 2.0


@pytest.mark.parametrize(("y", "message"), [
    (np.zeros(6, dtype=int), r"'toy': label column 'kind' has a single class"),
    (np.arange(6), r"'toy': label column 'kind' has as many classes as samples \(6\)"),
])
def test_degenerate_labels_are_refused_at_prepare_time(y, message):
    """Issue 39: a one-class label column ran through and reported ACC = NMI = 1 for every method."""
    ds = Dataset(np.random.default_rng(0).standard_normal((6, 3)), y, info={"label_column": "kind"})
    with pytest.raises(ValueError, match=message):
        check_classes(ds, "toy")
    check_classes(Dataset(ds.X, np.arange(6) % 2, info=ds.info), "toy")  # two classes: fine


def test_summary_reports_flat_columns_and_the_spread_ratio():
    """The dataset table's columns: flat by the library's rule, and the largest over smallest range of the rest."""
    X = np.column_stack([np.linspace(0, 1e11, 8), np.linspace(0, 2, 8), np.full(8, 5.0)])
    summary = Dataset(X, np.arange(8) % 2).summary()
    assert summary["n_flat"] == 1
    assert summary["spread_ratio"] == pytest.approx(5e10)
    table = dataset_table({"toy": summary})
    assert "| spread ratio |" in table and "| 5e+10 |" in table
