"""Davidson's tie model on pair statistics: MAP fit, batched refits, cell scores.

Davidson (1970, *On extending the Bradley–Terry model to accommodate ties in paired
comparison experiments*, JASA 65) gives, for the strength gap d = θ_i − θ_j and a tie
parameter ν = e^κ,

    P(i wins) = e^{d/2} / D,   P(tie) = ν / D,   P(j wins) = e^{−d/2} / D,
    D = e^{d/2} + e^{−d/2} + ν,

so that among decisive battles i wins with probability σ(d): the Elo scale is the one of
Bradley–Terry, and ν = 0 is Bradley–Terry. Counting a tie as half a win (Kargi & Salinas, *From
Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
arXiv:2606.13221, Eq. 1; ``ties="half"``) keeps the BT kernel instead, which is not a distribution
over the three outcomes. With W, T, L the weighted wins, ties and losses of i against j (y = W + T/2
and n = W + T + L, so W − L = 2y − n) the log-likelihood of a pair is

    ℓ = (d/2)(2y − n) + Tκ − n log D,

which depends on the battles through (n, y, T) per pair: the pair statistics plus the tie
count of each pair, read from the cells (hard labels only: a soft target is no outcome).
With a = P(i wins), b = P(j wins), c = P(tie) its derivatives are ∂ℓ/∂d = (2y − n)/2 −
n(a − b)/2 and ∂ℓ/∂κ = T − nc, and −∂²ℓ is n(ab + c(a + b)/4) in d, n·c(a + b) in κ and
−n·c(a − b)/2 across; the log-likelihood is jointly concave in (θ, κ) (the 2×2 block has
determinant n²ν(2cosh(d/2) + ν)/D⁴ > 0). The MAP adds λ‖θ‖² as Eq. 1 does; κ is not
penalised. The bootstrap refits replicates by the chord Newton iteration of
:mod:`~judgebayes.core.bootstrap` on (θ, κ).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.sparse import csr_matrix

from judgebayes.core.pairs import PairStats
from judgebayes.core.pinning import map_start
from judgebayes.errors import DataError

__all__ = [
    "davidson_cell_scores",
    "davidson_objective",
    "davidson_probabilities",
    "solve_davidson",
    "solve_davidson_columns",
    "tie_counts",
]


def tie_counts(stats: PairStats, counts: np.ndarray | None = None) -> np.ndarray:
    """Weighted ties T of every pair, from the cells (``counts`` overrides their counts,
    shape ``(..., n_cells)``); a soft target raises :class:`DataError`."""
    hard = np.isin(stats.cell_target, (0.0, 0.5, 1.0))
    if not hard.all():
        raise DataError(
            "Davidson ties need hard labels (1, 0.5, 0): the targets include soft values "
            f"such as {float(stats.cell_target[~hard][0]):.3g}; use ties='half'",
            expected="labels in {1, 0.5, 0}",
        )
    counts = stats.cell_count if counts is None else counts
    tie_weight = np.where(stats.cell_target == 0.5, stats.cell_weight, 0.0)
    starts = np.flatnonzero(np.r_[True, stats.cell_pair[1:] != stats.cell_pair[:-1]])
    return np.add.reduceat(np.asarray(counts, dtype=float) * tie_weight, starts, axis=-1)


def davidson_probabilities(d: np.ndarray, kappa: float) -> tuple[np.ndarray, ...]:
    """(a, b, c) = (P(i wins), P(j wins), P(tie)) at gap ``d`` and κ = log ν, stably."""
    d = np.asarray(d, dtype=float)
    log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), kappa)
    return np.exp(d / 2 - log_d), np.exp(-d / 2 - log_d), np.exp(kappa - log_d)


def davidson_objective(
    theta: np.ndarray,
    kappa: float,
    stats: PairStats,
    ties: np.ndarray,
    lam: float,
    n: np.ndarray | None = None,
    y: np.ndarray | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Negative penalised Davidson log-likelihood, gradient and Hessian in (θ, κ).

    The gradient and Hessian are over the m + 1 parameters (θ_1..θ_m, κ), κ last.
    """
    n = stats.n if n is None else n
    y = stats.y if y is None else y
    m = stats.n_models
    d = theta[stats.i] - theta[stats.j]
    log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), kappa)
    a, b, c = np.exp(d / 2 - log_d), np.exp(-d / 2 - log_d), np.exp(kappa - log_d)
    loglik = np.sum(d / 2 * (2 * y - n) + ties * kappa - n * log_d)
    value = -loglik + lam * theta @ theta
    g_d = (2 * y - n) / 2 - n * (a - b) / 2
    grad = np.empty(m + 1)
    grad[:m] = -(np.bincount(stats.i, g_d, minlength=m) - np.bincount(stats.j, g_d, minlength=m))
    grad[:m] += 2 * lam * theta
    grad[m] = -np.sum(ties - n * c)
    h_dd = n * (a * b + c * (a + b) / 4)
    h_dk = -n * c * (a - b) / 2
    hess = np.zeros((m + 1, m + 1))
    np.add.at(hess, (stats.i, stats.i), h_dd)
    np.add.at(hess, (stats.j, stats.j), h_dd)
    np.add.at(hess, (stats.i, stats.j), -h_dd)
    np.add.at(hess, (stats.j, stats.i), -h_dd)
    hess[np.arange(m), np.arange(m)] += 2 * lam
    cross = np.bincount(stats.i, h_dk, minlength=m) - np.bincount(stats.j, h_dk, minlength=m)
    hess[:m, m] = hess[m, :m] = cross
    hess[m, m] = np.sum(n * c * (a + b))
    return float(value), grad, hess


