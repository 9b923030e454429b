"""Judge scores into battles and training targets (Kargi & Salinas, *From Uncertain Judgments to
Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026, arXiv:2606.13221, Eq. 5 and
Appendices A, H).

* :func:`combine_orders`: one battle per (judge, prompt, model pair) from rubric
  scores judged in either presentation order, with the score difference s and the
  hard label sign(s) (Appendix A);
* :func:`soft_targets`: the soft target ỹ = σ(β s) (Eq. 5);
* :func:`method_target`: the target each held-out method trains on (hard labels,
  soft targets, or label smoothing, Appendix H).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes.core.battles import Battles
from judgebayes.errors import DataError

__all__ = ["combine_orders", "method_target", "soft_targets"]


def _criteria(frame: pd.DataFrame, criteria: Sequence[str] | None) -> list[str]:
    if criteria is not None:
        return list(criteria)
    found = sorted(c.split(":", 1)[1] for c in frame.columns if c.startswith("score_a:"))
    return found


def combine_orders(
    calls: pd.DataFrame | Battles,
    *,
    criteria: Sequence[str] | None = None,
) -> Battles:
    """One battle per (judge, prompt, model pair) from judge calls in either order.

    Kargi & Salinas (2026), Appendix A: s(x, A) is the mean over rubric criteria; each call's
    model-oriented difference is s(x, A) − s(x, B); when both presentation orders
    were judged the two model-oriented differences are averaged, and the hard
    label is sign(s), a tie (½) when the sign flips between the orders.

    Parameters
    ----------
    calls
        One row per judge call: ``model_a`` is the response shown **first**,
        ``prompt_id`` identifies the prompt, and the scores are per-criterion
        columns ``score_a:<criterion>`` / ``score_b:<criterion>`` (or, without
        criteria, ``score_a`` / ``score_b``). Optional ``judge`` and
        ``human_label`` (P(first beats second)).
    criteria
        Criteria to average (default: every ``score_a:<criterion>`` column). A
        missing or NaN criterion score is an error, never a silent zero.

    Returns
    -------
    Battles
        Oriented to the alphabetically first model of each pair, with
        ``score_diff``, ``score_a`` / ``score_b`` (each model's per-completion score,
        the criterion mean averaged over the orders: the 1–10 scale of Appendix F's
        same-family probe), ``judge_label``, ``s_a_first`` / ``s_b_first`` (the
        model-oriented difference of the call that showed A / B first; NaN when
        that order was not judged), ``n_calls`` and ``human_label``.
    """
    frame = (
        calls.frame if isinstance(calls, Battles) else pd.DataFrame(calls).reset_index(drop=True)
    )
    for col in ("model_a", "model_b", "prompt_id"):
        if col not in frame:
            raise DataError(f"judge calls need a {col!r} column", column=col)
    crits = _criteria(frame, criteria)
    if crits:
        cols = [f"score_{side}:{c}" for c in crits for side in "ab"]
        missing = [c for c in cols if c not in frame]
        if missing:
            raise DataError(
                f"missing criterion column(s) {missing}",
                column=missing[0],
                expected=f"scores for every criterion {crits}",
            )
        block = frame[cols].apply(pd.to_numeric, errors="coerce")
        bad = block.isna().to_numpy()
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise DataError(
                "missing criterion score",
                row=int(row),
                column=cols[col],
                expected="a number for every criterion",
            )
        first = block[[f"score_a:{c}" for c in crits]].to_numpy().mean(axis=1)
        second = block[[f"score_b:{c}" for c in crits]].to_numpy().mean(axis=1)
    elif "score_a" in frame and "score_b" in frame:
        first = pd.to_numeric(frame["score_a"]).to_numpy(float)
        second = pd.to_numeric(frame["score_b"]).to_numpy(float)
    else:
        raise DataError(
            "no scores: need score_a:<criterion>/score_b:<criterion> or score_a/score_b columns",
            column="score_a",
        )
    diff = first - second
    a = frame["model_a"].astype(str).to_numpy()
    b = frame["model_b"].astype(str).to_numpy()
    lo_first = a < b
    lo, hi = np.where(lo_first, a, b), np.where(lo_first, b, a)
    d_lo = np.where(lo_first, diff, -diff)
    keys = ["judge", "prompt_id"] if "judge" in frame else ["prompt_id"]
    work = frame[keys].copy()
    work["model_a"], work["model_b"] = lo, hi
    work["s_lo_first"] = np.where(lo_first, d_lo, np.nan)
    work["s_hi_first"] = np.where(lo_first, np.nan, d_lo)
    work["d"] = d_lo
    work["p_lo"], work["p_hi"] = (
        np.where(lo_first, first, second),
        np.where(lo_first, second, first),
    )
    if "human_label" in frame:
        h = pd.to_numeric(frame["human_label"], errors="coerce").to_numpy()
        work["human_label"] = np.where(lo_first, h, 1 - h)
    group = work.groupby([*keys, "model_a", "model_b"], sort=False, dropna=False)
    out = group.agg(
        n_calls=("d", "size"),
        score_diff=("d", "mean"),
        score_a=("p_lo", "mean"),
        score_b=("p_hi", "mean"),
        s_a_first=("s_lo_first", "max"),
        s_b_first=("s_hi_first", "max"),
        n_lo_first=("s_lo_first", "count"),
        n_hi_first=("s_hi_first", "count"),
    )
    if (out["n_lo_first"] > 1).any() or (out["n_hi_first"] > 1).any():
        where = out.index[(out["n_lo_first"] > 1) | (out["n_hi_first"] > 1)][0]
        raise DataError(
            f"the same presentation order was judged twice for {where}",
            expected="at most one call per order per prompt and pair",
        )
    if "human_label" in work:
        spread = group["human_label"].agg(
            lambda x: np.nanmax(x) - np.nanmin(x) if x.notna().any() else 0.0
        )
        if (spread > 0).any():
            raise DataError(
                f"the two orders carry different human labels for {spread.index[spread > 0][0]}",
                column="human_label",
            )
        out["human_label"] = group["human_label"].max()
    out = out.drop(columns=["n_lo_first", "n_hi_first"]).reset_index()
    s1, s2 = out["s_a_first"].to_numpy(), out["s_b_first"].to_numpy()
    both = ~np.isnan(s1) & ~np.isnan(s2)
    flip = both & (np.sign(s1) != np.sign(s2))
    s = out["score_diff"].to_numpy()
    out["judge_label"] = np.where(flip | (s == 0), 0.5, (s > 0).astype(float))
    return Battles(out)


def soft_targets(score: np.ndarray, beta: float) -> np.ndarray:
    """ỹ = σ(β s) (Kargi & Salinas, 2026, Eq. 5)."""
    return expit(beta * np.asarray(score, float))


def _smoothed(judge: np.ndarray, c: float) -> np.ndarray:
    """Label smoothing (Kargi & Salinas, 2026, Appendix H): decisive labels → c / 1 − c, ties ½."""
    return np.where(judge == 1, c, np.where(judge == 0, 1 - c, 0.5))


def method_target(
    method: str, judge: np.ndarray, score: np.ndarray | None, beta: float
) -> np.ndarray:
    """Training target of a held-out ``method``: ``hard`` (judge labels), ``soft`` (σ(β s))
    or ``smooth_<c>`` (label smoothing with constant c)."""
    if method == "hard":
        return judge
    if method == "soft":
        return soft_targets(score, beta)
    if method.startswith("smooth_"):
        return _smoothed(judge, float(method.removeprefix("smooth_")))
    raise ValueError(f"unknown method {method!r}: 'hard', 'soft' or 'smooth_<c>'")
