r"""Self- and family-preference: does a judge favour its own models beyond what humans see?

The multi-judge model of :mod:`judgebayes.consensus.bayes` (after Zhang et al., *UDA:
Unsupervised Debiasing Alignment for Pair-wise LLM-as-a-Judge*, AAAI 2026, whose Figure 2
measures self-preference as a deviation of Elo tables) gives a judge's self-preference η as
the extra log-odds it gives its own model. There it is measured against the judges'
consensus; with human labels it can be measured against the humans *on the same battles*,
which is the real test: a judge whose own model is simply good is not self-preferring.

On the labelled battles the judge called decisively (first or second wins), with h the
human outcome (first wins, tie, second wins), s = o_a − o_b ∈ {−1, 0, 1} (o_m = 1 for the
judge's own models, a shown first) and d_h = +1, 0, −1 for h = first, tie, second,

    logit P(judge says "first wins" | h, s) = α_h + η·s + δ·s·d_h,

a logistic regression with one intercept per human outcome (the judge's confusion by
position, which absorbs its accuracy and its position bias) and two slopes. Seen from its
own model's side, η raises the log-odds of "my model wins" whatever the humans say: that is
self-preference. δ raises it where the humans say the own model won and lowers it where they
say it lost: the judge is *more accurate* on battles of its own models (a ΔJ of Fiedler,
*Bias and Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939), which without
δ would pass for self-preference whenever the own model wins (or loses) most of its
battles. Under the judge story of :mod:`judgebayes.auditing.simulate` (and of
:mod:`judgebayes.rankings.simulate` with favouritism δ_own = η/2) the model holds with δ = 0.
The fit is maximum likelihood (Newton–Raphson on five parameters: SciPy has no logistic
regression, and statsmodels is not a dependency), the intervals Wald's from the observed
information. Only battles with s ≠ 0 inform η and δ, so their intervals are as wide as the
labels on the judge's own models are few — which the report says, with their number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes.auditing.estimates import Estimate, normal_p, wald
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData, outcome_codes

__all__ = ["SelfPreference", "self_preference"]

_RIDGE = 1e-3  # a tiny ridge keeps the MLE finite where a class has one verdict only


@dataclass(frozen=True, repr=False)
class SelfPreference(ResultDisplay):
    """η of one judge towards its own models (module docstring).

    Attributes
    ----------
    judge
        The judge.
    own
        Its own models (a family when several).
    eta
        η (logit scale) with its Wald interval.
    accuracy
        δ: the extra log-odds of a right verdict on battles of its own models.
    p
        Two-sided p-value of η = 0.
    n_own
        Labelled battles with a decisive verdict where exactly one side is its own model.
    n
        Labelled battles with a decisive verdict (all inform the intercepts).
    judge_own_wins, human_own_wins
        On those ``n_own`` battles: the share the judge gives to its own model (decisive
        verdicts) and the share the humans give (decisive labels).
    """

    judge: str
    own: tuple[str, ...]
    eta: Estimate
    accuracy: Estimate
    p: float
    n_own: int
    n: int
    judge_own_wins: float
    human_own_wins: float

    def _headline(self) -> str:
        return (
            f"{self.judge} on {', '.join(self.own)}: η = {self.eta.text(2, signed=True)} "
            f"(logit), p = {self.p:.3g}, {self.n_own} labelled battles of its own models"
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "judge": self.judge,
                    "own": ", ".join(self.own),
                    "eta": self.eta.estimate,
                    "eta_lo": self.eta.lo,
                    "eta_hi": self.eta.hi,
                    "se": self.eta.se,
                    "p": self.p,
                    "delta": self.accuracy.estimate,
                    "delta_lo": self.accuracy.lo,
                    "delta_hi": self.accuracy.hi,
                    "n_own": self.n_own,
                    "n": self.n,
                    "judge_own_wins": self.judge_own_wins,
                    "human_own_wins": self.human_own_wins,
                }
            ]
        )


def _logistic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ridge-stabilised logistic MLE by Newton–Raphson: coefficients and their covariance."""
    beta = np.zeros(x.shape[1])
    ridge = _RIDGE * np.eye(x.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (y - p) - ridge @ beta
        info = (x * (p * (1 - p))[:, None]).T @ x + ridge
        step = np.linalg.solve(info, grad)
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(x @ beta)))
    info = (x * (p * (1 - p))[:, None]).T @ x + ridge
    return beta, np.linalg.inv(info)


def self_preference(
    data: RankingData,
    judge: str,
    own: str | Sequence[str],
    *,
    alpha: float = 0.05,
) -> SelfPreference | None:
    """η of ``judge`` towards ``own`` against the humans (module docstring).

    Returns ``None`` when no labelled battle with a decisive verdict has exactly one of
    ``own`` in it.

    Raises
    ------
    DataError
        When a model of ``own`` is not in the battles.
    """
    own = (own,) if isinstance(own, str) else tuple(own)
    unknown = [m for m in own if m not in data.models]
    if unknown:
        raise DataError(
            f"--own {judge}={unknown[0]}: {unknown[0]!r} is not a model of the battles",
            column="model_a/model_b",
            expected=f"one of the {data.n_models} models",
        )
    h = outcome_codes(data.human)
    v = outcome_codes(data.verdict(judge))
    mine = np.isin(np.asarray(data.models), own).astype(float)
    s = mine[data.a] - mine[data.b]
    use = (h >= 0) & ((v == 0) | (v == 2))
    if not (use & (s != 0)).any():
        return None
    d = np.select([h == 0, h == 2], [1.0, -1.0], 0.0)
    x = np.column_stack([(h[use] == k).astype(float) for k in range(3)] + [s[use], s[use] * d[use]])
    x = x[:, np.r_[x[:, :3].any(axis=0), True, True]]  # drop an outcome no battle has
    y = (v[use] == 0).astype(float)
    beta, cov = _logistic(x, y)
    eta = wald("eta", float(beta[-2]), float(np.sqrt(cov[-2, -2])), alpha=alpha)
    accuracy = wald("delta", float(beta[-1]), float(np.sqrt(cov[-1, -1])), alpha=alpha)
    one = use & (s != 0)
    # from the own model's side: it wins when it is first and "first" is called, or second
    judge_own = np.mean(np.where(s[one] > 0, v[one] == 0, v[one] == 2))
    human_dec = one & ((h == 0) | (h == 2))
    human_own = (
        float(np.mean(np.where(s[human_dec] > 0, h[human_dec] == 0, h[human_dec] == 2)))
        if human_dec.any()
        else np.nan
    )
    return SelfPreference(
        judge=judge,
        own=own,
        eta=eta,
        accuracy=accuracy,
        p=float(normal_p(eta.estimate, eta.se)),
        n_own=int(one.sum()),
        n=int(use.sum()),
        judge_own_wins=float(judge_own),
        human_own_wins=human_own,
    )


def self_preferences(
    data: RankingData, own: Mapping[str, Sequence[str]], *, alpha: float = 0.05
) -> dict[str, SelfPreference | None]:
    """:func:`self_preference` of every judge named in ``own`` (``{judge: its models}``)."""
    unknown = [j for j in own if j not in data.judges]
    if unknown:
        raise DataError(
            f"--own names the judge {unknown[0]!r}, which is not in the data",
            column="judge",
            expected=f"one of {list(data.judges)}",
        )
    return {j: self_preference(data, j, models, alpha=alpha) for j, models in own.items()}
