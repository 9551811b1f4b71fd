"""Seeds derived from a run's identity, so that a rerun is bit-identical.

Python's ``hash()`` is salted per process, so the seed is taken from SHA-256 of a
canonical JSON encoding of the identity (global seed, dataset, method, params, rep).
"""

from __future__ import annotations

import hashlib
import json


def derive_seed(*identity) -> int:
    """A 32-bit seed that depends only on ``identity`` (JSON-serialisable parts)."""
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return int.from_bytes(hashlib.sha256(blob.encode()).digest()[:4], "little")
