"""One call from battles to a calibrated board: pick the estimator by name.

:func:`rank_battles` is what ``judgebayes rank`` runs: it reads the battles
(:class:`~judgebayes.Battles` or :class:`~judgebayes.rankings.data.RankingData`), fits the
chosen estimator and returns its :class:`~judgebayes.rankings.ranking.Ranking`;
:func:`judge_report` says what each judge brought: how often it agrees with the humans,
how often it names position A, what its verdicts mean for the humans' preference, and the
estimator's own weight or confusion matrix for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judgebayes.core.battles import Battles
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData
from judgebayes.rankings.ppi_bt import ppi_bt
from judgebayes.rankings.ppr import prediction_powered_ranking
from judgebayes.rankings.ranking import Ranking
from judgebayes.rankings.soft_targets import soft_target_bt, verdict_calibration

__all__ = ["METHODS", "judge_report", "rank_battles"]

METHODS = {
    "ppi-bt": "prediction-powered Bradley–Terry (PPI++, tuned λ per judge)",
    "latent": "Bayesian latent-outcome model, one confusion matrix per judge (MAP + Laplace)",
    "latent-by-model": "the latent-outcome model with each judge's favouritism by model",
    "soft-targets": "Bradley–Terry on verdict-class soft targets",
    "ppr": "Prediction-Powered Ranking (Chatzi et al. 2024): win rates, one judge",
    "human": "Bradley–Terry on the human labels alone",
}
"""The estimators :func:`rank_battles` knows, by name."""


def rank_battles(
    battles: Battles | RankingData,
    method: str = "ppi-bt",
    *,
    judges: Sequence[str] | None = None,
    alpha: float = 0.1,
    seed: int = 0,
    progress: bool = False,
) -> Ranking:
    """The calibrated board of battles where some carry a human label.

    Parameters
    ----------
    battles
        Battles with judge verdicts on all or most of them and a human label on some
        (``human_label`` NaN elsewhere).
    method
        One of :data:`METHODS`.
    judges
        The judges to use (default: all; ``"ppr"`` needs exactly one).
    alpha
        Score intervals and rank-sets at level 1 − α.
    seed
        Seed of the draws behind the rank-sets (and of the posterior draws).
    progress
        Show progress bars.
    """
    if method not in METHODS:
        raise DataError(f"unknown method {method!r}", expected=f"one of {', '.join(METHODS)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    data = battles if isinstance(battles, RankingData) else RankingData.from_battles(battles)
    if judges is not None:
        data = data.with_judges(judges)
    if method == "human":
        return ppi_bt(data, []).ranking(alpha, seed=seed)
    if not data.judges:
        raise DataError(
            f"method {method!r} needs judge verdicts; these battles have none",
            expected="judge_label columns (or --judge NAME=FILE)",
        )
    if method == "ppr":
        if len(data.judges) != 1:
            raise DataError(
                f"PPR uses one judge; these battles have {len(data.judges)} "
                f"({', '.join(data.judges)})",
                expected="one judge (--judge NAME=FILE once, or another --method)",
            )
        return prediction_powered_ranking(data, data.judges[0], alpha=alpha)
    if method == "ppi-bt":
        return ppi_bt(data).ranking(alpha, seed=seed)
    if method == "soft-targets":
        return soft_target_bt(data).ranking(alpha, seed=seed)
    from judgebayes.rankings.latent import fit_latent_outcome  # loads JAX

    fit = fit_latent_outcome(
        data, by_model=method == "latent-by-model", method="map", seed=seed, progress=progress
    )
    return fit.ranking(alpha)


def judge_report(data: RankingData, ranking: Ranking | None = None) -> dict[str, dict[str, Any]]:
    """What each judge brought, as plain numbers (``summary.json`` of ``judgebayes rank``).

    Per judge: ``n_verdicts``; ``n_labelled`` (battles with its verdict and a human label);
    ``agreement`` (share of those where its verdict equals the human's); ``says_a`` (share of
    its verdicts naming the first-shown model: position bias where far above the humans'
    own share, ``human_says_a``); ``p_a_given_verdict`` (P(humans prefer A | its verdict),
    :func:`~judgebayes.rankings.soft_targets.verdict_calibration`); and, from ``ranking``,
    its PPI++ weight ``lambda`` where the method has one.
    """
    out: dict[str, dict[str, Any]] = {}
    labelled = data.labelled
    human_a = float(np.mean(data.human[labelled] == 1.0)) if labelled.any() else float("nan")
    details = ranking.details if ranking is not None else {}
    for judge in data.judges:
        v = data.verdict(judge)
        judged = ~np.isnan(v)
        both = judged & labelled
        entry: dict[str, Any] = {
            "n_verdicts": int(judged.sum()),
            "n_labelled": int(both.sum()),
            "agreement": float(np.mean(v[both] == data.human[both])) if both.any() else None,
            "says_a": float(np.mean(v[judged] == 1.0)) if judged.any() else None,
            "human_says_a": human_a,
        }
        if both.sum() >= 2:
            table = verdict_calibration(data, judge)
            entry["p_a_given_verdict"] = {
                row[judge]: float(row["p_a"]) for _, row in table.iterrows()
            }
        if f"lambda[{judge}]" in details:
            entry["lambda"] = float(details[f"lambda[{judge}]"])
        out[judge] = entry
    return out
