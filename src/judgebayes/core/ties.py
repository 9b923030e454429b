"""Which tie model do the data prefer? Leave-one-battle-out log predictive density of the
Bradley–Terry fit with ties counted ½ against Davidson's, from pair statistics.

Comparable scores
    The BT fit with ties ½ maximises the kernel σ(d)^t σ(−d)^(1−t), which is no
    distribution over {win, tie, loss}. It predicts with the normalised three-way
    distribution (p, √(p(1−p)), 1 − p) / (1 + √(p(1−p))), p = σ(d): Davidson's model with
    ν = 1 at the half fit's strengths, the convention of
    :func:`judgebayes.bayes.battle_loo` (``ties="three_way"``). Davidson predicts with its
    own fitted ν. Both are then proper distributions over the three outcomes of a battle.
Leave one battle out
    For each cell (battles sharing a pair and an outcome) the fit without one of its
    battles is one Newton step from the full fit, φ̂₋ᵦ = φ̂ − J⁻¹ g_b, with J the Hessian of
    the negative log posterior and g_b the battle's score (the infinitesimal jackknife;
    the error is O(1/N²) against an exact refit, checked in tests/test_ties.py). Its log
    predictive density of the battle's outcome, summed over battles, is elpd_loo; the
    difference of the two models, with its standard error from the battles (or, with
    clusters, from the prompts: √(K·Var_c Σ_{b∈c} Δ_b)), says which the data prefer
    (Vehtari, Gelman & Gabry, *Practical Bayesian model evaluation using leave-one-out
    cross-validation and WAIC*, 2017, arXiv:1507.04544, Eqs. 4 and 23, here at the MAP).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.core.battles import Battles
from judgebayes.core.bt import as_clustered_stats, bt_objective, fit_bt
from judgebayes.core.clusters import Clusters
from judgebayes.core.davidson import (
    davidson_cell_scores,
    davidson_objective,
    davidson_probabilities,
    tie_counts,
)
from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["TieComparison", "compare_ties", "loo_davidson", "loo_half"]


@dataclass(frozen=True, repr=False)
class TieComparison(ResultDisplay):
    """Leave-one-battle-out comparison of ties counted ½ with Davidson's tie model.

    Attributes
    ----------
    elpd_half, elpd_davidson
        Σ over battles of log p(y_b | fit without b), each model.
    se_half, se_davidson
        Their standard errors.
    difference, se_difference
        elpd_davidson − elpd_half and its standard error (paired over battles, or over
        clusters).
    tie_nu
        Davidson's fitted ν.
    n_battles, n_ties
        Battles and ties.
    cluster
        The column whose clusters the standard errors are over, or ``None`` (battles).
    """

    elpd_half: float
    elpd_davidson: float
    se_half: float
    se_davidson: float
    difference: float
    se_difference: float
    tie_nu: float
    n_battles: int
    n_ties: int
    cluster: str | None

    @property
    def preferred(self) -> str:
        """``"davidson"`` or ``"half"``: the model with the higher elpd_loo."""
        return "davidson" if self.difference > 0 else "half"

    @property
    def decisive(self) -> bool:
        """The difference exceeds two of its standard errors."""
        return abs(self.difference) > 2 * self.se_difference

    def _headline(self) -> str:
        z = abs(self.difference) / self.se_difference if self.se_difference > 0 else np.inf
        return (
            f"LOO prefers {self.preferred} ties: elpd Davidson − half = {self.difference:+.1f} "
            f"± {self.se_difference:.1f} ({z:.1f} SE); ν = {self.tie_nu:.3g}, "
            f"{self.n_ties:,} ties in {self.n_battles:,} battles"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per model: ``ties, elpd_loo, se``."""
        return pd.DataFrame(
            {
                "ties": ["half", "davidson"],
                "elpd_loo": [self.elpd_half, self.elpd_davidson],
                "se": [self.se_half, self.se_davidson],
            }
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "preferred": self.preferred,
            "decisive": self.decisive,
            "elpd_half": self.elpd_half,
            "elpd_davidson": self.elpd_davidson,
            "difference": self.difference,
            "se_difference": self.se_difference,
            "tie_nu": self.tie_nu,
        }

    def __str__(self) -> str:
        return self._headline()


def _inverse(hess: np.ndarray, m: int) -> np.ndarray:
    """(H + uuᵀ)⁻¹ with u = (1, …, 1, 0…)/√m: H⁺ on the scores, which are orthogonal to u."""
    hess = hess.copy()
    hess[:m, :m] += 1.0 / m
    return np.linalg.inv(hess)


def _pair_quadratic(stats: PairStats, inv: np.ndarray) -> np.ndarray:
    """(e_i − e_j)ᵀ A (e_i − e_j) of every pair for the m × m block A of ``inv``."""
    i, j = stats.i, stats.j
    return inv[i, i] + inv[j, j] - inv[i, j] - inv[j, i]


