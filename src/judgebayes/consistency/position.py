"""Each judge's preference for the answer shown first, and how it would inflate Consistency."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes._stats import norm_ppf
from judgebayes.consistency.counts import MatchupCounts, matchup_counts
from judgebayes.consistency.score import judge_consistency
from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["PositionBias", "position_bias"]


@dataclass(frozen=True, repr=False)
class PositionBias(ResultDisplay):
    """P(the answer shown first wins), per judge.

    Attributes
    ----------
    judges
        Judge names.
    n
        Contests.
    first_rate, tie_rate, second_rate
        Fractions of contests won by the first-shown answer, tied, won by the
        second.
    p_first
        P(first shown wins) with ties as ½ (Eq. 3's convention); 0.5 = no bias.
    p_first_lo, p_first_hi
        Normal-approximation 1 − α interval of ``p_first``.
    p_value
        Two-sided exact binomial (sign) test of first vs second wins among
        decisive contests (ties carry no position information).
    consistency_pooled, consistency_by_order
        Consistency with both orders pooled (the paper) and per ordered
        matchup; the difference is how much position bias would inflate the
        score without the balanced design.
    alpha
        Interval level.
    """

    judges: tuple[str, ...]
    n: np.ndarray
    first_rate: np.ndarray
    tie_rate: np.ndarray
    second_rate: np.ndarray
    p_first: np.ndarray
    p_first_lo: np.ndarray
    p_first_hi: np.ndarray
    p_value: np.ndarray
    consistency_pooled: np.ndarray
    consistency_by_order: np.ndarray
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(
            {
                "judge": self.judges,
                "n": self.n.astype(int),
                "first_rate": self.first_rate,
                "tie_rate": self.tie_rate,
                "second_rate": self.second_rate,
                "p_first": self.p_first,
                "p_first_lo": self.p_first_lo,
                "p_first_hi": self.p_first_hi,
                "p_value": self.p_value,
                "consistency_pooled": self.consistency_pooled,
                "consistency_by_order": self.consistency_by_order,
                "inflation": self.consistency_by_order - self.consistency_pooled,
            }
        )
        return frame.sort_values("p_first", ascending=False, kind="stable", ignore_index=True)

    def _headline(self) -> str:
        most = int(np.nanargmax(np.abs(self.p_first - 0.5)))
        return (
            f"{len(self.judges)} judges, {int(self.n.sum()):,} contests; P(first shown "
            f"wins) {np.nanmin(self.p_first):.3f}–{np.nanmax(self.p_first):.3f}; most "
            f"biased: {self.judges[most]} {self.p_first[most]:.3f}"
        )

    def __str__(self) -> str:
        return (
            "Position bias: P(first-shown answer wins), ties as ½; consistency pooled "
            "over orders vs per ordered matchup\n"
            + self.to_frame().to_string(
                index=False, float_format="{:.3f}".format, formatters={"p_value": "{:.1e}".format}
            )
        )


def position_bias(
    data: Battles | MatchupCounts, *, alpha: float = 0.05, target: str = "judge_label"
) -> PositionBias:
    """Measure each judge's preference for the answer shown first.

    Parameters
    ----------
    data
        Judged battles with a ``position`` column (which model was shown first)
        or their counts.
    alpha
        Level of the ``p_first`` intervals.
    target
        Label column when ``data`` is :class:`Battles`.

    Returns
    -------
    PositionBias
    """
    if isinstance(data, Battles):
        if "position" not in data:
            raise DataError(
                "position bias needs a 'position' column (which model was shown first: 'a' or 'b')",
                column="position",
            )
        counts = matchup_counts(data, target=target)
    else:
        counts = data
    tot = counts.counts.sum(axis=1)  # (J, 3)
    n = tot.sum(axis=1)
    first, tie, second = (tot[:, k] / n for k in range(3))
    p_first = first + 0.5 * tie
    # per-contest score s ∈ {1, ½, 0}: Var(s) = E[s²] − p² = first + tie/4 − p²
    var = np.maximum(first + 0.25 * tie - p_first**2, 0.0)
    from scipy.stats import binomtest  # ~1 s to import: only when used

    half = norm_ppf(1 - alpha / 2) * np.sqrt(var / n)
    pvals = np.array(
        [
            binomtest(int(f), int(f + s), 0.5).pvalue if f + s > 0 else math.nan
            for f, s in zip(tot[:, 0], tot[:, 2], strict=True)
        ]
    )
    pooled = judge_consistency(counts, pool_orders=True, warn=False).consistency
    by_order = judge_consistency(counts, pool_orders=False, warn=False).consistency
    return PositionBias(
        judges=counts.judges,
        n=n,
        first_rate=first,
        tie_rate=tie,
        second_rate=second,
        p_first=p_first,
        p_first_lo=p_first - half,
        p_first_hi=p_first + half,
        p_value=pvals,
        consistency_pooled=pooled,
        consistency_by_order=by_order,
        alpha=float(alpha),
    )
