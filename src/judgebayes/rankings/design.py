"""The battles an M-estimator of :mod:`judgebayes.rankings` uses, as BT pair statistics.

Both frequentist estimators that combine human labels with judge verdicts
(:mod:`~judgebayes.rankings.ppi_bt`, :mod:`~judgebayes.rankings.soft_targets`) fit
Bradley–Terry (Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation*, 2026, arXiv:2606.13221, Eq. 1) on per-battle weights and targets,
and build a sandwich covariance from per-battle gradients g_i = (σ(d_i) − t_i)·x_i, x_i = e_a − e_b,
and the Hessian H = mean_i σ(d_i)(1 − σ(d_i)) x_i x_iᵀ. :class:`BattleDesign` holds what those
computations share; :func:`split_battles` picks the battles (labelled and judge-only) that carry
every verdict the estimator reads.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import expit

from judgebayes.core.bt import solve_map
from judgebayes.core.graph import check_graph
from judgebayes.core.pairs import PairStats
from judgebayes.core.report import DropReport
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData

__all__ = ["BattleDesign", "split_battles"]


def split_battles(
    data: RankingData, judges: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, DropReport]:
    """Labelled and judge-only battles that carry a verdict of every one of ``judges``.

    Returns
    -------
    (labelled, judge_only, verdicts, report)
        Two boolean masks over ``data``'s battles, the verdicts of ``judges`` (all
        battles, one column per judge) and the report with the battles left out counted.
        Without judges (a human-only fit) every unlabelled battle is left out.
    """
    verdicts = data.verdicts[:, [data.judge_index(j) for j in judges]]
    judged = ~np.isnan(verdicts).any(axis=1)
    labelled = data.labelled & judged
    judge_only = ~data.labelled & judged if judges else np.zeros_like(labelled)
    report = data.report.with_excluded(
        "lacks a verdict of " + ", ".join(judges), int((~judged).sum())
    )
    if not judges:
        report = report.with_excluded("no human label", int((~data.labelled).sum()))
    n = int(labelled.sum())
    if n < 2:
        by = f" judged by {list(judges)}" if judges else ""
        raise DataError(
            f"Bradley–Terry needs human-labelled battles{by} (got {n})", expected="at least 2"
        )
    return labelled, judge_only, verdicts, report


class BattleDesign:
    """Battles between ``models`` (a shown first, b second) as pair statistics and rows x_i.

    Parameters
    ----------
    models
        Model names.
    a, b
        Model indices of every battle.

    Raises
    ------
    DataError
        When the battles do not connect every model (BT is then not identified).
    """

    def __init__(self, models: tuple[str, ...], a: np.ndarray, b: np.ndarray) -> None:
        self.models, self.k = models, len(models)
        self.a, self.b = np.asarray(a), np.asarray(b)
        self.stats = PairStats.from_battles(self.a, self.b, np.zeros(len(self.a)), models)
        graph = check_graph(self.stats)
        if not graph.connected:
            raise DataError(graph.describe()[0], expected="one connected comparison graph")
        self.pair, self.first = self.stats.locate(self.a, self.b)
        # the incidence x_i = e_a − e_b of every battle, dense (k is small)
        self.x = np.zeros((len(self.a), self.k))
        rows = np.arange(len(self.a))
        self.x[rows, self.a] = 1.0
        self.x[rows, self.b] = -1.0

    def fit(self, weight: np.ndarray, target: np.ndarray, penalty: float) -> np.ndarray:
        """θ̂ minimising Σ_i w_i·[log(1 + e^{d_i}) − (t_i/w_i)·d_i] + penalty·‖θ‖².

        ``target`` holds the summed targets w_i·t_i (P(a beats b)); the objective is seed
        000's Eq. 1 on the pair sums, solved by :func:`~judgebayes.core.bt.solve_map`.
        """
        oriented = np.where(self.first, target, weight - target)
        m = self.stats.n_pairs
        n_p = np.bincount(self.pair, weight, minlength=m)
        y_p = np.bincount(self.pair, oriented, minlength=m)
        theta, _ = solve_map(self.stats, penalty, {}, n=n_p, y=y_p)
        return theta - theta.mean()

    def probs(self, theta: np.ndarray) -> np.ndarray:
        """σ(θ_a − θ_b) of every battle."""
        return expit(theta[self.a] - theta[self.b])

    def hessian_pinv(self, theta: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """H⁺ for H = mean over the battles (those in ``mask``) of σ(1 − σ) x xᵀ.

        H is a graph Laplacian, null along 1 when the graph is connected, so
        H⁺ = (H + J)⁻¹ − J with J = 11ᵀ/k exactly, where a numerical pseudo-inverse may
        keep the rounding of the null eigenvalue.
        """
        p = self.probs(theta)
        x = self.x if mask is None else self.x[mask]
        w = p * (1 - p) if mask is None else (p * (1 - p))[mask]
        hess = (x * w[:, None]).T @ x / len(w)
        ones = np.full((self.k, self.k), 1.0 / self.k)
        return np.linalg.inv(hess + ones) - ones
