"""Figures people would rather look at than read.

The helpers draw what they are given: data frames, arrays and numbers, or any
object with a ``to_frame()`` method (:class:`Tabular`, which every judgebayes result
is). They import no result type; results own their ``plot()`` and call these.

Every helper draws one panel and returns its matplotlib ``Axes``; pass ``ax=`` to
draw into existing axes (a new figure otherwise). Multi-panel ``plot()`` methods
return a numpy array of ``Axes``, as pandas and ArviZ do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import xarray as xr
    from matplotlib.axes import Axes

__all__ = [
    "Tabular",
    "agreement_plot",
    "conformal_plot",
    "forest",
    "held_out_plot",
    "interval_bars",
    "order_lanes_plot",
    "panel_axes",
    "ppc_plot",
    "quartile_residual_plot",
    "reliability_plot",
    "width_decomposition_plot",
    "win_rate_heatmap",
]


class Tabular(Protocol):
    """Anything that turns into a table: every judgebayes result."""

    def to_frame(self) -> pd.DataFrame: ...


def _frame(data: Tabular | pd.DataFrame) -> pd.DataFrame:
    return data if isinstance(data, pd.DataFrame) else data.to_frame()


def panel_axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    """The axes one panel is drawn on: those given, or those of a new figure.

    Every helper here, and every result's ``plot()``, starts with it, so that ``ax=``
    draws into existing axes and no ``ax`` opens a figure of the panel's own size.

    Parameters
    ----------
    ax
        Axes to draw on, or ``None`` for a new figure.
    figsize
        Width and height in inches of the new figure (unused when ``ax`` is given).

    Returns
    -------
    matplotlib.axes.Axes
        ``ax`` itself when given; otherwise the single axes of a new figure.
    """
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)[1]


def forest(
    board: Tabular | pd.DataFrame,
    ax: Axes | None = None,
    *,
    alpha: float = 0.05,
    truth: Mapping[str, float] | None = None,
    max_models: int = 80,
) -> Axes:
    """Forest plot: each model's Elo with its bootstrap interval, best at the top.

    Where the board has rank-sets (``rank_lo``, ``rank_hi``) each row ends with its
    simultaneous rank interval, and where it has ``tier`` every other tier is shaded.

    Parameters
    ----------
    board
        A leaderboard with columns ``model, elo, elo_lo, elo_hi`` (and optionally
        ``rank_lo, rank_hi, tier``), sorted best first, or a result whose ``to_frame()``
        is one (e.g. :class:`~judgebayes.core.bootstrap.BootstrapElo`, whose ``plot()``
        calls this).
    ax
        Axes to draw on (a new figure when ``None``).
    alpha
        The intervals are central ``1 - alpha`` intervals (for the legend).
    truth
        Optional ``{model: true Elo}`` drawn as crosses (simulations).
    max_models
        Show at most this many models (the first ones).
    """
    frame = _frame(board).head(max_models).iloc[::-1]
    ax = panel_axes(ax, (6.5, 0.18 * len(frame) + 1.2))
    pos = np.arange(len(frame))
    ax.errorbar(
        frame["elo"],
        pos,
        xerr=[frame["elo"] - frame["elo_lo"], frame["elo_hi"] - frame["elo"]],
        fmt="o",
        ms=3,
        color="#1f5fa8",
        ecolor="#7fa7d6",
        elinewidth=1.5,
        label=f"Elo, {100 * (1 - alpha):g}% bootstrap interval",
    )
    if truth is not None:
        ax.plot(
            [truth.get(m, np.nan) for m in frame["model"]],
            pos,
            "x",
            color="#c2185b",
            ms=4,
            label="truth",
        )
    if "tier" in frame:
        for tier in np.unique(frame["tier"])[1::2]:
            rows = pos[frame["tier"].to_numpy() == tier]
            ax.axhspan(rows.min() - 0.5, rows.max() + 0.5, color="0.93", zorder=0, lw=0)
    if {"rank_lo", "rank_hi"} <= set(frame.columns):
        from matplotlib.transforms import blended_transform_factory

        where = blended_transform_factory(ax.transAxes, ax.transData)
        for y, lo, hi in zip(pos, frame["rank_lo"], frame["rank_hi"], strict=True):
            text = f"{lo}" if lo == hi else f"{lo}–{hi}"
            ax.text(1.01, y, text, transform=where, va="center", fontsize=6, color="0.3")
        ax.text(1.01, len(frame) - 0.4, "ranks", transform=where, fontsize=6, color="0.3")
    ax.set_yticks(pos, frame["model"], fontsize=7)
    ax.set_xlabel("Elo")
    ax.set_ylim(-0.8, len(frame) - 0.2)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=7, frameon=False)
    return ax


def ppc_plot(
    check: xr.Dataset,
    ax: Axes | None = None,
    *,
    labels: list[str] | None = None,
    title: str = "posterior predictive check",
) -> Axes:
    """Observed statistics against their posterior predictive 50% and 95% intervals.

    Parameters
    ----------
    check
        A dataset with ``observed`` and ``replicated`` (draws first), one statistic
        per entry (``judgebayes.bayes.plot_statistic`` builds it from a predictive
        check).
    ax
        Axes to draw on (a new figure when ``None``).
    labels
        Names of the statistics (e.g. model names).
    title
        Axes title.
    """
    rep = check["replicated"].values.reshape(check["replicated"].shape[0], -1)
    obs = check["observed"].values.reshape(-1)
    ax = panel_axes(ax, (max(5.0, 0.25 * len(obs) + 1.5), 3.4))
    pos = np.arange(len(obs))
    q = np.quantile(rep, [0.025, 0.25, 0.75, 0.975], axis=0)
    ax.vlines(pos, q[0], q[3], color="#9bb7dd", lw=3, label="95% predictive")
    ax.vlines(pos, q[1], q[2], color="#1f5fa8", lw=5, label="50% predictive")
    inside = (q[0] <= obs) & (obs <= q[3])
    ax.plot(pos[inside], obs[inside], "o", color="black", ms=3, label="observed")
    ax.plot(pos[~inside], obs[~inside], "o", color="#c2185b", ms=4, label="observed (outside)")
    if labels is not None:
        ax.set_xticks(pos, labels, rotation=90, fontsize=7)
    ax.set_title(f"{title}: {inside.mean():.0%} inside the 95% band", fontsize=9)
    ax.legend(fontsize=7, frameon=False, ncol=4)
    return ax


def reliability_plot(
    table: pd.DataFrame,
    ax: Axes | None = None,
    *,
    beta: float | None = None,
    ece: float | None = None,
) -> Axes:
    """Reliability diagram of σ(β*|s|) as P(judge's side = human's side) (Kargi & Salinas, *From
    Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
    arXiv:2606.13221, Fig. 15).

    Parameters
    ----------
    table
        Binned ``p_mean`` (predicted) and ``outcome_mean`` (observed agreement), as
        :func:`judgebayes.softelo.reliability` returns and ``Temperature.reliability``
        holds.
    ax
        Axes to draw on (a new figure when ``None``).
    beta, ece
        β* and the ECE, for the title.
    """
    ax = panel_axes(ax, (3.8, 3.6))
    ax.plot([0.5, 1], [0.5, 1], "k--", lw=0.8)
    ax.plot(table["p_mean"], table["outcome_mean"], "o-", color="#c2185b", ms=4)
    title = [f"β* = {beta:.3f}"] if beta is not None else []
    if ece is not None:
        title.append(f"ECE = {ece:.3f}")
    ax.set(
        xlabel="predicted P(judge agrees with human)",
        ylabel="observed agreement",
        title=", ".join(title),
    )
    return ax


def held_out_plot(
    held: Tabular | pd.DataFrame, ax: Axes | None = None, *, start: str = "hard", end: str = "soft"
) -> Axes:
    """Held-out judge Elo vs human Elo, ``start`` → ``end`` arrows (Kargi & Salinas, 2026, Fig. 4a).

    ``held`` has one row per model with ``elo_human``, ``elo_<start>`` and
    ``elo_<end>`` (``HeldOutElo.table``, or the result itself).
    """
    t = _frame(held)
    ax = panel_axes(ax, (4.6, 4.4))
    x = t["elo_human"].to_numpy()
    y0, y1 = t[f"elo_{start}"].to_numpy(), t[f"elo_{end}"].to_numpy()
    for xi, a, b in zip(x, y0, y1, strict=True):
        ax.annotate(
            "", (xi, b), (xi, a), arrowprops={"arrowstyle": "->", "color": "0.6", "lw": 0.7}
        )
    ax.plot(x, y0, "o", color="#1f5fa8", ms=3, label=start)
    ax.plot(x, y1, "o", color="#c2185b", ms=3, label=end)
    lims = [min(x.min(), y0.min(), y1.min()) - 20, max(x.max(), y0.max(), y1.max()) + 20]
    ax.plot(lims, lims, "k--", lw=0.8)
    ax.set(xlabel="human Elo (held out)", ylabel="judge Elo (held out)")
    ax.legend(frameon=False, fontsize=8)
    return ax


def quartile_residual_plot(ramp: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Mean signed residual per human-Elo quartile, one line per method (Kargi & Salinas, 2026, Fig.
    4b).

    ``ramp`` has one row per quartile and one column per method
    (``HeldOutElo.residual_by_quartile()``).
    """
    ax = panel_axes(ax, (4.6, 3.6))
    for method, colour in zip(ramp.columns, ["#1f5fa8", "#c2185b", "0.5", "0.7"], strict=False):
        ax.plot(ramp.index.astype(str), ramp[method], "o-", color=colour, label=method)
    ax.axhline(0, color="k", lw=0.8)
    ax.set(ylabel="mean signed residual (Elo)", title="residual by human-Elo quartile")
    ax.legend(frameon=False, fontsize=8)
    return ax


