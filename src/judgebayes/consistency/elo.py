"""How well Consistency tracks the judges' Arena Elo (Ramaswamy, Demeure & Rrapaj, *Model
Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510,
Section 3.2).

Pearson and Spearman correlation, mean rank displacement, and the regression
MAE of Elo predicted from Consistency, in-sample and leave-one-judge-out; and
:func:`read_elo` for the Elo tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes._stats import linregress_line
from judgebayes.consistency.counts import elo_vector
from judgebayes.consistency.score import JudgeConsistency, judge_values
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["EloAgreement", "compare_elo", "read_elo"]


def read_elo(path: str | Path, *, key: str | None = None) -> pd.Series:
    """An Elo table (CSV with a name column and ``arena_elo`` or ``elo``) as a Series.

    Parameters
    ----------
    path
        CSV such as ``judge,arena_elo`` or ``model,arena_elo``.
    key
        The name column (default: ``judge`` or ``model``, whichever exists,
        else the first column).

    Returns
    -------
    pandas.Series
        Elo indexed by name.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"no such file: {path}", expected="a CSV with columns judge,arena_elo")
    frame = pd.read_csv(path)
    if key is None:
        key = next((c for c in ("judge", "model") if c in frame), frame.columns[0])
    value = next((c for c in ("arena_elo", "elo") if c in frame), None)
    if key not in frame or value is None:
        raise DataError(
            f"{path.name} has columns {list(frame.columns)}",
            column=key,
            expected="a name column (judge or model) and an 'arena_elo' column",
        )
    elo = pd.to_numeric(frame[value], errors="coerce")
    bad = elo.isna() | ~np.isfinite(elo.fillna(0))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(
            f"{path.name}: Elo is not a number",
            row=row,
            column=value,
            got=frame[value].iloc[row],
            expected="a finite number",
        )
    names = frame[key].astype(str)
    dup = names.duplicated().to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        raise DataError(
            f"{path.name}: duplicate name",
            row=row,
            column=key,
            got=names.iloc[row],
            expected="each name once",
        )
    return pd.Series(elo.to_numpy(float), index=pd.Index(names, name=key), name=value)


