"""Bradley–Terry MAP on pair sufficient statistics, on the Elo scale.

Implements Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Eq. 1 (Kargi & Salinas, *From Uncertain
Judgments to Calibrated Rankings*):

    θ̂ = argmax_θ Σ_b [y_b log σ(θ_i − θ_j) + (1 − y_b) log σ(θ_j − θ_i)] − λ‖θ‖²,

with y_b ∈ {0, ½, 1} for hard labels (a tie is y = ½, the same as two half-weight
rows) or y_b ∈ [0, 1] for soft targets, λ = 0.01, and
Elo_i = 1500 + (400 / ln 10)·θ_i. The sum over battles is computed from per-pair
statistics (:class:`~judgebayes.core.pairs.PairStats`). Because every pair's gradient
contributes +g to one model and −g to the other, the stationarity condition
forces Σθ = 0 in every connected component: the penalty alone fixes the origin,
so Elo ratings average 1500 within each component.

The optimiser is SciPy's Newton-CG with the analytic gradient and Hessian (the
objective is strictly convex for λ > 0): faster than ``trust-exact`` and far more
precise than L-BFGS at the same cost (``docs/benchmarks.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from judgebayes.core.battles import Battles
from judgebayes.core.clusters import Clusters, resolve_clusters
from judgebayes.core.davidson import solve_davidson, tie_counts
from judgebayes.core.graph import GraphCheck, check_graph
from judgebayes.core.pairs import PairStats
from judgebayes.core.pinning import map_start
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = [
    "ELO_BASE",
    "ELO_SCALE",
    "EloFit",
    "bt_objective",
    "elo_to_theta",
    "fit_bt",
    "newton_map",
    "solve_one",
    "theta_to_elo",
]

Ties = Literal["half", "davidson"]

ELO_SCALE = 400.0 / np.log(10.0)
"""Elo points per unit of θ: 400 / ln 10 ≈ 173.7 (Kargi & Salinas, 2026, Section 3.1)."""
ELO_BASE = 1500.0
"""Elo of θ = 0, the mean strength (Kargi & Salinas, 2026, Section 3.1)."""


def theta_to_elo(theta: np.ndarray | float) -> np.ndarray | float:
    """Elo = 1500 + (400 / ln 10)·θ (Kargi & Salinas, 2026, Section 3.1)."""
    return ELO_BASE + ELO_SCALE * np.asarray(theta)


def elo_to_theta(elo: np.ndarray | float) -> np.ndarray | float:
    """Inverse of :func:`theta_to_elo`."""
    return (np.asarray(elo) - ELO_BASE) / ELO_SCALE


def bt_objective(
    theta: np.ndarray,
    stats: PairStats,
    lam: float,
    n: np.ndarray | None = None,
    y: np.ndarray | None = None,
    *,
    hessian: bool = True,
) -> tuple[float, np.ndarray, np.ndarray | None]:
    """Negative penalised log-likelihood of Eq. 1, its gradient and (optionally) Hessian.

    Parameters
    ----------
    theta
        Strengths, shape ``(n_models,)``.
    stats
        Pair statistics (indices); ``n`` and ``y`` override its counts and sums.
    lam
        L2 penalty λ.
    hessian
        Also build the dense Hessian (``None`` otherwise).
    """
    n = stats.n if n is None else n
    y = stats.y if y is None else y
    d = theta[stats.i] - theta[stats.j]
    value = -np.sum(y * log_expit(d) + (n - y) * log_expit(-d)) + lam * theta @ theta
    p = expit(d)
    resid = y - n * p
    m = stats.n_models
    grad = -(np.bincount(stats.i, resid, minlength=m) - np.bincount(stats.j, resid, minlength=m))
    grad = grad.astype(float, copy=False)  # bincount over no pairs gives int64
    grad += 2.0 * lam * theta
    if not hessian:
        return float(value), grad, None
    hess = _laplacian(stats.i, stats.j, n * p * (1.0 - p), m)
    hess[np.diag_indices(m)] += 2.0 * lam
    return float(value), grad, hess


def _laplacian(i: np.ndarray, j: np.ndarray, w: np.ndarray, m: int) -> np.ndarray:
    """Weighted graph Laplacian Σ_pairs w (e_i − e_j)(e_i − e_j)ᵀ."""
    keys = np.concatenate([i * m + i, j * m + j, i * m + j, j * m + i])
    out = np.bincount(keys, np.concatenate([w, w, -w, -w]), minlength=m * m)
    return out.astype(float, copy=False).reshape(m, m)  # int64 over no pairs


@dataclass(frozen=True, repr=False)
class EloFit(ResultDisplay):
    """A Bradley–Terry MAP fit on the Elo scale.

    Attributes
    ----------
    models
        Model names.
    theta
        Strengths on the logit scale.
    n_battles
        Battles each model took part in.
    lam
        L2 penalty λ of Eq. 1.
    target
        Which target was fitted (column name, or ``"target"`` for an array).
    fixed
        Models whose strength was held fixed (anchors).
    graph
        Connectivity and degenerate-model report.
    report
        Rows received, dropped and not used.
    n_iter
        Optimiser iterations.
    ties
        ``"half"``: a tie is half a win (Eq. 1); ``"davidson"``: Davidson's tie model
        (:mod:`judgebayes.core.davidson`).
    kappa
        κ = log ν of the Davidson fit (−inf when the data hold no tie: Davidson is then
        Bradley–Terry); ``None`` for ``ties="half"``.
    """

    models: tuple[str, ...]
    theta: np.ndarray
    n_battles: np.ndarray
    lam: float
    target: str
    fixed: tuple[str, ...]
    graph: GraphCheck
    report: DropReport
    n_iter: int
    ties: str = "half"
    kappa: float | None = None

    @property
    def tie_nu(self) -> float | None:
        """Davidson's ν = e^κ (``None`` for ``ties="half"``)."""
        return None if self.kappa is None else float(np.exp(self.kappa))

    @property
    def model_name(self) -> str:
        """``"Bradley–Terry"`` or ``"Davidson (ν = …)"``, for display."""
        return "Bradley–Terry" if self.kappa is None else f"Davidson (ν = {self.tie_nu:.3g})"

    @property
    def davidson(self) -> bool:
        """A Davidson fit with ties in the data (ν > 0); else the BT likelihood applies."""
        return self.kappa is not None and bool(np.isfinite(self.kappa))

    @property
    def elo(self) -> np.ndarray:
        """Elo ratings, 1500 + (400 / ln 10)·θ."""
        return np.asarray(theta_to_elo(self.theta))

    def __getitem__(self, model: str) -> float:
        """Elo of one model."""
        return float(self.elo[self.models.index(model)])

    def to_frame(self) -> pd.DataFrame:
        """Leaderboard sorted by Elo: ``model, elo, n_battles`` (+ ``component``)."""
        frame = pd.DataFrame({"model": self.models, "elo": self.elo, "n_battles": self.n_battles})
        if not self.graph.connected:
            comp = self.graph.component_of()
            frame["component"] = [comp[m] for m in self.models]
        return frame.sort_values("elo", ascending=False, ignore_index=True)

    def _headline(self) -> str:
        top = int(np.argmax(self.elo))
        return (
            f"{self.model_name} MAP on {self.target!r}, {len(self.models)} models, "
            f"{self.report.n_used:,} battles; top {self.models[top]} {self.elo[top]:.0f}"
        )

    def __str__(self) -> str:
        head = (
            f"{self.model_name} MAP on {self.target!r} (λ = {self.lam:g}), "
            f"{len(self.models)} models; {self.report}"
        )
        notes = "".join(f"\nnote: {line}" for line in self.graph.describe())
        return head + notes + "\n" + self.to_frame().to_string(index=False, float_format="%.1f")


