"""On-disk form of one selector run: results/<exp>/selections/.../rep<r>.npz."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np

from .data import atomic_path, reading


@dataclass
class Selection:
    """The outcome of one fit: the full order (best first), the scores and the fit time.

    ``subsets`` holds, for selectors whose choice depends on the number of
    features (e.g. IterativeLS-2's kept set per size), the selected indices per count;
    evaluation uses them instead of a prefix of ``order`` where present.
    ``space`` holds the matrix whose columns ``order`` ranks when that is not the
    input X (kernel UDFS ranks kernel features, one per training sample).
    """

    order: np.ndarray
    scores: np.ndarray
    seconds: float
    params: dict
    subsets: dict[int, np.ndarray] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    space: np.ndarray | None = None

    def features(self, count: int) -> np.ndarray:
        """Indices of the ``count`` selected features."""
        if count in self.subsets:
            return self.subsets[count]
        if count > self.order.size:
            raise ValueError(f"asked for {count} features; the selection ranks only {self.order.size}.")
        return self.order[:count]


def save_selection(sel: Selection, path) -> None:
    """Write atomically (npz with a JSON metadata string)."""
    arrays = {
        "order": np.asarray(sel.order, dtype=np.int64),
        "scores": np.asarray(sel.scores, dtype=np.float64),
        "meta": np.array(json.dumps({"seconds": sel.seconds, "params": sel.params, "extra": sel.extra}, default=str)),
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
    """Read a selection written by ``save_selection``; a corrupt file is an ``IntegrityError`` naming it."""
    with reading(path, "selection"), np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        subsets = {int(k.split("_", 1)[1]): z[k] for k in z.files if k.startswith("subset_")}
        space = z["space"] if "space" in z.files else None
        return Selection(z["order"], z["scores"], meta["seconds"], meta["params"], subsets, meta.get("extra", {}),
                         space)
