r"""Verdict-class soft targets: P(humans prefer A | the judges' verdicts), then Bradley–Terry.

Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation*, 2026, arXiv:2606.13221 turns a judge's *score* into a soft target σ(β·s) calibrated on
human labels (Eq. 5) and fits BT on the soft targets (Eq. 1). A judge that gives no score but a
verdict (A, tie, B) can be calibrated the same way, class by class: on the n human-labelled battles,

    p̂_c = (Σ_{i labelled, c(i) = c} y_i + m·ȳ) / (n_c + m),

the mean human outcome P(A beats B) (ties ½) among the battles whose verdict class is c —
the tuple of the judges' verdicts, by position, so a judge that calls "A" whatever it sees
gets p̂_A near the base rate — shrunk towards the labelled mean ȳ with m pseudo-battles
(``prior_count``; a class no labelled battle fell in gets ȳ). Every judge-only battle then
gets the target t_i = p̂_{c(i)}, every labelled battle keeps its human label, and θ̂ is the
BT fit (Eq. 1) on all of them.

Covariance: θ̂ and p̂ solve stacked estimating equations, so the sandwich is built from
per-battle influence terms (two-step M-estimation): with g_i = (t_i − σ(d_i)) x_i and
D_c = Σ_{judge-only, c(i) = c} x_i, a labelled battle i in class c contributes
φ_i = g_i + D_c (y_i − p̂_c)/(n_c + m) and a judge-only battle φ_i = g_i; then
Σ̂ = H⁺ (n Cov_labelled(φ) + N Cov_judge-only(φ)) H⁺ with H = Σ_i σ(1 − σ) x xᵀ.

The estimate is consistent for the human BT strengths θ* when P(humans prefer A | verdicts)
does not depend on which models battle. A judge that favours some models (its own family,
say) breaks that: the soft targets then carry its bias into θ̂, and its narrow intervals
cover less. The benchmark (``bench/ppr_protocol.py``) measures this, judge by judge.

The sandwich is the right *sampling* covariance of θ̂ (on the simulator its SE matches the
estimate's SD over data sets; on PPR's battles with 500 labels it matches the SD over label
draws: gpt-4-0125-preview 5.7 against 5.1 Elo). It is not an interval for the human
Bradley–Terry Elo: even without favouritism a class's soft target averages P(humans prefer
A) over every pair, so strong-against-weak battles get targets pulled towards the class
mean and the Elo spread is attenuated, and on PPR the estimate sits 7 (gpt-4-0125-preview)
to 50 (gpt-3.5-turbo) SEs from the Elo of all 26,919 human labels. That error is bias, which
no resampling of the battles measures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from judgebayes.core.bt import ELO_SCALE, theta_to_elo
from judgebayes.rankings.data import OUTCOMES, RankingData, outcome_codes
from judgebayes.rankings.design import BattleDesign, split_battles
from judgebayes.rankings.elo import EloEstimate

__all__ = ["soft_target_bt", "verdict_calibration"]


def _classes(verdicts: np.ndarray) -> np.ndarray:
    """Verdict class of every battle: Σ_j 3^j·code_j over the judges' codes 0, 1, 2."""
    codes = outcome_codes(verdicts)
    return (codes * 3 ** np.arange(codes.shape[1])).sum(axis=1)


def _table(
    cls: np.ndarray, y: np.ndarray, n_classes: int, prior_count: float
) -> tuple[np.ndarray, np.ndarray]:
    """(p̂_c, n_c + m) per class from the labelled battles' classes ``cls`` and outcomes ``y``."""
    counts = np.bincount(cls, minlength=n_classes)
    sums = np.bincount(cls, y, minlength=n_classes)
    denom = counts + prior_count
    with np.errstate(invalid="ignore"):
        p = (sums + prior_count * y.mean()) / denom
    return np.where(denom > 0, p, y.mean()), denom


