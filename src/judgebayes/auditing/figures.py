"""The audit's figures: one function per figure, each returning a matplotlib ``Figure``.

They draw what the audit's results hold and nothing else; the report renders them to PNG
(:mod:`judgebayes.auditing.html`), a notebook shows them through :meth:`Audit.figure
<judgebayes.auditing.result.Audit.figure>`. Where :mod:`judgebayes.plots` has the panel
(the forest plot, the reliability diagram) it draws it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from judgebayes.auditing.anchors import AnchorBudget
    from judgebayes.auditing.board import AuditBoard
    from judgebayes.auditing.budget import Budget
    from judgebayes.auditing.by_model import JudgeByModel
    from judgebayes.auditing.design import DesignComparison
    from judgebayes.auditing.humans import JudgeAgreement
    from judgebayes.auditing.scores import ScoreCalibration
    from judgebayes.auditing.self_preference import SelfPreference

__all__ = [
    "anchors_figure",
    "board_figure",
    "budget_figure",
    "confusion_figure",
    "data_figure",
    "design_figure",
    "eta_figure",
    "j_by_model_figure",
    "reliability_figure",
    "theta_figure",
]

BLUE, PINK, GREY = "#1f5fa8", "#c2185b", "0.45"
MARKERS = ("s", "^", "D", "v", "P", "X")


def _figure(width: float, height: float, ncols: int = 1) -> tuple[Figure, np.ndarray]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=False)
    return fig, axes[0]


def data_figure(per_model: pd.DataFrame) -> Figure:
    """Battles per model, the human-labelled ones darker (``model, n_battles, n_labelled``)."""
    frame = per_model.sort_values("n_battles")
    fig, (ax,) = _figure(6.4, 0.2 * len(frame) + 1.1)
    pos = np.arange(len(frame))
    ax.barh(pos, frame["n_battles"], color="#c9d8ec", label="battles")
    ax.barh(pos, frame["n_labelled"], color=BLUE, label="with a human label")
    for y, n, k in zip(pos, frame["n_battles"], frame["n_labelled"], strict=True):
        ax.text(n, y, f" {n:,} ({k:,} labelled)", va="center", fontsize=6, color=GREY)
    ax.set_xlim(0, frame["n_battles"].max() * 1.3)
    ax.set_yticks(pos, frame["model"], fontsize=7)
    ax.set_xlabel("battles")
    # above the bars: at their right it would cover the counts of the lowest ones
    ax.legend(fontsize=7, frameon=False, loc="lower left", bbox_to_anchor=(0, 1), ncol=2)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def confusion_figure(agreements: Sequence[JudgeAgreement]) -> Figure:
    """Each judge's 3 × 3 confusion matrix, rows normalised (P(verdict | human outcome))."""
    k = len(agreements)
    fig, axes = _figure(3.0 * k + 0.6, 3.1, k)
    for ax, ag in zip(axes, agreements, strict=True):
        # "first" only where the battles say which answer was shown first
        names = ("first", "tie", "second") if ag.position_known else ("A", "tie", "B")
        c = ag.confusion.astype(float)
        rows = c / np.maximum(c.sum(axis=1, keepdims=True), 1)
        ax.imshow(rows, cmap="Blues", vmin=0, vmax=1)
        for h in range(3):
            for v in range(3):
                ax.text(
                    v,
                    h,
                    f"{rows[h, v]:.2f}\n({int(c[h, v])})",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if rows[h, v] > 0.6 else "black",
                )
        ax.set_xticks(range(3), names, fontsize=7)
        ax.set_yticks(range(3), names, fontsize=7)
        ax.set_xlabel("judge says … wins", fontsize=8)
        ax.set_ylabel("humans say … wins", fontsize=8)
        ax.set_title(f"{ag.judge} (n = {ag.n:,})", fontsize=8)
    fig.tight_layout()
    return fig


def _offsets(k: int, width: float = 0.6) -> np.ndarray:
    return (np.arange(k) - (k - 1) / 2) * (width / max(k, 1))


