"""Selectors from outside the package: an import path ``module:Class`` or an entry point.

The config's ``selector:`` is a built-in name (``SELECTORS``), an import path such as
``mypkg.scoring:MySelector`` (the module must be importable: installed, or in a folder listed
in the config's ``python_path``), or the name of an entry point of the group
``ufskit.selectors`` that an installed distribution declares, e.g. in its pyproject.toml::

    [project.entry-points."ufskit.selectors"]
    MySelector = "mypkg.scoring:MySelector"

The contract (docs/own-selector.md): a scikit-learn-style estimator class,
constructible without arguments, with ``get_params`` (``sklearn.base.BaseEstimator`` gives it)
and ``fit(X)``; if it declares scikit-learn's ``_parameter_constraints``, the values of its
configured parameters are checked at start-up; after ``fit`` it exposes one of, in this order of precedence,

* ``ranking_``: one number per feature, lower = better (1 = best, as scikit-learn's RFE);
* ``scores_``: one score per feature, higher = better;
* ``feature_importances_``: one importance per feature, higher = better.

Ties are broken by feature index (the lower index first); ``-inf`` scores rank last; NaN is an error.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from functools import cache
from importlib import metadata

import numpy as np

ENTRY_POINT_GROUP = "ufskit.selectors"
RANKING_ATTRIBUTES = ("ranking_", "scores_", "feature_importances_")


class SelectorError(ValueError):
    """A selector name that cannot be resolved, or a class or fitted estimator that breaks the contract."""


def _entry_points() -> dict:
    """Name -> entry point of the group ``ufskit.selectors`` (the last one wins on a repeated name)."""
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _import_path(name: str):
    module_name, _, attr = name.partition(":")
    if not module_name or not attr:
        raise SelectorError(f"selector {name!r}: an import path is 'package.module:Class'.")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as e:
        raise SelectorError(
            f"selector {name!r}: cannot import module {module_name!r} ({e}). Install its package, or list "
            f"the folder that holds it in the config's python_path (searched: {sys.path[:3]} ...)."
        ) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SelectorError(f"selector {name!r}: module {module_name!r} has no attribute {attr!r}.")
        obj = getattr(obj, part)
    return obj


def check_selector_class(cls, name: str) -> type:
    """``cls`` if it is a class with ``fit`` and ``get_params`` that builds without arguments, else SelectorError."""
    if not isinstance(cls, type):
        raise SelectorError(f"selector {name!r} is {type(cls).__name__} {cls!r}, not a class.")
    missing = [m for m in ("fit", "get_params") if not callable(getattr(cls, m, None))]
    if missing:
        raise SelectorError(
            f"selector {name!r} ({cls.__module__}.{cls.__qualname__}) lacks {' and '.join(missing)}; a selector is a "
            "scikit-learn-style estimator (subclass sklearn.base.BaseEstimator and define fit(X))."
        )
    try:
        cls()
    except Exception as e:  # noqa: BLE001 - any failure means the contract is broken
        raise SelectorError(f"selector {name!r}: cannot be built without arguments ({type(e).__name__}: {e}); "
                            "give every parameter of __init__ a default.") from None
    return cls


@cache
def resolve_plugin(name: str) -> type:
    """The class behind an import path ``module:Class`` or an entry point name of group ``ufskit.selectors``."""
    if ":" in name:
        return check_selector_class(_import_path(name), name)
    points = _entry_points()
    if name in points:
        try:
            obj = points[name].load()
        except Exception as e:  # noqa: BLE001 - report any import failure with the entry point named
            raise SelectorError(f"selector {name!r}: entry point {points[name].value!r} of group "
                                f"{ENTRY_POINT_GROUP!r} failed to load ({type(e).__name__}: {e}).") from None
        return check_selector_class(obj, name)
    raise KeyError(name)


def unknown_selector_message(name: str, builtin) -> str:
    """'unknown selector ...' with close names, the built-in names and the entry points found."""
    known = sorted(builtin) + sorted(_entry_points())
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
    return (f"unknown selector {name!r}; {hint}built in: {', '.join(sorted(builtin))}; entry points "
            f"({ENTRY_POINT_GROUP}): {', '.join(sorted(_entry_points())) or 'none'}; or an import path "
            "'package.module:Class'.")


def check_params(cls, name: str, params: dict) -> None:
    """Fail, naming the selector, unknown parameters (with close names) and the accepted ones."""
    valid = sorted(cls().get_params())
    unknown = sorted(set(params) - set(valid))
    if unknown:
        close = {u: difflib.get_close_matches(u, valid, n=1, cutoff=0.6) for u in unknown}
        hints = "".join(f" ({u!r}: did you mean {c[0]!r}?)" for u, c in close.items() if c)
        raise SelectorError(f"selector {name!r} has no parameter(s) {unknown}{hints}; it takes {valid}.")


def check_param_values(cls, name: str, params: dict) -> None:
    """Build selector ``cls`` with ``params`` and check their values without data; SelectorError naming the selector.

    The values are checked when the class declares scikit-learn's ``_parameter_constraints`` (every
    ufskit selector does), by its ``_validate_params``. An ``__init__`` that refuses the values is reported
    the same way.
    """
    try:
        estimator = cls(**params)
        if hasattr(cls, "_parameter_constraints"):
            estimator._validate_params()
    except (ValueError, TypeError) as e:
        raise SelectorError(f"selector {name!r}: {e}") from None


def fitted_ranking(estimator, n_features: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(order, scores) of a fitted selector: feature indices best first, and scores where higher = better.

    ufskit's own selectors give ``order_`` and ``scores_`` (possibly over a derived feature space).
    Any other estimator gives the first of ``ranking_`` (lower = better; scores are -ranking_),
    ``scores_`` or ``feature_importances_`` (higher = better), with ``n_features`` entries when given.
    Ties go to the lower feature index.
    """
    if hasattr(estimator, "order_") and hasattr(estimator, "scores_"):
        return np.asarray(estimator.order_), np.asarray(estimator.scores_, dtype=np.float64)
    name = type(estimator).__name__
    attr = next((a for a in RANKING_ATTRIBUTES if hasattr(estimator, a)), None)
    if attr is None:
        raise SelectorError(f"selector {name} exposes none of {', '.join(RANKING_ATTRIBUTES)} after fit; "
                            "one of them says how it ranks the features.")
    values = np.asarray(getattr(estimator, attr), dtype=np.float64)
    if values.ndim != 1 or (n_features is not None and values.size != n_features):
        raise SelectorError(f"selector {name}: {attr} has shape {values.shape}; expected ({n_features},), "
                            "one value per feature of X.")
    if np.isnan(values).any():
        raise SelectorError(f"selector {name}: {attr} has NaN at feature(s) "
                            f"{np.flatnonzero(np.isnan(values))[:5].tolist()}.")
    scores = -values if attr == "ranking_" else values
    if np.isposinf(scores).any():
        raise SelectorError(f"selector {name}: {attr} has {'-' if attr == 'ranking_' else '+'}inf values.")
    return np.argsort(-scores, kind="stable"), scores