def verdict_calibration(
    data: RankingData, judges: str | Sequence[str] | None = None, *, prior_count: float = 1.0
) -> pd.DataFrame:
    """The calibration table p̂_c = P̂(humans prefer A | verdict class c) (module docstring).

    Returns
    -------
    pandas.DataFrame
        One row per verdict class: one column per judge (its verdict, ``A``/``tie``/``B``),
        ``n_labelled`` (labelled battles in the class), ``n_judge_only`` and ``p_a`` (the
        soft target).
    """
    judges = _judges(data, judges)
    lab, unl, verdicts, _ = split_battles(data, judges)
    cls = _classes(verdicts)
    n_classes = 3 ** len(judges)
    p, _ = _table(cls[lab], data.human[lab], n_classes, prior_count)
    digits = (np.arange(n_classes)[:, None] // 3 ** np.arange(len(judges))) % 3
    frame = pd.DataFrame({j: np.take(OUTCOMES, digits[:, k]) for k, j in enumerate(judges)})
    frame["n_labelled"] = np.bincount(cls[lab], minlength=n_classes)
    frame["n_judge_only"] = np.bincount(cls[unl], minlength=n_classes)
    frame["p_a"] = p
    return frame


def _judges(data: RankingData, judges: str | Sequence[str] | None) -> list[str]:
    if judges is None:
        return list(data.judges)
    return [judges] if isinstance(judges, str) else list(judges)


def soft_target_bt(
    data: RankingData,
    judges: str | Sequence[str] | None = None,
    *,
    prior_count: float = 1.0,
    penalty: float = 0.01,
) -> EloEstimate:
    """Bradley–Terry on human labels and verdict-class soft targets (module docstring).

    Parameters
    ----------
    data
        Battles; those with a human label and every judge's verdict calibrate the table,
        the judge-only ones get its soft targets; battles lacking a verdict are not used.
    judges
        One judge or several (their verdicts' joint class); ``None``: every judge.
    prior_count
        Pseudo-battles m shrinking each class's mean towards the labelled mean.
    penalty
        Ridge penalty on θ in battle units (``lam`` of :func:`~judgebayes.core.bt.fit_bt`).

    Returns
    -------
    EloEstimate
        Elo (mean 1500) and its two-step sandwich covariance.
    """
    judges = _judges(data, judges)
    lab, unl, verdicts, report = split_battles(data, judges)
    use = lab | unl
    design = BattleDesign(data.models, data.a[use], data.b[use])
    is_lab = lab[use]
    cls = _classes(verdicts[use])
    y = np.where(is_lab, data.human[use], 0.0)
    p, denom = _table(cls[is_lab], y[is_lab], 3 ** len(judges), prior_count)
    target = np.where(is_lab, y, p[cls])
    theta = design.fit(np.ones(len(target)), target, penalty)
    sigma = design.probs(theta)
    x = design.x
    phi = (target - sigma)[:, None] * x
    # D_c: how the judge-only battles' scores move with p̂_c
    d = np.zeros((len(p), design.k))
    np.add.at(d, cls[~is_lab], x[~is_lab])
    phi[is_lab] += d[cls[is_lab]] * ((y[is_lab] - p[cls[is_lab]]) / denom[cls[is_lab]])[:, None]
    n, big_n = int(is_lab.sum()), int((~is_lab).sum())
    meat = n * np.cov(phi[is_lab].T)
    if big_n > 1:
        meat = meat + big_n * np.cov(phi[~is_lab].T)
    h_inv = design.hessian_pinv(theta) / len(target)  # H⁺ of the summed Hessian
    return EloEstimate(
        models=data.models,
        elo=np.asarray(theta_to_elo(theta)),
        cov=ELO_SCALE**2 * (h_inv @ meat @ h_inv),
        method="soft_targets",
        judges=tuple(judges),
        n_labelled=n,
        n_judged=big_n,
        report=report,
    )
