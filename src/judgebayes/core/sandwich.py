"""Sandwich (robust) covariance of Bradley–Terry strengths from pair statistics.

For the penalised BT objective of Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings:
Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Eq. 1, f(θ) = −ℓ(θ) + λ‖θ‖²,
the MAP θ̂ has the asymptotic covariance H⁻¹ B H⁻¹ (Huber 1967; White 1980), with

* H = Σ_pairs n_ij p_ij (1 − p_ij) (e_i − e_j)(e_i − e_j)ᵀ + 2λI, the Hessian of f at θ̂
  (p_ij = σ(θ̂_i − θ̂_j)); with λ = 0 it is singular along 1 and its pseudo-inverse gives
  the covariance of the centred strengths;
* B, the "meat", the sum of outer products of the score contributions: battle by battle,
  B = Σ_b w_b² (y_b − p_b)² (e_i − e_j)(e_i − e_j)ᵀ (heteroscedasticity-robust, HC0; the
  form of arena-rank's ``compute_ratings_and_cis(ci_method="sandwich")``), or summed within
  each cluster first, B = Σ_c g_c g_cᵀ with g_c = Σ_{b ∈ c} w_b (y_b − p_b)(e_i − e_j)
  (cluster-robust; Liang & Zeger 1986).

Both come from the statistics: battles of one cell share (pair, target, weight), so the
battle-level meat is Σ_cells count·w²(t − p)² over the cells' pair Laplacians, and the
cluster scores are the per-(cluster, cell) counts of
:class:`~judgebayes.core.clusters.Clusters` times the cells' residuals. The cost is one
pass over the cells (and the (cell, cluster) combinations), never over battles.

:func:`sandwich_bt` turns it into a leaderboard (:class:`SandwichElo`): Elo ± z·SE, and
rank-sets from normal draws around the estimate with that covariance. With battle-level
clusters it equals arena-rank's ``BradleyTerry.compute_ratings_and_cis(ci_method=
"sandwich")`` on the same data (arena-rank adds 10⁻⁵·N to the Hessian's diagonal, which
moves its SEs by about 10⁻⁵·N / (N / m) relative; tests/test_sandwich.py runs it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import csr_matrix, hstack
from scipy.special import expit, ndtr

from judgebayes._stats import norm_ppf
from judgebayes.core.battles import Battles
from judgebayes.core.board import Differences, EloBoard
from judgebayes.core.bt import (
    ELO_SCALE,
    EloFit,
    Ties,
    anchor_theta,
    as_clustered_stats,
    bt_objective,
    fit_bt,
)
from judgebayes.core.clusters import Clusters
from judgebayes.core.davidson import davidson_cell_scores, davidson_objective, tie_counts
from judgebayes.core.pairs import PairStats
from judgebayes.core.ranksets import RankSets, normal_draws, rank_sets

__all__ = [
    "SandwichElo",
    "cell_incidence",
    "design_effect",
    "sandwich_bt",
    "sandwich_cov",
    "sandwich_meat",
]

_N_DRAWS = 4000  # normal draws around the estimate for the rank-sets


def cell_incidence(stats: PairStats) -> csr_matrix:
    """Sparse ``(n_cells, n_models)`` matrix with +1 at the pair's model i, −1 at its j."""
    n_cells = len(stats.cell_pair)
    rows = np.repeat(np.arange(n_cells), 2)
    cols = np.column_stack([stats.i[stats.cell_pair], stats.j[stats.cell_pair]]).ravel()
    vals = np.tile([1.0, -1.0], n_cells)
    return csr_matrix((vals, (rows, cols)), shape=(n_cells, stats.n_models))


def sandwich_meat(
    cell_scores: csr_matrix, counts: np.ndarray, clusters: Clusters | None
) -> np.ndarray:
    """B of the module docstring from one battle's score vector of each cell.

    ``cell_scores`` is ``(n_cells, P)``: the score of one battle of each cell; ``counts``
    the battles per cell. Battle-level (Σ_cells count·s sᵀ) when ``clusters`` is
    ``None``, else the scores are summed within clusters first (Σ_c g_c g_cᵀ).
    """
    if clusters is None:
        weighted = cell_scores.multiply(counts[:, None]).tocsr()
        return np.asarray((cell_scores.T @ weighted).toarray())
    per_cluster = clusters.cell_counts.T @ cell_scores
    return np.asarray((per_cluster.T @ per_cluster).toarray())


