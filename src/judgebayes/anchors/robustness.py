"""Robustness of anchor-based rankings (Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is the key
for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848, Sections 5.1, 5.3 and Appendix E).

* :func:`tau_vs_size` — Figure 4: τ of the quadratic ranking and of every anchor's
  ranking with a reference ranking as the benchmark shrinks (random prompt subsets
  of each size, repeated);
* :func:`anchor_count_curve` — Appendix E, Figure 7: τ with π_quad as anchors are
  added one at a time in random order (Bradley–Terry on every pair that involves an
  anchor of the set; all M anchors give π_quad itself, τ = 1);
* :func:`pilot_informativeness` — Section 5.3, Table 10: informativeness estimated
  from a few prompts and a random subset of target models, and its Pearson
  correlation with the full-data value across anchors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.stats import pearsonr
from tqdm.auto import tqdm

from judgebayes.anchors.informativeness import discordance
from judgebayes.anchors.rankings import (
    anchor_index,
    bt_scores,
    human_vector,
    kendall,
    pair_counts,
    quadratic_scores,
    win_rate_scores,
)
from judgebayes.anchors.verdicts import VerdictTable
from judgebayes.core.results import ResultDisplay
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "AnchorCountCurve",
    "PilotAccuracy",
    "SizeCurve",
    "anchor_count_curve",
    "pilot_informativeness",
    "tau_vs_size",
]


def _band(
    ax: Axes, x: np.ndarray, mean: np.ndarray, sd: np.ndarray, label: str, color: str
) -> None:
    ax.plot(x, mean, "o-", ms=3, color=color, label=label)
    ax.fill_between(x, mean - sd, mean + sd, color=color, alpha=0.18, lw=0)


@dataclass(frozen=True, repr=False)
class SizeCurve(ResultDisplay):
    """τ against benchmark size (Don-Yehiya et al., 2026, Section 5.1, Figure 4).

    Attributes
    ----------
    sizes
        Prompts per subset.
    anchors
        Anchors (column order of ``tau_anchor``).
    tau_quadratic
        ``(n_sizes, repeats)``: τ of π_quad on the subset with the reference.
    tau_anchor
        ``(n_sizes, repeats, n_anchors)``: τ of each anchor's win-rate ranking.
    reference
        ``"human"`` or ``"quadratic (all prompts)"``.
    seed
        Random seed.
    """

    sizes: np.ndarray
    anchors: tuple[str, ...]
    tau_quadratic: np.ndarray
    tau_anchor: np.ndarray
    reference: str
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """``size, quadratic_mean, quadratic_sd, anchor_mean, anchor_sd`` (sd over repeats)."""
        mean_anchor = np.nanmean(self.tau_anchor, axis=2)  # mean over anchors, per repeat
        return pd.DataFrame(
            {
                "size": self.sizes,
                "quadratic_mean": np.nanmean(self.tau_quadratic, axis=1),
                "quadratic_sd": np.nanstd(self.tau_quadratic, axis=1),
                "anchor_mean": np.nanmean(mean_anchor, axis=1),
                "anchor_sd": np.nanstd(mean_anchor, axis=1),
            }
        )

    def per_anchor(self) -> pd.DataFrame:
        """Mean τ of each anchor at each size (rows: sizes, columns: anchors)."""
        return pd.DataFrame(
            np.nanmean(self.tau_anchor, axis=1), index=self.sizes, columns=list(self.anchors)
        )

    def _headline(self) -> str:
        f = self.to_frame()
        return (
            f"{len(self.sizes)} sizes ({self.sizes[0]}–{self.sizes[-1]} prompts) × "
            f"{self.tau_quadratic.shape[1]} repeats, {len(self.anchors)} anchors, τ with "
            f"{self.reference}: quadratic {f['quadratic_mean'].iloc[0]:.3f} → "
            f"{f['quadratic_mean'].iloc[-1]:.3f}, mean anchor "
            f"{f['anchor_mean'].iloc[0]:.3f} → {f['anchor_mean'].iloc[-1]:.3f}"
        )

    def plot(self, ax: Axes | None = None, *, highlight: Sequence[str] = ()) -> Axes:
        """Figure 4: mean τ (± sd over repeats) of quadratic and mean-anchor rankings."""
        f = self.to_frame()
        ax = panel_axes(ax, (6.5, 4.2))
        _band(ax, self.sizes, f["quadratic_mean"], f["quadratic_sd"], "quadratic", "#c2185b")
        _band(ax, self.sizes, f["anchor_mean"], f["anchor_sd"], "mean over anchors", "#1f5fa8")
        per = self.per_anchor()
        for name in highlight:
            ax.plot(self.sizes, per[name], "--", lw=1, label=f"anchor {name}")
        ax.set_xlabel("prompts")
        ax.set_ylabel(f"Kendall τ with {self.reference}")
        ax.legend(frameon=False, fontsize=8)
        ax.grid(alpha=0.3)
        return ax


def _reference(
    table: VerdictTable, v3: np.ndarray, human: Mapping[str, float] | None, lam: float
) -> tuple[np.ndarray, str]:
    hum = human_vector(table.models, human)
    if hum is not None:
        return hum, "human"
    return quadratic_scores(v3, lam=lam), "quadratic (all prompts)"


def tau_vs_size(
    table: VerdictTable,
    *,
    sizes: Sequence[int] | None = None,
    repeats: int = 30,
    human: Mapping[str, float] | None = None,
    anchors: Sequence[str] | None = None,
    judge: str | None = None,
    lam: float = 0.01,
    seed: int = 0,
    progress: bool = True,
) -> SizeCurve:
    """τ of quadratic and anchor-based rankings on random prompt subsets (Figure 4).

    Parameters
    ----------
    table
        A quadratic verdict table of one judge.
    sizes
        Subset sizes (default: 8 sizes from 50 to all prompts, as Section 5.1's 50–750).
    repeats
        Random subsets per size (the paper: 30).
    human
        Reference scores (the paper's π_human); default π_quad on all prompts.
    anchors
        Anchors to track (default every usable one).
    seed
        Random seed.
    """
    table = table.one_judge(judge)
    idx = anchor_index(table, anchors)
    v3 = table.tensor(scale="three")
    ref, ref_name = _reference(table, v3, human, lam)
    n = v3.shape[0]
    sizes_arr = (
        np.unique(np.linspace(min(50, n), n, 8).astype(int))
        if sizes is None
        else np.asarray(sorted(sizes), dtype=int)
    )
    if sizes_arr.max() > n or sizes_arr.min() < 1:
        raise ValueError(f"sizes must lie in [1, {n}] (the table has {n} prompts)")
    rng = np.random.default_rng(seed)
    tq = np.empty((sizes_arr.size, repeats))
    ta = np.empty((sizes_arr.size, repeats, idx.size))
    with tqdm(total=sizes_arr.size * repeats, desc="τ vs size", disable=not progress) as bar:
        for s, size in enumerate(sizes_arr):
            for r in range(repeats):
                sub = v3[rng.choice(n, size, replace=False)]
                tq[s, r] = kendall(quadratic_scores(sub, lam=lam), ref)
                ta[s, r] = [kendall(win_rate_scores(sub, int(a)), ref) for a in idx]
                bar.update()
    return SizeCurve(
        sizes=sizes_arr,
        anchors=tuple(table.models[k] for k in idx),
        tau_quadratic=tq,
        tau_anchor=ta,
        reference=ref_name,
        seed=seed,
    )


@dataclass(frozen=True, repr=False)
class AnchorCountCurve(ResultDisplay):
    """τ with π_quad against the number of anchors (Don-Yehiya et al., 2026, Appendix E, Figure 7).

    Attributes
    ----------
    tau
        ``(permutations, n_models)``: τ after adding the k-th random anchor.
    strongest_anchor, tau_strongest
        The top model of π_quad and the τ of its single-anchor ranking (the usual
        practice the paper contrasts with the random-anchor mean).
    seed
        Random seed.
    """

    tau: np.ndarray
    strongest_anchor: str
    tau_strongest: float
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """``n_anchors, mean_tau, sd_tau``."""
        return pd.DataFrame(
            {
                "n_anchors": np.arange(1, self.tau.shape[1] + 1),
                "mean_tau": self.tau.mean(axis=0),
                "sd_tau": self.tau.std(axis=0),
            }
        )

    def _headline(self) -> str:
        m = self.tau.mean(axis=0)
        return (
            f"{self.tau.shape[0]} permutations of {self.tau.shape[1]} anchors: mean τ "
            f"{m[0]:.3f} with one random anchor, {m[1]:.3f} with two; strongest model "
            f"{self.strongest_anchor} alone {self.tau_strongest:.3f}"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Figure 7: mean τ ± sd against the number of anchors."""
        f = self.to_frame()
        ax = panel_axes(ax, (6, 4))
        _band(
            ax,
            f["n_anchors"].to_numpy(),
            f["mean_tau"],
            f["sd_tau"],
            "random anchor sets",
            "#1f5fa8",
        )
        ax.axhline(
            self.tau_strongest,
            color="#c2185b",
            ls="--",
            lw=1,
            label=f"strongest model alone ({self.strongest_anchor})",
        )
        ax.set_xlabel("number of anchors")
        ax.set_ylabel("Kendall τ with π_quad")
        ax.legend(frameon=False, fontsize=8)
        ax.grid(alpha=0.3)
        return ax


def anchor_count_curve(
    table: VerdictTable,
    *,
    permutations: int = 40,
    judge: str | None = None,
    lam: float = 0.01,
    seed: int = 0,
    progress: bool = True,
) -> AnchorCountCurve:
    """τ with π_quad as random anchors are added (Don-Yehiya et al., 2026, Appendix E).

    With anchor set S, Bradley–Terry is fitted on the {−1, 0, 1} verdicts of every pair
    with at least one model in S (the paper's "recompute the ranking").
    """
    table = table.one_judge(judge)
    if not table.is_quadratic():
        raise ValueError("the anchor-count curve needs a quadratic table (every pair judged)")
    n, y = pair_counts(table.tensor(scale="three"))
    m = n.shape[0]
    quad = bt_scores(n, y, lam=lam)
    rng = np.random.default_rng(seed)
    tau = np.empty((permutations, m))
    for p in tqdm(range(permutations), desc="anchor sets", disable=not progress):
        chosen = np.zeros(m, dtype=bool)
        for k, a in enumerate(rng.permutation(m)):
            chosen[a] = True
            involved = chosen[:, None] | chosen[None, :]
            tau[p, k] = kendall(
                bt_scores(np.where(involved, n, 0.0), np.where(involved, y, 0.0), lam=lam), quad
            )
    top = int(np.argmax(quad))
    star = np.zeros((m, m), dtype=bool)
    star[top, :] = star[:, top] = True
    strongest = kendall(bt_scores(np.where(star, n, 0.0), np.where(star, y, 0.0), lam=lam), quad)
    return AnchorCountCurve(
        tau=tau, strongest_anchor=table.models[top], tau_strongest=strongest, seed=seed
    )


@dataclass(frozen=True, repr=False)
class PilotAccuracy(ResultDisplay):
    """Informativeness from a pilot vs the full data (Don-Yehiya et al., 2026, Section 5.3, Table
    10).

    Attributes
    ----------
    model_counts
        Target-pool sizes M tried.
    pearson
        ``(n_counts, repeats)``: Pearson r across anchors of pilot and full-data I.
    bottom3
        ``(n_counts, repeats)``: whether the least informative anchor of the full data is
        among the pilot's three least informative.
    n_prompts
        Prompts in each pilot.
    seed
        Random seed.
    """

    model_counts: np.ndarray
    pearson: np.ndarray
    bottom3: np.ndarray
    n_prompts: int
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """``n_models, pearson, pearson_sd, bottom3_rate`` (Table 10 + the bottom-three check)."""
        return pd.DataFrame(
            {
                "n_models": self.model_counts,
                "pearson": np.nanmean(self.pearson, axis=1),
                "pearson_sd": np.nanstd(self.pearson, axis=1),
                "bottom3_rate": self.bottom3.mean(axis=1),
            }
        )

    def _headline(self) -> str:
        r = np.nanmean(self.pearson, axis=1)
        return (
            f"pilots of {self.n_prompts} prompts, {self.model_counts[0]}–"
            f"{self.model_counts[-1]} target models: mean Pearson r {np.nanmin(r):.3f} to "
            f"{np.nanmax(r):.3f}; least informative anchor in the pilot's bottom three "
            f"{self.bottom3.mean():.0%} of the time"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Mean Pearson r (± sd) against the number of target models."""
        f = self.to_frame()
        ax = panel_axes(ax, (6, 4))
        _band(
            ax,
            f["n_models"].to_numpy(),
            f["pearson"],
            f["pearson_sd"],
            f"{self.n_prompts}-prompt pilot",
            "#1f5fa8",
        )
        ax.set_xlabel("target models in the pilot")
        ax.set_ylabel("Pearson r with full-data I(p, A)")
        ax.legend(frameon=False)
        ax.grid(alpha=0.3)
        return ax


def pilot_informativeness(
    table: VerdictTable,
    *,
    n_prompts: int = 10,
    model_counts: Sequence[int] | None = None,
    repeats: int = 30,
    scale: str = "five",
    judge: str | None = None,
    seed: int = 0,
    progress: bool = True,
) -> PilotAccuracy:
    """How well a small pilot ranks anchors by informativeness (Don-Yehiya et al., 2026, Section
    5.3).

    For each target-pool size M: draw M models and ``n_prompts`` prompts, compute every
    anchor's I(p, A) against the drawn targets (the anchor itself left out), and
    correlate with the full-data values; repeated ``repeats`` times.
    """
    table = table.one_judge(judge)
    if not table.is_quadratic():
        raise ValueError("a pilot study needs a quadratic table (every model as anchor)")
    v = table.tensor()
    n, m = v.shape[0], v.shape[1]
    if not 1 <= n_prompts <= n:
        raise ValueError(f"n_prompts must lie in [1, {n}]")
    anchors = np.arange(m)
    d, c = discordance(v, anchors, scale=scale)
    full = d.sum(axis=1) / c.sum(axis=1)
    least = int(np.argmin(full))
    counts = np.arange(3, m + 1) if model_counts is None else np.asarray(model_counts, dtype=int)
    rng = np.random.default_rng(seed)
    r = np.full((counts.size, repeats), np.nan)
    bottom = np.zeros((counts.size, repeats), dtype=bool)
    with tqdm(total=counts.size * repeats, desc="pilots", disable=not progress) as bar:
        for k, size in enumerate(counts):
            for rep in range(repeats):
                targets = rng.choice(m, int(size), replace=False)
                prompts = rng.choice(n, n_prompts, replace=False)
                dp, cp = discordance(v[prompts], anchors, targets=targets, scale=scale)
                with np.errstate(invalid="ignore", divide="ignore"):
                    est = dp.sum(axis=1) / cp.sum(axis=1)
                ok = np.isfinite(est)
                if ok.sum() >= 3 and np.ptp(est[ok]) > 0:
                    r[k, rep] = pearsonr(est[ok], full[ok]).statistic
                ranked = np.argsort(np.where(ok, est, np.inf), kind="stable")
                bottom[k, rep] = least in ranked[:3]
                bar.update()
    return PilotAccuracy(
        model_counts=counts, pearson=r, bottom3=bottom, n_prompts=n_prompts, seed=seed
    )