def as_pair_stats(
    data: Battles | PairStats, target: str | np.ndarray | None, weights: str | np.ndarray | None
) -> tuple[PairStats, str]:
    if isinstance(data, PairStats):
        return data, "target" if target is None else str(target)
    if not isinstance(data, Battles):
        raise TypeError(f"expected Battles or PairStats, got {type(data).__name__}")
    name = data.default_target() if target is None else target
    return data.pair_stats(name, weights=weights), name if isinstance(name, str) else "target"


def as_clustered_stats(
    data: Battles | PairStats,
    target: str | np.ndarray | None,
    weights: str | np.ndarray | None,
    cluster: str | np.ndarray | None,
) -> tuple[PairStats, str, Clusters | None]:
    """Pair statistics, the target's name and the clusters of a board's data.

    ``cluster`` as for :func:`~judgebayes.core.clusters.resolve_clusters`; without
    clusters this is :func:`as_pair_stats`.
    """
    clusters = resolve_clusters(data, cluster, target, weights)
    if clusters is None:
        stats, name = as_pair_stats(data, target, weights)
        return stats, name, None
    name = target if isinstance(target, str) else "target"
    if target is None and isinstance(data, Battles):
        name = data.default_target()
    return clusters.stats, name, clusters


def anchor_theta(stats: PairStats, fixed: Mapping[str, float] | None) -> dict[int, float]:
    """Indices and strengths (θ) of the anchors present in the data."""
    if not fixed:
        return {}
    index = {m: k for k, m in enumerate(stats.models)}
    return {index[m]: float(elo_to_theta(e)) for m, e in fixed.items() if m in index}


