"""Evaluation metrics shared by the four papers: plain functions of arrays (no I/O, no Snakemake).

* clustering: K-means, ACC with Hungarian matching, NMI (NRFS, Iterative LS, kernel UDFS);
* classification: KNN accuracy over random splits (IVFS) and 10 x 10-fold 1-NN accuracy (Iterative LS);
* distances: normalised distance matrices and the norms of D - D_F (IVFS);
* persistence: H1 Rips diagrams and their w_1^1 / bottleneck distances (IVFS).

The ``*_path`` functions evaluate one feature ranking at many numbers of
selected features for about the price of one.
"""

from .classification import cv_1nn_accuracy, cv_1nn_accuracy_path, knn_accuracy, knn_accuracy_path, knn_predict
from .clustering import clustering_accuracy, kmeans_labels, kmeans_scores, nmi
from .distances import (
    check_distance_matrix,
    distance_norms,
    distance_norms_path,
    iter_prefix_sq_dists,
    normalized_distance_matrix,
    prefix_distance_matrices,
)
from .persistence import diagram_distances, h1_diagram, load_diagram, save_diagram

__all__ = [
    "check_distance_matrix",
    "clustering_accuracy",
    "cv_1nn_accuracy",
    "cv_1nn_accuracy_path",
    "diagram_distances",
    "distance_norms",
    "distance_norms_path",
    "h1_diagram",
    "iter_prefix_sq_dists",
    "kmeans_labels",
    "kmeans_scores",
    "knn_accuracy",
    "knn_accuracy_path",
    "knn_predict",
    "load_diagram",
    "nmi",
    "normalized_distance_matrix",
    "prefix_distance_matrices",
    "save_diagram",
]
