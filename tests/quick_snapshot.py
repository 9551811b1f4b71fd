"""Store the quick run's numbers, to hold a change to "numbers unchanged" (tests/test_quick_workflow.py).

Every CSV table a reader looks at becomes cells (file, row, column, metric, value; ``ufskit.compare.cells``:
times left out, floats as exact text), stored gzip-compressed. The test compares its own quick run with them
through ``ufskit.compare``, the code behind ``ufskit compare``: identical on the machine and packages that
stored them, within the scorecard's tolerances on any other.

    python tests/quick_snapshot.py RESULTS_DIR tests/data/quick_snapshot.csv.gz   # from a finished quick run
"""

from __future__ import annotations

import sys
from pathlib import Path

from ufskit.compare import write_cells

if __name__ == "__main__":
    results_dir, out = map(Path, sys.argv[1:3])
    write_cells(results_dir, out)
