"""Logging and thread limits for the workflow's scripts (plain paths in, no Snakemake import)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from threadpoolctl import threadpool_limits


def start(log_path, threads: int = 1) -> logging.Logger:
    """Send the 'ufskit' logger, warnings and uncaught errors to ``log_path``; cap BLAS threads.

    Each job owns ``threads`` cores (its rule's ``threads:``); without the cap
    every BLAS call would use all cores and parallel jobs would thrash.
    """
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    stream = open(log_path, "w", buffering=1)
    sys.stderr = stream
    logging.basicConfig(
        stream=stream, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", force=True
    )
    logging.captureWarnings(True)
    threadpool_limits(limits=max(1, int(threads)))
    return logging.getLogger("ufskit")
