"""Anchor informativeness (Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is the key for LLM as a
Judge Anchor Selection*, ACL 2026, arXiv:2603.16848, Sections 4.2–4.3, Figures 2–3, Table 9).

A prompt i is informative about two targets a, b under anchor A when their verdicts
against A differ, v_{i,a}^A ≠ v_{i,b}^A; the anchor's informativeness is the share
of (prompt, target pair) that are (Section 4.3)

    I(p, A) = 1 / (N·C(M, 2)) · Σ_i Σ_{a<b} 1[v_{i,a}^A ≠ v_{i,b}^A],

over the M targets (every model but the anchor; Don-Yehiya et al. (2026), Appendix C counts
22·C(21, 2) target pairs for 22 anchors). Per prompt the count is
C(m_i, 2) − Σ_v C(n_{i,v}, 2), n_{i,v} the targets with verdict v, so the whole
computation is one histogram per (anchor, prompt). A (prompt, pair) with a missing
verdict is left out of numerator and denominator alike. The scale is the five-point
margin (default; position-debiased half-margins count as their own values) or its
sign {−1, 0, 1} (``scale="three"``), where transitivity bounds I by ½ (Section 4.3).

Intervals are percentile bootstraps over prompts (the prompts are the sample; models
are fixed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.stats import linregress

from judgebayes.anchors.rankings import AnchorRankings, anchor_index
from judgebayes.anchors.verdicts import VerdictTable, check_scale
from judgebayes.core.results import ResultDisplay
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "AnchorInformativeness",
    "TauInformativeness",
    "WinHistogram",
    "discordance",
    "informativeness",
    "regress_tau",
    "tau_vs_informativeness",
    "win_histogram",
]


def _levels(against: np.ndarray, scale: str) -> tuple[np.ndarray, int]:
    """Integer codes of verdicts (NaN → −1) and the number of levels."""
    if scale == "three":
        codes = np.sign(against) + 1.0
        n_levels = 3
    else:
        codes = np.round(2.0 * against) + 4.0  # half-margins −2, −1.5, …, 2 → 0..8
        n_levels = 9
    return np.where(np.isfinite(codes), codes, -1).astype(np.int64), n_levels


def discordance(
    v: np.ndarray, anchors: np.ndarray, *, targets: np.ndarray | None = None, scale: str = "five"
) -> tuple[np.ndarray, np.ndarray]:
    """Per (anchor, prompt): discordant target pairs and judged target pairs.

    Parameters
    ----------
    v
        Verdict tensor ``(N, M, M)`` (:meth:`VerdictTable.tensor`).
    anchors
        Anchor indices.
    targets
        Target indices (default every model); the anchor itself is always left out.
    scale
        ``"five"`` or ``"three"``.

    Returns
    -------
    (discordant, pairs)
        Arrays ``(n_anchors, N)``: Σ_{a<b} 1[v_a ≠ v_b] and C(m_i, 2).
    """
    check_scale(scale)
    anchors = np.asarray(anchors, dtype=int)
    against = np.moveaxis(v[:, :, anchors], 2, 0)  # (A, N, M): target's margin over anchor
    if targets is not None:
        mask = np.zeros(v.shape[1], dtype=bool)
        mask[np.asarray(targets, dtype=int)] = True
        against = np.where(mask, against, np.nan)
    codes, n_levels = _levels(against, scale)
    a_idx, n_idx, _ = np.nonzero(codes >= 0)
    counts = np.zeros((anchors.size, v.shape[0], n_levels))
    np.add.at(counts, (a_idx, n_idx, codes[codes >= 0]), 1.0)
    m = counts.sum(axis=2)
    pairs = m * (m - 1.0) / 2.0
    same = (counts * (counts - 1.0) / 2.0).sum(axis=2)
    return pairs - same, pairs


def _ratio(d: np.ndarray, c: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return d / c


def bootstrap_ratio(d: np.ndarray, c: np.ndarray, *, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap replicates over prompts (last axis) of Σd / Σc, shape ``(n_boot, A)``."""
    rng = np.random.default_rng(seed)
    n = d.shape[-1]
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(float)
    return _ratio(weights @ d.T, weights @ c.T)


