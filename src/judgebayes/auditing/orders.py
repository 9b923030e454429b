"""Both orders: does the judge keep its verdict when the answers swap places? (Consistency.)

Where one prompt's pair of answers was judged in both orders, three things can be read
without any human label:

* the share of such prompts whose two verdicts agree once the second is mirrored (a judge
  that picks the answer shown first disagrees with itself);
* P(the judge says "first wins") over those battles, which is ½ for a judge without
  position bias (each answer is first once);
* the Consistency score of Ramaswamy, Demeure & Rrapaj (*Model Consistency as a Cheap yet
  Predictive Proxy for LLM Elo Scores*, Eqs. 1–3, :func:`~judgebayes.judge_consistency`):
  1 − 4 × the mean Bernoulli variance of its verdicts per pair of models, both orders pooled.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.auditing.estimates import Estimate, wald
from judgebayes.auditing.inputs import AuditInput
from judgebayes.consistency.score import judge_consistency
from judgebayes.core.battles import Battles
from judgebayes.core.board import wilson
from judgebayes.core.results import ResultDisplay
from judgebayes.rankings.data import outcome_codes

__all__ = ["OrderCheck", "order_check"]


@dataclass(frozen=True, repr=False)
class OrderCheck(ResultDisplay):
    """One judge on prompts judged in both orders (module docstring).

    Attributes
    ----------
    judge
        The judge.
    n_prompts
        (prompt, pair) judged in both orders.
    swap_agreement
        Share whose two verdicts agree after mirroring (Wilson interval).
    first_rate
        P(judge says first | decisive verdict) on those battles (Wilson interval).
    consistency
        The Consistency score with its standard error (normal interval).
    """

    judge: str
    n_prompts: int
    swap_agreement: Estimate
    first_rate: Estimate
    consistency: Estimate

    def _headline(self) -> str:
        return (
            f"{self.judge}: {self.n_prompts:,} prompts in both orders; swap agreement "
            f"{self.swap_agreement.text()}, says first {self.first_rate.text()}, "
            f"Consistency {self.consistency.text()}"
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "judge": self.judge,
                    "statistic": e.name,
                    **{k: e.to_dict()[k] for k in ("estimate", "lo", "hi", "se")},
                }
                for e in (self.swap_agreement, self.first_rate, self.consistency)
            ]
        ).assign(n_prompts=self.n_prompts)


def _wilson(name: str, k: int, n: int, alpha: float) -> Estimate:
    lo, hi = wilson(np.array([k]), np.array([n]), alpha)
    p = k / n
    return Estimate(
        name, p, float(lo[0]), float(hi[0]), float(np.sqrt(p * (1 - p) / n)), alpha, "wilson"
    )


def order_check(inp: AuditInput, judge: str, *, alpha: float = 0.05) -> OrderCheck | None:
    """The judge's verdicts on prompts judged in both orders; ``None`` without any."""
    if not inp.both_orders.get(judge):
        return None
    d = inp.data
    v = outcome_codes(d.verdict(judge))
    judged = v >= 0
    frame = pd.DataFrame(
        {
            "prompt": inp.prompts[judged],  # type: ignore[index]
            "lo": np.minimum(d.a, d.b)[judged],
            "hi": np.maximum(d.a, d.b)[judged],
            "first": d.a[judged],
            # the verdict from the side of the pair's lower-indexed model: 0 it wins, 2 loses
            "v": np.where(d.a[judged] < d.b[judged], v[judged], 2 - v[judged]),
            "v_pos": v[judged],
        }
    )
    g = frame.groupby(["prompt", "lo", "hi"], sort=False)
    both = g["first"].transform("nunique") > 1
    pairs = frame[both]
    # one verdict per order: the first row of each (prompt, pair, order)
    one = pairs.drop_duplicates(["prompt", "lo", "hi", "first"])
    wide = one.pivot_table(
        index=["prompt", "lo", "hi"], columns="first", values="v", aggfunc="first"
    )
    left = wide.to_numpy()
    agree_rows = [row[np.isfinite(row)] for row in left]
    agree = np.array([r[0] == r[1] for r in agree_rows if r.size >= 2])
    decisive = pairs["v_pos"].isin([0, 2])
    first = int((pairs.loc[decisive, "v_pos"] == 0).sum())
    battles = inp.judge_battles(judge).frame.assign(judge=judge)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # low evidence is shown by the interval
        cons = judge_consistency(Battles(battles), warn=False)
    c = wald("Consistency", float(cons.consistency[0]), float(cons.se[0]), alpha=alpha)
    return OrderCheck(
        judge=judge,
        n_prompts=len(agree),
        swap_agreement=_wilson("swap agreement", int(agree.sum()), max(len(agree), 1), alpha),
        first_rate=_wilson("says first (both orders)", first, max(int(decisive.sum()), 1), alpha),
        consistency=c,
    )