def solve_davidson(
    stats: PairStats,
    lam: float,
    fixed: Mapping[int, float],
    ties: np.ndarray,
    n: np.ndarray | None = None,
    y: np.ndarray | None = None,
    theta0: np.ndarray | None = None,
    kappa0: float = 0.0,
) -> tuple[np.ndarray, float, int]:
    """MAP (θ, κ) of the Davidson model, anchors held at ``fixed`` (θ scale).

    Newton-CG with the analytic gradient and Hessian (the objective is convex); with λ = 0
    and no anchors the first model is pinned and the strengths centred afterwards, as
    :func:`~judgebayes.core.bt.solve_map` does.
    """
    m = stats.n_models
    theta, free, pin_first = map_start(m, lam, fixed, theta0)
    index = np.r_[free, m]

    def unpack(x: np.ndarray) -> float:
        theta[free] = x[:-1]
        return float(x[-1])

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad, _ = davidson_objective(theta, unpack(x), stats, ties, lam, n, y)
        return value, grad[index]

    def hess(x: np.ndarray) -> np.ndarray:
        return davidson_objective(theta, unpack(x), stats, ties, lam, n, y)[2][np.ix_(index, index)]

    res = minimize(
        fun,
        np.r_[theta[free], kappa0],
        jac=True,
        hess=hess,
        method="Newton-CG",
        options={"xtol": 1e-10, "maxiter": 500},
    )
    kappa = unpack(res.x)
    if pin_first:
        theta -= theta.mean()
    return theta, kappa, int(res.nit)


def solve_davidson_columns(
    stats: PairStats,
    lam: float,
    theta_hat: np.ndarray,
    kappa_hat: float,
    free: np.ndarray,
    n: np.ndarray,
    y: np.ndarray,
    ties: np.ndarray,
    *,
    inc: csr_matrix,
    tol: float,
    chord_iter: int = 40,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Davidson MAPs of replicates ``n, y, ties`` of shape ``(n_pairs, R)``.

    The chord Newton iteration of the BT bootstrap on (θ_free, κ): the Hessian at the
    full-data estimate, factored once, for every replicate and iteration; replicates not
    converged after ``chord_iter`` steps are finished by :func:`solve_davidson`. Returns
    θ ``(R, m)``, κ ``(R,)`` and the number of exact solves.
    """
    m = stats.n_models
    _, _, full = davidson_objective(theta_hat, kappa_hat, stats, tie_counts(stats), lam)
    index = np.r_[free, m]
    chol = cho_factor(full[np.ix_(index, index)])
    theta = np.tile(np.asarray(theta_hat, float)[:, None], (1, n.shape[1]))
    kappa = np.full(n.shape[1], kappa_hat)
    inc_t = inc.T.tocsr()
    active = np.arange(n.shape[1])
    for _ in range(chord_iter):
        th, ka = theta[:, active], kappa[active]
        na, ya, ta = n[:, active], y[:, active], ties[:, active]
        d = inc_t @ th
        log_d = np.logaddexp(np.logaddexp(d / 2, -d / 2), ka[None, :])
        a, b, c = np.exp(d / 2 - log_d), np.exp(-d / 2 - log_d), np.exp(ka[None, :] - log_d)
        g_d = (2 * ya - na) / 2 - na * (a - b) / 2
        grad = np.vstack([(inc @ g_d - 2 * lam * th)[free], (ta - na * c).sum(axis=0)])
        step = cho_solve(chol, grad)
        th[free] += step[:-1]
        theta[:, active], kappa[active] = th, ka + step[-1]
        going = np.abs(step).max(axis=0) > tol
        active = active[going]
        if len(active) == 0:
            break
    theta = np.ascontiguousarray(theta.T)
    fixed = {int(k): float(theta_hat[k]) for k in np.setdiff1d(np.arange(m), free)}
    for r in active:
        theta[r], kappa[r], _ = solve_davidson(
            stats, lam, fixed, ties[:, r], n[:, r], y[:, r], theta[r], kappa[r]
        )
    return theta, kappa, len(active)


def davidson_cell_scores(
    stats: PairStats, theta: np.ndarray, kappa: float
) -> tuple[np.ndarray, np.ndarray]:
    """One battle's score of each cell: along e_i − e_j (∂ℓ/∂d) and in κ (∂ℓ/∂κ), weighted.

    A battle with outcome t ∈ {1, ½, 0} has ℓ = (d/2)(2t − 1) + [t = ½]κ − log D, so
    ∂ℓ/∂d = (2t − 1)/2 − (a − b)/2 and ∂ℓ/∂κ = [t = ½] − c.
    """
    d = (theta[stats.i] - theta[stats.j])[stats.cell_pair]
    a, b, c = davidson_probabilities(d, kappa)
    t = stats.cell_target
    w = stats.cell_weight
    return w * ((2 * t - 1) / 2 - (a - b) / 2), w * ((t == 0.5) - c)
