"""The allowed values of every built-in selector's parameters, checked without data.

scikit-learn's vocabulary (``sklearn.utils._param_validation``, the one its own estimators use in
``_parameter_constraints``): each parameter maps to a list of accepted forms - ``None``, an
``Interval``, ``StrOptions``/``Options``, ``"boolean"``, a type. A value that
fits none is refused before any data is read, by ``ScoreSelector._validate_params`` (which ``fit``
calls first) and by the workflow's start-up check, with a message naming the parameter and the
accepted forms. What depends on the data (``n_neighbors`` below the number of samples, a count
within d) is still checked by ``fit``.

A selector of your own declares ``_parameter_constraints`` on its class, as scikit-learn's do; for
the built-in ones the table ``BUILTIN`` below holds them, keyed by class.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, Options, RealNotInt, StrOptions

from .glspfs import GLSPFS, LOCAL_STRUCTURES
from .iterative_ls import IterativeLaplacianScore
from .ivfs import IVFS
from .ivfs_kernel import DTYPES, LOSSES
from .kernel_udfs import WIDTH_FORMS, KernelUDFS
from .laplacian import LaplacianScore
from .mcfs import MCFS
from .ndfs import NDFS
from .nrfs import NRFS, SIMILARITIES
from .spec import SPEC, STYLES
from .udfs import UDFS

POSITIVE_INT = Interval(Integral, 1, None, closed="left")
FRACTION = Interval(RealNotInt, 0, 1, closed="right")
POSITIVE = Interval(Real, 0, None, closed="neither")  # finite and > 0
NON_NEGATIVE = Interval(Real, 0, None, closed="left")  # finite and >= 0
AUTO = StrOptions({"auto"})
WEIGHTS = StrOptions({"heat", "binary", "cosine"})
RANDOM_STATE = [None, Interval(Integral, 0, None, closed="left"), np.random.Generator]  # a seed or a Generator

# every selector: a count, a fraction of d, or None (half of d)
COMMON = {"n_features_to_select": [None, POSITIVE_INT, FRACTION]}

BUILTIN = {
    LaplacianScore: {"n_neighbors": [AUTO, POSITIVE_INT], "weight": [WEIGHTS], "sigma": [None, POSITIVE]},
    SPEC: {"style": [Options(Integral, set(STYLES))], "n_neighbors": [None, POSITIVE_INT], "sigma": [None, POSITIVE],
           "n_clusters": [None, POSITIVE_INT]},  # >= 2 for style 3, checked by fit
    MCFS: {"n_clusters": [AUTO, POSITIVE_INT], "n_neighbors": [AUTO, POSITIVE_INT], "weight": [WEIGHTS], "sigma": [None, POSITIVE],
           "max_nonzero": [None, POSITIVE_INT, FRACTION, list]},  # a list: one cardinality per count
    IterativeLaplacianScore: {"variant": [Options(Integral, {1, 2})], "n_drop": [POSITIVE_INT],
                              "n_neighbors": [AUTO, POSITIVE_INT], "weight": [WEIGHTS], "sigma": [None, POSITIVE]},
    NDFS: {"n_clusters": [AUTO, POSITIVE_INT], "n_neighbors": [AUTO, POSITIVE_INT], "alpha": [POSITIVE],
           "beta": [AUTO, POSITIVE], "gamma": [POSITIVE], "max_iter": [POSITIVE_INT], "tol": [POSITIVE],
           "sigma": [None, POSITIVE], "random_state": RANDOM_STATE},
    UDFS: {"n_clusters": [AUTO, POSITIVE_INT], "n_neighbors": [AUTO, POSITIVE_INT], "gamma": [POSITIVE],
           "lam": [AUTO, POSITIVE], "max_iter": [POSITIVE_INT], "tol": [POSITIVE]},
    KernelUDFS: {"n_clusters": [POSITIVE_INT], "n_neighbors": [AUTO, POSITIVE_INT], "gamma": [NON_NEGATIVE],
                 "lam": [POSITIVE], "max_iter": [POSITIVE_INT], "tol": [NON_NEGATIVE],
                 "kernel": [StrOptions({"rbf", "linear"})], "kernel_const": [POSITIVE], "sigma": [None, POSITIVE],
                 "width_form": [StrOptions(set(WIDTH_FORMS))]},
    NRFS: {"n_clusters": [AUTO, POSITIVE_INT], "n_neighbors": [None, AUTO, POSITIVE_INT],
           "n_neighbors_features": [AUTO, POSITIVE_INT], "similarity": [StrOptions(set(SIMILARITIES))],
           "noise_fraction": [Interval(Real, 0, 1, closed="left")], "ridge": [POSITIVE], "sampling": ["boolean"],
           "dps_levels": [AUTO, POSITIVE_INT], "fold": [None, Interval(Integral, 0, None, closed="left")],
           "trivial_spectrum": ["boolean"], "random_state": RANDOM_STATE},
    IVFS: {"loss": [StrOptions(set(LOSSES))], "n_subsets": [POSITIVE_INT], "subset_features": [POSITIVE_INT, FRACTION],
           "subset_samples": [POSITIVE_INT, FRACTION], "batch_size": [None, POSITIVE_INT], "checkpoints": [None, list],
           "dtype": [StrOptions(set(DTYPES))], "random_state": RANDOM_STATE},
    GLSPFS: {"mu": [NON_NEGATIVE], "lam": [None, POSITIVE], "local": [StrOptions(set(LOCAL_STRUCTURES))],
             "n_neighbors": [AUTO, POSITIVE_INT], "max_iter": [POSITIVE_INT], "tol": [NON_NEGATIVE]},
}


def constraints_of(cls) -> dict:
    """The constraints of selector class ``cls``: the common ones, the table's, then those the class declares."""
    declared = {}
    for klass in reversed(cls.__mro__):  # a subclass's own declaration wins over its bases'
        declared.update(vars(klass).get("_parameter_constraints") or {})
    return {**COMMON, **BUILTIN.get(cls, {}), **declared}
