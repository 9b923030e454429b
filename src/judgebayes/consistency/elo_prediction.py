"""Predictive intervals for a new judge's Elo from its Consistency (Ramaswamy, Demeure & Rrapaj,
*Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*, EMNLP 2025,
arXiv:2509.23510).

A Bayesian regression (reference prior, Student-t posterior predictive) and
split-conformal intervals (:mod:`judgebayes.conformal`); :func:`elo_intervals_loo`
evaluates both leave-one-judge-out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from judgebayes._stats import linregress_line, t_ppf
from judgebayes.conformal import split_conformal
from judgebayes.consistency.counts import elo_vector
from judgebayes.consistency.score import JudgeConsistency, judge_values
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["EloIntervals", "EloPrediction", "elo_intervals_loo", "predict_elo"]


def _bayes_predictive(
    x: np.ndarray,
    y: np.ndarray,
    x_new: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Posterior predictive of y at x_new under y = a + b·x + N(0, σ²), p(a, b, σ²) ∝ 1/σ².

    With this reference prior the posterior predictive is Student-t with n − 2
    degrees of freedom, location the least-squares fit and scale
    s·√(1 + x̃ᵀ(XᵀX)⁻¹x̃) (Gelman et al., BDA3, Section 14.2).
    """
    n = x.size
    if n < 3:
        raise DataError(f"the Bayesian regression needs at least 3 judges, got {n}")
    X = np.column_stack([np.ones(n), x])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    s2 = float(resid @ resid) / (n - 2)
    xtx_inv = np.linalg.inv(X.T @ X)
    Xn = np.column_stack([np.ones(x_new.size), x_new])
    scale = np.sqrt(s2 * (1.0 + np.einsum("ij,jk,ik->i", Xn, xtx_inv, Xn)))
    return Xn @ beta, scale, n - 2


def _ols_predict(x: np.ndarray, y: np.ndarray, x_new: np.ndarray) -> np.ndarray:
    a, b = linregress_line(x, y)
    return a + b * x_new


