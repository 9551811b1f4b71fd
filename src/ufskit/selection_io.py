"""On-disk form of one selector run: results/<exp>/selections/.../rep<r>.npz."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .data import atomic_path
from .intermediates import check_identity, identity_of, read_npz, reading

BEYOND_RANKED_MARK = "†"
BEYOND_RANKED_NOTE = (f"{BEYOND_RANKED_MARK} at a feature count beyond those the method truly ranked (`n_ranked`): "
                      "the rest of its order is padding (e.g. MCFS's zero-score features), so the value is not "
                      "the method's own.")


@dataclass
class Selection:
    """The outcome of one fit: the full order (best first), the scores and the fit time.

    ``subsets`` holds, for selectors whose choice depends on the number of
    features (e.g. IterativeLS-2's kept set per size), the selected indices per count;
    evaluation uses them instead of a prefix of ``order`` where present.
    ``space`` holds the matrix whose columns ``order`` ranks when that is not the
    input X (kernel UDFS ranks kernel features, one per training sample).
    ``n_ranked`` is how many leading entries of ``order`` the selector truly ranked (default: all);
    beyond it the order is padding (MCFS leaves features with a zero score in an arbitrary order), so
    results at larger counts are not the selector's and are marked (``beyond_ranked``).
    """

    order: np.ndarray
    scores: np.ndarray
    seconds: float
    params: dict
    subsets: dict[int, np.ndarray] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    space: np.ndarray | None = None
    n_ranked: int | None = None

    def __post_init__(self):
        width = np.asarray(self.order).size
        self.n_ranked = width if self.n_ranked is None else int(self.n_ranked)
        if not 0 <= self.n_ranked <= width:
            raise ValueError(f"n_ranked must be in [0, {width}] (the length of the order), got {self.n_ranked}.")

    def features(self, count: int) -> np.ndarray:
        """Indices of the ``count`` selected features."""
        if count in self.subsets:
            return self.subsets[count]
        if count > self.order.size:
            raise ValueError(f"asked for {count} features; the selection ranks only {self.order.size}.")
        return self.order[:count]

    def beyond_ranked(self, counts) -> np.ndarray:
        """For each count (NA allowed: False), whether it takes features past the ``n_ranked`` truly ranked."""
        counts = pd.array(counts, dtype="Int64")
        return (counts > self.n_ranked).fillna(False).to_numpy(dtype=bool)


def save_selection(sel: Selection, path) -> None:
    """Write atomically (npz with a JSON metadata string recording the run's identity, taken from ``path``)."""
    meta = {"seconds": sel.seconds, "params": sel.params, "extra": sel.extra, "n_ranked": sel.n_ranked,
            "identity": identity_of(path)}
    arrays = {
        "order": np.asarray(sel.order, dtype=np.int64),
        "scores": np.asarray(sel.scores, dtype=np.float64),
        "meta": np.array(json.dumps(meta, default=str)),
    }
    if sel.space is not None:
        arrays["space"] = np.asarray(sel.space, dtype=np.float64)
    for count, idx in sel.subsets.items():
        arrays[f"subset_{int(count)}"] = np.asarray(idx, dtype=np.int64)
    tmp = atomic_path(path)
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    os.replace(tmp, path)


def load_selection(path) -> Selection:
    """Read a selection written by ``save_selection``.

    A corrupt file, or one recording another run than its path names, is an ``IntegrityError`` naming
    it; a file written before ``n_ranked`` was recorded loads as all ranked.
    """
    z = read_npz(path, "selection")
    with reading(path, "selection"):
        meta = json.loads(str(z["meta"]))
        subsets = {int(k.split("_", 1)[1]): v for k, v in z.items() if k.startswith("subset_")}
        sel = Selection(z["order"], z["scores"], meta["seconds"], meta["params"], subsets, meta.get("extra", {}),
                        z.get("space"), meta.get("n_ranked"))
    check_identity(path, meta.get("identity", {}))
    return sel
