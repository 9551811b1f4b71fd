"""Scikit-learn-style unsupervised feature selectors, the supervised positive control, and the registry the workflow uses.

Adding a selector is one class in a module here (a ``ScoreSelector`` subclass, with the allowed values of its
parameters in its ``_parameter_constraints``) plus one line in ``BUILT_IN``; the config then refers to it by that
name. Selectors outside the package are named by import path or entry point (``plugins``); ``SELECTORS[name]``
resolves those too.

A class is imported from its module when first used (``selectors.NRFS``, ``make_selector("NRFS")``), so that
``import ufskit.selectors`` costs no scikit-learn and a job imports only the selector it fits; ``SELECTORS``
imports them all.
"""

from __future__ import annotations

import importlib

from .plugins import (
    SelectorError,
    check_params,
    resolve_plugin,
    unknown_selector_message,
)

# selector name -> its module, in the order of SELECTORS
BUILT_IN = {
    "Variance": "variance",
    "LaplacianScore": "laplacian",
    "SPEC": "spec",
    "MCFS": "mcfs",
    "IterativeLaplacianScore": "iterative_ls",
    "KernelUDFS": "kernel_udfs",
    "NDFS": "ndfs",
    "UDFS": "udfs",
    "NRFS": "nrfs",
    "IVFS": "ivfs",
    "GLSPFS": "glspfs",
    "LLCFS": "llcfs",
    "SPFS": "spfs",
    "TraceRatio": "trace_ratio",
    "SOGFS": "sogfs",
    "InfFS": "inffs",
    "DGUFS": "dgufs",
    "JELSR": "jelsr",
    "FSASL": "fsasl",
    "RUFS": "rufs",
    "Random": "random",
}
# supervised selectors (``uses_labels = True``: fit(X, y)), the benchmark's positive controls; resolved by name like
# the built-in ones (``SELECTORS[name]``, ``make_selector``) but not in ``SELECTORS``' listing, which holds the
# unsupervised selectors the contract tests and the benchmark's ranks are about
SUPERVISED = {"AnovaF": "anova_f", "MRMR": "mrmr", "ForwardKNN": "forward_knn"}
# the contract's helpers -> their module, also imported when first used (order_from_ranking without scikit-learn)
_BASE = {"ScoreSelector": ".base", "order_from_ranking": ".ties", "ranking_from_scores": ".base"}


def _outside(name: str) -> type:
    """A selector outside the package: an import path or an entry point; else the error listing the known ones."""
    try:
        return resolve_plugin(name)
    except KeyError:
        raise SelectorError(unknown_selector_message(name, {**BUILT_IN, **SUPERVISED})) from None


class _SelectorTable(dict):
    """The built-in selectors by name; a missing name is resolved as a supervised control, an import path or an
    entry point."""

    def __missing__(self, name):
        return selector_class(name)


def __getattr__(name: str):
    if name in BUILT_IN or name in SUPERVISED:
        value = getattr(importlib.import_module(f".{BUILT_IN.get(name) or SUPERVISED[name]}", __name__), name)
    elif name in _BASE:
        value = getattr(importlib.import_module(_BASE[name], __name__), name)
    elif name == "SELECTORS":
        value = _SelectorTable({n: __getattr__(n) for n in BUILT_IN})
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


def selector_class(name: str) -> type:
    """The class of selector ``name``: built in (``SUPERVISED`` too), ``module:Class``, or an entry point of
    ``ufskit.selectors``."""
    return __getattr__(name) if name in BUILT_IN or name in SUPERVISED else _outside(name)


def uses_labels(name: str) -> bool:
    """Whether selector ``name`` reads the class labels (``uses_labels = True``: ``fit(X, y)``)."""
    return bool(getattr(selector_class(name), "uses_labels", False))


def check_selector(name: str, params: dict) -> type:
    """Resolve ``name`` and check that it takes every parameter in ``params``; return the class."""
    cls = selector_class(name)
    check_params(cls, name, params)
    return cls


def make_selector(name: str, **params):
    """Instantiate selector ``name`` with ``params``; unknown names and parameters fail clearly."""
    return check_selector(name, params)(**params)


__all__ = ["BUILT_IN", "SELECTORS", "SUPERVISED", "SelectorError", "check_params", "check_selector", "make_selector",
           "order_from_ranking", "ranking_from_scores", "selector_class", "uses_labels", "ScoreSelector", *BUILT_IN, *SUPERVISED]
