"""Which matchups to judge (Ramaswamy, Demeure & Rrapaj, *Model Consistency as a Cheap yet
Predictive Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510, Section 3.3).

:func:`matchup_variance`: per matchup, the spread over judges of the matchup's
Bernoulli variance against the contestants' Elo gap (Figure 2).
:func:`convergence_curve`: the correlation of Consistency with judge Elo as
matchups are added, largest Elo gap first or in random orders (Figure 3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from judgebayes._stats import linregress_line, pearson_r
from judgebayes.consistency.counts import MatchupCounts, elo_vector
from judgebayes.consistency.score import JudgeConsistency, consistency_from_counts
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["ConvergenceCurve", "MatchupVariance", "convergence_curve", "matchup_variance"]


@dataclass(frozen=True, repr=False)
class MatchupVariance(ResultDisplay):
    """Per matchup: spread of the judges' variances vs the Elo gap (Section 3.3, Figure 2).

    Attributes
    ----------
    pairs
        (model i, model j) of each matchup.
    elo_diff
        |Elo_i − Elo_j| (contestants' Arena Elo).
    variance_across_judges
        Population variance (ddof 0, as the authors) over judges of each judge's
        p_ij(1 − p_ij) on this matchup.
    mean_variance
        Mean over judges of p_ij(1 − p_ij).
    n_judges
        Judges with contests on the matchup.
    pearson
        Correlation of ``elo_diff`` with ``variance_across_judges``.
    """

    pairs: tuple[tuple[str, str], ...]
    elo_diff: np.ndarray
    variance_across_judges: np.ndarray
    mean_variance: np.ndarray
    n_judges: np.ndarray
    pearson: float

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(
            {
                "model_i": [p[0] for p in self.pairs],
                "model_j": [p[1] for p in self.pairs],
                "elo_diff": self.elo_diff,
                "variance_across_judges": self.variance_across_judges,
                "mean_variance": self.mean_variance,
                "n_judges": self.n_judges.astype(int),
            }
        )
        return frame.sort_values("elo_diff", ascending=False, kind="stable", ignore_index=True)

    def plot(self, ax: Axes | None = None) -> Axes:
        """Figure 2: variance of matchup variances against the matchup's Elo gap."""
        ax = panel_axes(ax, (6, 4.5))
        ax.scatter(self.elo_diff, self.variance_across_judges, s=14, color="#1f5fa8")
        a, b = linregress_line(self.elo_diff, self.variance_across_judges)
        xs = np.linspace(0, self.elo_diff.max(), 50)
        ax.plot(xs, a + b * xs, color="#c2185b", label=f"Pearson r = {self.pearson:.2f}")
        ax.set_xlabel("|Elo difference| of the matchup")
        ax.set_ylabel("variance across judges of p(1−p)")
        ax.grid(alpha=0.3)
        ax.legend(frameon=False)
        return ax

    def _headline(self) -> str:
        widest = int(np.argmax(self.elo_diff))
        i, j = self.pairs[widest]
        return (
            f"{len(self.pairs)} matchups, {int(self.n_judges.max())} judges; Pearson r "
            f"(|Elo difference|, variance across judges) = {self.pearson:.3f}; largest "
            f"gap {i} vs {j} ({self.elo_diff[widest]:.0f} Elo)"
        )

    def __str__(self) -> str:
        return (
            f"Variance across judges of the matchup variance vs |Elo difference| "
            f"({len(self.pairs)} matchups): Pearson r = {self.pearson:.3f}\n"
            + self.to_frame().head(10).to_string(index=False, float_format="{:.4f}".format)
        )


def matchup_variance(
    data: JudgeConsistency | MatchupCounts, contestant_elo: Mapping[str, float] | pd.Series
) -> MatchupVariance:
    """Variance over judges of each matchup's variance vs its Elo gap (Section 3.3).

    Parameters
    ----------
    data
        Consistency scores or the counts behind them.
    contestant_elo
        Arena Elo of the judged (contestant) models.

    Returns
    -------
    MatchupVariance
    """
    counts = data.counts if isinstance(data, JudgeConsistency) else data
    n, w = counts.pair_totals()
    p = np.divide(w, n, out=np.full_like(n, np.nan), where=n > 0)
    v = p * (1 - p)
    n_j = (n > 0).sum(axis=0)
    if np.any(n_j == 0):
        raise DataError("a matchup has no contests from any judge")
    var_across = np.nanvar(v, axis=0)
    diff = counts.pair_elo_diff(contestant_elo)
    r = pearson_r(diff, var_across) if len(diff) > 2 else math.nan
    return MatchupVariance(
        pairs=tuple(counts.pair_names()),
        elo_diff=diff,
        variance_across_judges=var_across,
        mean_variance=np.nanmean(v, axis=0),
        n_judges=n_j,
        pearson=r,
    )


@dataclass(frozen=True, repr=False)
class ConvergenceCurve(ResultDisplay):
    """Correlation of Consistency with judge Elo as matchups are added (Figure 3).

    Attributes
    ----------
    n_matchups
        1..K, the number of matchups used.
    r_sorted
        Pearson r when matchups are added largest Elo difference first.
    r_random
        Pearson r along each random order, shape ``(n_orders, K)``.
    sorted_units
        The matchups in the sorted order ((first, second) names for ordered
        matchups, (i, j) for pairs).
    unit
        ``"ordered"`` (the paper: 140 ordered matchups; both orders of a pair,
        once selected, are pooled) or ``"pair"`` (70 unordered pairs).
    seed
        Seed of the random orders.
    """

    n_matchups: np.ndarray
    r_sorted: np.ndarray
    r_random: np.ndarray
    sorted_units: tuple[tuple[str, str], ...]
    unit: Literal["ordered", "pair"]
    seed: int

    @property
    def r_random_mean(self) -> np.ndarray:
        """Mean r over random orders (the paper's blue line, 25 orders)."""
        with np.errstate(invalid="ignore"):
            return np.nanmean(self.r_random, axis=0)

    def r_random_quantiles(self, q: tuple[float, float] = (0.1, 0.9)) -> np.ndarray:
        """Quantiles of r over random orders, shape ``(2, K)``."""
        return np.nanquantile(self.r_random, q, axis=0)

    def to_frame(self) -> pd.DataFrame:
        lo, hi = self.r_random_quantiles()
        return pd.DataFrame(
            {
                "n_matchups": self.n_matchups,
                "r_sorted": self.r_sorted,
                "r_random_mean": self.r_random_mean,
                "r_random_q10": lo,
                "r_random_q90": hi,
            }
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Figure 3: the convergence curves."""
        ax = panel_axes(ax, (7, 4.5))
        lo, hi = self.r_random_quantiles()
        ax.fill_between(
            self.n_matchups, lo, hi, color="#1f5fa8", alpha=0.2, lw=0, label="random orders, 10–90%"
        )
        ax.plot(
            self.n_matchups,
            self.r_random_mean,
            color="#1f5fa8",
            label=f"random orders, mean of {self.r_random.shape[0]}",
        )
        ax.plot(
            self.n_matchups, self.r_sorted, color="#c2185b", label="largest Elo difference first"
        )
        ax.set_xlabel(f"number of {'ordered ' if self.unit == 'ordered' else ''}matchups")
        ax.set_ylabel("Pearson r (Consistency, judge Elo)")
        ax.set_ylim(-1, 1)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", frameon=False)
        return ax

    def _headline(self) -> str:
        n = len(self.n_matchups)
        k = min(10, n)
        unit = "ordered matchups" if self.unit == "ordered" else "matchups (pairs)"
        return (
            f"{n} {unit}, {self.r_random.shape[0]} random orders (seed {self.seed}); "
            f"Pearson r with the {k} largest-gap matchups {self.r_sorted[k - 1]:.3f} "
            f"(random orders {self.r_random_mean[k - 1]:.3f}), with all "
            f"{self.r_sorted[-1]:.3f}"
        )

    def __str__(self) -> str:
        picks = [k for k in (1, 2, 5, 10, 20, 30, 50, 70, 100, 140) if k <= len(self.n_matchups)]
        frame = self.to_frame().set_index("n_matchups").loc[picks]
        return (
            f"Convergence of Pearson r as {self.unit} matchups are added "
            f"({self.r_random.shape[0]} random orders, seed {self.seed}):\n"
            + frame.to_string(float_format="{:.3f}".format)
        )


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of x (…, J) with y (J,); NaN for constant or missing rows."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean()
    den = np.sqrt((xc**2).sum(axis=-1) * (yc**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=-1) / den
    return np.where(den > 1e-15, r, np.nan)


def convergence_curve(
    data: JudgeConsistency | MatchupCounts,
    judge_elo: Mapping[str, float] | pd.Series,
    contestant_elo: Mapping[str, float] | pd.Series,
    *,
    unit: Literal["ordered", "pair"] = "ordered",
    n_orders: int = 25,
    seed: int = 0,
) -> ConvergenceCurve:
    """Pearson r of Consistency with judge Elo as matchups are added (Section 3.3).

    After k matchups, each judge's Consistency (Eq. 2) is computed on those
    matchups only; r is its correlation with the judges' Elo. Orders: largest
    contestant Elo difference first (ties kept in data order), and ``n_orders``
    uniformly random orders.

    Parameters
    ----------
    data
        Consistency scores or their counts.
    judge_elo, contestant_elo
        Arena Elo of the judges and of the judged models.
    unit
        ``"ordered"`` (the paper's 140 matchups: one presentation order of a
        pair; a pair's selected orders are pooled) or ``"pair"``.
    n_orders
        Random orders (the paper: 25).
    seed
        Seed of the random orders.

    Returns
    -------
    ConvergenceCurve
    """
    counts = data.counts if isinstance(data, JudgeConsistency) else data
    elo_j = elo_vector(judge_elo, counts.judges, "judge")
    if unit == "ordered":
        n_u = counts.n
        i_first = counts.first == counts.pair_i[counts.pair]
        w_u = np.where(i_first, counts.first_score, n_u - counts.first_score)
        unit_pair = counts.pair
        diff = counts.unit_elo_diff(contestant_elo)
        names = counts.unit_names()
    elif unit == "pair":
        n_u, w_u = counts.pair_totals()
        unit_pair = np.arange(counts.n_pairs)
        diff = counts.pair_elo_diff(contestant_elo)
        names = counts.pair_names()
    else:
        raise DataError(f"unit must be 'ordered' or 'pair', got {unit!r}", column="unit")
    if n_orders < 1:
        raise DataError("n_orders must be >= 1", column="n_orders", got=n_orders)
    n_units = n_u.shape[1]
    steps = np.arange(n_units)
    judges_ix = np.arange(counts.n_judges)

    def curve(order: np.ndarray) -> np.ndarray:
        n_add = np.zeros((n_units, counts.n_judges, counts.n_pairs))
        w_add = np.zeros_like(n_add)
        cols = unit_pair[order][:, None]
        n_add[steps[:, None], judges_ix[None, :], cols] = n_u[:, order].T
        w_add[steps[:, None], judges_ix[None, :], cols] = w_u[:, order].T
        cons = consistency_from_counts(np.cumsum(n_add, axis=0), np.cumsum(w_add, axis=0))
        return _pearson_rows(cons, elo_j)

    sorted_order = np.argsort(-diff, kind="stable")
    rng = np.random.default_rng(seed)
    r_random = np.stack([curve(rng.permutation(n_units)) for _ in range(n_orders)])
    return ConvergenceCurve(
        n_matchups=steps + 1,
        r_sorted=curve(sorted_order),
        r_random=r_random,
        sorted_units=tuple(names[k] for k in sorted_order),
        unit=unit,
        seed=seed,
    )
