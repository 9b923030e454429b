"""Rank-sets: simultaneous intervals of ranks from draws of the scores, and tiers.

A leaderboard's question is often not "what is model i's Elo?" but "which rank can model i
have?". A rank-set is an interval [rank_lo, rank_hi] for every model, valid for all models
at once at level 1 − α: the true ranking lies in the product of the intervals with
probability ≥ 1 − α. Every estimator that yields draws of the scores (bootstrap replicates,
posterior draws, parametric draws around a sandwich covariance) gets its rank-sets from
:func:`rank_sets`, one function over draws.

Two constructions:

``method="differences"`` (frequentist, for bootstrap or parametric draws)
    Simultaneous intervals on all pairwise differences by the max-|t| statistic: with
    d̂_ij = θ̂_i − θ̂_j, se_ij the standard deviation of θ*_i − θ*_j over the draws, and
    c the 1 − α quantile over the draws of T* = max_{i<j} |(θ*_i − θ*_j) − d̂_ij| / se_ij,
    model j is surely above model i when d̂_ji − c·se_ij > 0. Then
    rank_lo_i = 1 + #{j surely above i} and rank_hi_i = m − #{j surely below i}. The true
    ranking is covered whenever every difference lies in its interval, so the coverage is
    at least that of the simultaneous intervals, 1 − α asymptotically (Mogstad, Romano,
    Shaikh & Wilhelm, *Inference for Ranks with Applications to Mobility across
    Neighborhoods and Academic Achievement across Countries*, Review of Economic Studies,
    2024, arXiv:2010.07525). Prediction-Powered Ranking (Chatzi, Straitouri, Thejaswi &
    Gomez-Rodriguez, *Prediction-Powered Ranking of Large Language Models*, NeurIPS 2024,
    arXiv:2402.17826) builds the same rank-sets from the same pairwise comparisons with
    the χ²(k) quantile of its covariance ellipsoid in place of c, which is wider.

``method="joint"`` (Bayesian, for posterior draws)
    The ranks of every draw; for a tail level γ each model's interval runs from the γ/2 to
    the 1 − γ/2 quantile of its ranks, and γ is the largest level (found by bisection)
    at which at least 1 − α of the draws have every model's rank inside its interval: a
    simultaneous credible set of the joint posterior of the ranks.

Tiers: models whose rank-sets overlap, directly or through a chain of overlapping
rank-sets, form one tier (the connected components of the overlap of the intervals);
tier 1 holds the best models. Two models of different tiers are told apart at level α.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from judgebayes.core.results import ResultDisplay

__all__ = ["RankSets", "normal_draws", "rank_sets", "tiers"]

RankMethod = Literal["differences", "joint"]
_CHUNK = 64  # draws per block of the max-|t| statistic (m² floats each)


@dataclass(frozen=True, repr=False)
class RankSets(ResultDisplay):
    """Simultaneous rank intervals of every model (rank 1 = best).

    Attributes
    ----------
    models
        Model names.
    estimate
        The scores the point ranks come from (higher is better).
    rank
        Point rank of each model by ``estimate`` (1 = best; ties share the lower rank).
    rank_lo, rank_hi
        The rank-set of each model: it holds every rank from ``rank_lo`` to ``rank_hi``.
    tier
        Tier of each model (1 = best; module docstring).
    alpha
        The rank-sets hold simultaneously at level ``1 - alpha``.
    method
        ``"differences"`` or ``"joint"``.
    critical_value
        c of the max-|t| construction (``"differences"``), or the tail level γ found
        for ``"joint"``.
    """

    models: tuple[str, ...]
    estimate: np.ndarray
    rank: np.ndarray
    rank_lo: np.ndarray
    rank_hi: np.ndarray
    tier: np.ndarray
    alpha: float
    method: str
    critical_value: float

    @property
    def size(self) -> np.ndarray:
        """Number of ranks in each rank-set."""
        return self.rank_hi - self.rank_lo + 1

    @property
    def n_tiers(self) -> int:
        return int(self.tier.max())

    def contains(self, ranks: np.ndarray | pd.Series) -> np.ndarray:
        """Whether each model's rank-set holds its rank in ``ranks`` (a Series by model, or
        an array in the order of :attr:`models`)."""
        if isinstance(ranks, pd.Series):
            ranks = ranks.reindex(list(self.models)).to_numpy()
        ranks = np.asarray(ranks)
        return (self.rank_lo <= ranks) & (ranks <= self.rank_hi)

    def covers(self, truth: np.ndarray | pd.Series) -> bool:
        """Whether every rank-set holds the rank of the true scores ``truth`` (the event
        whose probability is ≥ 1 − α)."""
        if isinstance(truth, pd.Series):
            truth = truth.reindex(list(self.models)).to_numpy()
        return bool(np.all(self.contains(point_ranks(np.asarray(truth, float)))))

    def _headline(self) -> str:
        return (
            f"{len(self.models)} models, {1 - self.alpha:.0%} simultaneous rank-sets "
            f"({self.method}), mean size {self.size.mean():.2f}, {self.n_tiers} tiers"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per model, best first: ``model, estimate, rank, rank_lo, rank_hi, tier``."""
        frame = pd.DataFrame(
            {
                "model": self.models,
                "estimate": self.estimate,
                "rank": self.rank,
                "rank_lo": self.rank_lo,
                "rank_hi": self.rank_hi,
                "tier": self.tier,
            }
        )
        return frame.sort_values(["rank", "model"], ignore_index=True)

    def __str__(self) -> str:
        return f"{self._headline()}\n{self.to_frame().to_string(index=False)}"


