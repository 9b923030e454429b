"""Judge against humans on the battles both judged: agreement, κ, J, position bias, ties.

Every statistic here is a function of one 3 × 3 table, the **confusion matrix** C[h, v]:
the labelled battles a judge also judged, counted by the human outcome h (rows) and the
judge's verdict v (columns), both by position: "the answer shown first wins", "tie", "the
answer shown second wins". From it,

* agreement Σ_h C[h, h] / n, and on the battles neither calls a tie (the "decisive"
  agreement Kargi & Salinas report, *From Uncertain Judgments to Calibrated Rankings:
  Conformal Elo Estimation for LLM Evaluation*, 2026, Table 1; the PPR data's README rates);
* Cohen's κ = (p_o − p_e)/(1 − p_e) over the three classes (their Table 1);
* Youden's J = q0 + q1 − 1 of the binary label "this side won" (ties: not won), pooled over
  both sides of every battle (Fiedler, *Bias and Uncertainty in LLM-as-a-Judge
  Estimation*, 2026, arXiv:2605.06939, Section 3: q1 the sensitivity, q0 the specificity);
* position bias, P(v = first | v decisive) − P(h = first | h decisive): how much more often
  the judge calls the answer shown first than the humans do on the same battles;
* tie rates, and P(v = tie | h = tie).

Intervals come from the multinomial bootstrap of the table (battles resampled with
replacement: the table of a resample is Multinomial(n, C/n)), so every replicate costs nine
numbers. The same table per model, from that model's side (it won / tied / lost, by the
humans and by the judge), is :attr:`JudgeAgreement.by_model`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.auditing.estimates import Estimate, from_replicates
from judgebayes.core.board import wilson
from judgebayes.core.results import ResultDisplay
from judgebayes.rankings.data import RankingData, outcome_codes

__all__ = [
    "ITEM_STATISTICS",
    "STATISTICS",
    "JudgeAgreement",
    "confusion_statistics",
    "item_agreement",
    "judge_agreement",
]

STATISTICS = (
    "agreement",
    "decisive agreement",
    "kappa",
    "J",
    "q1",
    "q0",
    "position bias",
    "judge says first",
    "humans say first",
    "judge tie rate",
    "human tie rate",
    "P(judge tie | human tie)",
)
"""The statistics of :func:`confusion_statistics`, in the order of the report."""


def confusion_statistics(table: np.ndarray) -> dict[str, np.ndarray]:
    """The statistics of the module docstring from tables C of shape ``(..., 3, 3)``.

    Returns one array of shape ``table.shape[:-2]`` per name of :data:`STATISTICS`
    (NaN where a denominator is 0).
    """
    c = np.asarray(table, dtype=float)
    n = c.sum(axis=(-2, -1))
    row = c.sum(axis=-1)  # human outcome counts
    col = c.sum(axis=-2)  # judge verdict counts
    diag = np.trace(c, axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = diag / n
        p_e = (row * col).sum(axis=-1) / n**2
        decisive = c[..., 0, 0] + c[..., 0, 2] + c[..., 2, 0] + c[..., 2, 2]
        # "this side won": side A is positive where h = first, side B where h = second
        q1 = (c[..., 0, 0] + c[..., 2, 2]) / (row[..., 0] + row[..., 2])
        neg_a = c[..., 1:, 1:].sum(axis=(-2, -1))  # A did not win, judge: A did not win
        neg_b = c[..., :2, :2].sum(axis=(-2, -1))
        q0 = (neg_a + neg_b) / ((row[..., 1] + row[..., 2]) + (row[..., 0] + row[..., 1]))
        judge_first = col[..., 0] / (col[..., 0] + col[..., 2])
        human_first = row[..., 0] / (row[..., 0] + row[..., 2])
        return {
            "agreement": p_o,
            "decisive agreement": (c[..., 0, 0] + c[..., 2, 2]) / decisive,
            "kappa": (p_o - p_e) / (1.0 - p_e),
            "J": q0 + q1 - 1.0,
            "q1": q1,
            "q0": q0,
            "position bias": judge_first - human_first,
            "judge says first": judge_first,
            "humans say first": human_first,
            "judge tie rate": col[..., 1] / n,
            "human tie rate": row[..., 1] / n,
            "P(judge tie | human tie)": c[..., 1, 1] / row[..., 1],
        }


@dataclass(frozen=True, repr=False)
class JudgeAgreement(ResultDisplay):
    """One judge against the humans (module docstring).

    Attributes
    ----------
    judge
        The judge.
    confusion
        C[h, v] counts, rows the human outcome, columns the verdict (first, tie, second).
    statistics
        ``{name: Estimate}`` for every name of :data:`STATISTICS`.
    by_model
        Per model, from its side: ``model, human, judge, n`` (``human``/``judge`` one of
        ``win, tie, loss``), over the labelled battles.
    first_all
        P(verdict = first | decisive verdict) over every battle the judge judged (labelled
        or not), Wilson interval.
    position_known
        Whether the battles say which answer was shown first; without it "first" is
        ``model_a`` and the position statistics are not interpreted.
    """

    judge: str
    confusion: np.ndarray
    statistics: dict[str, Estimate]
    by_model: pd.DataFrame
    first_all: Estimate
    position_known: bool

    @property
    def n(self) -> int:
        """Labelled battles the judge judged."""
        return int(self.confusion.sum())

    def __getitem__(self, name: str) -> Estimate:
        return self.statistics[name]

    def _headline(self) -> str:
        return (
            f"{self.judge} on {self.n:,} human-labelled battles: agreement "
            f"{self['agreement'].text()}, κ {self['kappa'].text()}, J {self['J'].text()}"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per statistic: ``judge, statistic, estimate, lo, hi, se``."""
        rows = [
            {
                "judge": self.judge,
                "statistic": k,
                **{c: e.to_dict()[c] for c in ("estimate", "lo", "hi", "se")},
            }
            for k, e in self.statistics.items()
        ]
        return pd.DataFrame(rows)

    def confusion_frame(self) -> pd.DataFrame:
        """The confusion matrix, labelled: rows ``human: first wins, ...``."""
        names = ("first wins", "tie", "second wins")
        return pd.DataFrame(
            self.confusion.astype(int),
            index=pd.Index([f"human: {x}" for x in names], name=self.judge),
            columns=[f"judge: {x}" for x in names],
        )