def solve_map(
    stats: PairStats,
    lam: float,
    fixed: Mapping[int, float],
    n: np.ndarray | None = None,
    y: np.ndarray | None = None,
    theta0: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """MAP of Eq. 1 over the free models, anchors held at ``fixed`` (θ scale)."""
    theta, free, pin_first = map_start(stats.n_models, lam, fixed, theta0)
    if len(free) == 0:
        return theta, 0

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta[free] = x
        value, grad, _ = bt_objective(theta, stats, lam, n, y, hessian=False)
        return value, grad[free]

    def hess(x: np.ndarray) -> np.ndarray:
        theta[free] = x
        return bt_objective(theta, stats, lam, n, y)[2][np.ix_(free, free)]

    res = minimize(
        fun,
        theta[free],
        jac=True,
        hess=hess,
        method="Newton-CG",
        options={"xtol": 1e-10, "maxiter": 500},
    )
    theta[free] = res.x
    if pin_first:
        theta -= theta.mean()
    return theta, int(res.nit)


def newton_map(
    stats: PairStats,
    lam: float,
    free: np.ndarray,
    n: np.ndarray,
    y: np.ndarray,
    theta0: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> tuple[np.ndarray, int]:
    """MAP of Eq. 1 over the models ``free`` by Newton's method (λ > 0), the rest held.

    The same optimum as :func:`solve_map` (the objective is strictly convex for λ > 0),
    without SciPy's per-call set-up: each iteration is one gradient and Hessian on the
    pairs (:func:`bt_objective`), one Cholesky solve over the free models and a
    backtracking (Armijo) line search that, near the optimum, accepts the full step.
    It stops when the largest step is below ``tol`` (θ units; the error after it is far
    smaller, Newton converging quadratically). SciPy's ``minimize`` costs more set-up
    and line-search bookkeeping per call than the fit itself on a few thousand pairs
    (``docs/benchmarks.md``); the held-out protocol of Kargi & Salinas (2026) runs hundreds
    of such fits, so this small loop is written here rather than taken from SciPy.

    Parameters
    ----------
    stats
        Pair indices (``stats.i``, ``stats.j``, ``stats.n_models``).
    lam
        L2 penalty λ > 0.
    free
        Indices of the models to fit.
    n, y
        Pair counts and summed targets (oriented to ``stats.i``).
    theta0
        Start (and the values of the models outside ``free``).

    Returns
    -------
    (theta, n_iter)
    """
    if lam <= 0:
        raise ValueError("newton_map needs lam > 0 (use solve_map for the plain MLE)")
    theta = np.array(theta0, dtype=float)
    free = np.asarray(free)
    if len(free) == 0:
        return theta, 0
    value, grad, hess = bt_objective(theta, stats, lam, n, y)
    it = 0
    while it < max_iter:
        it += 1
        g = grad[free]
        step = cho_solve(
            cho_factor(hess[np.ix_(free, free)], check_finite=False), -g, check_finite=False
        )
        size = float(np.max(np.abs(step)))
        t, slope = 1.0, float(g @ step)
        while True:
            trial = theta.copy()
            trial[free] += t * step
            new_value, new_grad, new_hess = bt_objective(trial, stats, lam, n, y)
            # Armijo; the second term forgives rounding once the decrease is ~1e-13
            if new_value <= value + 1e-4 * t * slope + 1e-13 * abs(value) or t * size < tol:
                break
            t *= 0.5
        theta, value, grad, hess = trial, new_value, new_grad, new_hess
        if t * size < tol:
            break
    return theta, it


def solve_one(
    opponents: np.ndarray,
    n: np.ndarray,
    wins: np.ndarray,
    lam: float,
    theta0: np.ndarray | float = 0.0,
    *,
    tol: float = 1e-12,
    max_iter: int = 200,
) -> tuple[np.ndarray, int]:
    """MAP strength of one model against opponents held fixed, for many data sets at once.

    Eq. 1 with a single free strength θ (Algorithm 1, step 2 of Kargi & Salinas (2026); every
    within-model bootstrap replicate): maximise
    Σ_p [w_p log σ(θ − θ_p) + (n_p − w_p) log σ(θ_p − θ)] − λθ², one column per data set.
    The gradient g(θ) = Σ_p (w_p − n_p σ(θ − θ_p)) − 2λθ falls strictly, and its root lies in
    [−Σ(n − w)/(2λ), Σw/(2λ)], so a safeguarded Newton iteration (a Newton step inside
    the current bracket, else bisection) finds it for every column together. A scalar
    root-finder (SciPy's ``brentq``, ``newton``) would loop over the columns in Python;
    this is that loop vectorised.

    Parameters
    ----------
    opponents
        Fixed strengths θ_p of the opponents, one per pair, shape ``(P,)``.
    n, wins
        Battle weight and summed target of the model against each opponent, shape
        ``(P,)`` or ``(P, R)`` (R data sets).
    lam
        L2 penalty λ > 0.
    theta0
        Start, scalar or shape ``(R,)``.

    Returns
    -------
    (theta, n_iter)
        θ of shape ``()`` or ``(R,)`` and the iterations used.
    """
    if lam <= 0:
        raise ValueError("solve_one needs lam > 0")
    n, wins = np.asarray(n, dtype=float), np.asarray(wins, dtype=float)
    single = n.ndim == 1
    if single:
        n, wins = n[:, None], wins[:, None]
    opp = np.asarray(opponents, dtype=float)[:, None]
    theta = np.broadcast_to(np.asarray(theta0, dtype=float), (n.shape[1],)).copy()
    lo = -(n - wins).sum(axis=0) / (2.0 * lam) - 1.0
    hi = wins.sum(axis=0) / (2.0 * lam) + 1.0
    active = np.ones(len(theta), dtype=bool)
    it = 0
    while it < max_iter:
        it += 1
        p = expit(theta - opp)
        g = (wins - n * p).sum(axis=0) - 2.0 * lam * theta
        h = (n * p * (1.0 - p)).sum(axis=0) + 2.0 * lam
        lo = np.where(g > 0, theta, lo)
        hi = np.where(g < 0, theta, hi)
        new = theta + g / h
        # bisect where the Newton step leaves the bracket (a step that lands on its end
        # is a converged column's rounding, not a departure)
        new = np.where((new < lo) | (new > hi), 0.5 * (lo + hi), new)
        step = np.abs(new - theta)
        theta = np.where(active, new, theta)
        active &= step >= tol  # converged columns stay where they are
        if not active.any():
            break
    return (theta[0] if single else theta), it


def fit_bt(
    data: Battles | PairStats,
    *,
    target: str | np.ndarray | None = None,
    lam: float = 0.01,
    weights: str | np.ndarray | None = None,
    fixed: Mapping[str, float] | None = None,
    on_disconnected: str = "warn",
    ties: Ties = "half",
) -> EloFit:
    """Fit Bradley–Terry strengths by penalised maximum likelihood (Kargi & Salinas, 2026, Eq. 1).

    Parameters
    ----------
    data
        Battles, or pair statistics already aggregated.
    target
        Label column (``"judge_label"``, ``"human_label"``), soft targets (an array
        of P(A beats B), one per battle) or ``None`` for the table's default label.
    lam
        L2 penalty λ (Kargi & Salinas (2026) use 0.01). ``lam = 0`` gives the plain MLE, which
        needs a connected graph and no all-win / all-loss model; it is centred to
        mean Elo 1500.
    weights
        Battle weights (column name or array); default the ``weight`` column or 1.
    fixed
        ``{model: elo}`` anchors held fixed while the other models are fitted
        (Kargi & Salinas, 2026, Algorithm 1, step 2); names absent from the data are ignored.
        The penalty then applies to the free models only.
    on_disconnected
        ``"warn"`` (default): fit, warn, and list the components in the result;
        ``"raise"``: raise :class:`DataError`.
    ties
        ``"half"`` (default): a tie is half a win, Eq. 1. ``"davidson"``: Davidson's
        model, with its tie parameter ν fitted too (:mod:`judgebayes.core.davidson`;
        hard labels only). Both give Elo on the same scale (log-odds of winning a
        decisive battle).

    Returns
    -------
    EloFit
    """
    if ties not in ("half", "davidson"):
        raise ValueError(f"ties must be 'half' or 'davidson', got {ties!r}")
    if lam < 0:
        raise ValueError(f"lam must be >= 0, got {lam}")
    if on_disconnected not in ("warn", "raise"):
        raise ValueError("on_disconnected must be 'warn' or 'raise'")
    stats, name = as_pair_stats(data, target, weights)
    fixed_theta = anchor_theta(stats, fixed)
    graph = check_graph(stats)
    if not fixed_theta:
        if not graph.connected and (on_disconnected == "raise" or lam == 0):
            raise DataError(
                graph.describe()[0] + ("; use lam > 0 or fit each component" if lam == 0 else "")
            )
        if lam == 0 and (graph.all_wins or graph.all_losses):
            raise DataError(
                "the MLE does not exist: " + "; ".join(graph.describe()) + "; use lam > 0"
            )
        graph.warn(stacklevel=3)
    kappa = None
    if ties == "davidson":
        tie_total = tie_counts(stats)
        kappa = -np.inf
        if tie_total.sum() > 0:
            theta, kappa, nit = solve_davidson(stats, lam, fixed_theta, tie_total)
    if kappa is None or not np.isfinite(kappa):  # no ties: Davidson with ν = 0 is BT
        theta, nit = solve_map(stats, lam, fixed_theta)
    return EloFit(
        models=stats.models,
        theta=theta,
        n_battles=stats.battles_per_model(),
        lam=lam,
        target=name,
        fixed=tuple(stats.models[k] for k in sorted(fixed_theta)),
        graph=graph,
        report=stats.report,
        n_iter=nit,
        ties=ties,
        kappa=kappa,
    )
