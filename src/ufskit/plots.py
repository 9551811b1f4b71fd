"""Figure helpers shared by every paper: one style, png + pdf, no pyplot global state.

Every figure is built the same way: :func:`panel_grid` gives the axes, the paper's code draws into
them (:func:`plot_line` for curves, :func:`count_axis` for axes of feature counts), and
:func:`finish` adds the shared legend and the title, wraps every title to the width it has and grows
the canvas until every artist lies on it, so a figure of one panel is as readable as one of twelve.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .data import atomic_path

if TYPE_CHECKING:  # matplotlib is imported where a figure is drawn: the workflow's start-up loads none
    from matplotlib.figure import Figure

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
# Methods added by the config's extra_methods (not in the paper): colours and marker shapes no paper method or
# reference line uses, a dash-dot-dot line no layer uses, so a user's selector never takes a paper method's look;
# the i-th added method of a figure takes the i-th.
ADDED_STYLES = (("darkgoldenrod", "h"), ("teal", "p"), ("indigo", "H"), ("magenta", "8"))
ADDED_LINESTYLE = (0, (6, 2, 1, 2, 1, 2))
# Curves drawn later in a panel are thinner, smaller and dashed, so a curve that coincides with an
# earlier one shows as a thin line inside a thick one instead of hiding it.
LINE_STYLES = ("-", "--", "-.", ":")
# no-break spaces: a wrapped title never splits the note
PROTOCOL_NOTES = {"full": "", "quick": "(quick\u00a0protocol)", "smoke": "(smoke\u00a0protocol)"}
# The chance reference (Random's draws) in every curve figure: one label, one grey shade, behind the curves.
RANDOM_BAND_LABEL = "Random features, 5-95 %"
# A point at a count past the features its method truly ranked (n_ranked: e.g. MCFS's zero-score block, in a
# seeded tie order) is ringed, as the tables mark such cells with a dagger.
BEYOND_RANKED_LABEL = "ringed: count beyond the method's ranked features"
_MARGIN_IN = 2 / 72  # free margin kept around everything on the canvas (inches); the layout keeps 2/72 or more


def method_style(method: str, layer: int = 0, *, added: int | None = None) -> dict:
    """Matplotlib keyword arguments for a method label (colour, marker) drawn as the ``layer``-th curve of a panel.

    Unknown labels get matplotlib's colour cycle and a dot. Layer 0 is drawn widest; each later
    layer is narrower, with smaller markers, another dash pattern and a higher z-order. ``added``: the
    index of a method added by ``extra_methods`` among the figure's added ones; it takes ``ADDED_STYLES``
    (cycled) and ``ADDED_LINESTYLE`` instead, whatever its label, so it is never mistaken for a paper method.
    """
    color, marker = METHOD_STYLE.get(method, (None, ".")) if added is None else ADDED_STYLES[added % len(ADDED_STYLES)]
    return {"color": color, "marker": marker, "markersize": max(8.0 - 2.5 * layer, 3.0 if added is None else 5.0),
            "linewidth": max(3.0 - 1.0 * layer, 0.8),
            "linestyle": LINE_STYLES[layer % len(LINE_STYLES)] if added is None else ADDED_LINESTYLE,
            "zorder": 2 + layer, "label": method}


def plot_line(ax, x, y, method: str, layer: int = 0, *, beyond=None, added: int | None = None, **overrides):
    """Plot one curve in the style of ``method`` as the ``layer``-th curve of its panel (see :func:`method_style`).

    ``beyond``: one boolean per point, True at a count beyond the features the method truly ranked
    (a ``beyond_ranked`` column); those points are ringed, with one legend entry for the figure.
    ``added``: the index of a method added by ``extra_methods`` (its own style, see :func:`method_style`).
    """
    lines = ax.plot(x, y, **{**method_style(method, layer, added=added), **overrides})
    mask = np.zeros(len(lines[0].get_xdata()), dtype=bool) if beyond is None else np.asarray(beyond, dtype=bool)
    if mask.any():
        ax.plot(np.asarray(x, dtype=float)[mask], np.asarray(y, dtype=float)[mask], linestyle="none", marker="o",
                markersize=12, markerfacecolor="none", markeredgecolor="black", markeredgewidth=1.0,
                zorder=lines[0].get_zorder() + 0.5, label=BEYOND_RANKED_LABEL)
    return lines


def shade_band(ax, band) -> None:
    """Shade the 5-95 % band of random feature subsets (rows n_features, low, high of one panel) behind its curves.

    ``band`` comes from ``papers.benchmark_stats.random_band`` restricted to the panel; nothing is drawn
    when it is empty (no Random method in the experiment).
    """
    if band is None or len(band) == 0:
        return
    band = band.sort_values("n_features")
    ax.fill_between(band["n_features"].astype(float), band["low"].astype(float), band["high"].astype(float),
                    color="0.6", alpha=0.35, linewidth=0, zorder=1, label=RANDOM_BAND_LABEL)


def count_axis(axis, label: str = "number of selected features") -> None:
    """Label an axis of feature counts and give it integer ticks only, as many as its length has room for."""
    from matplotlib.ticker import MaxNLocator

    axis.set_label_text(label)
    axis.set_major_locator(MaxNLocator(nbins="auto", integer=True, min_n_ticks=2))


def protocol_title(title: str, protocol: str = "full") -> str:
    """``title`` with "(quick protocol)" or "(smoke protocol)" appended when the run is not the full protocol."""
    if protocol not in PROTOCOL_NOTES:
        raise ValueError(f"protocol must be one of {sorted(PROTOCOL_NOTES)}, got {protocol!r}.")
    note = PROTOCOL_NOTES[protocol]
    return f"{title} {note}" if note else title


def panel_grid(n_panels: int, *, ncols: int = 4, panel_size=(3.4, 2.7), min_width: float = 6.4,
               decorations: float = 0.8) -> tuple[Figure, list]:
    """A figure with ``n_panels`` axes in rows of at most ``ncols``; spare axes are removed.

    Each panel gets ``panel_size`` inches (axes with their labels), the figure ``decorations``
    inches more for its title and legend, and at least ``min_width`` inches of width, so the title
    and legend of one or two panels have room; :func:`finish` grows it if anything still overflows.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if n_panels < 1:
        raise ValueError(f"n_panels must be at least 1, got {n_panels}.")
    ncols = min(ncols, n_panels)
    nrows = math.ceil(n_panels / ncols)
    fig = Figure(figsize=(max(panel_size[0] * ncols, min_width), panel_size[1] * nrows + decorations),
                 layout="constrained")
    fig.get_layout_engine().set(w_pad=4 / 72, h_pad=4 / 72)  # outside legends sit at half of it from the edge
    FigureCanvasAgg(fig)  # a canvas that can measure text, so finish() can wrap and fit
    axes = list(fig.subplots(nrows, ncols, squeeze=False).ravel())
    for ax in axes[n_panels:]:
        fig.delaxes(ax)
    return fig, axes[:n_panels]


