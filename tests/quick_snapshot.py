"""Store the quick run's numbers, to hold a change to "numbers unchanged" (tests/test_quick_workflow.py).

Every CSV table a reader looks at becomes cells (file, row, column, metric, value; ``ufskit.compare.cells``:
times left out, floats as exact text), stored gzip-compressed, one file per BLAS kernel (``ufskit.blas.
blas_kernel``: another kernel moves the numbers that depend on a K-means start, docs/readings-and-tolerances.md).
The test compares its own quick run through ``ufskit.compare``, the code behind ``ufskit compare``: with the
snapshot of its kernel, wanting every cell identical; on a kernel without one, with the stored kernels', wanting
agreement within the scorecard's tolerances with at least one. A change that moves numbers regenerates every stored kernel's
snapshot (``OPENBLAS_CORETYPE=<kernel>`` forces one on a machine that has a newer).

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
