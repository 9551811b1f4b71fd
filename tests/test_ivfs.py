"""IVFS: hand-computed losses, the documented draws, never-drawn features, determinism, planted geometry."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import pdist, squareform
from selector_checks import assert_deterministic, make_planted, run_check_estimator

from ufskit.seeds import derive_seed
from ufskit.selectors.ivfs import IVFS, inclusion_values, subset_losses
from ufskit.selectors.ties import tie_keys


def direct_ivfs(X, samples, features, loss):
    """Algorithm 1 written out: one subset at a time, scipy distances, dict accumulators."""
    total, count = {}, {}
    for rows, cols in zip(samples, features):
        D = squareform(pdist(X[rows]))
        DF = squareform(pdist(X[np.ix_(rows, cols)]))
        diff = D / D.max() - DF / DF.max()
        value = {"linf": np.abs(diff).max(), "l1": np.abs(diff).sum(), "l2": np.sqrt((diff**2).sum())}[loss]
        for f in cols:
            total[f] = total.get(f, 0.0) - value
            count[f] = count.get(f, 0) + 1
    d = X.shape[1]
    counts = np.array([count.get(f, 0) for f in range(d)])
    scores = np.array([total[f] / count[f] if f in count else np.nan for f in range(d)])
    return counts, scores


@pytest.fixture
def small(rng):
    return rng.standard_normal((14, 9))


def test_draws_follow_the_documented_rng_calls(small):
    est = IVFS(n_subsets=6, subset_features=4, subset_samples=7, random_state=3)
    samples, features = est._draw_subsets(*small.shape)
    rng = np.random.default_rng(3)
    for t in range(6):
        assert_array_equal(features[t], np.sort(rng.choice(9, 4, replace=False)))
        assert_array_equal(samples[t], np.sort(rng.choice(14, 7, replace=False)))


@pytest.mark.parametrize("loss", ["linf", "l1", "l2"])
def test_scores_equal_direct_computation(small, loss):
    est = IVFS(n_subsets=7, subset_features=3, subset_samples=6, loss=loss, random_state=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a feature may go undrawn with k * d~ = 21 draws over 9 features
        est.fit(small)
    samples, features = est._draw_subsets(*small.shape)
    counts, scores = direct_ivfs(small, samples, features, loss)
    assert_array_equal(est.inclusion_counts_, counts)
    assert_allclose(est.ivfs_scores_, scores, rtol=1e-10, atol=1e-12, equal_nan=True)
    drawn = counts > 0
    assert_array_equal(est.scores_[drawn], est.ivfs_scores_[drawn])


def test_loss_known_answer_constant_feature():
    # feature 0 is constant, feature 1 carries every distance: a subset of {1}
    # reproduces D exactly (loss 0); a subset of {0} has D_F = 0, so the loss is ||D / max D||.
    x = np.array([0.0, 1.0, 3.0, 7.0])
    X = np.column_stack([np.full(4, 5.0), x])
    Dn = squareform(pdist(x[:, None])) / 7.0
    expected = {"linf": 1.0, "l1": Dn.sum(), "l2": np.sqrt((Dn**2).sum())}
    samples = np.array([[0, 1, 2, 3], [0, 1, 2, 3]])
    for loss, value in expected.items():
        losses = subset_losses(X, samples, np.array([[0], [1]]), loss=loss)
        assert_allclose(losses, [value, 0.0], atol=1e-10)
        # fit leaves the constant column unscored (docs/fidelity/numerics.md): last, not drawn
        est = IVFS(n_subsets=40, subset_features=1, subset_samples=4, loss=loss, random_state=0).fit(X)
        assert_array_equal(est.ranking_, [2, 1])
        assert est.scores_[0] == -np.inf and est.inclusion_counts_[0] == 0 and np.isnan(est.ivfs_scores_[0])


@pytest.mark.parametrize(
    ("n", "subset_samples", "expected"),
    [(14, 0.5, 10), (20, 0.1, 10), (96, 0.1, 10), (200, 0.1, 20), (6, 0.1, 6), (12, 3, 3), (12, 1.0, 12)],
)
def test_subset_samples_floor(n, subset_samples, expected):
    """A fraction gives at least min(10, n) samples; a count is taken as given (at least 3)."""
    X = np.random.default_rng(n).standard_normal((n, 5))
    est = IVFS(n_subsets=20, subset_samples=subset_samples, random_state=0).fit(X)
    assert est.subset_samples_ == expected and est.subset_features_ == 2


def test_small_n_scores_are_informative():
    """At n = 20 the default 0.1 n would be 2 samples per subset, whose normalised distances never vary."""
    data = make_planted(n_samples=20, n_informative=3, n_noise=12, random_state=0)
    X = data.X.copy()
    X[:, data.informative] *= 10.0
    est = IVFS(random_state=0).fit(X)
    assert np.unique(est.scores_).size == X.shape[1]
    assert set(est.order_[:3]) == set(data.informative)
    with pytest.raises(ValueError, match="subset_samples=2 gives 2, outside \\[3, 20\\]"):
        IVFS(subset_samples=2).fit(X)
    with pytest.raises(ValueError, match="at least 3 samples"):
        IVFS().fit(X[:2])


def test_never_drawn_features_rank_last_by_the_tie_break(rng):
    X = rng.standard_normal((10, 12))
    est = IVFS(n_subsets=3, subset_features=2, subset_samples=5, random_state=1)
    with pytest.warns(UserWarning, match="never drawn"):
        est.fit(X)
    never = np.flatnonzero(est.inclusion_counts_ == 0)
    assert est.n_never_drawn_ == never.size >= 6
    assert np.isnan(est.ivfs_scores_[never]).all()
    assert np.isfinite(est.scores_).all()
    drawn = est.inclusion_counts_ > 0
    assert est.ranking_[never].min() == drawn.sum() + 1
    assert_array_equal(np.sort(est.ranking_[never]), np.arange(drawn.sum() + 1, 13))
    assert_array_equal(est.order_[drawn.sum() :], never[np.argsort(tie_keys(12, 1)[never])])  # seeded, not index
    # the never-drawn block and features drawn by one subset only (each pair shares its loss) are tied
    assert est.n_ranked_ == np.sum(np.unique(est.scores_, return_counts=True)[1] == 1) <= drawn.sum()


def test_batches_and_distance_paths_agree(rng):
    X = rng.standard_normal((30, 20))
    samples, features = IVFS(n_subsets=25, subset_samples=8, random_state=0)._draw_subsets(*X.shape)
    ref = subset_losses(X, samples, features, "l2", batch_size=1, precompute=True)
    for batch_size in (3, 25, None):
        for precompute in (True, False):
            assert_allclose(subset_losses(X, samples, features, "l2", batch_size, precompute), ref, rtol=1e-12)


def test_permutation_of_samples_and_features(rng):
    """Relabelling samples and features (and the draws with them) leaves every loss and score in place."""
    X = rng.standard_normal((16, 11))
    samples, features = IVFS(n_subsets=30, subset_features=4, subset_samples=6, random_state=2)._draw_subsets(16, 11)
    sperm, fperm = rng.permutation(16), rng.permutation(11)
    sinv, finv = np.argsort(sperm), np.argsort(fperm)
    losses = subset_losses(X, samples, features, "linf")
    losses_p = subset_losses(X[sperm][:, fperm], sinv[samples], finv[features], "linf")
    assert_allclose(losses_p, losses, rtol=1e-12)
    counts, values = inclusion_values(losses, features, 11)
    counts_p, values_p = inclusion_values(losses_p, finv[features], 11)
    assert_array_equal(counts_p[finv], counts)
    assert_allclose(values_p[finv], values, rtol=1e-12, equal_nan=True)


def test_determinism_and_seeds(rng):
    X = rng.standard_normal((25, 15))
    seed = derive_seed(0, "toy", "IVFS", {"loss": "linf"}, 0)
    est = IVFS(n_subsets=60, subset_samples=0.4, random_state=seed)
    assert_deterministic(est, X)
    a = IVFS(n_subsets=60, subset_samples=0.4, random_state=np.random.default_rng(seed)).fit(X)
    assert_array_equal(a.scores_, est.fit(X).scores_)  # a Generator seeded alike draws alike
    b = IVFS(n_subsets=60, subset_samples=0.4, random_state=seed + 1).fit(X)
    assert not np.array_equal(a.subset_losses_, b.subset_losses_)


def planted_geometry(seed, n=40, n_copies=5, n_noise=35, noise=0.05):
    """One latent coordinate, copied (with sign flips) into a few features, carries all the distances;
    the other features are independent noise of small variance (see the fidelity notes for why
    independent noise of unit variance would not make a dominant set)."""
    rng = np.random.default_rng(seed)
    X = noise * rng.standard_normal((n, n_copies + n_noise))
    planted = np.sort(rng.choice(X.shape[1], n_copies, replace=False))
    z = rng.standard_normal(n)
    X[:, planted] = z[:, None] * rng.choice([-1.0, 1.0], n_copies) + noise * rng.standard_normal((n, n_copies))
    return X, planted


@pytest.mark.parametrize("loss", ["linf", "l1", "l2"])
def test_planted_distance_carriers_rank_first(loss):
    for seed in range(3):
        X, planted = planted_geometry(seed)
        est = IVFS(n_subsets=200, subset_samples=0.5, loss=loss, random_state=seed).fit(X)
        assert_array_equal(np.sort(est.order_[: planted.size]), planted)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"loss": "l3"}, "'loss' parameter of IVFS must be a str among"),
        ({"n_subsets": 0}, "n_subsets"),
        ({"n_subsets": 2.5}, "n_subsets"),
        ({"subset_features": 1.5}, "subset_features"),
        ({"subset_features": 13}, "subset_features"),
        ({"subset_samples": 1}, "subset_samples"),
        ({"subset_samples": 2}, "subset_samples"),
        ({"batch_size": 0}, "batch_size"),
    ],
)
def test_bad_parameters(rng, params, match):
    with pytest.raises(ValueError, match=match):
        IVFS(**{"n_subsets": 5, "random_state": 0, **params}).fit(rng.standard_normal((10, 12)))


def test_bad_data():
    X = np.ones((6, 4))
    X[2, 1] = np.nan
    with pytest.raises(ValueError):
        IVFS(n_subsets=5, random_state=0).fit(X)
    with pytest.raises(ValueError):
        IVFS(n_subsets=5, random_state=0).fit(np.ones(5))
    with pytest.raises(ValueError, match="unknown loss"):
        subset_losses(np.ones((4, 3)), np.zeros((1, 2), int), np.zeros((1, 1), int), loss="max")


def test_sklearn_conventions():
    run_check_estimator(IVFS(n_subsets=50, random_state=0))


def test_checkpoints_equal_fits_with_fewer_subsets(rng):
    """Bit for bit: every fit here gathers the full-data distances (n^2 <= k n~^2, as at the protocol's
    settings); a fit that computes them per subset instead agrees to round-off."""
    X = rng.standard_normal((24, 12))
    est = IVFS(n_subsets=60, subset_features=4, subset_samples=10, random_state=7, checkpoints=[15, 40]).fit(X)
    assert sorted(est.checkpoint_scores_) == [15, 40] and est.subset_losses_.size == 60
    assert est.checkpoint_seconds_[15] <= est.checkpoint_seconds_[40]
    for k in (15, 40):  # the same draws: bit for bit, not only close
        alone = IVFS(n_subsets=k, subset_features=4, subset_samples=10, random_state=7).fit(X)
        assert_array_equal(est.checkpoint_scores_[k], alone.scores_)
        assert_array_equal(est.subset_losses_[:k], alone.subset_losses_)
    alone = IVFS(n_subsets=60, subset_features=4, subset_samples=10, random_state=7).fit(X)
    assert_array_equal(est.scores_, alone.scores_)
    with pytest.raises(ValueError, match="checkpoints"):
        IVFS(n_subsets=10, checkpoints=[10]).fit(X)


def test_k1000_checkpoint_is_a_1000_subset_fit_bit_for_bit(rng):
    """The protocol's nesting: the k = 1000 scores of a 3000-subset fit are a 1000-subset fit's, exactly."""
    X = rng.standard_normal((30, 20))
    params = {"subset_features": 0.3, "subset_samples": 0.5, "random_state": 11}
    nested = IVFS(n_subsets=3000, checkpoints=[1000], **params).fit(X)
    alone = IVFS(n_subsets=1000, **params).fit(X)
    assert_array_equal(nested.checkpoint_scores_[1000], alone.scores_)
    assert_array_equal(nested.subset_losses_[:1000], alone.subset_losses_)
    final = IVFS(n_subsets=3000, **params).fit(X)  # and the last k, after the checkpoint, too
    assert_array_equal(nested.scores_, final.scores_)
