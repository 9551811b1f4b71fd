"""Scikit-learn-style unsupervised feature selectors, and the registry the workflow uses.

Adding a selector is one class here (a ``ScoreSelector`` subclass, with the allowed values of its
parameters in its ``_parameter_constraints``) plus one line in ``SELECTORS``; the config then refers to it by that name. Selectors outside the package
are named by import path or entry point (``plugins``); ``SELECTORS[name]`` resolves those too.
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
from .plugins import (
    SelectorError,
    check_params,
    resolve_plugin,
    unknown_selector_message,
)
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


class _SelectorTable(dict):
    """The built-in selectors by name; a missing name is resolved as an import path or entry point."""

    def __missing__(self, name):
        try:
            return resolve_plugin(name)
        except KeyError:
            raise SelectorError(unknown_selector_message(name, self)) from None


SELECTORS = _SelectorTable(SELECTORS)


def selector_class(name: str) -> type:
    """The class of selector ``name``: built in, ``module:Class``, or an entry point of ``ufskit.selectors``."""
    return SELECTORS[name]


def check_selector(name: str, params: dict) -> type:
    """Resolve ``name`` and check that it takes every parameter in ``params``; return the class."""
    cls = selector_class(name)
    check_params(cls, name, params)
    return cls


def make_selector(name: str, **params):
    """Instantiate selector ``name`` with ``params``; unknown names and parameters fail clearly."""
    return check_selector(name, params)(**params)


__all__ = ["SELECTORS", "Random", "ScoreSelector", "Variance", "make_selector", "order_from_ranking", "ranking_from_scores"]
