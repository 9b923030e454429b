"""Figures people would rather look at than read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from judgebayes.bootstrap import BootstrapElo

__all__ = ["forest"]


def forest(result: BootstrapElo, ax: Axes | None = None, *,
           truth: Mapping[str, float] | None = None, max_models: int = 80) -> Axes:
    """Forest plot: each model's Elo with its bootstrap interval, best at the top.

    Parameters
    ----------
    result
        A :class:`~judgebayes.bootstrap.BootstrapElo`.
    ax
        Axes to draw on (a new figure when ``None``).
    truth
        Optional ``{model: true Elo}`` drawn as crosses (simulations).
    max_models
        Show at most this many models (the best ones).
    """
    import matplotlib.pyplot as plt

    frame = result.to_frame().head(max_models).iloc[::-1]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 0.18 * len(frame) + 1.2))
    pos = np.arange(len(frame))
    ax.errorbar(frame["elo"], pos, xerr=[frame["elo"] - frame["elo_lo"],
                                         frame["elo_hi"] - frame["elo"]],
                fmt="o", ms=3, color="#1f5fa8", ecolor="#7fa7d6", elinewidth=1.5,
                label=f"Elo, {100 * (1 - result.alpha):g}% bootstrap interval")
    if truth is not None:
        ax.plot([truth.get(m, np.nan) for m in frame["model"]], pos, "x", color="#c2185b",
                ms=4, label="truth")
    ax.set_yticks(pos, frame["model"], fontsize=7)
    ax.set_xlabel("Elo")
    ax.set_ylim(-0.8, len(frame) - 0.2)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=7, frameon=False)
    return ax