def conformal_plot(
    held: Tabular | pd.DataFrame,
    comparison: Tabular | pd.DataFrame,
    ax: Axes | None = None,
    *,
    methods: tuple[str, ...] = ("hard", "soft"),
) -> Axes:
    """Per-model conformal intervals (mean q̂ over splits × SE_i), sorted by human Elo
    (Kargi & Salinas, 2026, Fig. 1c / 8).

    ``held`` has one row per model with ``elo_human``, ``elo_<method>`` and
    ``se_<method>`` (``HeldOutElo.table``, or the result itself); ``comparison`` one
    row per method with ``method`` and ``q_hat`` (``ConformalComparison.table``, or the
    result itself).
    """
    t = _frame(held).sort_values("elo_human", ignore_index=True)
    ax = panel_axes(ax, (7, 3.6))
    pos = np.arange(len(t))
    colours = {"hard": "#1f5fa8", "soft": "#c2185b"}
    q = _frame(comparison).set_index("method")["q_hat"]
    for k, m in enumerate(methods):
        half = q[m] * t[f"se_{m}"].to_numpy()
        ax.errorbar(
            pos + (k - 0.5) * 0.3,
            t[f"elo_{m}"],
            yerr=half,
            fmt="o",
            ms=2,
            color=colours.get(m, None),
            alpha=0.8,
            label=f"{m} (median width {np.median(2 * half):.0f})",
        )
    ax.plot(pos, t["elo_human"], "_", color="black", ms=8, label="human Elo")
    ax.set(xlabel="models, sorted by human Elo", ylabel="Elo")
    ax.legend(frameon=False, fontsize=8)
    return ax


