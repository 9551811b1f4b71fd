"""Store the quick run's numbers, to hold a change to "numbers unchanged" (tests/test_quick_workflow.py).

Every CSV table a reader looks at becomes cells (file, row, column, metric, value; ``ufskit.compare.cells``:
times left out, floats as exact text), stored gzip-compressed, one file per BLAS kernel (``ufskit.blas.
blas_kernel``: another kernel moves the numbers that depend on a K-means start or a tie,
docs/readings-and-tolerances.md). The test compares its own quick run with the snapshot of its kernel through
``ufskit.compare``, the code behind ``ufskit compare``, and wants every cell identical.

    python tests/quick_snapshot.py RESULTS_DIR     # from a finished quick run: tests/data/quick_snapshot/<kernel>.csv.gz
"""

from __future__ import annotations

import sys
from pathlib import Path

from ufskit.blas import blas_kernel
from ufskit.compare import write_cells

if __name__ == "__main__":
    out = Path(__file__).parent / "data" / "quick_snapshot" / f"{blas_kernel()}.csv.gz"
    out.parent.mkdir(exist_ok=True)
    write_cells(Path(sys.argv[1]), out)
    print(out)
