"""The small result every number of an audit is: an estimate with its interval.

An audit reports no number without its interval. :class:`Estimate` holds one (what it is,
the point estimate, the interval at the audit's level and how it was made);
:func:`from_replicates` builds one from bootstrap or posterior replicates, :func:`wald`
from a standard error, and :func:`holm_finite` adjusts p-values for the many comparisons an
audit makes (models × models).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebayes._stats import norm_ppf
from judgebayes.core.board import holm
from judgebayes.core.results import ResultDisplay

__all__ = ["Estimate", "fmt", "from_replicates", "holm_finite", "normal_p", "wald"]


@dataclass(frozen=True, repr=False)
class Estimate(ResultDisplay):
    """One number of the audit with its interval.

    Attributes
    ----------
    name
        What it is (``"agreement"``, ``"J[gpt-4]"``, ...).
    estimate
        The point estimate.
    lo, hi
        The interval at level 1 − ``alpha`` (NaN where it cannot be computed).
    se
        Standard error (standard deviation of the replicates, or the Wald SE).
    alpha
        Level of the interval.
    method
        How the interval was made (``"bootstrap"``, ``"wald"``, ``"posterior"``, ...).
    """

    name: str
    estimate: float
    lo: float
    hi: float
    se: float = float("nan")
    alpha: float = 0.05
    method: str = "bootstrap"

    @property
    def ci(self) -> tuple[float, float]:
        return (self.lo, self.hi)

    def excludes(self, value: float = 0.0) -> bool:
        """Whether the interval lies wholly on one side of ``value``."""
        return bool(np.isfinite(self.lo) and np.isfinite(self.hi)) and (
            self.lo > value or self.hi < value
        )

    def text(self, digits: int = 3, *, signed: bool = False) -> str:
        """``0.612 [0.580, 0.641]``."""
        return fmt(self.estimate, self.lo, self.hi, digits, signed=signed)

    def _headline(self) -> str:
        return f"{self.name} = {self.text()} ({100 * (1 - self.alpha):g}%, {self.method})"

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.to_dict()])

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "estimate": self.estimate,
            "lo": self.lo,
            "hi": self.hi,
            "se": self.se,
            "method": self.method,
        }


def fmt(estimate: float, lo: float, hi: float, digits: int = 3, *, signed: bool = False) -> str:
    """``estimate [lo, hi]``; ``n/a`` for an estimate that is not a number."""
    if not np.isfinite(estimate):
        return "n/a"
    sign = "+" if signed else ""
    body = f"{estimate:{sign}.{digits}f}"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return body + " [interval n/a]"
    return f"{body} [{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]"


def from_replicates(
    name: str,
    estimate: float,
    replicates: np.ndarray,
    *,
    alpha: float = 0.05,
    method: str = "bootstrap",
) -> Estimate:
    """Percentile interval of ``replicates`` around ``estimate`` (NaN replicates ignored)."""
    r = np.asarray(replicates, dtype=float)
    r = r[np.isfinite(r)]
    if r.size < 2 or not np.isfinite(estimate):
        return Estimate(name, float(estimate), math.nan, math.nan, math.nan, alpha, method)
    lo, hi = np.quantile(r, [alpha / 2, 1 - alpha / 2])
    return Estimate(
        name, float(estimate), float(lo), float(hi), float(r.std(ddof=1)), alpha, method
    )


def wald(name: str, estimate: float, se: float, *, alpha: float = 0.05) -> Estimate:
    """estimate ± z_{1−α/2}·se."""
    z = norm_ppf(1 - alpha / 2)
    return Estimate(
        name,
        float(estimate),
        float(estimate - z * se),
        float(estimate + z * se),
        float(se),
        alpha,
        "wald",
    )


def normal_p(estimate: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Two-sided p-value of estimate / se under a standard normal (NaN where se is not > 0)."""
    from scipy.special import ndtr

    estimate, se = np.asarray(estimate, float), np.asarray(se, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(estimate) / se
    return np.where(se > 0, 2.0 * ndtr(-z), np.nan)


def holm_finite(p: np.ndarray) -> np.ndarray:
    """Holm's adjusted p-values (:func:`judgebayes.core.board.holm`) over the finite ones;
    NaN (a comparison that cannot be made) stays NaN and does not count."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        out[ok] = holm(p[ok])
    return out