def _score_parts(
    stats: PairStats, theta: np.ndarray, lam: float, kappa: float | None
) -> tuple[np.ndarray, csr_matrix]:
    """Hessian of the negative log posterior and the cells' score vectors, in θ (BT) or in
    (θ, κ) (Davidson, κ last)."""
    k = cell_incidence(stats)
    if kappa is None or not np.isfinite(kappa):  # BT: ties count ½ (or there are none)
        p = expit(theta[stats.i] - theta[stats.j])
        residual = stats.cell_weight * (stats.cell_target - p[stats.cell_pair])
        return bt_objective(theta, stats, lam)[2], k.multiply(residual[:, None]).tocsr()
    r_d, r_k = davidson_cell_scores(stats, theta, kappa)
    hess = davidson_objective(theta, kappa, stats, tie_counts(stats), lam)[2]
    scores = hstack([k.multiply(r_d[:, None]), csr_matrix(r_k[:, None])]).tocsr()
    return hess, scores


def sandwich_cov(
    stats: PairStats,
    theta: np.ndarray,
    lam: float,
    *,
    clusters: Clusters | None = None,
    free: np.ndarray | None = None,
    kappa: float | None = None,
) -> np.ndarray:
    """Sandwich covariance H⁻¹ B H⁻¹ of θ̂ (module docstring), shape ``(m, m)``.

    Parameters
    ----------
    stats
        Pair statistics of the fit.
    theta
        The MAP strengths θ̂.
    lam
        L2 penalty λ of the fit.
    clusters
        Cluster membership for the cluster-robust meat; ``None``: battle-level (HC0).
    free
        Models fitted (the others, anchors, are held and get zero covariance); default all.
        With λ = 0 and every model free the strengths are centred (pseudo-inverse).
    kappa
        κ = log ν of a Davidson fit (:mod:`judgebayes.core.davidson`): the sandwich is then
        over (θ, κ), and its θ block is returned. ``None``: Bradley–Terry, ties ½.

    Returns
    -------
    numpy.ndarray
        Covariance of θ̂ on the logit scale (multiply by ELO_SCALE² for Elo²).
    """
    m = stats.n_models
    free = np.arange(m) if free is None else np.asarray(free)
    hess, scores = _score_parts(stats, theta, lam, kappa)
    index = np.r_[free, np.arange(m, hess.shape[0])]  # free strengths (and κ)
    hess = hess[np.ix_(index, index)]
    meat = sandwich_meat(scores, stats.cell_count, clusters)[np.ix_(index, index)]
    if lam == 0 and len(free) == m:
        # H is singular along u = (1, …, 1, 0)/√m; H + uuᵀ is not, and its inverse is
        # H⁺ + uuᵀ, whose uuᵀ part B annihilates (every score is a difference e_i − e_j).
        hess[:m, :m] += 1.0 / m
    factor = cho_factor(hess, check_finite=False)
    half = cho_solve(factor, meat, check_finite=False)
    full = cho_solve(factor, half.T, check_finite=False)
    block = full[: len(free), : len(free)]
    cov = np.zeros((m, m))
    cov[np.ix_(free, free)] = (block + block.T) / 2  # symmetric up to the solves' round-off
    return cov


def design_effect(
    stats: PairStats,
    theta: np.ndarray,
    lam: float,
    clusters: Clusters,
    *,
    free: np.ndarray | None = None,
    kappa: float | None = None,
) -> np.ndarray:
    """Per-model design effect: clustered over battle-level sandwich variance of θ̂_i.

    Kish's design effect (the variance inflation that clustering causes) measured on each
    model's strength; 1 when clusters are single battles, above 1 when games of a cluster
    are positively correlated. NaN for models held fixed.
    """
    clustered = sandwich_cov(stats, theta, lam, clusters=clusters, free=free, kappa=kappa)
    battle = sandwich_cov(stats, theta, lam, free=free, kappa=kappa)
    clustered, battle = np.diag(clustered), np.diag(battle)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(battle > 0, clustered / battle, np.nan)


