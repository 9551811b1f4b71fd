"""Scikit-learn-style unsupervised feature selectors, and the registry the workflow uses.

Adding a selector is one class here (a ``ScoreSelector`` subclass) plus one line
in ``SELECTORS``; the config then refers to it by that name.
"""

from __future__ import annotations

from .base import ScoreSelector, order_from_ranking, ranking_from_scores
from .glspfs import GLSPFS
from .iterative_ls import IterativeLaplacianScore
from .ivfs import IVFS
from .kernel_udfs import KernelUDFS
from .laplacian import LaplacianScore
from .mcfs import MCFS
from .ndfs import NDFS
from .nrfs import NRFS
from .random import Random
from .spec import SPEC
from .udfs import UDFS
from .variance import Variance

SELECTORS = {
    "Variance": Variance,
    "LaplacianScore": LaplacianScore,
    "SPEC": SPEC,
    "MCFS": MCFS,
    "IterativeLaplacianScore": IterativeLaplacianScore,
    "KernelUDFS": KernelUDFS,
    "NDFS": NDFS,
    "UDFS": UDFS,
    "NRFS": NRFS,
    "IVFS": IVFS,
    "GLSPFS": GLSPFS,
    "Random": Random,
}


def make_selector(name: str, **params) -> ScoreSelector:
    """Instantiate the selector registered as ``name`` with ``params``; unknown names fail clearly."""
    try:
        cls = SELECTORS[name]
    except KeyError:
        raise ValueError(f"unknown selector {name!r}; registered: {', '.join(sorted(SELECTORS))}.") from None
    valid = cls().get_params()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"selector {name!r} has no parameter(s) {unknown}; it takes {sorted(valid)}.")
    return cls(**params)


__all__ = ["SELECTORS", "Random", "ScoreSelector", "Variance", "make_selector", "order_from_ranking", "ranking_from_scores"]