def normal_draws(
    mean: np.ndarray, cov: np.ndarray, size: int, seed: int | np.random.Generator
) -> np.ndarray:
    """``size`` draws of Normal(mean, cov) for rank-sets around a covariance estimate.

    The covariance is symmetrised and its eigenvalues clipped at 0: sandwich covariances of
    centred strengths are singular along the shift they cannot see, and their eigenvalue
    there is round-off of either sign (−10⁻⁶ Elo² is common), on which NumPy's
    ``multivariate_normal`` warns "covariance is not symmetric positive-semidefinite";
    models held at a fixed Elo (anchors) give zero rows, which eigh handles as they are.
    No draw moves along the unseen shift (beyond round-off): each keeps the estimate's sum.
    """
    values, vectors = np.linalg.eigh((cov + cov.T) / 2)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    z = np.random.default_rng(seed).standard_normal((size, len(mean)))
    return np.asarray(mean) + z @ root.T


def point_ranks(scores: np.ndarray) -> np.ndarray:
    """Ranks of ``scores`` along the last axis, 1 = highest; equal scores share the best."""
    scores = np.asarray(scores, dtype=float)
    above = (scores[..., None, :] > scores[..., :, None]).sum(axis=-1)
    return above + 1


def tiers(rank_lo: np.ndarray, rank_hi: np.ndarray) -> np.ndarray:
    """Tier of each model: connected components of overlapping rank intervals, best first.

    Intervals on a line overlap transitively only through chains, so the components are
    the runs of a sweep in order of ``rank_lo`` that starts a new tier whenever an
    interval begins after every earlier one has ended.
    """
    rank_lo, rank_hi = np.asarray(rank_lo), np.asarray(rank_hi)
    order = np.lexsort((rank_hi, rank_lo))
    tier = np.empty(len(order), dtype=np.int64)
    current, reach = 0, -np.inf
    for k in order:
        if rank_lo[k] > reach:
            current += 1
        reach = max(reach, rank_hi[k])
        tier[k] = current
    return tier


def _differences(
    draws: np.ndarray, estimate: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """rank_lo, rank_hi and c of the max-|t| construction (module docstring)."""
    m = draws.shape[1]
    centred = draws - estimate
    cov = np.cov(draws, rowvar=False).reshape(m, m)
    var = np.diag(cov)
    se = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2.0 * cov, 0.0))
    known = se <= 1e-12 * max(float(np.max(se)), 1e-300)  # e.g. two anchors held fixed
    inv_se = np.where(known, 0.0, 1.0 / np.where(known, 1.0, se))
    t_max = np.empty(len(draws))
    for start in range(0, len(draws), _CHUNK):
        block = centred[start : start + _CHUNK]
        diff = np.abs(block[:, :, None] - block[:, None, :]) * inv_se
        t_max[start : start + _CHUNK] = diff.reshape(len(block), -1).max(axis=1)
    c = float(np.quantile(t_max, 1.0 - alpha, method="higher"))
    gap = estimate[None, :] - estimate[:, None]  # gap[i, j] = θ̂_j − θ̂_i
    above = np.where(known, gap > 0, gap - c * se > 0)  # above[i, j]: j surely above i
    rank_lo = 1 + above.sum(axis=1)
    rank_hi = m - above.sum(axis=0)
    return rank_lo, rank_hi, c