def width_decomposition_plot(
    points: Tabular | pd.DataFrame,
    ax: Axes | None = None,
    *,
    start: str = "hard",
    end: str = "soft",
) -> Axes:
    """Width decomposition in the (q̂, median SE) plane (Kargi & Salinas, 2026, Appendix I, Fig.
    17).

    Each row of ``points`` (a judge, or one conformal comparison) is drawn as a
    ``start`` point (blue) and an ``end`` point (pink) at (q̂, median_i SE_i), joined
    by an arrow ``start`` → ``end``, over contours of constant interval width
    w = 2 q̂ · SE (Eq. 4). ``points`` has columns ``label``, ``q_hat_<method>`` and
    ``median_se_<method>`` for both methods; rows with an infinite q̂ are left out.
    """
    t = _frame(points)
    q = t[[f"q_hat_{start}", f"q_hat_{end}"]].to_numpy(float)
    se = t[[f"median_se_{start}", f"median_se_{end}"]].to_numpy(float)
    keep = np.isfinite(q).all(axis=1) & np.isfinite(se).all(axis=1)
    ax = panel_axes(ax, (4.8, 4.2))
    if not keep.any():
        ax.set_title("no finite q̂: intervals are unbounded")
        return ax
    q, se, labels = q[keep], se[keep], t["label"].to_numpy()[keep]
    qx = np.linspace(0, 1.15 * q.max(), 100)
    sy = np.linspace(0, 1.15 * se.max(), 100)
    gx, gy = np.meshgrid(qx, sy)
    lines = ax.contour(gx, gy, 2 * gx * gy, levels=8, colors="0.8", linewidths=0.7)
    ax.clabel(lines, fontsize=6, fmt="w=%.0f")
    for (q0, q1), (s0, s1), name in zip(q, se, labels, strict=True):
        ax.annotate(
            "", (q1, s1), (q0, s0), arrowprops={"arrowstyle": "->", "color": "0.4", "lw": 0.9}
        )
        if str(name):
            ax.annotate(str(name), (q1, s1), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.plot(q[:, 0], se[:, 0], "o", color="#1f5fa8", ms=5, label=start)
    ax.plot(q[:, 1], se[:, 1], "o", color="#c2185b", ms=5, label=end)
    ax.set(
        xlabel="conformal quantile q̂",
        ylabel="median bootstrap SE (Elo)",
        xlim=(0, qx[-1]),
        ylim=(0, sy[-1]),
        title="width decomposition w = 2 q̂ SE",
    )
    ax.legend(frameon=False, fontsize=8)
    return ax


def interval_bars(
    labels: Sequence[str] | pd.Series,
    estimate: Sequence[float] | pd.Series,
    lower: Sequence[float] | pd.Series,
    upper: Sequence[float] | pd.Series,
    ax: Axes | None = None,
    *,
    ylabel: str = "",
    title: str = "",
) -> Axes:
    """One bar per label with its interval and a zero line (e.g. Kargi & Salinas (2026), Fig. 13).

    Intervals that are NaN (not computed) are left out; the bar is still drawn.
    """
    est = np.asarray(estimate, float)
    lo, hi = np.asarray(lower, float), np.asarray(upper, float)
    ax = panel_axes(ax, (max(3.5, 0.6 * len(est) + 1.5), 3.4))
    pos = np.arange(len(est))
    ax.bar(pos, est, color=np.where(est >= 0, "#c2185b", "#1f5fa8"), alpha=0.75)
    ok = np.isfinite(lo) & np.isfinite(hi)
    ax.errorbar(
        pos[ok],
        est[ok],
        yerr=[est[ok] - lo[ok], hi[ok] - est[ok]],
        fmt="none",
        ecolor="black",
        elinewidth=1,
        capsize=3,
    )
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(pos, [str(v) for v in labels], rotation=30, ha="right", fontsize=8)
    ax.set(ylabel=ylabel, title=title)
    return ax


def order_lanes_plot(table: Tabular | pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Per-model |ε| of Hard-Elo fitted on each presentation order alone (Kargi & Salinas, 2026,
    Fig. 11b).

    ``table`` has ``abs_resid_a_first`` and ``abs_resid_b_first`` per model (A shown
    first: top lane, blue; B first: bottom lane, pink); grey connectors join a model's
    two values, thick ticks mark each lane's MAE and the title gives |MAE_A − MAE_B|.
    """
    t = _frame(table)
    a, b = t["abs_resid_a_first"].to_numpy(float), t["abs_resid_b_first"].to_numpy(float)
    ax = panel_axes(ax, (6, 2.6))
    for x0, x1 in zip(a, b, strict=True):
        ax.plot([x0, x1], [1, 0], color="0.8", lw=0.6, zorder=1)
    ax.plot(a, np.ones_like(a), "o", color="#1f5fa8", ms=4, label="A in position 1")
    ax.plot(b, np.zeros_like(b), "o", color="#c2185b", ms=4, label="B in position 1")
    for y, v, c in ((1, a.mean(), "#1f5fa8"), (0, b.mean(), "#c2185b")):
        ax.plot([v, v], [y - 0.25, y + 0.25], color=c, lw=3)
    ax.set_yticks([0, 1], ["B first", "A first"])
    ax.set_ylim(-0.5, 1.5)
    ax.set(
        xlabel="|ε| = |Elo_LLM − Elo_Human| (Hard-Elo, one order)",
        title=f"|MAE_A − MAE_B| = {abs(a.mean() - b.mean()):.1f} Elo",
    )
    ax.legend(frameon=False, fontsize=7, loc="upper right")
    return ax


def agreement_plot(
    table: pd.DataFrame,
    ax: Axes | None = None,
    *,
    r: float | None = None,
) -> Axes:
    """Judge–human agreement on decisive battles by |s| bin, ± 1 binomial SE
    (Kargi & Salinas, 2026, Fig. 3a / 7a). ``table`` has ``abs_s_mean, agreement, se`` per bin
    (``Temperature.agreement``); ``r`` is the Pearson r(|s|, agreement), for the title.
    """
    ax = panel_axes(ax, (4.2, 3.4))
    ax.errorbar(
        table["abs_s_mean"],
        table["agreement"],
        yerr=table["se"],
        fmt="o-",
        color="#1f5fa8",
        ms=4,
        capsize=2,
    )
    ax.axhline(0.5, color="k", lw=0.8, ls="--")
    ax.set(
        xlabel="|s| (bin mean)",
        ylabel="P(judge's side = human's side)",
        title="agreement by |s|" + ("" if r is None else f", r = {r:.2f}"),
    )
    return ax


def win_rate_heatmap(
    matrix: pd.DataFrame, ax: Axes | None = None, *, title: str = "P(row beats column)"
) -> Axes:
    """Heatmap of a models × models table of win rates (rows beat columns), values printed
    where there are at most 20 models."""
    ax = panel_axes(ax, (0.35 * len(matrix) + 2.5, 0.35 * len(matrix) + 2.0))
    values = matrix.to_numpy(dtype=float)
    image = ax.imshow(values, cmap="RdBu", vmin=0, vmax=1)
    ticks = np.arange(len(matrix))
    ax.set_xticks(ticks, matrix.columns, rotation=90, fontsize=7)
    ax.set_yticks(ticks, matrix.index, fontsize=7)
    if len(matrix) <= 20:
        for (r, c), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(c, r, f"{v:.2f}", ha="center", va="center", fontsize=5)
    ax.figure.colorbar(image, ax=ax, shrink=0.7)
    ax.set_title(title, fontsize=9)
    return ax