def loo_half(stats: PairStats, lam: float) -> np.ndarray:
    """Log predictive density of one battle of each cell, the half fit without it.

    The infinitesimal jackknife: the MAP moves by −H⁻¹ times the battle's score, so the
    cell's gap d = θ_i − θ_j moves by −(t − σ(d))·(e_i − e_j)ᵀH⁻¹(e_i − e_j); the battle
    is then scored by the normalised three-way kernel with ν = 1 (κ = 0).

    Parameters
    ----------
    stats
        Pair statistics of unweighted hard labels (1, ½, 0).
    lam
        The ridge penalty λ of the fit.

    Returns
    -------
    numpy.ndarray
        Per cell of ``stats``, the leave-one-battle-out log density of one of its battles.
    """
    theta = fit_bt(stats, lam=lam).theta
    m = stats.n_models
    inv = _inverse(bt_objective(theta, stats, lam)[2], m)
    d = (theta[stats.i] - theta[stats.j])[stats.cell_pair]
    t = stats.cell_target
    residual = t - expit(d)  # one battle's score along e_i − e_j
    d_loo = d - residual * _pair_quadratic(stats, inv)[stats.cell_pair]
    a, b, c = davidson_probabilities(d_loo, 0.0)  # ν = 1: the normalised three-way kernel
    return np.log(np.where(t == 1, a, np.where(t == 0, b, c)))


def loo_davidson(stats: PairStats, lam: float) -> tuple[np.ndarray, float]:
    """Log predictive density of one battle of each cell, the Davidson fit without it.

    The infinitesimal jackknife on (θ, κ): the cell's gap d and the tie parameter κ
    move by the inverse Hessian times the battle's scores
    (:func:`~judgebayes.core.davidson.davidson_cell_scores`).

    Parameters
    ----------
    stats, lam
        As for :func:`loo_half`.

    Returns
    -------
    log_density : numpy.ndarray
        As :func:`loo_half`'s, for the Davidson model.
    nu : float
        The full fit's tie parameter ν = e^κ.
    """
    fit = fit_bt(stats, lam=lam, ties="davidson")
    theta, kappa = fit.theta, float(fit.kappa)
    m = stats.n_models
    inv = _inverse(davidson_objective(theta, kappa, stats, tie_counts(stats), lam)[2], m)
    r_d, r_k = davidson_cell_scores(stats, theta, kappa)
    v_dd = _pair_quadratic(stats, inv)[stats.cell_pair]
    v_dk = (inv[stats.i, m] - inv[stats.j, m])[stats.cell_pair]
    d = (theta[stats.i] - theta[stats.j])[stats.cell_pair]
    d_loo = d - (v_dd * r_d + v_dk * r_k)
    k_loo = kappa - (v_dk * r_d + inv[m, m] * r_k)
    a, b, c = davidson_probabilities(d_loo, k_loo)
    t = stats.cell_target
    return np.log(np.where(t == 1, a, np.where(t == 0, b, c))), float(np.exp(kappa))


def _sum_and_se(
    values: np.ndarray, stats: PairStats, clusters: Clusters | None
) -> tuple[float, float]:
    """Σ over battles of per-cell ``values`` and √(N·Var) over battles (or clusters)."""
    counts = stats.cell_count
    total = float(values @ counts)
    if clusters is None:
        n = counts.sum()
        mean = total / n
        var = float(counts @ (values - mean) ** 2) / (n - 1)
        return total, float(np.sqrt(n * var))
    per_cluster = clusters.cell_counts.T @ values
    k = clusters.n_clusters
    return total, float(np.sqrt(k * per_cluster.var(ddof=1)))


def compare_ties(
    data: Battles | PairStats,
    *,
    target: str | None = None,
    lam: float = 0.01,
    cluster: str | np.ndarray | None = "auto",
) -> TieComparison:
    """Leave-one-battle-out comparison of ties ½ against Davidson ties (module docstring).

    Parameters
    ----------
    data
        Battles (or pair statistics) with hard labels (1, ½, 0), unweighted.
    target
        The label column (default: the table's default label).
    lam
        L2 penalty λ of both fits.
    cluster
        Standard errors over clusters (``"auto"``: ``prompt_id`` when present), as for
        :func:`~judgebayes.core.bootstrap.bootstrap_bt`; ``None``: over battles.

    Returns
    -------
    TieComparison
    """
    stats, _, clusters = as_clustered_stats(data, target, None, cluster)
    if np.any(stats.cell_weight != 1.0):
        raise DataError(
            "the tie comparison scores unweighted battles; these carry weights",
            column="weight",
        )
    ties = tie_counts(stats)  # raises on soft targets
    if ties.sum() == 0:
        raise DataError(
            "no battle is a tie: both tie models are Bradley–Terry here",
            expected="some labels 0.5",
        )
    half = loo_half(stats, lam)
    davidson, nu = loo_davidson(stats, lam)
    elpd_h, se_h = _sum_and_se(half, stats, clusters)
    elpd_d, se_d = _sum_and_se(davidson, stats, clusters)
    diff, se_diff = _sum_and_se(davidson - half, stats, clusters)
    return TieComparison(
        elpd_half=elpd_h,
        elpd_davidson=elpd_d,
        se_half=se_h,
        se_davidson=se_d,
        difference=diff,
        se_difference=se_diff,
        tie_nu=nu,
        n_battles=stats.n_battles,
        n_ties=round(float(ties.sum())),
        cluster=None if clusters is None else clusters.column,
    )
