"""Judge diagnostics: agreement, calibration, and the bias probes of Kargi & Salinas (*From
Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
arXiv:2606.13221), Appendices F–G.

All functions take plain arrays or a :class:`~judgebayes.core.battles.Battles` table and
return small frames or numbers; they are used by :mod:`judgebayes.softelo` and
can be called on their own. The probes that need held-out fits or several judges
(same-family effects, single-order Elo) live in :mod:`judgebayes.softelo.probes`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.errors import DataError

__all__ = [
    "cohen_kappa",
    "position_bias_rates",
    "reliability",
    "residual_by_quartile",
    "verbosity_bias",
    "verdict_disagreement",
]


def cohen_kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's κ between two label vectors (any discrete values, e.g. 1 / ½ / 0).

    κ = (p_o − p_e) / (1 − p_e) with p_o the observed agreement and p_e the
    agreement expected from the two marginals (Kargi & Salinas, 2026, Table 1's battle-level
    agreement). Written here to keep scikit-learn out of the core dependencies.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.size == 0:
        raise DataError("cohen_kappa needs two non-empty label vectors of the same length")
    values, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca, cb = codes[: a.size], codes[a.size :]
    k = len(values)
    table = np.bincount(ca * k + cb, minlength=k * k).reshape(k, k) / a.size
    p_o = np.trace(table)
    p_e = table.sum(axis=1) @ table.sum(axis=0)
    return float((p_o - p_e) / (1 - p_e)) if p_e < 1 else 1.0


def reliability(p: np.ndarray, outcome: np.ndarray, n_bins: int = 10) -> tuple[pd.DataFrame, float]:
    """Reliability table over equal-mass bins and the expected calibration error.

    Parameters
    ----------
    p
        Predicted probabilities.
    outcome
        Observed 0/1 outcomes.
    n_bins
        Number of equal-mass bins (Kargi & Salinas, 2026, Appendix G: ten deciles).

    Returns
    -------
    (table, ece)
        ``table`` has ``p_mean, outcome_mean, n`` per bin; ECE = Σ_b (n_b / N)·|p̄_b − ō_b|.
    """
    p, outcome = np.asarray(p, float), np.asarray(outcome, float)
    if p.size < n_bins:
        raise DataError(f"need at least {n_bins} predictions for {n_bins} bins, got {p.size}")
    order = np.argsort(p, kind="stable")
    bins = np.array_split(order, n_bins)
    table = pd.DataFrame(
        {
            "p_mean": [p[b].mean() for b in bins],
            "outcome_mean": [outcome[b].mean() for b in bins],
            "n": [len(b) for b in bins],
        }
    )
    ece = float(np.sum(table["n"] / p.size * np.abs(table["p_mean"] - table["outcome_mean"])))
    return table, ece


def position_bias_rates(
    battles: Battles, *, first: str = "s_a_first", second: str = "s_b_first"
) -> dict[str, float]:
    """Position-bias rates from the two presentation orders (Kargi & Salinas, 2026, Appendix F.1).

    Needs the model-oriented score difference of each order: ``first`` from the
    call that showed A first, ``second`` from the call that showed B first.

    Returns
    -------
    dict
        ``p_first_picked``: share of decisive calls whose verdict favours the
        response shown first; ``flip_rate``: share of battles, decisive in both
        orders, whose verdict flips when the order is swapped; ``first_advantage``:
        mean score advantage of the response shown first; ``n_battles``.
    """
    s1 = np.asarray(battles.column(first), float)
    s2 = np.asarray(battles.column(second), float)
    picks_first = np.concatenate([s1[s1 != 0] > 0, s2[s2 != 0] < 0])
    both = (s1 != 0) & (s2 != 0)
    return {
        "p_first_picked": float(picks_first.mean()),
        "flip_rate": float(np.mean(np.sign(s1[both]) != np.sign(s2[both]))),
        "first_advantage": float(np.mean(np.concatenate([s1, -s2]))),
        "n_battles": len(s1),
    }


def verbosity_bias(
    battles: Battles,
    *,
    score: str = "score_diff",
    verdict: str = "judge_label",
    near_tie: float = 0.3,
) -> dict[str, float]:
    """P(judge prefers the longer response | |s| ≤ near_tie) (Kargi & Salinas, 2026, Appendix F.1).

    Near-tied judge scores neutralise the quality channel, so a verdict that still
    favours the longer response more than half of the time is a length premium.
    The judge's verdict column is used when present (the paper notes verdicts can
    disagree with the scores), else the sign of s. Battles with equal lengths or
    a tied verdict are left out.
    """
    s = np.asarray(battles.column(score), float)
    pick = np.asarray(battles.column(verdict), float) * 2 - 1 if verdict in battles else np.sign(s)
    longer_a = np.sign(
        np.asarray(battles.column("len_a"), float) - np.asarray(battles.column("len_b"), float)
    )
    keep = (np.abs(s) <= near_tie) & (pick != 0) & (longer_a != 0)
    if not keep.any():
        raise DataError(
            f"no near-tied battles (|s| <= {near_tie}) with a verdict and a longer response",
            column=score,
        )
    prefers_longer = np.sign(pick[keep]) == longer_a[keep]
    rate = float(prefers_longer.mean())
    se = float(np.sqrt(rate * (1 - rate) / keep.sum()))
    return {
        "p_prefers_longer": rate,
        "ci_lo": rate - 1.96 * se,
        "ci_hi": rate + 1.96 * se,
        "n_battles": int(keep.sum()),
    }


def residual_by_quartile(
    human_elo: np.ndarray,
    residual: Mapping[str, np.ndarray],
) -> pd.DataFrame:
    """Mean signed residual ε = Elo_LLM − Elo_Human per human-Elo quartile (Kargi & Salinas, 2026,
    Fig. 4b).

    Parameters
    ----------
    human_elo
        Human Elo of each model.
    residual
        ``{method: residuals}`` aligned with ``human_elo``.
    """
    human_elo = np.asarray(human_elo, float)
    quartile = pd.qcut(human_elo, 4, labels=["Q1", "Q2", "Q3", "Q4"])
    frame = pd.DataFrame({k: np.asarray(v, float) for k, v in residual.items()})
    frame["quartile"] = quartile
    return frame.groupby("quartile", observed=True).mean()


def verdict_disagreement(
    battles: Battles, *, score: str = "score_diff", verdict: str = "judge_label"
) -> dict[str, float]:
    """Share of decisive battles whose verdict picks the side the judge scored lower.

    Kargi & Salinas (2026), Appendix G: "11.6 % of decisive battles exhibit a verdict-vs-score sign
    disagreement, where the judge labels the side it scored lower" — an internal
    inconsistency of the judge that the soft target σ(β s) absorbs, because it uses
    the scores, not the verdict. Decisive: a verdict of 1 or 0 and s ≠ 0. When the
    verdict is sign(s) by construction (``combine_orders``) the rate is 0; it is
    informative for data with a separate verdict (e.g. the SoftElo CSV's
    ``judge_pref`` next to its rubric scores).

    Returns
    -------
    dict
        ``rate``, a normal-approximation 95 % interval ``ci_lo`` / ``ci_hi``,
        ``n_disagree`` and ``n_decisive``.
    """
    s = np.asarray(battles.column(score), float)
    v = np.asarray(battles.column(verdict), float)
    decisive = np.isin(v, [0.0, 1.0]) & (s != 0) & ~np.isnan(s)
    if not decisive.any():
        raise DataError(
            "no decisive battles (verdict 1 or 0 with a non-zero score difference)", column=verdict
        )
    disagree = ((v == 1) & (s < 0)) | ((v == 0) & (s > 0))
    k, n = int(disagree[decisive].sum()), int(decisive.sum())
    rate = k / n
    se = float(np.sqrt(rate * (1 - rate) / n))
    return {
        "rate": rate,
        "ci_lo": rate - 1.96 * se,
        "ci_hi": rate + 1.96 * se,
        "n_disagree": k,
        "n_decisive": n,
    }
