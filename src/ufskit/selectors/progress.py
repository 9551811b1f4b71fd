"""Progress lines for long fits: one INFO line at most every ``PROGRESS_SECONDS``, so a short fit says nothing.

A selector whose fit can run for minutes on wide data (NRFS, IterativeLS and
the iterative solvers) creates one ``Progress`` per fit with its own module's
logger, and calls ``step`` at each stage or iteration; the line names the
method, the stage and the seconds since the fit began.
"""

from __future__ import annotations

import logging
import time

# a fit logs at most once per this many seconds (tests set it to 0 to see every step)
PROGRESS_SECONDS = 5.0


class Progress:
    """INFO lines on ``logger`` for one fit of ``method``: ``step(message, *args)`` logs when
    ``PROGRESS_SECONDS`` passed since the fit began or since the last line."""

    def __init__(self, logger: logging.Logger, method: str):
        self.logger = logger
        self.method = method
        self.start = self.last = time.perf_counter()

    def step(self, message: str, *args) -> None:
        now = time.perf_counter()
        if now - self.last >= PROGRESS_SECONDS:
            self.logger.info("%s: " + message + " (%.0f s)", self.method, *args, now - self.start)
            self.last = now
