"""Per-category leaderboards from one hierarchical Bradley–Terry fit.

A model that leads on coding may trail on creative writing. Fitting each category alone
gives noisy boards for small categories; fitting them together with category offsets
shrunk towards the overall board borrows strength (FastChat's and arena-hard-auto's
category boards fit each category alone; Polyrating, Dekoninck et al. 2024,
arXiv:2409.00696, shrinks). With category c of a battle,

    logit P(i beats j | c) = (θ_i + δ_ic) − (θ_j + δ_jc),   δ_ic ~ Normal(0, τ²),

θ the overall strength (penalised by λ‖θ‖² as in Kargi & Salinas (*From Uncertain Judgments to
Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Eq. 1)
and δ the category offsets. The likelihood depends on the battles through the pair statistics of
every category, so a fit costs O(categories × pairs). The MAP for a given τ is found by Newton's
method over (θ, δ) (m(1 + C) parameters, dense); τ by empirical Bayes, maximising the Laplace
approximation of the marginal likelihood,

    log p(y | τ) ≈ ℓ(φ̂_τ) − ‖δ̂_τ‖² / (2τ²) − mC log τ − ½ log det H_τ + const,

over log τ (``category_sd`` fixes it instead). Intervals of θ_i and of θ_i + δ_ic come from
the sandwich of the joint fit (cluster-robust by prompt when the battles carry
``prompt_id``), the rank-sets of each category from normal draws around it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize_scalar
from scipy.sparse import csr_matrix, hstack, vstack
from scipy.special import expit

from judgebayes._stats import norm_ppf
from judgebayes.core.battles import Battles
from judgebayes.core.bt import ELO_SCALE, bt_objective, theta_to_elo
from judgebayes.core.clusters import battle_clusters
from judgebayes.core.pairs import PairStats
from judgebayes.core.ranksets import normal_draws, rank_sets
from judgebayes.core.results import ResultDisplay
from judgebayes.core.sandwich import cell_incidence
from judgebayes.errors import DataError

__all__ = ["CategoryElo", "category_bt"]

_N_DRAWS = 4000


@dataclass(frozen=True, repr=False)
class CategoryElo(ResultDisplay):
    """Overall and per-category Elo from one hierarchical fit (module docstring).

    Attributes
    ----------
    models, categories
        Names.
    theta
        Overall strengths θ (logit scale).
    delta
        Category offsets δ, shape ``(n_categories, n_models)``.
    tau
        The offsets' standard deviation τ (logit scale; fitted or given).
    cov
        Sandwich covariance of (θ, δ_1, …, δ_C), logit scale.
    n_battles
        Battles of each model in each category, shape ``(n_categories, n_models)``.
    alpha, seed
        Interval level; seed of the draws behind the rank-sets.
    by, cluster, n_clusters
        The category column; the cluster column and count (``None``: battles).
    """

    models: tuple[str, ...]
    categories: tuple[str, ...]
    theta: np.ndarray
    delta: np.ndarray
    tau: float
    cov: np.ndarray
    n_battles: np.ndarray
    alpha: float
    seed: int
    by: str
    cluster: str | None
    n_clusters: int | None

    @property
    def tau_elo(self) -> float:
        """τ on the Elo scale."""
        return float(self.tau * ELO_SCALE)

    def _combination(self, category: int | None) -> np.ndarray:
        """Rows mapping (θ, δ) to the strengths of one category (``None``: overall)."""
        m, c = len(self.models), len(self.categories)
        rows = np.zeros((m, m * (1 + c)))
        rows[:, :m] = np.eye(m)
        if category is not None:
            rows[:, m * (1 + category) : m * (2 + category)] = np.eye(m)
        return rows

    def board(self, category: str | None = None) -> pd.DataFrame:
        """One board: ``model, elo, elo_lo, elo_hi, se, n_battles, rank_lo, rank_hi, tier``
        of ``category`` (``None``: the overall θ), best first."""
        k = None if category is None else self._category_index(category)
        rows = self._combination(k)
        strength = rows @ np.r_[self.theta, self.delta.ravel()]
        cov = rows @ self.cov @ rows.T * ELO_SCALE**2
        elo = np.asarray(theta_to_elo(strength))
        se = np.sqrt(np.maximum(np.diag(cov), 0.0))
        z = norm_ppf(1 - self.alpha / 2)
        draws = normal_draws(elo, cov, _N_DRAWS, self.seed)
        ranks = rank_sets(draws, models=self.models, estimate=elo, alpha=self.alpha)
        n = self.n_battles.sum(axis=0) if k is None else self.n_battles[k]
        frame = pd.DataFrame(
            {
                "model": self.models,
                "elo": elo,
                "elo_lo": elo - z * se,
                "elo_hi": elo + z * se,
                "se": se,
                "n_battles": n,
                "rank_lo": ranks.rank_lo,
                "rank_hi": ranks.rank_hi,
                "tier": ranks.tier,
            }
        )
        return frame.sort_values("elo", ascending=False, ignore_index=True)

    def _category_index(self, category: str) -> int:
        if category not in self.categories:
            raise DataError(
                f"unknown category {category!r}", expected=f"one of {list(self.categories)}"
            )
        return self.categories.index(category)

    def matrix(self) -> pd.DataFrame:
        """Elo of every model (rows) in every category (columns) and overall."""
        out = {"overall": self.board().set_index("model")["elo"]}
        for c in self.categories:
            out[c] = self.board(c).set_index("model")["elo"]
        return pd.DataFrame(out).loc[list(self.board()["model"])]

    def to_frame(self) -> pd.DataFrame:
        """Every board stacked: ``category`` (``"overall"`` first) and the board's columns."""
        parts = [self.board().assign(category="overall")]
        parts += [self.board(c).assign(category=c) for c in self.categories]
        frame = pd.concat(parts, ignore_index=True)
        return frame[["category", *[c for c in frame.columns if c != "category"]]]

    def _headline(self) -> str:
        return (
            f"{len(self.models)} models × {len(self.categories)} categories ({self.by}), "
            f"category offsets τ = {self.tau_elo:.1f} Elo; {1 - self.alpha:.0%} intervals"
        )

    def __str__(self) -> str:
        head = f"Bradley–Terry with {self._headline()}"
        return head + "\n" + self.matrix().to_string(float_format="%.0f")


