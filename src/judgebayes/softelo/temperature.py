"""The temperature β of the soft targets ỹ = σ(β s) and its calibration diagnostics.

Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation*, 2026, arXiv:2606.13221): β by maximum likelihood on human non-ties (Eq. 6), its
profile-likelihood interval, the ECE of σ(β|s|) as the probability that the judge's side matches the
human's (Appendix G) and the low-β warning (Appendix D.2): :func:`fit_temperature`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, log_expit

from judgebayes._stats import chi2_ppf, pearson_r
from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError, JudgeBayesWarning
from judgebayes.softelo.diagnostics import reliability

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "LowSignalWarning",
    "Temperature",
    "agreement_by_abs_s",
    "beta_mle",
    "beta_mle_counts",
    "fit_temperature",
    "score_counts",
]


class LowSignalWarning(JudgeBayesWarning):
    """The judge's score difference barely predicts human agreement (Kargi & Salinas, 2026, App.
    D.2)."""


def _nll(beta: float, s: np.ndarray, y: np.ndarray) -> float:
    return float(-np.sum(y * log_expit(beta * s) + (1 - y) * log_expit(-beta * s)))


def _nll_counts(beta: float, values: np.ndarray, n: np.ndarray, wins: np.ndarray) -> float:
    """:func:`_nll` on battles grouped by their score: ``n`` battles and ``wins`` summed
    labels at each distinct score ``values``."""
    return float(-np.sum(wins * log_expit(beta * values) + (n - wins) * log_expit(-beta * values)))


def score_counts(s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Battles grouped by score: distinct ``values`` of s, battles ``n`` and summed labels
    ``wins`` at each. The likelihood of Eq. 6 depends on the battles only through these
    (a judge's rubric scores take a few hundred values over tens of thousands of
    battles), so every β fit on them costs O(distinct scores)."""
    values, index = np.unique(np.asarray(s, dtype=float), return_inverse=True)
    return (
        values,
        np.bincount(index, minlength=len(values)).astype(float),
        np.bincount(index, np.asarray(y, dtype=float), minlength=len(values)),
    )


def beta_mle_counts(values: np.ndarray, n: np.ndarray, wins: np.ndarray) -> float:
    """β* of Eq. 6 from :func:`score_counts`: :func:`beta_mle` (bounded Brent on [−20, 20],
    ``xatol`` 1e-8) on the grouped battles; the two agree to Brent's tolerance, not to
    the last bit (the sums are added in another order)."""
    return float(
        minimize_scalar(
            _nll_counts,
            bounds=(-20.0, 20.0),
            args=(values, n, wins),
            method="bounded",
            options={"xatol": 1e-8},
        ).x
    )


def beta_mle(s: np.ndarray, y: np.ndarray) -> float:
    """β* of Eq. 6: argmax_β Σ y log σ(β s) + (1 − y) log σ(−β s) (convex in β)."""
    return float(
        minimize_scalar(
            _nll, bounds=(-20.0, 20.0), args=(s, y), method="bounded", options={"xatol": 1e-8}
        ).x
    )


