"""ufskit: unsupervised feature selection, reproduced.

The library behind the Snakemake workflow of this repository: data loading and
preprocessing, scikit-learn-style selectors (``ufskit.selectors``) and plain
metric functions (``ufskit.metrics``). Nothing here imports Snakemake, and this
module imports no submodule, so ``import ufskit.selectors`` needs only the base
install (``pip install ufskit``); the workflow's stack is the ``workflow`` extra.
"""

__version__ = "0.1.0"