def j_by_model_figure(
    by_model: Mapping[str, JudgeByModel],
    low: float,
    label: str = "Youden's J of 'this model won' (95% interval)",
) -> Figure:
    """Ĵ per model with its interval, one marker per judge; the line of low J."""
    judges = list(by_model)
    models = sorted({m for b in by_model.values() for m in b.per_model["model"]})
    fig, (ax,) = _figure(6.4, 0.24 * len(models) + 1.3)
    pos = np.arange(len(models))[::-1]
    where = dict(zip(models, pos, strict=True))
    for k, (judge, off) in enumerate(zip(judges, _offsets(len(judges)), strict=True)):
        f = by_model[judge].per_model
        y = f["model"].map(where).to_numpy() + off
        ax.errorbar(
            f["J"],
            y,
            xerr=[f["J"] - f["J_lo"], f["J_hi"] - f["J"]],
            fmt=MARKERS[k % 6],
            ms=3,
            lw=1,
            label=judge,
        )
    ax.axvline(low, color=PINK, lw=0.8, ls="--", label=f"low J ({low})")
    ax.axvline(0, color="k", lw=0.6)
    ax.set_yticks(pos, models, fontsize=7)
    ax.set_xlabel(label)
    # above the bars: at their right it would cover the counts of the lowest ones
    ax.legend(fontsize=7, frameon=False, loc="lower left", bbox_to_anchor=(0, 1), ncol=2)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def theta_figure(by_model: JudgeByModel) -> Figure:
    """Per-model accuracy: the judge alone (naive) beside PPI++ with model-specific labels."""
    f = by_model.per_model.iloc[::-1]
    fig, (ax,) = _figure(6.4, 0.3 * len(f) + 1.3)
    pos = np.arange(len(f))
    for name, off, color, label in (
        ("naive", 0.15, GREY, "judge alone (naive)"),
        ("ppi_2x", -0.15, BLUE, "PPI++ (model-specific)"),
    ):
        ax.errorbar(
            f[name],
            pos + off,
            xerr=[f[name] - f[f"{name}_lo"], f[f"{name}_hi"] - f[name]],
            fmt="o",
            ms=3,
            color=color,
            label=label,
        )
    ax.set_yticks(pos, f["model"], fontsize=7)
    ax.set_xlabel("θ (95% interval)")
    ax.legend(fontsize=7, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def eta_figure(prefs: Mapping[str, SelfPreference]) -> Figure:
    """Every judge with ``--own``: η against the humans and ξ beyond the other judges
    (logit scale), each with its interval, beside the zero line and the size that fails."""
    from judgebayes.auditing.verdict import ETA_LARGE

    rows = [p for p in prefs.values() if p is not None]
    fig, (ax,) = _figure(7.2, 0.75 * len(rows) + 1.5)
    y = np.arange(len(rows))[::-1].astype(float)
    series = [("η: beyond the humans' verdict and strengths", "eta", "o", "#1f5fa8", 0.14)]
    if any(p.excess is not None for p in rows):
        series.append(("ξ: η beyond the other judges' η", "excess", "s", "#c2185b", -0.14))
    for label, attr, marker, color, shift in series:
        est = [getattr(p, attr) for p in rows]
        keep = [k for k, e in enumerate(est) if e is not None]
        x = np.array([est[k].estimate for k in keep])
        lo = np.array([est[k].lo for k in keep])
        hi = np.array([est[k].hi for k in keep])
        ax.errorbar(
            x,
            y[keep] + shift,
            xerr=[x - lo, hi - x],
            fmt=marker,
            color=color,
            ms=5,
            capsize=3,
            label=label,
        )
    ax.axvline(0, color="k", lw=0.8)
    for edge in (-ETA_LARGE, ETA_LARGE):
        ax.axvline(edge, color="#8a5a00", lw=0.8, ls=":")
    ax.set_yticks(y, [f"{p.judge} → {', '.join(p.own)}" for p in rows], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlabel(f"extra log-odds of 'my model wins' (dotted: ±{ETA_LARGE}, the size that fails)")
    ax.legend(frameon=False, fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def board_figure(board: AuditBoard) -> Figure:
    """The calibrated board as a forest plot, each judge's own Elo and the humans-only Elo
    marked beside it."""
    from judgebayes.plots import forest

    table = board.table()
    fig, (ax,) = _figure(7.2, 0.26 * len(table) + 1.6)
    forest(table, ax=ax, alpha=board.alpha, max_models=len(table))
    pos = np.arange(len(table))[::-1]
    if "human_only_elo" in table:
        ax.plot(table["human_only_elo"], pos, "|", color="black", ms=7, label="humans only")
    for k, judge in enumerate(board.judges):
        ax.plot(
            table[f"{judge}_elo"],
            pos,
            MARKERS[k % 6],
            ms=3.5,
            mfc="none",
            color=f"C{k + 1}",
            label=f"{judge} only",
        )
    handles, labels = ax.get_legend_handles_labels()
    if board.calibrated is not None:
        labels = [
            "calibrated Elo (PPI++ BT), 95% interval" if lab.startswith("Elo") else lab
            for lab in labels
        ]
    ax.legend(handles, labels, fontsize=7, frameon=False, loc="lower right")
    fig.tight_layout()
    return fig


def reliability_figure(scores: Mapping[str, ScoreCalibration]) -> Figure:
    """Reliability diagram of σ(β|s|) per judge that gives scores (Kargi & Salinas, Fig. 15)."""
    from judgebayes.plots import reliability_plot

    k = len(scores)
    fig, axes = _figure(3.6 * k, 3.4, k)
    for ax, s in zip(axes, scores.values(), strict=True):
        reliability_plot(s.temperature.reliability, ax=ax, beta=s.beta.estimate, ece=s.ece.estimate)
        ax.set_title(f"{s.judge}: {ax.get_title()}", fontsize=8)
    fig.tight_layout()
    return fig


def design_figure(design: DesignComparison) -> Figure:
    """Observed calibration rates per model against their 95% predictive intervals, under the
    shared design and the design LOO prefers."""
    shown = list(dict.fromkeys(["shared", design.best]))
    stats = ("calibration rate | Z=1 (q1)", "calibration rate | Z=0 (1-q0)")
    fig, axes = _figure(3.6 * len(stats) + 1.0, 0.22 * design.ppc["model"].nunique() + 1.6, 2)
    for ax, stat in zip(axes, stats, strict=True):
        p = design.ppc[design.ppc["statistic"] == stat]
        models = sorted(p["model"].unique())
        pos = np.arange(len(models))[::-1]
        where = dict(zip(models, pos, strict=True))
        for k, (name, off) in enumerate(zip(shown, _offsets(len(shown), 0.5), strict=True)):
            q = p[p["design"] == name]
            y = q["model"].map(where).to_numpy() + off
            ax.hlines(
                y,
                q["lo"],
                q["hi"],
                color=f"C{k}",
                lw=2.5,
                alpha=0.6,
                label=f"{name}: 95% predictive",
            )
        obs = p.drop_duplicates("model")
        outside = pd.Series(False, index=obs.index)
        for name in shown:
            q = p[p["design"] == name].set_index("model")
            out = (q["observed"] < q["lo"]) | (q["observed"] > q["hi"])
            if name == "shared":
                outside = obs["model"].map(out).fillna(False).astype(bool)
        ax.plot(
            obs["observed"], obs["model"].map(where), "o", color="black", ms=3, label="observed"
        )
        ax.plot(
            obs.loc[outside, "observed"],
            obs.loc[outside, "model"].map(where),
            "o",
            color=PINK,
            ms=5,
            mfc="none",
            label="outside the shared design's interval",
        )
        ax.set_yticks(pos, models, fontsize=7)
        ax.set_title(stat.replace("calibration rate", "judge-positive rate"), fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def _plain_ticks(ax: Axes, n: Sequence[float], *, y: bool = True) -> None:
    """Log axes labelled with plain numbers at the simulated points (no 2×10³)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xticks(list(n), [f"{int(v):,}" for v in n], fontsize=7)
    ax.xaxis.set_minor_formatter(NullFormatter())
    if y:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.tick_params(axis="y", which="both", labelsize=7)


def budget_figure(budget: Budget) -> Figure:
    """Simulated median interval width (and rank-set size) against the number of labels."""
    c = budget.curve
    has_ranks = "median_rank_set" in c and c["median_rank_set"].notna().any()
    fig, axes = _figure(7.0 if has_ranks else 3.8, 3.2, 2 if has_ranks else 1)
    ax = axes[0]
    ax.errorbar(
        c["n_labels"], c["median_width"], yerr=c["median_width_sd"], fmt="o-", color=BLUE, ms=4
    )
    ax.axhline(c["median_width"].iloc[0] / 2, color=PINK, ls="--", lw=0.8, label="half of today's")
    if np.isfinite(budget.halve_width):
        ax.axvline(budget.halve_width, color=PINK, lw=0.8)
    ax.set(xscale="log", yscale="log", xlabel="human labels")
    ax.set_ylabel(f"median interval width ({budget.unit})")
    _plain_ticks(ax, c["n_labels"])
    ax.legend(fontsize=7, frameon=False)
    if has_ranks:
        ax = axes[1]
        ax.errorbar(
            c["n_labels"],
            c["median_rank_set"],
            yerr=c["median_rank_set_sd"],
            fmt="o-",
            color=BLUE,
            ms=4,
        )
        ax.axhline(c["median_rank_set"].iloc[0] / 2, color=PINK, ls="--", lw=0.8)
        ax.set(xscale="log", xlabel="human labels", ylabel="median rank-set size")
        _plain_ticks(ax, c["n_labels"], y=False)
    fig.tight_layout()
    return fig


def anchors_figure(budgets: Mapping[str, AnchorBudget]) -> Figure:
    """Per judge, each candidate anchor's informativeness I(p, A) with its interval, the
    strongest model at the top (so the paper's inverted U shows as a bulge to the right),
    the anchors in use in pink, the recommended one starred, the prompts +5 % needs with
    each written beside it."""
    k = len(budgets)
    rows = max(len(b.table) for b in budgets.values())
    fig, axes = _figure(6.6 * k, 0.26 * rows + 1.4, k)
    for ax, b in zip(axes, budgets.values(), strict=True):
        t = b.table
        y = np.arange(len(t))[::-1]
        colours = [PINK if u else BLUE for u in t["in_use"]]
        err = np.vstack([t["informativeness"] - t["lo"], t["hi"] - t["informativeness"]])
        for yy, x, e0, e1, c in zip(y, t["informativeness"], err[0], err[1], colours, strict=True):
            ax.errorbar(x, yy, xerr=[[e0], [e1]], fmt="o", color=c, ms=4, capsize=2)
        labels = [
            f"{int(r.position)}. {r.anchor}" + (" ★" if r.anchor == b.recommended else "")
            for r in t.itertuples()
        ]
        ax.set_yticks(y, labels, fontsize=7)
        right = float(np.nanmax(t["hi"]))
        left = float(np.nanmin(t["lo"]))
        span = right - left if right > left else 0.1
        ax.set_xlim(left - 0.05 * span, right + 0.45 * span)
        for yy, n in zip(y, t["n_total"], strict=True):
            if np.isfinite(n):
                ax.text(right + 0.08 * span, yy, f"{n:,.0f}", va="center", fontsize=6.5, color=GREY)
        ax.text(
            right + 0.08 * span,
            y[0] + 0.75,
            f"prompts for +{b.effect:.0%}",
            fontsize=6.5,
            color=GREY,
            va="center",
        )
        ax.set_ylim(-0.7, len(t) + 0.4)
        ax.set_xlabel(f"informativeness I(p, A) ({100 * b.level:g}% interval over prompts)")
        ax.set_title(
            f"{b.judge}: models by rank (1 = strongest), ★ recommended"
            + (", pink: in use" if b.in_use else ""),
            fontsize=8,
        )
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
