"""The shared vocabulary of the selectors' parameter constraints, checked without data.

scikit-learn's (``sklearn.utils._param_validation``, the one its own estimators use in
``_parameter_constraints``): each parameter maps to a list of accepted forms - ``None``, an
``Interval``, ``StrOptions``/``Options``, ``"boolean"``, a type. Every selector class declares its
own ``_parameter_constraints`` from these forms (merged over ``ScoreSelector._parameter_constraints``,
as scikit-learn's estimators do); a value that fits none is refused before any data is read, by
``_validate_params`` (which ``fit`` calls first) and by the workflow's start-up check, with a message
naming the parameter and the accepted forms. What depends on the data (``n_neighbors`` below the
number of samples, a count within d) is still checked by ``fit``.

This module imports no selector, so every selector module can import it.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

POSITIVE_INT = Interval(Integral, 1, None, closed="left")
FRACTION = Interval(RealNotInt, 0, 1, closed="right")
POSITIVE = Interval(Real, 0, None, closed="neither")  # finite and > 0
UNIT_INTERVAL = Interval(Real, 0, 1, closed="both")  # a weight in [0, 1]
NON_NEGATIVE = Interval(Real, 0, None, closed="left")  # finite and >= 0
AUTO = StrOptions({"auto"})
WEIGHTS = StrOptions({"heat", "binary", "cosine"})
RANDOM_STATE = [None, Interval(Integral, 0, None, closed="left"), np.random.Generator]  # a seed or a Generator
