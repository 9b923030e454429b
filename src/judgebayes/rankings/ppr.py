r"""Prediction-Powered Ranking (Chatzi et al., NeurIPS 2024, arXiv:2402.17826).

Chatzi, Straitouri, Thejaswi and Gomez-Rodriguez, "Prediction-Powered Ranking of Large
Language Models" rank k models by their *win rate* θ_m: the probability that m wins a
battle it takes part in (a tie is a win for neither). Their method has four steps, written
here from the paper's description and the behaviour of its code (github.com/
Networks-Learning/prediction-powered-ranking), which the tests run beside this module:

1. **Win rates from one kind of label** (the human-only and the judge-only estimate):
   θ̂_m = (1/n_m) Σ_{i ∋ m} w_{i,m} over the n_m battles in which m took part, w_{i,m} = 1
   when m won battle i; its covariance is Σ̂ = (1/n²) Σ_i r_i r_iᵀ, r_{i,m} = w_{i,m} − θ̂_m
   for the two models of battle i and 0 elsewhere, n the number of battles.
2. **The prediction-powered estimate** from n battles with human and judge labels (D_n)
   and N battles with the judge's label alone (D_N):
   θ̂^PP = λ·θ̂(D_N, judge) − b, with b_m the per-model mean of z_i = λ ŵ_i − w_i over D_n,
   and Σ̂^PP = λ² Σ̂(D_N, judge) + (1/n²) Σ_{i ∈ D_n} (z_i − b)(z_i − b)ᵀ.
3. **The power-tuning weight** λ̂ = tr Ĉ / ((1 + n/N) tr V̂), Ĉ = (1/n) Σ_{D_n} r^human_i
   r^judge_iᵀ (both centred at their D_n means), V̂ = (1/N) Σ_{D_N} r_i r_iᵀ (judge),
   clipped to [0, 1] (λ = 0 is the human-only estimate, λ = 1 plain PPI).
4. **Rank-sets from the χ²(k) ellipsoid** {θ : (θ − θ̂)ᵀ Σ̂⁻¹ (θ − θ̂) ≤ χ²_k(1 − α)}:
   model m2 is declared better than m1 when |θ̂_m1 − θ̂_m2| > √(χ²_k(1 − α) ·
   (Σ̂_11 + Σ̂_22 − 2Σ̂_12)), i.e. when the whole ellipsoid lies on one side of
   θ_m1 = θ_m2; the rank-set of m is [1 + #{better}, k − #{worse}].

Two facts about the code that this module reproduces, because the benchmark compares
against it: Σ̂ divides by the number of battles n, not by each model's n_m (so for k models
in balanced pairs the variance of θ̂_m is (2/k)² of the sampling variance of a mean over
n_m battles — 1/36 for the paper's 12 models), and a tie is a loss for both models. The
Bradley–Terry estimators beside this module (:mod:`~judgebayes.rankings.ppi_bt`) estimate a
different quantity with their own, sampling-based, covariance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.stats import chi2

from judgebayes.core.ranksets import RankSets, point_ranks, tiers
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData
from judgebayes.rankings.ranking import Ranking

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "WinRates",
    "ellipsoid_rank_sets",
    "human_win_rates",
    "judge_win_rates",
    "ppr_lambda",
    "ppr_win_rates",
    "prediction_powered_ranking",
]


@dataclass(frozen=True, repr=False)
class WinRates(ResultDisplay):
    """Win rates θ̂ with PPR's covariance Σ̂ (Chatzi et al., Section 3).

    Attributes
    ----------
    models
        Model names.
    estimate
        θ̂_m, the (prediction-powered) win rate of every model.
    cov
        Σ̂, the covariance PPR's rank-sets use (see the module docstring for its scale).
    method
        ``"human"``, ``"judge"`` or ``"ppr"``.
    judge
        The judge whose verdicts were used (``None`` for humans only).
    lam
        The power-tuning weight λ (``ppr``; 0 for humans only, 1 for the judge alone).
    n_labelled, n_unlabelled
        Battles in D_n (human labels) and D_N (judge verdicts alone).
    report
        Battles received and not used.
    """

    models: tuple[str, ...]
    estimate: np.ndarray
    cov: np.ndarray
    method: str
    judge: str | None
    lam: float
    n_labelled: int
    n_unlabelled: int
    report: DropReport = field(default_factory=lambda: DropReport(0))

    @property
    def se(self) -> np.ndarray:
        """√diag Σ̂."""
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))

    def _headline(self) -> str:
        who = f"judge {self.judge}" if self.judge else "humans"
        return (
            f"{self.method} win rates of {len(self.models)} models from {who}, "
            f"n = {self.n_labelled:,}, N = {self.n_unlabelled:,}, λ = {self.lam:.3f}"
        )

    def to_frame(self) -> pd.DataFrame:
        """``model, win_rate, se``, best first."""
        frame = pd.DataFrame({"model": self.models, "win_rate": self.estimate, "se": self.se})
        return frame.sort_values("win_rate", ascending=False, ignore_index=True)

    def plot(self, ax: Axes | None = None, *, alpha: float = 0.1) -> Axes:
        """Forest plot of :meth:`rank_sets` at level 1 − α."""
        return self.rank_sets(alpha).plot(ax)

    def rank_sets(self, alpha: float = 0.1) -> Ranking:
        """PPR's rank-sets at level 1 − α (step 4), as a :class:`Ranking`."""
        lo, hi = ellipsoid_rank_sets(self.estimate, self.cov, alpha)
        z = chi2.ppf(1 - alpha, 1) ** 0.5
        rank = point_ranks(self.estimate)
        sets = RankSets(
            models=self.models,
            estimate=self.estimate,
            rank=rank,
            rank_lo=np.minimum(lo, rank),
            rank_hi=np.maximum(hi, rank),
            tier=tiers(lo, hi),
            alpha=alpha,
            method="ellipsoid",
            critical_value=float(chi2.ppf(1 - alpha, len(self.models)) ** 0.5),
        )
        return Ranking(
            models=self.models,
            method=self.method,
            judges=(self.judge,) if self.judge else (),
            alpha=alpha,
            scale="win_rate",
            estimate=self.estimate,
            lower=self.estimate - z * self.se,
            upper=self.estimate + z * self.se,
            se=self.se,
            rank_sets=sets,
            n_labelled=self.n_labelled,
            n_judged=self.n_unlabelled,
            details={"lambda": self.lam} if self.method == "ppr" else {},
            report=self.report,
        )


