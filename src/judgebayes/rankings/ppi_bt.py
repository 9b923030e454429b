r"""Prediction-powered Bradley–Terry: PPI++ for the BT M-estimator, so Elo, not win rate.

Angelopoulos, Duchi and Zrnic, "PPI++: Efficient Prediction-Powered Inference" (2023,
arXiv:2311.01453) rectify any M-estimator with predictions. Here the estimator is
Bradley–Terry with ties as ½ (Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings:
Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221, Eq. 1): per battle with models
a (shown first) and b, d = θ_a − θ_b and the loss ℓ(θ; y) = −y·d + log(1 + e^d), y ∈ {0, ½, 1} the
outcome P(a beats b). With n battles labelled by humans (y_i, judge verdicts ŷ_ij) and N battles
judged only (ŷ_ij), and one weight λ_j per judge, θ̂ minimises (PPI++, Eq. 6, with several
predictors as control variates)

    L(θ) = (1/n) Σ_{labelled} [ℓ(θ; y_i) − Σ_j λ_j ℓ(θ; ŷ_ij)]
           + (1/N) Σ_{judge-only} Σ_j λ_j ℓ(θ; ŷ_ij)  + (penalty/n)·‖θ‖².

Whatever the judges' errors, the expected rectifier term is zero, so θ̂ targets the
human BT strengths θ* (the minimiser of E ℓ(θ; y) over the battles' design); λ = 0 is the
human-only fit. The loss is linear in the target, so L is the Bradley–Terry objective of
Kargi & Salinas (2026), Eq. 1 on pair statistics with battle weights 1 − Σλ (labelled) and (n/N)·Σλ
(judge-only) and summed targets y − Σ λ_j ŷ_j and (n/N)·Σ λ_j ŷ_j: it is fitted by the same
Newton solver as :func:`~judgebayes.core.bt.fit_bt`. Convexity needs Σλ ≤ 1.

Covariance (PPI++, Theorem 1): with per-battle gradients g(θ; y) = (σ(d) − y)(e_a − e_b),
H the Hessian of E ℓ pooled over all battles (as ppi_py pools it), and H⁺ its pseudo-inverse
on the sum-to-zero subspace,

    Σ̂ = H⁺ [Cov_labelled(g(y) − Σ_j λ_j g(ŷ_j)) / n + Cov_judge-only(Σ_j λ_j g(ŷ_j)) / N] H⁺.

Power tuning (PPI++, Eq. 7 generalised to several judges): λ minimises tr Σ̂, a quadratic
λᵀAλ − 2bᵀλ with A_jk = (1/n + 1/N) tr(H⁺ Cov(g_j, g_k) H⁺) (covariances over labelled and
judge-only battles together) and b_j = tr(H⁺ Cov(g(y), g_j) H⁺)/n; it is minimised over
λ_j ≥ 0, Σλ_j ≤ 1. With one judge this is ppi_py's ``_calc_lam_glm`` clipped to [0, 1]; as
ppi_py does, θ is first fitted at Σλ = 1, λ̂ computed there, and θ refitted at λ̂.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize

from judgebayes.core.bt import ELO_SCALE, theta_to_elo
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData
from judgebayes.rankings.design import BattleDesign, split_battles
from judgebayes.rankings.elo import EloEstimate

__all__ = ["ppi_bt", "ppi_bt_lambda"]


class _Design:
    """The battles a PPI++ fit uses: labelled and judge-only, with every judge's verdict."""

    def __init__(self, data: RankingData, judges: Sequence[str]) -> None:
        lab, unl, verdicts, self.report = split_battles(data, judges)
        self.n, self.big_n = int(lab.sum()), int(unl.sum())
        use = lab | unl
        self.battles = BattleDesign(data.models, data.a[use], data.b[use])
        self.is_lab = lab[use]
        self.y = np.where(self.is_lab, data.human[use], 0.0)
        self.yhat = verdicts[use]  # (battles, judges)

    def fit(self, lam: np.ndarray, penalty: float) -> np.ndarray:
        """θ̂ minimising L(θ) at the weights ``lam`` (one per judge)."""
        total = float(lam.sum())
        scale = self.n / self.big_n if self.big_n else 0.0
        weight = np.where(self.is_lab, 1.0 - total, scale * total)
        target = np.where(self.is_lab, self.y - self.yhat @ lam, scale * (self.yhat @ lam))
        return self.battles.fit(weight, target, penalty)

    def gradients(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-battle gradients g(y) (labelled), g(ŷ_j) (all) and the pooled Hessian's H⁺."""
        p, x = self.battles.probs(theta), self.battles.x
        g_y = (p - self.y)[:, None] * x  # rows of judge-only battles unused
        g_hat = (p[:, None] - self.yhat)[:, :, None] * x[:, None, :]  # (battles, J, k)
        return g_y, g_hat, self.battles.hessian_pinv(theta)


def _tuned_lambda(design: _Design, theta: np.ndarray) -> np.ndarray:
    """λ̂ minimising tr Σ̂ over λ_j ≥ 0, Σλ_j ≤ 1 (the module docstring's quadratic)."""
    g_y, g_hat, h_inv = design.gradients(theta)
    n, big_n, n_j = design.n, design.big_n, g_hat.shape[1]
    lab = design.is_lab
    gl = g_y[lab] - g_y[lab].mean(axis=0)
    hl = g_hat[lab] - g_hat[lab].mean(axis=0)
    # every judge's cross-products with g(y), and every pair of judges' covariances over
    # labelled and judge-only battles together, each as one product of the (battles,
    # judges·models) gradient matrix rather than one pass over the battles per pair
    k = g_hat.shape[2]
    crosses = (gl.T @ hl.reshape(len(hl), -1)).reshape(k, n_j, k)
    covs = _cov(g_hat.reshape(len(g_hat), -1)).reshape(n_j, k, n_j, k)
    b = np.empty(n_j)
    a = np.empty((n_j, n_j))
    for j in range(n_j):
        # ppi_py: (1/n)(gᵀĝ + ĝᵀg), halved here since the quadratic carries 2bᵀλ
        cross = (crosses[:, j] + crosses[:, j].T) / (2 * n)
        b[j] = np.trace(h_inv @ cross @ h_inv) / n
        for m in range(j, n_j):
            cov = (covs[j, :, m] + covs[j, :, m].T) / 2  # Cov(g_j, g_m), symmetrised
            a[j, m] = a[m, j] = (1 / n + 1 / big_n) * np.trace(h_inv @ cov @ h_inv)
    if n_j == 1:
        return np.array([np.clip(b[0] / a[0, 0], 0.0, 1.0)]) if a[0, 0] > 0 else np.zeros(1)
    res = minimize(
        lambda lam: lam @ a @ lam - 2 * b @ lam,
        np.full(n_j, 1.0 / n_j),
        jac=lambda lam: 2 * a @ lam - 2 * b,
        bounds=[(0.0, 1.0)] * n_j,
        constraints=[{"type": "ineq", "fun": lambda lam: 1.0 - lam.sum()}],
        method="SLSQP",
        options={"ftol": 1e-12},
    )
    return np.clip(res.x, 0.0, 1.0)


def _cov(u: np.ndarray) -> np.ndarray:
    """Sample covariance (ddof = 1) of the columns of u."""
    centred = u - u.mean(axis=0)
    return centred.T @ centred / (len(u) - 1)


def ppi_bt_lambda(
    data: RankingData, judges: str | Sequence[str], *, penalty: float = 0.01
) -> np.ndarray:
    """PPI++'s power-tuning weights λ̂ (one per judge), at θ̂ fitted with Σλ = 1."""
    judges = [judges] if isinstance(judges, str) else list(judges)
    design = _Design(data, judges)
    theta = design.fit(np.full(len(judges), 1.0 / len(judges)), penalty)
    return _tuned_lambda(design, theta)


def ppi_bt(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    lam: float | Sequence[float] | None = None,
    penalty: float = 0.01,
) -> EloEstimate:
    """Prediction-powered Bradley–Terry Elo (PPI++ for the BT M-estimator).

    Parameters
    ----------
    data
        Battles: those with a human label and every judge's verdict are the labelled set,
        those with the verdicts alone the judge-only set; battles lacking a verdict of one
        of ``judges`` are not used (counted in the report).
    judges
        One judge or several (each with its own λ); ``None``: every judge of ``data``;
        ``[]`` fits the human labels alone (the classical M-estimator and its sandwich
        H⁺ Cov(g) H⁺ / n; method ``"human_bt"``).
    lam
        Power-tuning weights, one per judge (a float for one judge), λ_j ≥ 0 with Σλ ≤ 1;
        ``None`` tunes them (PPI++, Eq. 7; see the module docstring).
    penalty
        Ridge penalty on θ in battle units, as ``lam`` of :func:`~judgebayes.core.bt.fit_bt`
        (Kargi & Salinas (2026) use 0.01): it keeps the fit finite where a pair's rectified target
        leaves [0, n_p]; 0 gives the plain M-estimator.

    Returns
    -------
    EloEstimate
        Elo (mean 1500), its sandwich covariance (PPI++, Theorem 1) and λ̂.
    """
    judges = (
        list(data.judges)
        if judges is None
        else ([judges] if isinstance(judges, str) else list(judges))
    )
    design = _Design(data, judges)
    if judges and design.big_n == 0:
        raise DataError(f"no judge-only battle judged by {judges}: nothing to add to the labels")
    if not judges:
        weights = np.zeros(0)
    elif lam is None:
        theta = design.fit(np.full(len(judges), 1.0 / len(judges)), penalty)
        weights = _tuned_lambda(design, theta)
    else:
        weights = np.atleast_1d(np.asarray(lam, dtype=float))
        if weights.shape != (len(judges),) or (weights < 0).any() or weights.sum() > 1 + 1e-12:
            raise ValueError(f"lam must be {len(judges)} weights ≥ 0 summing to ≤ 1, got {lam}")
    theta = design.fit(weights, penalty)
    g_y, g_hat, h_inv = design.gradients(theta)
    lab = design.is_lab
    rect = g_y[lab] - np.einsum("j,njk->nk", weights, g_hat[lab])
    pred = np.einsum("j,njk->nk", weights, g_hat[~lab])
    middle = np.cov(rect.T) / design.n
    if judges:
        middle = middle + np.cov(pred.T) / design.big_n
    cov = h_inv @ middle @ h_inv
    return EloEstimate(
        models=data.models,
        elo=np.asarray(theta_to_elo(theta)),
        cov=ELO_SCALE**2 * cov,
        method="ppi_bt" if judges else "human_bt",
        judges=tuple(judges),
        lam=tuple(float(x) for x in weights),
        n_labelled=design.n,
        n_judged=design.big_n,
        report=design.report,
    )