@dataclass(frozen=True, repr=False)
class EloAgreement(ResultDisplay):
    """How well Consistency tracks the judges' Arena Elo (Ramaswamy et al., 2025, Section 3.2).

    Two regressions predict Elo from Consistency C:

    * *direct*: ordinary least squares of Elo on C (Elo = a + b·C), the
      regression that minimises the prediction error it is judged by;
    * *inverse*: the paper's (authors' code): least squares of C on Elo, the
      line of Figure 1, inverted (Elo = (C − a')/b'). Its MAE is the paper's
      35.2 Elo (with the unrounded Arena Elo the authors used).

    Both come in-sample and leave-one-judge-out (each judge predicted by a line
    fitted to the others).

    Attributes
    ----------
    judges, consistency, elo
        Per judge.
    pearson, pearson_pvalue, spearman, spearman_pvalue
        Correlation of Consistency with Elo.
    rank_consistency, rank_elo
        Ranks (1 = highest; ties averaged).
    rank_displacement
        Mean |rank by Consistency − rank by Elo| (the paper's "within 2.8 positions").
    intercept, slope
        Direct regression Elo = intercept + slope·C (all judges).
    predicted, predicted_loo
        Direct-regression predictions, in-sample and leave-one-judge-out.
    predicted_inverse, predicted_inverse_loo
        Inverse-regression predictions.
    """

    judges: tuple[str, ...]
    consistency: np.ndarray
    elo: np.ndarray
    pearson: float
    pearson_pvalue: float
    spearman: float
    spearman_pvalue: float
    rank_consistency: np.ndarray
    rank_elo: np.ndarray
    intercept: float
    slope: float
    predicted: np.ndarray
    predicted_loo: np.ndarray
    predicted_inverse: np.ndarray
    predicted_inverse_loo: np.ndarray

    @property
    def rank_displacement(self) -> float:
        return float(np.mean(np.abs(self.rank_consistency - self.rank_elo)))

    @property
    def mae(self) -> float:
        """Direct regression, in-sample."""
        return float(np.mean(np.abs(self.predicted - self.elo)))

    @property
    def mae_loo(self) -> float:
        """Direct regression, leave-one-judge-out."""
        return float(np.mean(np.abs(self.predicted_loo - self.elo)))

    @property
    def mae_inverse(self) -> float:
        """The paper's inverted regression, in-sample."""
        return float(np.mean(np.abs(self.predicted_inverse - self.elo)))

    @property
    def mae_inverse_loo(self) -> float:
        """The paper's inverted regression, leave-one-judge-out."""
        return float(np.mean(np.abs(self.predicted_inverse_loo - self.elo)))

    def to_frame(self) -> pd.DataFrame:
        """One row per judge, highest Elo first."""
        frame = pd.DataFrame(
            {
                "judge": self.judges,
                "consistency": self.consistency,
                "arena_elo": self.elo,
                "rank_consistency": self.rank_consistency,
                "rank_elo": self.rank_elo,
                "rank_shift": self.rank_consistency - self.rank_elo,
                "elo_pred": self.predicted,
                "elo_pred_loo": self.predicted_loo,
                "elo_pred_inverse": self.predicted_inverse,
                "elo_pred_inverse_loo": self.predicted_inverse_loo,
            }
        )
        return frame.sort_values("arena_elo", ascending=False, kind="stable", ignore_index=True)

    def to_dict(self) -> dict[str, float | int]:
        return {
            "n_judges": len(self.judges),
            "pearson": self.pearson,
            "pearson_pvalue": self.pearson_pvalue,
            "spearman": self.spearman,
            "spearman_pvalue": self.spearman_pvalue,
            "rank_displacement": self.rank_displacement,
            "intercept": self.intercept,
            "slope": self.slope,
            "mae": self.mae,
            "mae_loo": self.mae_loo,
            "mae_inverse": self.mae_inverse,
            "mae_inverse_loo": self.mae_inverse_loo,
        }

    def plot(self, ax: Axes | None = None, *, labels: bool = True) -> Axes:
        """Figure 1: Consistency against Arena Elo with the fitted line."""
        ax = panel_axes(ax, (7, 5))
        ax.scatter(self.elo, self.consistency, color="#1f5fa8", zorder=3)
        a, b = linregress_line(self.elo, self.consistency)
        xs = np.linspace(self.elo.min(), self.elo.max(), 50)
        ax.plot(xs, a + b * xs, "--", color="#c2185b", label=f"Pearson r = {self.pearson:.2f}")
        if labels:
            for name, x, y in zip(self.judges, self.elo, self.consistency, strict=True):
                ax.annotate(name, (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
        ax.set_xlabel("Arena Elo of the judge")
        ax.set_ylabel("Consistency")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", frameon=False)
        return ax

    def _headline(self) -> str:
        return (
            f"{len(self.judges)} judges; Pearson r {self.pearson:.3f}, Spearman ρ "
            f"{self.spearman:.3f}, mean rank displacement {self.rank_displacement:.2f}; "
            f"Elo MAE {self.mae:.1f} (leave-one-judge-out {self.mae_loo:.1f})"
        )

    def __str__(self) -> str:
        d = self.to_dict()
        return (
            f"Consistency vs Arena Elo over {d['n_judges']} judges: Pearson r = "
            f"{self.pearson:.3f} (p = {self.pearson_pvalue:.1e}), Spearman ρ = "
            f"{self.spearman:.3f}; mean rank displacement {self.rank_displacement:.2f}\n"
            f"Elo from Consistency, MAE: OLS Elo~C {self.mae:.1f} (leave-one-judge-out "
            f"{self.mae_loo:.1f}); paper's inverted C~Elo line {self.mae_inverse:.1f} "
            f"(leave-one-judge-out {self.mae_inverse_loo:.1f})"
        )


def compare_elo(
    result: JudgeConsistency | Mapping[str, float] | pd.Series,
    judge_elo: Mapping[str, float] | pd.Series,
) -> EloAgreement:
    """Correlation, rank displacement and regression MAE of Consistency vs Elo.

    Parameters
    ----------
    result
        Consistency scores (a :class:`JudgeConsistency` or ``{judge: score}``).
    judge_elo
        Arena Elo of every judge (extra entries are ignored).

    Returns
    -------
    EloAgreement
    """
    judges, c = judge_values(result)
    if len(judges) < 3:
        raise DataError(f"need at least 3 judges to compare with Elo, got {len(judges)}")
    if not np.all(np.isfinite(c)):
        raise DataError("a judge has no Consistency score (no contests)", column="consistency")
    e = elo_vector(judge_elo, judges, "judge")
    from scipy import stats  # ~1 s to import: only when used

    pr = stats.pearsonr(c, e)
    sr = stats.spearmanr(c, e)
    a, b = linregress_line(c, e)
    a_inv, b_inv = linregress_line(e, c)
    n = len(judges)
    loo, loo_inv = np.empty(n), np.empty(n)
    for k in range(n):
        rest = np.arange(n) != k
        ak, bk = linregress_line(c[rest], e[rest])
        loo[k] = ak + bk * c[k]
        ak, bk = linregress_line(e[rest], c[rest])
        loo_inv[k] = (c[k] - ak) / bk
    return EloAgreement(
        judges=judges,
        consistency=c,
        elo=e,
        pearson=float(pr.statistic),
        pearson_pvalue=float(pr.pvalue),
        spearman=float(sr.statistic),
        spearman_pvalue=float(sr.pvalue),
        rank_consistency=stats.rankdata(-c),
        rank_elo=stats.rankdata(-e),
        intercept=a,
        slope=b,
        predicted=a + b * c,
        predicted_loo=loo,
        predicted_inverse=(c - a_inv) / b_inv,
        predicted_inverse_loo=loo_inv,
    )