# --------------------------------------------------------------------- step 1
def _wins(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """w_A = 1{A won}, w_B = 1{B won}: a tie (½) is a win for neither (PPR's coding)."""
    return (labels == 1.0).astype(float), (labels == 0.0).astype(float)


def _model_means(
    a: np.ndarray, b: np.ndarray, x_a: np.ndarray, x_b: np.ndarray, k: int, what: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-model means of x over the battles a model took part in, and the residuals.

    x_a is the battle's value for model a, x_b for model b. Returns (mean, r_a, r_b) with
    r_a = x_a − mean[a], r_b = x_b − mean[b].
    """
    count = np.bincount(a, minlength=k) + np.bincount(b, minlength=k)
    if (count == 0).any():
        raise DataError(
            f"a model has no battle in the {what}: PPR needs every model in it",
            expected="at least one battle per model",
        )
    mean = (np.bincount(a, x_a, minlength=k) + np.bincount(b, x_b, minlength=k)) / count
    return mean, x_a - mean[a], x_b - mean[b]


def _scatter(a: np.ndarray, b: np.ndarray, r_a: np.ndarray, r_b: np.ndarray, k: int) -> np.ndarray:
    """Σ_i r_i r_iᵀ for residual vectors r_i with r_a at a_i, r_b at b_i, 0 elsewhere."""
    keys = np.concatenate([a * k + a, b * k + b, a * k + b, b * k + a])
    vals = np.concatenate([r_a * r_a, r_b * r_b, r_a * r_b, r_a * r_b])
    return np.bincount(keys, vals, minlength=k * k).reshape(k, k)


def _split(data: RankingData, judge: str | None) -> tuple[np.ndarray, np.ndarray, DropReport]:
    """Masks of D_n (human label and verdict) and D_N (verdict only) and the report."""
    labelled = data.labelled
    if judge is None:
        return (
            labelled,
            np.zeros_like(labelled),
            data.report.with_excluded("no human label", int((~labelled).sum())),
        )
    judged = ~np.isnan(data.verdict(judge))
    report = data.report.with_excluded("not judged by " + judge, int((~judged).sum()))
    return labelled & judged, ~labelled & judged, report


def human_win_rates(data: RankingData) -> WinRates:
    """Win rates from the human-labelled battles alone (PPR's "human only", step 1).

    θ̂_m = (1/n_m) Σ_{i ∋ m} w_{i,m}, Σ̂ = (1/n²) Σ_i r_i r_iᵀ over the n labelled battles.
    """
    dn, _, report = _split(data, None)
    k = data.n_models
    a, b = data.a[dn], data.b[dn]
    w_a, w_b = _wins(data.human[dn])
    theta, r_a, r_b = _model_means(a, b, w_a, w_b, k, "human-labelled battles")
    n = int(dn.sum())
    return WinRates(
        data.models, theta, _scatter(a, b, r_a, r_b, k) / n**2, "human", None, 0.0, n, 0, report
    )


def judge_win_rates(data: RankingData, judge: str) -> WinRates:
    """Win rates from one judge's verdicts on every battle it judged (PPR's "llm", step 1)."""
    v = data.verdict(judge)
    judged = ~np.isnan(v)
    report = data.report.with_excluded("not judged by " + judge, int((~judged).sum()))
    k = data.n_models
    a, b = data.a[judged], data.b[judged]
    w_a, w_b = _wins(v[judged])
    theta, r_a, r_b = _model_means(a, b, w_a, w_b, k, "battles the judge judged")
    n = int(judged.sum())
    return WinRates(
        data.models, theta, _scatter(a, b, r_a, r_b, k) / n**2, "judge", judge, 1.0, 0, n, report
    )


# --------------------------------------------------------------------- step 3
def ppr_lambda(data: RankingData, judge: str) -> float:
    """PPR's power-tuning weight λ̂ = tr Ĉ / ((1 + n/N) tr V̂), clipped to [0, 1] (step 3).

    Where V̂ = 0 (every model's judge-only verdicts are constant) the ratio is undefined and
    λ̂ = 0: the human-only estimate.
    """
    dn, dN, _ = _split(data, judge)
    k = data.n_models
    v = data.verdict(judge)
    n, big_n = int(dn.sum()), int(dN.sum())
    if n == 0 or big_n == 0:
        raise DataError(
            f"PPR needs battles with and without a human label judged by {judge} "
            f"(got n = {n}, N = {big_n})"
        )
    a, b = data.a[dN], data.b[dN]
    _, r_a, r_b = _model_means(a, b, *_wins(v[dN]), k, "judge-only battles")
    trace_v = float(np.sum(r_a * r_a) + np.sum(r_b * r_b)) / big_n
    a, b = data.a[dn], data.b[dn]
    _, j_a, j_b = _model_means(a, b, *_wins(v[dn]), k, "human-labelled battles")
    _, h_a, h_b = _model_means(a, b, *_wins(data.human[dn]), k, "human-labelled battles")
    trace_c = float(np.sum(h_a * j_a) + np.sum(h_b * j_b)) / n
    if trace_v == 0.0:  # the judge's verdicts vary with nothing but the model: no information
        return 0.0
    return float(np.clip(trace_c / ((1 + n / big_n) * trace_v), 0.0, 1.0))


# --------------------------------------------------------------------- step 2
def ppr_win_rates(data: RankingData, judge: str, *, lam: float | None = None) -> WinRates:
    """Prediction-powered win rates θ̂^PP = λ θ̂(D_N, judge) − b and Σ̂^PP (step 2).

    Parameters
    ----------
    data
        Battles; those with a human label and ``judge``'s verdict form D_n, those with the
        verdict alone D_N. Battles the judge did not judge are not used.
    judge
        The judge.
    lam
        Power-tuning weight in [0, 1]; ``None``: :func:`ppr_lambda` (step 3).
    """
    if lam is None:
        lam = ppr_lambda(data, judge)
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1], got {lam}")
    dn, dN, report = _split(data, judge)
    k = data.n_models
    v = data.verdict(judge)
    n, big_n = int(dn.sum()), int(dN.sum())
    if n == 0 or big_n == 0:
        raise DataError(
            f"PPR needs battles with and without a human label judged by {judge} "
            f"(got n = {n}, N = {big_n})"
        )
    a, b = data.a[dN], data.b[dN]
    judge_mean, r_a, r_b = _model_means(a, b, *_wins(v[dN]), k, "judge-only battles")
    cov = lam**2 * _scatter(a, b, r_a, r_b, k) / big_n**2
    a, b = data.a[dn], data.b[dn]
    jw_a, jw_b = _wins(v[dn])
    hw_a, hw_b = _wins(data.human[dn])
    rect, z_a, z_b = _model_means(
        a, b, lam * jw_a - hw_a, lam * jw_b - hw_b, k, "human-labelled battles"
    )
    cov = cov + _scatter(a, b, z_a, z_b, k) / n**2
    return WinRates(data.models, lam * judge_mean - rect, cov, "ppr", judge, lam, n, big_n, report)


# --------------------------------------------------------------------- step 4
def ellipsoid_rank_sets(
    estimate: np.ndarray, cov: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Rank-sets from the χ²(k) confidence ellipsoid of θ (step 4; rank 1 = best).

    Model m2 beats m1 for sure when |θ̂_m1 − θ̂_m2| / √2 > √(v_12 χ²_k(1 − α) / 2),
    v_12 = Σ̂_11 + Σ̂_22 − 2Σ̂_12 (the paper's form of the test); then
    rank_lo(m1) = 1 + #{m2 surely better}, rank_hi(m1) = k − #{m2 surely worse}.

    Returns
    -------
    (rank_lo, rank_hi)
        Integer arrays of shape ``(k,)``.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    theta = np.asarray(estimate, dtype=float).reshape(-1)
    k = len(theta)
    d = np.diag(cov)
    var_diff = d[:, None] + d[None, :] - 2 * np.asarray(cov)
    with np.errstate(invalid="ignore"):  # a negative rounding of v_12 separates nothing
        margin = np.abs(theta[:, None] - theta[None, :]) / np.sqrt(2) - np.sqrt(
            var_diff * chi2.ppf(1 - alpha, k) / 2
        )
    sure = margin > 0
    np.fill_diagonal(sure, False)
    better = (sure & (theta[:, None] < theta[None, :])).sum(axis=1)
    worse = (sure & (theta[:, None] > theta[None, :])).sum(axis=1)
    return 1 + better, k - worse


def prediction_powered_ranking(
    data: RankingData, judge: str | None = None, *, alpha: float = 0.1, lam: float | None = None
) -> Ranking:
    """PPR's rank-sets in one call: steps 2–4, or the human-only estimate without a judge.

    Parameters
    ----------
    data
        Battles with human labels on some and ``judge``'s verdicts.
    judge
        The judge; ``None`` ranks from the human labels alone.
    alpha
        Rank-sets hold the true ranking of win rates with probability ≥ 1 − α
        (asymptotically, under PPR's covariance).
    lam
        Power-tuning weight; ``None`` tunes it (step 3).
    """
    rates = human_win_rates(data) if judge is None else ppr_win_rates(data, judge, lam=lam)
    return rates.rank_sets(alpha)