@dataclass(frozen=True, repr=False)
class AnchorInformativeness(ResultDisplay):
    """I(p, A) per anchor with a bootstrap interval over prompts (Section 4.3, Table 9).

    Attributes
    ----------
    anchors
        Anchor names.
    informativeness, lo, hi
        I(p, A) and its percentile interval (NaN without a bootstrap).
    n_prompts, n_targets
        Prompts and targets per anchor.
    scale, level
        Verdict scale and interval level.
    replicates
        Bootstrap replicates ``(n_boot, n_anchors)`` (empty without a bootstrap).
    """

    anchors: tuple[str, ...]
    informativeness: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    n_prompts: int
    n_targets: np.ndarray
    scale: str
    level: float
    replicates: np.ndarray

    def __getitem__(self, anchor: str) -> float:
        return float(self.informativeness[self.anchors.index(anchor)])

    def p_best(self) -> np.ndarray:
        """Per anchor, the share of bootstrap replicates in which it is the most informative
        (zeros without a bootstrap)."""
        reps = self.replicates
        if len(reps) == 0:
            return np.zeros(len(self.anchors))
        winner = np.nanargmax(np.where(np.isfinite(reps), reps, -np.inf), axis=1)
        return np.bincount(winner, minlength=len(self.anchors)) / len(reps)

    def to_frame(self) -> pd.DataFrame:
        """``anchor, informativeness, lo, hi, n_targets``, least informative first (Table 9)."""
        frame = pd.DataFrame(
            {
                "anchor": self.anchors,
                "informativeness": self.informativeness,
                "lo": self.lo,
                "hi": self.hi,
                "n_targets": self.n_targets,
            }
        )
        return frame.sort_values("informativeness", kind="stable", ignore_index=True)

    def _headline(self) -> str:
        i = self.informativeness
        lo, hi = int(np.nanargmin(i)), int(np.nanargmax(i))
        return (
            f"I(p, A) on the {self.scale}-point scale, {len(self.anchors)} anchors × "
            f"{self.n_prompts:,} prompts: {i[lo]:.3f} ({self.anchors[lo]}) to "
            f"{i[hi]:.3f} ({self.anchors[hi]})"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Informativeness per anchor with its interval, least informative at the top."""
        frame = self.to_frame()
        ax = panel_axes(ax, (5.5, 0.22 * len(frame) + 1.2))
        y = np.arange(len(frame))[::-1]
        est = frame["informativeness"]
        err = np.vstack([est - frame["lo"], frame["hi"] - est])
        ax.errorbar(
            est,
            y,
            xerr=np.where(np.isfinite(err), err, 0.0),
            fmt="o",
            color="#1f5fa8",
            ms=4,
            capsize=2,
        )
        ax.set_yticks(y, frame["anchor"], fontsize=8)
        ax.set_xlabel(f"informativeness I(p, A) ({self.scale}-point verdicts)")
        ax.grid(alpha=0.3, axis="x")
        return ax


def informativeness(
    table: VerdictTable,
    *,
    anchors: Sequence[str] | None = None,
    judge: str | None = None,
    scale: str = "five",
    n_boot: int = 0,
    level: float = 0.95,
    seed: int = 0,
) -> AnchorInformativeness:
    """I(p, A) of every anchor (Don-Yehiya et al., 2026, Section 4.3), with a bootstrap over
    prompts.

    Parameters
    ----------
    table
        Verdicts of one judge (or pick one with ``judge``): quadratic (every model can
        be the anchor) or anchor-based.
    anchors
        Anchors to score; default every model judged against at least two others.
    scale
        ``"five"`` (margins; default) or ``"three"`` (their sign).
    n_boot, level, seed
        Percentile bootstrap over prompts (0: no interval).
    """
    table = table.one_judge(judge)
    idx = anchor_index(table, anchors)
    v = table.tensor()
    d, c = discordance(v, idx, scale=scale)
    est = _ratio(d.sum(axis=1), c.sum(axis=1))
    reps = np.empty((0, idx.size))
    lo = hi = np.full(idx.size, np.nan)
    if n_boot:
        reps = bootstrap_ratio(d, c, n_boot=n_boot, seed=seed)
        q = (1.0 - level) / 2.0
        lo, hi = np.nanquantile(reps, [q, 1.0 - q], axis=0)
    n_targets = (np.isfinite(v[:, :, idx]).any(axis=0)).sum(axis=0)
    return AnchorInformativeness(
        anchors=tuple(table.models[k] for k in idx),
        informativeness=est,
        lo=lo,
        hi=hi,
        n_prompts=len(table.prompts),
        n_targets=n_targets,
        scale=scale,
        level=level,
        replicates=reps,
    )


@dataclass(frozen=True, repr=False)
class WinHistogram(ResultDisplay):
    """How many targets beat the anchor on each prompt (Don-Yehiya et al., 2026, Section 4.2, Figure
    2).

    Attributes
    ----------
    anchors
        Anchor names.
    counts
        ``(n_anchors, n_targets + 1)``: prompts on which exactly k targets beat the anchor.
    n_targets
        Targets per anchor.
    """

    anchors: tuple[str, ...]
    counts: np.ndarray
    n_targets: int

    def to_frame(self) -> pd.DataFrame:
        """``anchor, models_beating_anchor, prompts`` (long format)."""
        k = np.arange(self.counts.shape[1])
        return pd.DataFrame(
            {
                "anchor": np.repeat(self.anchors, k.size),
                "models_beating_anchor": np.tile(k, len(self.anchors)),
                "prompts": self.counts.ravel(),
            }
        )

    def _headline(self) -> str:
        share = self.counts[:, 0] / self.counts.sum(axis=1)
        return (
            f"{len(self.anchors)} anchor(s), {self.n_targets} targets, "
            f"{int(self.counts[0].sum()):,} prompts; anchor beaten by no target on "
            + ", ".join(f"{s:.0%} ({a})" for a, s in zip(self.anchors, share, strict=True))
        )

    def plot(self, axes: Sequence[Axes] | np.ndarray | None = None) -> np.ndarray:
        """One histogram per anchor (Figure 2), in a row."""
        if axes is None:
            import matplotlib.pyplot as plt

            axes = plt.subplots(
                1,
                len(self.anchors),
                figsize=(3.4 * len(self.anchors), 3),
                sharey=True,
                squeeze=False,
            )[1][0]
        axes = np.asarray(axes).ravel()
        k = np.arange(self.counts.shape[1])
        for ax, name, row in zip(axes, self.anchors, self.counts, strict=True):
            ax.bar(k, row, color="#1f5fa8", width=0.85)
            ax.set_title(f"anchor {name}", fontsize=9)
            ax.set_xlabel("models beating the anchor")
        axes[0].set_ylabel("prompts")
        return axes


def win_histogram(
    table: VerdictTable, anchors: Sequence[str], *, judge: str | None = None
) -> WinHistogram:
    """Per prompt, the number of targets with v_{i,j}^A > 0 (Section 4.2, Figure 2)."""
    table = table.one_judge(judge)
    idx = anchor_index(table, anchors)
    against = np.moveaxis(table.tensor()[:, :, idx], 2, 0)  # (A, N, M)
    wins = (np.nan_to_num(against, nan=0.0) > 0).sum(axis=2)
    n_t = int(np.isfinite(against).any(axis=1).sum(axis=1).max())
    counts = np.stack([np.bincount(w, minlength=n_t + 1) for w in wins])
    return WinHistogram(anchors=tuple(table.models[k] for k in idx), counts=counts, n_targets=n_t)


@dataclass(frozen=True, repr=False)
class TauInformativeness(ResultDisplay):
    """τ against informativeness across anchors (Section 4.3, Figure 3).

    Attributes
    ----------
    anchors, informativeness, tau
        Per anchor.
    slope, intercept, r2, p_value
        Least-squares line τ = intercept + slope·I, its R² and p-value
        (:func:`scipy.stats.linregress`).
    reference
        The ranking τ compares with: ``"quadratic"`` (π_quad, the paper's Figure 3) or
        ``"human"``.
    r2_lo, r2_hi, level
        Percentile interval of R² over bootstrap resamples of the prompts (NaN when
        none were drawn), and its level.
    """

    anchors: tuple[str, ...]
    informativeness: np.ndarray
    tau: np.ndarray
    slope: float
    intercept: float
    r2: float
    p_value: float
    reference: str = "quadratic"
    r2_lo: float = float("nan")
    r2_hi: float = float("nan")
    level: float = 0.95

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"anchor": self.anchors, "informativeness": self.informativeness, "tau": self.tau}
        )

    def _headline(self) -> str:
        interval = (
            f" [{self.r2_lo:.3f}, {self.r2_hi:.3f}]"
            if np.isfinite(self.r2_lo) and np.isfinite(self.r2_hi)
            else ""
        )
        return (
            f"{len(self.anchors)} anchors; τ with the {self.reference} ranking = "
            f"{self.intercept:.3f} + {self.slope:.3f}·I, R² = {self.r2:.3f}{interval} "
            f"(p = {self.p_value:.2g})"
        )

    def plot(self, ax: Axes | None = None, *, labels: bool = True) -> Axes:
        """Figure 3: τ against I(p, A) with the least-squares line."""
        ax = panel_axes(ax, (6, 4.2))
        ax.scatter(self.informativeness, self.tau, color="#1f5fa8", s=22, zorder=3)
        xs = np.linspace(np.nanmin(self.informativeness), np.nanmax(self.informativeness), 50)
        ax.plot(xs, self.intercept + self.slope * xs, color="#c2185b", label=f"R² = {self.r2:.3f}")
        if labels:
            for x, t, a in zip(self.informativeness, self.tau, self.anchors, strict=True):
                ax.annotate(a, (x, t), fontsize=7, xytext=(2, 2), textcoords="offset points")
        ax.set_xlabel("anchor informativeness I(p, A)")
        ax.set_ylabel("Kendall τ with " + ("π_quad" if self.reference == "quadratic" else "humans"))
        ax.legend(frameon=False)
        ax.grid(alpha=0.3)
        return ax


def regress_tau(
    anchors: Sequence[str],
    informativeness: np.ndarray,
    tau: np.ndarray,
    *,
    reference: str = "quadratic",
    r2_replicates: np.ndarray | None = None,
    level: float = 0.95,
) -> TauInformativeness:
    """The least-squares line of τ on I(p, A) across anchors and its R² (Figure 3).

    Anchors where either number is NaN are left out. ``r2_replicates`` (R² on
    bootstrap resamples of the prompts) give the percentile interval of R².
    """
    x, y = np.asarray(informativeness, float), np.asarray(tau, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        raise ValueError(
            f"τ and I(p, A) are both known for {int(ok.sum())} anchor(s); a line needs three"
        )
    fit = linregress(x[ok], y[ok])
    lo = hi = float("nan")
    reps = np.asarray(r2_replicates if r2_replicates is not None else [], float)
    if np.isfinite(reps).any():
        q = (1.0 - level) / 2.0
        lo, hi = (float(v) for v in np.nanquantile(reps, [q, 1.0 - q]))
    return TauInformativeness(
        anchors=tuple(a for a, keep in zip(anchors, ok, strict=True) if keep),
        informativeness=x[ok],
        tau=y[ok],
        slope=float(fit.slope),
        intercept=float(fit.intercept),
        r2=float(fit.rvalue**2),
        p_value=float(fit.pvalue),
        reference=reference,
        r2_lo=lo,
        r2_hi=hi,
        level=level,
    )


def tau_vs_informativeness(
    rankings: AnchorRankings, info: AnchorInformativeness, *, method: str = "win_rate"
) -> TauInformativeness:
    """R² of τ (with π_quad) on I(p, A) across anchors (Section 4.3, Figure 3)."""
    tau = rankings.tau_quadratic if method == "win_rate" else rankings.tau_quadratic_bt
    common = [a for a in rankings.anchors if a in info.anchors]
    x = np.array([info[a] for a in common])
    y = np.array([tau[rankings.anchors.index(a)] for a in common])
    return regress_tau(common, x, y)