def _joint(draws: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, float]:
    """rank_lo, rank_hi and γ of the joint-quantile construction (module docstring)."""
    ranks = point_ranks(draws)

    def intervals(gamma: float) -> tuple[np.ndarray, np.ndarray]:
        lo = np.quantile(ranks, gamma / 2, axis=0, method="lower")
        hi = np.quantile(ranks, 1 - gamma / 2, axis=0, method="higher")
        return lo, hi

    def inside(gamma: float) -> float:
        lo, hi = intervals(gamma)
        return float(np.mean(np.all((ranks >= lo) & (ranks <= hi), axis=1)))

    lo_g, hi_g = 0.0, alpha  # inside(0) = 1; inside(α) ≤ 1 − α unless ranks are certain
    if inside(hi_g) >= 1 - alpha:
        lo_g = hi_g
    else:
        for _ in range(40):
            mid = 0.5 * (lo_g + hi_g)
            if inside(mid) >= 1 - alpha:
                lo_g = mid
            else:
                hi_g = mid
    lo, hi = intervals(lo_g)
    return lo.astype(np.int64), hi.astype(np.int64), lo_g


def rank_sets(
    draws: np.ndarray,
    *,
    models: Sequence[str] | None = None,
    estimate: np.ndarray | None = None,
    alpha: float = 0.05,
    method: RankMethod = "differences",
) -> RankSets:
    """Simultaneous rank-sets at level 1 − α from draws of the scores (module docstring).

    Parameters
    ----------
    draws
        Draws of every model's score (higher is better: Elo, strength, win rate), shape
        ``(n_draws, n_models)``: bootstrap replicates, posterior draws, or draws from a
        normal approximation.
    models
        Model names (default ``"0"``, ``"1"``, ...).
    estimate
        Point estimates (default: the mean of the draws). ``"differences"`` centres the
        draws on it; the point ranks come from it.
    alpha
        Rank-sets hold simultaneously at level ``1 - alpha``.
    method
        ``"differences"`` (max-|t| simultaneous intervals on differences; for bootstrap
        draws) or ``"joint"`` (simultaneous quantiles of the joint posterior of ranks;
        for posterior draws).

    Returns
    -------
    RankSets
    """
    draws = np.asarray(draws, dtype=float)
    if draws.ndim != 2 or draws.shape[0] < 2 or draws.shape[1] < 1:
        raise ValueError(f"draws must have shape (n_draws >= 2, n_models), got {draws.shape}")
    if not np.all(np.isfinite(draws)):
        raise ValueError("draws must be finite")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    m = draws.shape[1]
    names = tuple(str(k) for k in range(m)) if models is None else tuple(models)
    if len(names) != m:
        raise ValueError(f"{len(names)} model names for {m} columns of draws")
    estimate = draws.mean(axis=0) if estimate is None else np.asarray(estimate, dtype=float)
    if estimate.shape != (m,):
        raise ValueError(f"estimate has shape {estimate.shape}, expected ({m},)")
    if method == "differences":
        rank_lo, rank_hi, critical = _differences(draws, estimate, alpha)
    elif method == "joint":
        rank_lo, rank_hi, critical = _joint(draws, alpha)
    else:
        raise ValueError(f"method must be 'differences' or 'joint', got {method!r}")
    rank = point_ranks(estimate)
    # a point rank outside its set (possible with "joint" on skewed posteriors) widens it
    rank_lo, rank_hi = np.minimum(rank_lo, rank), np.maximum(rank_hi, rank)
    return RankSets(
        models=names,
        estimate=estimate,
        rank=rank,
        rank_lo=rank_lo,
        rank_hi=rank_hi,
        tier=tiers(rank_lo, rank_hi),
        alpha=alpha,
        method=method,
        critical_value=critical,
    )