def _jackknife_calibration(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Leave-one-out OLS predictions ŷ_{−i}(x_i) of every item."""
    n = x.size
    out = np.empty(n)
    for i in range(n):
        rest = np.arange(n) != i
        out[i] = _ols_predict(x[rest], y[rest], x[i : i + 1])[0]
    return out


@dataclass(frozen=True, repr=False)
class EloPrediction(ResultDisplay):
    """Predicted Elo of new judges from their Consistency, with two intervals.

    Attributes
    ----------
    consistency
        The new judges' Consistency.
    estimate
        Least-squares prediction (also the Bayesian posterior predictive mean).
    bayes_lower, bayes_upper
        Central 1 − α Student-t posterior predictive interval (reference prior).
    conformal_lower, conformal_upper
        Split-conformal interval calibrated on the training judges'
        leave-one-out residuals (:func:`judgebayes.conformal.split_conformal`);
        infinite when too few judges for ``alpha``.
    alpha
        Miscoverage level.
    n_judges
        Judges the line was fitted to.
    """

    consistency: np.ndarray
    estimate: np.ndarray
    bayes_lower: np.ndarray
    bayes_upper: np.ndarray
    conformal_lower: np.ndarray
    conformal_upper: np.ndarray
    alpha: float
    n_judges: int

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "consistency": self.consistency,
                "elo": self.estimate,
                "bayes_lo": self.bayes_lower,
                "bayes_hi": self.bayes_upper,
                "conformal_lo": self.conformal_lower,
                "conformal_hi": self.conformal_upper,
            }
        )

    def _headline(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        n = self.consistency.size
        head = f"{n} new judge{'s' if n > 1 else ''} from {self.n_judges} training judges; "
        if n == 1:
            return (
                head + f"Consistency {self.consistency[0]:.3f} → Elo "
                f"{self.estimate[0]:.1f}, {level} Bayesian [{self.bayes_lower[0]:.1f}, "
                f"{self.bayes_upper[0]:.1f}], conformal [{self.conformal_lower[0]:.1f}, "
                f"{self.conformal_upper[0]:.1f}]"
            )
        return (
            head + f"Elo {self.estimate.min():.1f}–{self.estimate.max():.1f}; median "
            f"{level} width Bayesian {np.median(self.bayes_upper - self.bayes_lower):.1f}, "
            f"conformal {np.median(self.conformal_upper - self.conformal_lower):.1f}"
        )

    def __str__(self) -> str:
        return (
            f"Elo predicted from Consistency ({self.n_judges} training judges, "
            f"{100 * (1 - self.alpha):g}% intervals)\n"
            + self.to_frame().to_string(
                index=False,
                float_format="{:.1f}".format,
                formatters={"consistency": "{:.3f}".format},
            )
        )


def _xy(
    result: JudgeConsistency | Mapping[str, float] | pd.Series,
    judge_elo: Mapping[str, float] | pd.Series,
) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    judges, c = judge_values(result)
    if not np.all(np.isfinite(c)):
        raise DataError("a judge has no Consistency score (no contests)", column="consistency")
    return judges, c, elo_vector(judge_elo, judges, "judge")


def predict_elo(
    result: JudgeConsistency | Mapping[str, float] | pd.Series,
    judge_elo: Mapping[str, float] | pd.Series,
    new_consistency: float | Iterable[float],
    *,
    alpha: float = 0.1,
) -> EloPrediction:
    """Predict a new judge's Arena Elo from its Consistency, with intervals.

    The line Elo = a + b·C is fitted to the judges of ``result``. Two 1 − α
    intervals: the Bayesian posterior predictive (reference prior, Student-t),
    and a conformal interval whose calibration scores are the training judges'
    leave-one-out absolute residuals |ŷ_{−i}(C_i) − Elo_i| (out-of-sample, so
    exchangeable with a new judge's residual up to the one-judge difference in
    training size).

    Parameters
    ----------
    result, judge_elo
        Training judges' Consistency and Elo.
    new_consistency
        Consistency of the new judge(s).
    alpha
        Miscoverage level.

    Returns
    -------
    EloPrediction
    """
    _, c, e = _xy(result, judge_elo)
    x_new = np.atleast_1d(np.asarray(new_consistency, dtype=float))
    loc, scale, df = _bayes_predictive(c, e, x_new)
    t = t_ppf(1 - alpha / 2, df)
    conf = split_conformal(loc, calib_y=e, calib_estimate=_jackknife_calibration(c, e), alpha=alpha)
    return EloPrediction(
        consistency=x_new,
        estimate=loc,
        bayes_lower=loc - t * scale,
        bayes_upper=loc + t * scale,
        conformal_lower=conf.lower,
        conformal_upper=conf.upper,
        alpha=float(alpha),
        n_judges=c.size,
    )


@dataclass(frozen=True, repr=False)
class EloIntervals(ResultDisplay):
    """Leave-one-judge-out predictive intervals for each judge's Elo, and their coverage.

    Attributes
    ----------
    method
        ``"bayes"``, ``"split"`` (split conformal over random train/calibration
        splits of the other judges) or ``"jackknife"`` (conformal calibrated on
        the other judges' leave-one-out residuals).
    judges, elo
        Held-out judges and their Arena Elo.
    estimate, lower, upper
        Prediction and interval for each held-out judge (for ``"split"``: means
        over the random splits).
    covered
        Fraction of intervals (over splits) covering the judge's Elo.
    width
        Mean interval width per judge (``inf`` if a calibration set was too small).
    alpha
        Miscoverage level.
    n_splits, seed
        Random splits per judge and their seed (``"split"`` only).
    """

    method: Literal["bayes", "split", "jackknife"]
    judges: tuple[str, ...]
    elo: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    covered: np.ndarray
    width: np.ndarray
    alpha: float
    n_splits: int = 1
    seed: int | None = None

    @property
    def coverage(self) -> float:
        """Empirical leave-one-judge-out coverage."""
        return float(self.covered.mean())

    @property
    def coverage_se(self) -> float:
        """Binomial standard error of ``coverage`` treating judges as independent."""
        c = self.coverage
        return math.sqrt(c * (1 - c) / len(self.judges))

    @property
    def mean_width(self) -> float:
        return float(self.width.mean())

    @property
    def median_width(self) -> float:
        return float(np.median(self.width))

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "judge": self.judges,
                "arena_elo": self.elo,
                "estimate": self.estimate,
                "lower": self.lower,
                "upper": self.upper,
                "covered": self.covered,
                "width": self.width,
            }
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "method": self.method,
            "alpha": self.alpha,
            "coverage": self.coverage,
            "mean_width": self.mean_width,
            "median_width": self.median_width,
            "n_judges": len(self.judges),
            "n_splits": self.n_splits,
            "seed": self.seed,
        }

    def _headline(self) -> str:
        return str(self)

    def __str__(self) -> str:
        names = {
            "bayes": "Bayesian posterior predictive",
            "split": "split conformal",
            "jackknife": "jackknife conformal",
        }
        return (
            f"Leave-one-judge-out {100 * (1 - self.alpha):g}% {names[self.method]} "
            f"intervals for Elo from Consistency: coverage {self.coverage:.3f} "
            f"(± {self.coverage_se:.3f}) over {len(self.judges)} judges, median width "
            f"{self.median_width:.1f} Elo"
        )


def elo_intervals_loo(
    result: JudgeConsistency | Mapping[str, float] | pd.Series,
    judge_elo: Mapping[str, float] | pd.Series,
    *,
    method: Literal["bayes", "split", "jackknife"] = "split",
    alpha: float = 0.1,
    n_calibration: int | None = None,
    n_splits: int = 50,
    seed: int = 0,
) -> EloIntervals:
    """Leave-one-judge-out evaluation of predictive intervals for Elo from Consistency.

    Each judge k is held out in turn; an interval for its Elo is built from the
    other judges only, and coverage is the fraction of held-out Elo inside.

    * ``"bayes"``: Student-t posterior predictive of the reference-prior
      regression fitted to the others.
    * ``"split"``: the others are split at random into a training set (the
      line) and a calibration set (absolute residuals → q̂ via
      :func:`judgebayes.conformal.split_conformal`), ``n_splits`` times.
      Marginal coverage ≥ 1 − α is guaranteed under exchangeability of judges.
    * ``"jackknife"``: line fitted to all others; calibration scores are their
      own leave-one-out residuals (no data spent on a split).

    Parameters
    ----------
    result, judge_elo
        Consistency and Arena Elo of the judges.
    method
        ``"bayes"``, ``"split"`` or ``"jackknife"``.
    alpha
        Miscoverage level.
    n_calibration
        ``"split"``: calibration judges per split (default: half of the others,
        rounded down).
    n_splits
        ``"split"``: random splits per held-out judge.
    seed
        ``"split"``: seed of the splits.

    Returns
    -------
    EloIntervals
    """
    judges, c, e = _xy(result, judge_elo)
    n = c.size
    if n < 4:
        raise DataError(f"leave-one-judge-out intervals need at least 4 judges, got {n}")
    est, lo, hi = np.empty(n), np.empty(n), np.empty(n)
    covered, width = np.empty(n), np.empty(n)
    if method == "bayes":
        for k in range(n):
            rest = np.arange(n) != k
            loc, scale, df = _bayes_predictive(c[rest], e[rest], c[k : k + 1])
            half = t_ppf(1 - alpha / 2, df) * scale[0]
            est[k], lo[k], hi[k] = loc[0], loc[0] - half, loc[0] + half
        covered = ((lo <= e) & (e <= hi)).astype(float)
        width = hi - lo
        return EloIntervals("bayes", judges, e, est, lo, hi, covered, width, float(alpha))
    if method == "jackknife":
        for k in range(n):
            rest = np.flatnonzero(np.arange(n) != k)
            cal_est = _jackknife_calibration(c[rest], e[rest])
            loc = _ols_predict(c[rest], e[rest], c[k : k + 1])
            iv = split_conformal(loc, calib_y=e[rest], calib_estimate=cal_est, alpha=alpha)
            est[k], lo[k], hi[k] = loc[0], iv.lower[0], iv.upper[0]
        covered = ((lo <= e) & (e <= hi)).astype(float)
        width = hi - lo
        return EloIntervals("jackknife", judges, e, est, lo, hi, covered, width, float(alpha))
    if method != "split":
        raise DataError(
            f"method must be 'bayes', 'split' or 'jackknife', got {method!r}", column="method"
        )
    n_cal = (n - 1) // 2 if n_calibration is None else int(n_calibration)
    if not 1 <= n_cal <= n - 3:
        raise DataError(
            f"n_calibration must leave at least 2 training judges, got {n_cal} of {n - 1}",
            column="n_calibration",
        )
    rng = np.random.default_rng(seed)
    for k in range(n):
        rest = np.flatnonzero(np.arange(n) != k)
        ests, los, his = np.empty(n_splits), np.empty(n_splits), np.empty(n_splits)
        for s in range(n_splits):
            perm = rng.permutation(rest)
            cal, train = perm[:n_cal], perm[n_cal:]
            loc = _ols_predict(c[train], e[train], c[np.r_[k, cal]])
            iv = split_conformal(loc[:1], calib_y=e[cal], calib_estimate=loc[1:], alpha=alpha)
            ests[s], los[s], his[s] = loc[0], iv.lower[0], iv.upper[0]
        est[k], lo[k], hi[k] = ests.mean(), los.mean(), his.mean()
        covered[k] = np.mean((los <= e[k]) & (e[k] <= his))
        width[k] = np.mean(his - los)
    return EloIntervals(
        "split", judges, e, est, lo, hi, covered, width, float(alpha), n_splits=n_splits, seed=seed
    )
