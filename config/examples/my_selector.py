"""A selector of your own, as the workflow takes it: a scikit-learn-style estimator with
``feature_importances_`` (higher = better) after ``fit``. Named in own_data.yaml by import path
``my_selector:ClusterSeparation`` (this folder is on ``python_path`` there).

ClusterSeparation clusters the samples with K-means and scores each feature by the share of its
variance that lies between the clusters (the F-statistic's numerator over the total): features
that carry the cluster structure come first.
"""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans


class ClusterSeparation(BaseEstimator):
    """Between-cluster share of each feature's variance, clusters from K-means on standardised X."""

    def __init__(self, n_clusters=2, n_init=10, random_state=None):
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X, y=None):
        X = np.asarray(X, dtype=np.float64)
        spread = X.std(axis=0)
        Z = (X - X.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
        labels = KMeans(self.n_clusters, n_init=self.n_init, random_state=self.random_state).fit_predict(Z)
        means = np.stack([Z[labels == k].mean(axis=0) for k in np.unique(labels)])
        sizes = np.bincount(labels)[np.unique(labels)]
        between = (sizes[:, None] * means**2).sum(axis=0) / X.shape[0]  # Z has mean 0 and variance 1
        self.feature_importances_ = np.where(spread > 0, between, -np.inf)  # constant columns last
        return self
