"""Both orders: does the judge's verdict depend on which answer it saw first? (Consistency.)

Where a judge saw pairs of models in both orders, three things can be read without any
human label:

* P(the judge says "first wins" | a decisive verdict) over the battles of those pairs: ½
  for a judge without position bias when each order is about as frequent (its excess over ½
  is the position bias, on the scale of :mod:`judgebayes.auditing.humans`'s);
* the Consistency score of Ramaswamy, Demeure & Rrapaj (*Model Consistency as a Cheap yet
  Predictive Proxy for LLM Elo Scores*, Eqs. 1–3, :func:`~judgebayes.judge_consistency`):
  1 − 4 × the mean Bernoulli variance of its verdicts per pair of models, both orders pooled;
* where one prompt's pair was judged in both orders, the share of such prompts whose two
  verdicts agree once the second is mirrored (swap agreement).
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
    """One judge on pairs judged in both orders (module docstring).

    Attributes
    ----------
    judge
        The judge.
    n_pairs
        Pairs of models it judged in both orders.
    first_rate
        P(judge says first | decisive verdict) on their battles (Wilson interval).
    consistency
        The Consistency score with its standard error (normal interval).
    n_prompts
        (prompt, pair) judged in both orders.
    swap_agreement
        Share of those whose two verdicts agree after mirroring (Wilson), or ``None``.
    """

    judge: str
    n_pairs: int
    first_rate: Estimate
    consistency: Estimate
    n_prompts: int = 0
    swap_agreement: Estimate | None = None

    @property
    def position_bias(self) -> Estimate:
        """P(judge says first) − ½ on the pairs judged in both orders."""
        f = self.first_rate
        return Estimate(
            "position bias (both orders)",
            f.estimate - 0.5,
            f.lo - 0.5,
            f.hi - 0.5,
            f.se,
            f.alpha,
            f.method,
        )

    def _headline(self) -> str:
        swap = (
            f"; on {self.n_prompts:,} prompts seen in both orders the verdicts agree "
            f"{self.swap_agreement.text(2)}"
            if self.swap_agreement is not None
            else ""
        )
        return (
            f"{self.judge}: {self.n_pairs:,} pairs of models judged in both orders: says "
            f"'first wins' on {self.first_rate.text(2)} of its decisive verdicts, Consistency "
            f"{self.consistency.text(3)}{swap}"
        )

    def to_frame(self) -> pd.DataFrame:
        rows = [self.first_rate, self.consistency]
        if self.swap_agreement is not None:
            rows.append(self.swap_agreement)
        return pd.DataFrame(
            [
                {
                    "judge": self.judge,
                    "statistic": e.name,
                    **{k: e.to_dict()[k] for k in ("estimate", "lo", "hi", "se")},
                }
                for e in rows
            ]
        ).assign(n_pairs=self.n_pairs, n_prompts=self.n_prompts)


def _wilson(name: str, k: int, n: int, alpha: float) -> Estimate:
    lo, hi = wilson(np.array([k]), np.array([n]), alpha)
    p = k / n
    return Estimate(
        name, p, float(lo[0]), float(hi[0]), float(np.sqrt(p * (1 - p) / n)), alpha, "wilson"
    )


def order_check(inp: AuditInput, judge: str, *, alpha: float = 0.05) -> OrderCheck | None:
    """The judge's verdicts on pairs judged in both orders; ``None`` without any."""
    if not inp.both_orders.get(judge):
        return None
    d = inp.data
    v = outcome_codes(d.verdict(judge))
    judged = v >= 0
    lo, hi = np.minimum(d.a, d.b), np.maximum(d.a, d.b)
    frame = pd.DataFrame({"lo": lo[judged], "hi": hi[judged], "first": d.a[judged], "v": v[judged]})
    both = frame.groupby(["lo", "hi"], sort=False)["first"].transform("nunique").to_numpy() > 1
    decisive = both & frame["v"].isin([0, 2]).to_numpy()
    first = int((frame["v"].to_numpy()[decisive] == 0).sum())
    first_rate = _wilson("says first (both orders)", first, max(int(decisive.sum()), 1), alpha)
    battles = inp.judge_battles(judge).frame.assign(judge=judge)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # low evidence shows in the interval
        cons = judge_consistency(Battles(battles), warn=False)
    consistency = wald("Consistency", float(cons.consistency[0]), float(cons.se[0]), alpha=alpha)
    n_prompts, swap = inp.both_order_prompts.get(judge, 0), None
    if n_prompts:
        frame["prompt"] = inp.prompts[judged]  # type: ignore[index]
        # the verdict from the side of the pair's lower-indexed model: 0 it wins, 2 it loses
        frame["own"] = np.where(frame["first"] == frame["lo"], frame["v"], 2 - frame["v"])
        one = frame.drop_duplicates(["prompt", "lo", "hi", "first"])
        wide = one.pivot_table(
            index=["prompt", "lo", "hi"], columns="first", values="own", aggfunc="first"
        ).to_numpy()
        pairs = [row[np.isfinite(row)] for row in wide]
        agree = np.array([r[0] == r[1] for r in pairs if r.size >= 2])
        swap = _wilson("swap agreement", int(agree.sum()), max(len(agree), 1), alpha)
    return OrderCheck(judge, int(inp.both_orders[judge]), first_rate, consistency, n_prompts, swap)
