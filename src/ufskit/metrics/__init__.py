"""Evaluation metrics shared by the papers: plain functions of arrays (no I/O, no Snakemake).

* clustering: K-means, ACC with Hungarian matching, NMI (NRFS, Iterative LS, kernel UDFS);
* classification: KNN accuracy over random splits (IVFS) and 10 x 10-fold 1-NN accuracy (Iterative LS);
* distances: normalised distance matrices and the norms of D - D_F (IVFS);
* persistence: H1 Rips diagrams and their w_1^1 / bottleneck distances (IVFS);
* registry: the metrics an experiment's config can name (direction, options, function).

The ``*_path`` functions evaluate one feature ranking at many numbers of
selected features for about the price of one. The functions are imported from
their module when first used (``metrics.kmeans_scores``), so that the registry
can be read without loading scikit-learn and gudhi.
"""

from __future__ import annotations

import importlib

_HOME = {
    "classification": ("cv_1nn_accuracy", "cv_1nn_accuracy_path", "knn_accuracy", "knn_accuracy_path", "knn_predict"),
    "clustering": ("clustering_accuracy", "kmeans_labels", "kmeans_scores", "nmi"),
    "distances": ("check_distance_matrix", "distance_norms", "distance_norms_path", "iter_prefix_sq_dists",
                  "normalized_distance_matrix", "prefix_distance_matrices"),
    "persistence": ("diagram_distances", "h1_diagram", "load_diagram", "save_diagram"),
}
_MODULE_OF = {name: module for module, names in _HOME.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
