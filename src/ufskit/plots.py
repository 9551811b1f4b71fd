"""Figure helpers shared by every paper: one style, png + pdf, no pyplot global state."""

from __future__ import annotations

import math
import os
from pathlib import Path

from matplotlib.figure import Figure

from .data import atomic_path

# One colour and marker per method label, so a method looks the same in every figure.
METHOD_STYLE = {
    "IVFS-linf": ("tab:red", "o"),
    "IVFS-l1": ("tab:pink", "v"),
    "IVFS-l2": ("tab:brown", "^"),
    "NRFS": ("tab:red", "o"),
    "NRFS-2": ("tab:pink", "v"),
    "IterativeLS-1": ("tab:red", "o"),
    "IterativeLS-2": ("tab:pink", "v"),
    "KernelUDFS": ("tab:red", "o"),
    "LS": ("tab:blue", "s"),
    "SPEC": ("tab:green", "D"),
    "MCFS": ("tab:orange", "^"),
    "NDFS": ("tab:purple", "P"),
    "UDFS": ("tab:cyan", "X"),
    "GLSPFS": ("tab:olive", "*"),
    "Variance": ("tab:gray", "x"),
    "KernelPCA": ("tab:blue", "s"),
    "KernelKMeans": ("tab:green", "D"),
}


def method_style(method: str) -> dict:
    """Matplotlib keyword arguments (colour, marker) for a method label; unknown labels get defaults."""
    color, marker = METHOD_STYLE.get(method, (None, "."))
    return {"color": color, "marker": marker, "markersize": 4, "linewidth": 1.4, "label": method}


def panel_grid(n_panels: int, *, ncols: int = 4, panel_size=(3.4, 2.7)) -> tuple[Figure, list]:
    """A figure with ``n_panels`` axes in rows of ``ncols``; spare axes are removed."""
    ncols = min(ncols, n_panels)
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(panel_size[0] * ncols, panel_size[1] * nrows), layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False).ravel())
    for ax in axes[n_panels:]:
        fig.delaxes(ax)
    return fig, axes[:n_panels]


def shared_legend(fig: Figure, axes, *, max_columns: int | None = None, **kwargs) -> None:
    """One legend below all panels with every label that appears in any panel, once, in first-seen order."""
    entries = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    ncols = len(entries) if max_columns is None else min(len(entries), max_columns)
    fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncols=max(ncols, 1), **kwargs)


def save_figure(fig: Figure, *paths) -> None:
    """Write the figure to every path (png at 200 dpi, pdf as vectors), each atomically."""
    for path in paths:
        path = Path(path)
        tmp = atomic_path(path)
        fig.savefig(tmp, dpi=200, format=path.suffix.lstrip("."))
        os.replace(tmp, path)