@dataclass(frozen=True)
class _Data:
    """Per-category pair statistics over the same models."""

    stats: tuple[PairStats, ...]
    m: int

    def objective(
        self, phi: np.ndarray, lam: float, tau: float
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """Negative log posterior of (θ, δ), its gradient and dense Hessian."""
        m = self.m
        theta = phi[:m]
        value = lam * theta @ theta
        grad = np.zeros_like(phi)
        hess = np.zeros((len(phi), len(phi)))
        grad[:m] = 2 * lam * theta
        hess[:m, :m] = 2 * lam * np.eye(m)
        for k, stats in enumerate(self.stats):
            block = slice(m * (1 + k), m * (2 + k))
            delta = phi[block]
            v, g, h = bt_objective(theta + delta, stats, 0.0)
            value += v + delta @ delta / (2 * tau**2)
            grad[:m] += g
            grad[block] += g + delta / tau**2
            hess[:m, :m] += h
            hess[:m, block] += h
            hess[block, :m] += h
            hess[block, block] += h + np.eye(m) / tau**2
        return value, grad, hess


def _factor(hess: np.ndarray, m: int, pinned: bool) -> tuple:
    """Cholesky factor of H (+ uuᵀ on θ when λ = 0: the one direction H cannot see)."""
    hess = hess.copy()
    if pinned:
        hess[:m, :m] += 1.0 / m
    return cho_factor(hess, check_finite=False)


def _map(data: _Data, lam: float, tau: float, phi0: np.ndarray) -> np.ndarray:
    """MAP (θ, δ) for a given τ by Newton's method with backtracking."""
    m = data.m
    phi = phi0.copy()
    value, grad, hess = data.objective(phi, lam, tau)
    for _ in range(100):
        step = -cho_solve(_factor(hess, m, lam == 0), grad)
        t = 1.0
        while True:
            trial = phi + t * step
            new_value, new_grad, new_hess = data.objective(trial, lam, tau)
            if new_value <= value + 1e-12 * abs(value) or t < 1e-8:
                break
            t /= 2
        phi, value, grad, hess = trial, new_value, new_grad, new_hess
        if np.max(np.abs(t * step)) < 1e-10:
            break
    if lam == 0:
        phi[:m] -= phi[:m].mean()
    return phi


def _log_evidence(data: _Data, lam: float, tau: float, phi: np.ndarray) -> float:
    """Laplace approximation of log p(y | τ) up to a constant (module docstring)."""
    m, c = data.m, len(data.stats)
    value, _, hess = data.objective(phi, lam, tau)
    # value = −ℓ + λ‖θ‖² + ‖δ‖²/(2τ²); the λ term is the same for every τ
    if lam == 0:
        hess = hess + _u(m, len(phi))
    _, logdet = np.linalg.slogdet(hess)
    return float(-value - m * c * np.log(tau) - 0.5 * logdet)


def _u(m: int, size: int) -> np.ndarray:
    """uuᵀ with u = (1, …, 1, 0, …)/√m: closes the θ shift that λ = 0 leaves open."""
    out = np.zeros((size, size))
    out[:m, :m] = 1.0 / m
    return out


def category_bt(
    battles: Battles,
    *,
    by: str = "category",
    target: str | np.ndarray | None = None,
    lam: float = 0.01,
    category_sd: float | None = None,
    cluster: str | np.ndarray | None = "auto",
    alpha: float = 0.05,
    seed: int = 0,
) -> CategoryElo:
    """Overall and per-category Elo from one hierarchical fit (module docstring).

    Parameters
    ----------
    battles
        Battles with a category column.
    by
        The category column.
    target
        The label (default: the table's default label); ties count ½.
    lam
        L2 penalty λ on the overall strengths θ.
    category_sd
        τ in Elo points, fixed; ``None`` (default): fitted by empirical Bayes.
    cluster
        Sandwich over prompt clusters (``"auto"``: ``prompt_id`` when present), a column,
        labels, or ``None`` (battles).
    alpha, seed
        Interval level; seed of the normal draws behind the rank-sets.

    Returns
    -------
    CategoryElo
    """
    used = battles.used(target)
    labels = pd.Series(battles.column(by))
    missing = labels.isna().to_numpy()[used.rows]
    if missing.any():
        row = int(used.rows[np.flatnonzero(missing)[0]])
        raise DataError("missing category", row=row, column=by, expected="a category name")
    category = labels.to_numpy()[used.rows].astype(str)
    names = tuple(sorted(set(category)))
    a_all, b_all = battles.codes()
    a, b = a_all[used.rows], b_all[used.rows]
    w = used.weights
    m = len(battles.models)
    stats, cells = [], []
    for name in names:
        mask = category == name
        s = PairStats.from_battles(
            a[mask],
            b[mask],
            used.values[mask],
            battles.models,
            weights=None if w is None else w[mask],
        )
        stats.append(s)
        cells.append(np.flatnonzero(mask))
    data = _Data(tuple(stats), m)
    c = len(names)
    phi0 = np.zeros(m * (1 + c))
    if category_sd is not None:
        if category_sd <= 0:
            raise ValueError("category_sd must be > 0")
        tau = category_sd / ELO_SCALE
    else:
        best = minimize_scalar(
            lambda log_tau: (
                -_log_evidence(data, lam, np.exp(log_tau), _map(data, lam, np.exp(log_tau), phi0))
            ),
            bounds=(np.log(1e-3), np.log(5.0)),
            method="bounded",
            options={"xatol": 1e-3},
        )
        tau = float(np.exp(best.x))
    phi = _map(data, lam, tau, phi0)

    # sandwich: one battle's score of each category cell, in (θ, δ_c)
    groups = battle_clusters(battles, cluster, used.rows)
    blocks = []
    for k, (s, rows) in enumerate(zip(stats, cells, strict=True)):
        theta_c = phi[:m] + phi[m * (1 + k) : m * (2 + k)]
        p = expit(theta_c[s.i] - theta_c[s.j])
        resid = s.cell_weight * (s.cell_target - p[s.cell_pair])
        inc = cell_incidence(s).multiply(resid[:, None]).tocsr()
        pieces = [inc] + [inc if j == k else csr_matrix((inc.shape[0], m)) for j in range(c)]
        scores = hstack(pieces).tocsr()
        if groups is None:
            blocks.append(scores.multiply(np.sqrt(s.cell_count)[:, None]).tocsr())
        else:
            cell = s.cell_index(a[rows], b[rows], used.values[rows], None if w is None else w[rows])
            members = csr_matrix(
                (np.ones(len(rows)), (groups.codes[rows], cell)),
                shape=(groups.n_clusters, len(s.cell_pair)),
            )
            blocks.append((members @ scores).tocsr())
    if groups is None:
        stacked = vstack(blocks).tocsr()
    else:
        stacked = blocks[0]
        for more in blocks[1:]:
            stacked = stacked + more
    meat = np.asarray((stacked.T @ stacked).toarray())
    factor = _factor(data.objective(phi, lam, tau)[2], m, lam == 0)
    cov = cho_solve(factor, cho_solve(factor, meat).T)
    return CategoryElo(
        models=battles.models,
        categories=names,
        theta=phi[:m],
        delta=phi[m:].reshape(c, m),
        tau=tau,
        cov=cov,
        n_battles=np.array([s.battles_per_model() for s in stats]),
        alpha=alpha,
        seed=seed,
        by=by,
        cluster=None if groups is None else groups.column,
        n_clusters=None if groups is None else groups.n_clusters,
    )
