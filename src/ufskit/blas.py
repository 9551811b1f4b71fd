"""BLAS threads for the iterative selectors.

NDFS's reweighted ridge steps, UDFS's eigensolver steps and MCFS's LARS paths make hundreds of
BLAS/LAPACK calls on operands of a few MB each (a 1024 x 1024 Cholesky, a
pass over X, triangular solves). A multithreaded BLAS synchronises its
threads inside every call; when the cores are shared (other jobs, a
workflow running several selectors at once) a descheduled thread stalls
every call. Measured on the 2-core development machine under load
(``benchmarks/blas_threads.py``): the Cholesky of COIL20's 1024 x 1024
system took 37 ms on one thread and 1.5 s on two; a default NDFS fit on
COIL20 took 7 s on one thread and 130-150 s on two. On an idle machine two
threads save at most the parallel share of the Cholesky (about a third of
an NDFS fit), so these kernels run on one thread always; a caller who
wants parallelism runs several fits at once (as the workflow does).
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits


def single_threaded_blas():
    """Context manager: BLAS and LAPACK calls inside run on one thread (restored on exit)."""
    return threadpool_limits(limits=1, user_api="blas")


def blas_kernel() -> str:
    """The BLAS kernel numpy runs on (OpenBLAS's core type, e.g. "Haswell", "SkylakeX"), or its library's name.

    Two machines with different kernels sum in different orders: results agree to round-off, or within a
    metric's tolerance where a K-means start or a nearest-neighbour tie flips on a last bit
    (docs/readings-and-tolerances.md); on one kernel a rerun is identical bit for bit.
    """
    import numpy  # noqa: F401  (threadpoolctl sees only the BLAS of libraries already loaded)
    from threadpoolctl import threadpool_info

    blas = [info for info in threadpool_info() if info.get("user_api") == "blas"]
    if not blas:
        return "unknown"
    return blas[0].get("architecture") or blas[0].get("internal_api", "unknown")