@dataclass(frozen=True, repr=False)
class SandwichElo(EloBoard):
    """Elo ratings with sandwich (robust, optionally cluster-robust) normal intervals.

    Attributes
    ----------
    fit
        The MAP fit (its Elo is the point estimate).
    cov
        Sandwich covariance of the Elo ratings (Elo²), clustered when ``cluster`` is set.
    alpha
        Intervals are Elo ± z_{1−α/2}·SE.
    cluster, n_clusters, design_effect
        As for :class:`~judgebayes.core.bootstrap.BootstrapElo`.
    seed
        Seed of the normal draws behind the rank-sets.
    stats
        The pair statistics of the fit.
    """

    fit: EloFit
    cov: np.ndarray
    alpha: float
    cluster: str | None
    n_clusters: int | None
    design_effect: np.ndarray | None
    seed: int
    stats: PairStats

    @property
    def se(self) -> np.ndarray:
        """Sandwich standard error of each model's Elo."""
        return np.sqrt(np.maximum(np.diag(self.cov), 0.0))

    @property
    def elo_lo(self) -> np.ndarray:
        return self.elo - norm_ppf(1 - self.alpha / 2) * self.se

    @property
    def elo_hi(self) -> np.ndarray:
        return self.elo + norm_ppf(1 - self.alpha / 2) * self.se

    @cached_property
    def rank_sets(self) -> RankSets:
        """Simultaneous ``1 - alpha`` rank-sets and tiers from 4,000 draws of
        Normal(Elo, :attr:`cov`) (max-|t| on Elo differences)."""
        draws = normal_draws(self.elo, self.cov, _N_DRAWS, self.seed)
        return rank_sets(draws, models=self.models, estimate=self.elo, alpha=self.alpha)

    def _differences(self, i: np.ndarray, j: np.ndarray, rope: float) -> Differences:
        """Elo_i − Elo_j with the normal approximation of the sandwich covariance."""
        estimate = self.elo[i] - self.elo[j]
        var = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        se = np.sqrt(np.maximum(var, 0.0))
        z = norm_ppf(1 - self.alpha / 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, estimate / se, np.sign(estimate) * np.inf)
            t_rope = np.where(se > 0, (estimate - rope) / se, np.sign(estimate - rope) * np.inf)
        return Differences(
            estimate=estimate,
            se=se,
            lower=estimate - z * se,
            upper=estimate + z * se,
            p_at_most=ndtr(-t_rope),
            p_two_sided=2 * ndtr(-np.abs(t)),
            ahead=ndtr(t),
        )

    def _pair_stats(self) -> PairStats:
        return self.stats

    def _headline(self) -> str:
        top = int(np.argmax(self.elo))
        how = "battle" if self.cluster is None else f"{self.n_clusters:,} {self.cluster} clusters"
        return (
            f"{len(self.models)} models, sandwich ({how}), {1 - self.alpha:.0%} intervals; "
            f"top {self.models[top]} {self.elo[top]:.0f} [{self.elo_lo[top]:.0f}, "
            f"{self.elo_hi[top]:.0f}]; median SE {np.median(self.se):.1f} Elo; "
            f"{self.rank_sets.n_tiers} tiers"
        )

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        what = (
            "battle-level (HC0)"
            if self.cluster is None
            else f"cluster-robust ({self.n_clusters:,} {self.cluster} clusters, design "
            f"effect {self.median_design_effect:.2f})"
        )
        head = (
            f"{self.fit.model_name} Elo on {self.fit.target!r} (λ = {self.fit.lam:g}) with {level} "
            f"{what} sandwich intervals; {self.fit.report}"
        )
        notes = "".join(f"\nnote: {line}" for line in self.fit.graph.describe())
        return head + notes + "\n" + self.to_frame().to_string(index=False, float_format="%.1f")


def sandwich_bt(
    data: Battles | PairStats,
    *,
    target: str | np.ndarray | None = None,
    lam: float = 0.01,
    weights: str | np.ndarray | None = None,
    fixed: Mapping[str, float] | None = None,
    cluster: str | np.ndarray | None = "auto",
    ties: Ties = "half",
    alpha: float = 0.05,
    seed: int = 0,
) -> SandwichElo:
    """Bradley–Terry Elo with sandwich intervals, no resampling (module docstring).

    Parameters
    ----------
    data, target, lam, weights, fixed
        As for :func:`~judgebayes.core.bt.fit_bt`.
    cluster
        As for :func:`~judgebayes.core.bootstrap.bootstrap_bt`: ``"auto"`` (default)
        sums scores within ``prompt_id`` clusters when the battles have that column (the
        cluster-robust sandwich), a column or labels cluster by them, ``None`` gives the
        battle-level (HC0) sandwich.
    ties
        ``"half"`` or ``"davidson"`` (:func:`~judgebayes.core.bt.fit_bt`); with Davidson
        the sandwich is over (θ, log ν).
    alpha
        Intervals are Elo ± z_{1−α/2}·SE.
    seed
        Seed of the normal draws behind the rank-sets.

    Returns
    -------
    SandwichElo
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    stats, name, clusters = as_clustered_stats(data, target, weights, cluster)
    fit = replace(fit_bt(stats, lam=lam, fixed=fixed, ties=ties), target=name)
    fixed_theta = anchor_theta(stats, fixed)
    free = np.setdiff1d(np.arange(stats.n_models), sorted(fixed_theta))
    kappa = fit.kappa
    cov = sandwich_cov(stats, fit.theta, lam, clusters=clusters, free=free, kappa=kappa)
    cov *= ELO_SCALE**2
    return SandwichElo(
        fit=fit,
        cov=cov,
        alpha=alpha,
        cluster=None if clusters is None else clusters.column,
        n_clusters=None if clusters is None else clusters.n_clusters,
        design_effect=None
        if clusters is None
        else design_effect(stats, fit.theta, lam, clusters, free=free, kappa=kappa),
        seed=seed,
        stats=stats,
    )