@dataclass(frozen=True, repr=False)
class Temperature(ResultDisplay):
    """The fitted score-to-probability temperature β and its calibration diagnostics.

    Attributes
    ----------
    beta
        β* (Eq. 6).
    ci
        Profile-likelihood interval of β at level ``1 - alpha``.
    alpha
        Level of ``ci``.
    ties
        ``"exclude"`` (the paper's choice) or ``"half"`` (human ties as ½, the
        sensitivity variant of Appendix C).
    n
        Human-labelled battles used.
    ece
        Expected calibration error of σ(β|s|) as P(judge's side = human's side),
        over ten equal-mass bins of decisive battles (Appendix G).
    reliability
        The reliability table behind ``ece``.
    agreement_r
        Pearson r between mean |s| and judge–human agreement over ten equal-mass
        |s| bins (Appendix D.2, Fig. 7b).
    low_signal
        True when β* < 0.2 and agreement_r < 0.5: the score difference is not a
        trustworthy confidence signal and Soft-Elo may over-compress the scale.
    agreement
        The table behind ``agreement_r`` (Fig. 3a / 7a): per equal-mass |s| bin of
        decisive battles ``abs_s_lo, abs_s_hi, abs_s_mean``, ``agreement``
        (P(judge's side = human's side)), its binomial ``se`` and ``n``.
    """

    beta: float
    ci: tuple[float, float]
    alpha: float
    ties: str
    n: int
    ece: float
    reliability: pd.DataFrame
    agreement_r: float
    low_signal: bool
    agreement: pd.DataFrame | None = None

    @property
    def message(self) -> str:
        if not self.low_signal:
            return ""
        return (
            f"low score signal: β* = {self.beta:.3f} and r(|s|, agreement) = "
            f"{self.agreement_r:.2f}; the judge's score differences barely predict "
            f"human agreement, so Soft-Elo may over-compress the Elo axis (Kargi & Salinas, 2026, "
            f"Appendix D.2)"
        )

    def _headline(self) -> str:
        which = "non-ties" if self.ties == "exclude" else "labels (ties as ½)"
        level = f"{1 - self.alpha:.0%}"
        text = (
            f"β = {self.beta:.3f} [{self.ci[0]:.2f}, {self.ci[1]:.2f}] ({level}) on "
            f"{self.n} human {which}; ECE {self.ece:.2f}; r(|s|, agreement) "
            f"{self.agreement_r:.2f}"
        )
        return text + ("; LOW SIGNAL" if self.low_signal else "")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``beta, ci_lo, ci_hi, ties, n, ece, agreement_r, low_signal``."""
        return pd.DataFrame(
            [
                {
                    "beta": self.beta,
                    "ci_lo": self.ci[0],
                    "ci_hi": self.ci[1],
                    "ties": self.ties,
                    "n": self.n,
                    "ece": self.ece,
                    "agreement_r": self.agreement_r,
                    "low_signal": self.low_signal,
                }
            ]
        )

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        text = (
            f"β* = {self.beta:.3f} ({level} profile CI {self.ci[0]:.3f}–{self.ci[1]:.3f}; "
            f"{self.n} human {'non-tie ' if self.ties == 'exclude' else ''}battles), "
            f"ECE = {self.ece:.3f}, r(|s|, agreement) = {self.agreement_r:.2f}"
        )
        return text + (f"\nwarning: {self.message}" if self.low_signal else "")

    def plot(self, ax: Axes | None = None, *, kind: str = "reliability") -> Axes:
        """``kind="reliability"``: reliability diagram of σ(β|s|) (Fig. 3b,
        :func:`judgebayes.plots.reliability_plot`); ``kind="agreement"``: agreement
        rate by |s| bin with ± 1 binomial SE (Fig. 3a / 7a,
        :func:`judgebayes.plots.agreement_plot`)."""
        from judgebayes.plots import agreement_plot, reliability_plot

        if kind == "agreement":
            return agreement_plot(self.agreement, ax=ax, r=self.agreement_r)
        if kind != "reliability":
            raise ValueError(f"kind must be 'reliability' or 'agreement', got {kind!r}")
        return reliability_plot(self.reliability, ax=ax, beta=self.beta, ece=self.ece)


def agreement_by_abs_s(
    abs_s: np.ndarray,
    agree: np.ndarray,
    n_bins: int = 10,
) -> tuple[pd.DataFrame, float]:
    """Judge–human agreement by equal-mass |s| bins and its Pearson r with mean |s|.

    Kargi & Salinas (2026), Fig. 3a / Appendix D.2 (Fig. 7): on decisive battles, agreement
    rises with |s| when the score difference carries confidence; r(|s|, agreement)
    near 0 with a small β* is the low-signal warning.

    Returns
    -------
    (table, r)
        ``table``: ``abs_s_lo, abs_s_hi, abs_s_mean, agreement, se, n`` per bin
        (``se`` = √(p(1 − p)/n)); ``r``: Pearson r of ``abs_s_mean`` with
        ``agreement`` (0 when either is constant).
    """
    abs_s, agree = np.asarray(abs_s, float), np.asarray(agree, float)
    bins = np.array_split(np.argsort(abs_s, kind="stable"), n_bins)
    table = pd.DataFrame(
        {
            "abs_s_lo": [abs_s[b].min() for b in bins],
            "abs_s_hi": [abs_s[b].max() for b in bins],
            "abs_s_mean": [abs_s[b].mean() for b in bins],
            "agreement": [agree[b].mean() for b in bins],
            "n": [len(b) for b in bins],
        }
    )
    table.insert(4, "se", np.sqrt(table["agreement"] * (1 - table["agreement"]) / table["n"]))
    x, y = table["abs_s_mean"].to_numpy(), table["agreement"].to_numpy()
    r = pearson_r(x, y) if np.ptp(y) > 0 and np.ptp(x) > 0 else 0.0
    return table, r


def fit_temperature(
    battles: Battles,
    *,
    score: str = "score_diff",
    human: str = "human_label",
    judge: str | None = "judge_label",
    ties: str = "exclude",
    alpha: float = 0.05,
    warn: bool = True,
) -> Temperature:
    """Fit β of ỹ = σ(β s) on human labels (Kargi & Salinas, 2026, Eq. 6) with its diagnostics.

    Parameters
    ----------
    battles
        Battles with the judge score difference and (some) human labels.
    score, human
        Columns of s and of the human label.
    judge
        The judge's hard label column, used to orient the ECE to "the judge's
        chosen side" (default ``sign(s)`` when the column is absent).
    ties
        ``"exclude"`` human ties (Eq. 6) or count them as ``"half"``.
    alpha
        Level of the profile-likelihood interval.
    warn
        Emit :class:`LowSignalWarning` when the signal is low.
    """
    if ties not in ("exclude", "half"):
        raise ValueError("ties must be 'exclude' or 'half'")
    s = np.asarray(battles.column(score), float)
    y = np.asarray(battles.column(human), float)
    use = np.isin(y, [0.0, 1.0]) if ties == "exclude" else ~np.isnan(y)
    if use.sum() < 10 or len(np.unique(y[use])) < 2:
        raise DataError(
            "too few human labels to fit β (need at least 10, both outcomes)", column=human
        )
    su, yu = s[use], y[use]
    beta = beta_mle(su, yu)
    best = _nll(beta, su, yu)
    cut = best + chi2_ppf(1 - alpha, 1) / 2

    def gap(b: float) -> float:
        return _nll(b, su, yu) - cut

    step = max(0.05, 4 * abs(beta) / np.sqrt(use.sum()) + 0.05)
    lo_b, hi_b = beta - step, beta + step
    while gap(lo_b) < 0:
        lo_b -= step
    while gap(hi_b) < 0:
        hi_b += step
    ci = (brentq(gap, lo_b, beta), brentq(gap, beta, hi_b))

    jl = (
        np.asarray(battles.column(judge), float)
        if judge and judge in battles
        else np.where(s > 0, 1.0, np.where(s < 0, 0.0, 0.5))
    )
    decisive = np.isin(jl, [0.0, 1.0]) & np.isin(y, [0.0, 1.0]) & (s != 0)
    agree = (jl[decisive] == y[decisive]).astype(float)
    table, ece = reliability(expit(beta * np.abs(s[decisive])), agree)
    by_s, r = agreement_by_abs_s(np.abs(s[decisive]), agree)
    result = Temperature(
        beta=beta,
        ci=(float(ci[0]), float(ci[1])),
        alpha=alpha,
        ties=ties,
        n=int(use.sum()),
        ece=ece,
        reliability=table,
        agreement_r=r,
        low_signal=bool(beta < 0.2 and r < 0.5),
        agreement=by_s,
    )
    if warn and result.low_signal:
        warnings.warn(result.message, LowSignalWarning, stacklevel=2)
    return result