def _by_model(
    models: tuple[str, ...], a: np.ndarray, b: np.ndarray, h: np.ndarray, v: np.ndarray
) -> pd.DataFrame:
    """Counts per model of (human, judge) outcomes from the model's side."""
    side = np.array(["win", "tie", "loss"])
    k = len(models)
    # side A sees codes as they are (0 = A wins = win); side B sees them mirrored
    model = np.concatenate([a, b])
    hh = np.concatenate([h, 2 - h])
    vv = np.concatenate([v, 2 - v])
    counts = np.bincount((model * 3 + hh) * 3 + vv, minlength=k * 9).reshape(k, 3, 3)
    idx = pd.MultiIndex.from_product([models, side, side], names=["model", "human", "judge"])
    return pd.Series(counts.ravel(), index=idx, name="n").reset_index()


def judge_agreement(
    data: RankingData,
    judge: str,
    *,
    position_known: bool = True,
    alpha: float = 0.05,
    n_boot: int = 2000,
    seed: int = 0,
) -> JudgeAgreement | None:
    """The judge against the humans on the battles both judged (module docstring).

    Returns ``None`` when no labelled battle carries the judge's verdict.
    """
    v_all = outcome_codes(data.verdict(judge))
    h_all = outcome_codes(data.human)
    both = (v_all >= 0) & (h_all >= 0)
    if not both.any():
        return None
    h, v = h_all[both], v_all[both]
    table = np.bincount(h * 3 + v, minlength=9).reshape(3, 3)
    n = int(table.sum())
    rng = np.random.default_rng(seed)
    reps = rng.multinomial(n, table.ravel() / n, size=n_boot).reshape(n_boot, 3, 3)
    point = confusion_statistics(table)
    boot = confusion_statistics(reps)
    stats = {
        name: from_replicates(name, float(point[name]), boot[name], alpha=alpha)
        for name in STATISTICS
    }
    judged = v_all >= 0
    first = int((v_all[judged] == 0).sum())
    decisive = int(((v_all[judged] == 0) | (v_all[judged] == 2)).sum())
    if decisive:
        lo, hi = wilson(np.array([first]), np.array([decisive]), alpha)
        first_all = Estimate(
            "judge says first (every battle)",
            first / decisive,
            float(lo[0]),
            float(hi[0]),
            float(np.sqrt(first / decisive * (1 - first / decisive) / decisive)),
            alpha,
            "wilson",
        )
    else:
        first_all = Estimate("judge says first (every battle)", np.nan, np.nan, np.nan)
    by_model = _by_model(data.models, data.a[both], data.b[both], h, v)
    return JudgeAgreement(judge, table, stats, by_model, first_all, position_known)


ITEM_STATISTICS = (
    "agreement",
    "kappa",
    "J",
    "q1",
    "q0",
    "judge positive rate",
    "human positive rate",
)
"""The statistics of :func:`item_agreement`."""


def _item_statistics(table: np.ndarray) -> dict[str, np.ndarray]:
    """Statistics of 2 × 2 tables T[y, ŷ] (human label, judge label), shape (..., 2, 2)."""
    t = np.asarray(table, dtype=float)
    n = t.sum(axis=(-2, -1))
    row, col = t.sum(axis=-1), t.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = (t[..., 0, 0] + t[..., 1, 1]) / n
        p_e = (row * col).sum(axis=-1) / n**2
        q1 = t[..., 1, 1] / row[..., 1]
        q0 = t[..., 0, 0] / row[..., 0]
        return {
            "agreement": p_o,
            "kappa": (p_o - p_e) / (1.0 - p_e),
            "J": q0 + q1 - 1.0,
            "q1": q1,
            "q0": q0,
            "judge positive rate": col[..., 1] / n,
            "human positive rate": row[..., 1] / n,
        }


def item_agreement(
    human: np.ndarray, judge: np.ndarray, *, alpha: float = 0.05, n_boot: int = 2000, seed: int = 0
) -> tuple[np.ndarray, dict[str, Estimate]]:
    """The 2 × 2 table of binary human and judge labels and its statistics with intervals.

    The binary analogue of :func:`judge_agreement` for judged items (Fiedler's setting:
    q1 sensitivity, q0 specificity, J = q0 + q1 − 1), pooled over models; the judge label
    of an item judged several times is the mean over runs, rounded.
    """
    y = np.asarray(human, float).astype(int)
    z = np.rint(np.asarray(judge, float)).astype(int)
    table = np.bincount(y * 2 + z, minlength=4).reshape(2, 2)
    n = int(table.sum())
    rng = np.random.default_rng(seed)
    reps = rng.multinomial(n, table.ravel() / n, size=n_boot).reshape(n_boot, 2, 2)
    point, boot = _item_statistics(table), _item_statistics(reps)
    return table, {
        k: from_replicates(k, float(point[k]), boot[k], alpha=alpha) for k in ITEM_STATISTICS
    }
