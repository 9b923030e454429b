"""Sandwich (robust) covariance of Bradley–Terry strengths from pair statistics.

For the penalised BT objective of seed 000, Eq. 1, f(θ) = −ℓ(θ) + λ‖θ‖², the MAP θ̂ has the
asymptotic covariance H⁻¹ B H⁻¹ (Huber 1967; White 1980), with

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
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import csr_matrix
from scipy.special import expit

from judgebayes.core.bt import bt_objective
from judgebayes.core.clusters import Clusters
from judgebayes.core.pairs import PairStats

__all__ = ["cell_incidence", "design_effect", "sandwich_cov", "sandwich_meat"]


def cell_incidence(stats: PairStats) -> csr_matrix:
    """Sparse ``(n_cells, n_models)`` matrix with +1 at the pair's model i, −1 at its j."""
    n_cells = len(stats.cell_pair)
    rows = np.repeat(np.arange(n_cells), 2)
    cols = np.column_stack([stats.i[stats.cell_pair], stats.j[stats.cell_pair]]).ravel()
    vals = np.tile([1.0, -1.0], n_cells)
    return csr_matrix((vals, (rows, cols)), shape=(n_cells, stats.n_models))


def sandwich_meat(
    stats: PairStats, residual: np.ndarray, clusters: Clusters | None = None
) -> np.ndarray:
    """B of the module docstring from each cell's per-battle score along e_i − e_j.

    ``residual`` is w·(t − p) of each cell (one battle's score contribution); battle-level
    when ``clusters`` is ``None``, else summed within clusters first.
    """
    k = cell_incidence(stats)
    if clusters is None:
        scaled = k.multiply((stats.cell_count * residual**2)[:, None]).tocsr()
        return np.asarray((k.T @ scaled).toarray())
    scores = clusters.cell_counts.T @ k.multiply(residual[:, None]).tocsr()
    return np.asarray((scores.T @ scores).toarray())


def sandwich_cov(
    stats: PairStats,
    theta: np.ndarray,
    lam: float,
    *,
    clusters: Clusters | None = None,
    free: np.ndarray | None = None,
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

    Returns
    -------
    numpy.ndarray
        Covariance of θ̂ on the logit scale (multiply by ELO_SCALE² for Elo²).
    """
    m = stats.n_models
    free = np.arange(m) if free is None else np.asarray(free)
    p = expit(theta[stats.i] - theta[stats.j])
    residual = stats.cell_weight * (stats.cell_target - p[stats.cell_pair])
    hess = bt_objective(theta, stats, lam)[2][np.ix_(free, free)]
    meat = sandwich_meat(stats, residual, clusters)[np.ix_(free, free)]
    if lam == 0 and len(free) == m:
        # H is singular along 1; H + 11ᵀ/m is not, and its inverse is H⁺ + 11ᵀ/m, whose
        # 11ᵀ/m part B annihilates (every score is a difference e_i − e_j): H⁺BH⁺.
        hess = hess + 1.0 / m
    factor = cho_factor(hess, check_finite=False)
    half = cho_solve(factor, meat, check_finite=False)
    cov = np.zeros((m, m))
    cov[np.ix_(free, free)] = cho_solve(factor, half.T, check_finite=False)
    return cov


def design_effect(
    stats: PairStats,
    theta: np.ndarray,
    lam: float,
    clusters: Clusters,
    *,
    free: np.ndarray | None = None,
) -> np.ndarray:
    """Per-model design effect: clustered over battle-level sandwich variance of θ̂_i.

    Kish's design effect (the variance inflation that clustering causes) measured on each
    model's strength; 1 when clusters are single battles, above 1 when games of a cluster
    are positively correlated. NaN for models held fixed.
    """
    clustered = np.diag(sandwich_cov(stats, theta, lam, clusters=clusters, free=free))
    battle = np.diag(sandwich_cov(stats, theta, lam, free=free))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(battle > 0, clustered / battle, np.nan)