def shared_legend(fig: Figure, axes, **kwargs):
    """One legend below all panels with every label of any panel, once, in first-seen order (rings' key last).

    It gets as many columns as fit in the figure's width, so it wraps into several rows instead
    of running off the canvas. Returns the legend (None when no panel has a labelled artist).
    """
    entries = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    if not entries:
        return None
    entries = dict(sorted(entries.items(), key=lambda entry: entry[0] == BEYOND_RANKED_LABEL))  # the rings' key last
    kwargs.setdefault("fontsize", 8)
    renderer = fig.canvas.get_renderer()
    for ncols in range(len(entries), 0, -1):
        legend = fig.legend(list(entries.values()), list(entries), loc="outside lower center", ncols=ncols, **kwargs)
        if ncols == 1 or legend.get_window_extent(renderer).width <= fig.bbox.width - 2 * _MARGIN_IN * fig.dpi:
            return legend
        legend.remove()
    return None  # unreachable: ncols == 1 always returns


def finish(fig: Figure, axes, *, title: str | None = None, protocol: str = "full", legend: bool = True,
           legend_axes=None, title_size: float = 10, legend_size: float = 8) -> Figure:
    """Complete a figure: shared legend, title (with the protocol's note), every title wrapped, canvas fitted.

    ``legend_axes`` (default ``axes``) are the panels whose labelled artists make the shared legend.
    Axes titles are wrapped to their panel's width, the figure title to the canvas width; then the
    canvas grows until every artist (titles, labels, tick labels, legend) lies on it.
    """
    if legend:
        shared_legend(fig, axes if legend_axes is None else legend_axes, fontsize=legend_size)
    suptitle = None if title is None else fig.suptitle(protocol_title(title, protocol), fontsize=title_size)
    fig.draw_without_rendering()  # lay out, so every panel has its final width
    for ax in axes:
        _wrap(ax.title, ax.bbox.width)
    if suptitle is not None:
        _wrap(suptitle, fig.bbox.width - 2 * _MARGIN_IN * fig.dpi)
    fit_canvas(fig)
    return fig


def fit_canvas(fig: Figure, *, max_rounds: int = 6) -> None:
    """Grow the canvas until every artist of ``fig`` lies on it with a margin of ``_MARGIN_IN`` inches."""
    for _ in range(max_rounds):
        fig.draw_without_rendering()
        box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
        width, height = fig.get_size_inches()
        pad = _MARGIN_IN
        grow_w = max(0.0, pad - box.x0) + max(0.0, box.x1 - width + pad)
        grow_h = max(0.0, pad - box.y0) + max(0.0, box.y1 - height + pad)
        if grow_w <= 1e-3 and grow_h <= 1e-3:
            return
        fig.set_size_inches(width + 2 * grow_w, height + 2 * grow_h)


def _wrap(text, width_px: float) -> None:
    """Re-break a Text artist's string into lines no wider than ``width_px`` (words are never split)."""
    from matplotlib.font_manager import FontProperties

    string = text.get_text()
    if not string:
        return
    renderer = text.figure.canvas.get_renderer()
    prop = FontProperties(size=text.get_fontsize(), weight=text.get_fontweight(), family=text.get_fontfamily())

    def width(s):
        return renderer.get_text_width_height_descent(s, prop, ismath=False)[0]

    lines = []
    for paragraph in string.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and width(candidate) > width_px:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    text.set_text("\n".join(lines))


def save_figure(fig: Figure, *paths, dpi: int = 200) -> None:
    """Write the figure to every path (png at ``dpi``, pdf as vectors), each atomically."""
    for path in paths:
        path = Path(path)
        tmp = atomic_path(path)
        fig.savefig(tmp, dpi=dpi, format=path.suffix.lstrip("."))
        os.replace(tmp, path)
