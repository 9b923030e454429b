"""Judge misclassification: naive, Rogan–Gladen and PPI++ estimators with analytic SEs.

Implements seed ``001_627fe5a0e5e077bc`` (Fiedler 2026, *Bias and uncertainty in
LLM-as-a-judge estimation*). A judge emits Ẑ ∈ {0, 1} ("this answer is correct")
for a base model's response whose true correctness is Z. With sensitivity
q1 = P(Ẑ=1 | Z=1) and specificity q0 = P(Ẑ=0 | Z=0), the judge-positive rate is
(Eq. 1) ``p = θ q1 + (1 − θ)(1 − q0) = θ J + (1 − q0)`` with Youden's
``J = q0 + q1 − 1``, so the naive p̂ estimates p, not the accuracy θ = P(Z=1).

Estimators of :func:`~judgebayes.calibration.analysis.calibrate` (Sections 3–4,
Appendices A–C), named in :data:`ESTIMATORS`:

    ``naive``   p̂ on the test set;
    ``rg``      Rogan–Gladen θ̂ = (p̂ + q̂0 − 1)/Ĵ with *shared* calibration: q̂0, q̂1
                from the baseline model's labels, reused for every model;
    ``rg_2x``   Rogan–Gladen with model-specific calibration (each model's own labels);
    ``ppi_1x``  PPI++ θ̂ = Ȳ_cal + λ(p̂_test − p̂_cal), model-specific calibration on a
                random half of the calibration items (the labelling budget of ``rg``);
    ``ppi_2x``  PPI++ on all calibration items (the budget of ``rg_2x``).

This module holds the single-sample versions of these estimators on label arrays
(:func:`naive_estimate`, :func:`rogan_gladen`, :func:`ppi_mean`,
:func:`rg_shared_difference`), the judge rates q̂0, q̂1, Ĵ (:func:`judge_rates`) and
the asymptotic bias of shared calibration (:func:`shared_calibration_bias`), with
Wald intervals from the delta method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from judgebayes._stats import norm_ppf
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = [
    "ESTIMATORS",
    "ESTIMATOR_LABELS",
    "AccuracyEstimate",
    "JudgeRates",
    "judge_rates",
    "naive_estimate",
    "ppi_mean",
    "rg_shared_difference",
    "rogan_gladen",
    "shared_calibration_bias",
    "two_sided_z",
]

ESTIMATORS: tuple[str, ...] = ("naive", "rg", "rg_2x", "ppi_1x", "ppi_2x")
"""The estimator names of :func:`~judgebayes.calibration.analysis.calibrate`, in table order."""
ESTIMATOR_LABELS = {
    "naive": "naive",
    "rg": "RG (shared)",
    "rg_2x": "RG 2×",
    "ppi_1x": "PPI++ 1×",
    "ppi_2x": "PPI++ 2×",
}
"""How tables, reports and plots name each of :data:`ESTIMATORS`."""


def two_sided_z(alpha: float) -> float:
    """The normal quantile z₁₋α/₂ of a two-sided (1 − α) interval, α checked.

    Parameters
    ----------
    alpha
        Miscoverage, in (0, 1).

    Returns
    -------
    float
        Φ⁻¹(1 − α/2) (1.96 for α = 0.05).

    Raises
    ------
    ValueError
        When ``alpha`` is not in (0, 1).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    return float(norm_ppf(1 - alpha / 2))


def _ci(
    est: float,
    se: float,
    alpha: float,
    lo: float = -np.inf,
    hi: float = np.inf,
) -> tuple[float, float]:
    z = two_sided_z(alpha)
    return float(np.clip(est - z * se, lo, hi)), float(np.clip(est + z * se, lo, hi))


@dataclass(frozen=True, repr=False)
class AccuracyEstimate(ResultDisplay):
    """One estimate of a model's accuracy θ (or of a difference Δθ).

    Attributes
    ----------
    method
        ``"naive"``, ``"rogan_gladen"``, ``"ppi++"`` or ``"rg_shared_difference"``.
    estimate, se, ci, alpha
        Point estimate, standard error, Wald interval ``estimate ± z·se`` of level
        ``1 − alpha`` (clipped to [0, 1] for accuracies).
    n_test, n_cal
        Test and calibration items used.
    lam
        PPI++'s power-tuning λ (``None`` for other methods).
    raw
        Rogan–Gladen value before clipping to [0, 1] (``None`` otherwise).
    """

    method: str
    estimate: float
    se: float
    ci: tuple[float, float]
    alpha: float
    n_test: int
    n_cal: int = 0
    lam: float | None = None
    raw: float | None = None

    @property
    def clipped(self) -> bool:
        """Whether the Rogan–Gladen value fell outside [0, 1] and was clipped."""
        return self.raw is not None and not 0.0 <= self.raw <= 1.0

    def _headline(self) -> str:
        cal = f", {self.n_cal:,} calibration" if self.n_cal else ""
        return (
            f"{self.method}, {self.n_test:,} test items{cal}; {self.estimate:.3f} ± "
            f"{self.se:.3f} [{self.ci[0]:.3f}, {self.ci[1]:.3f}]"
            + (" (clipped)" if self.clipped else "")
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "method": self.method,
                    "estimate": self.estimate,
                    "se": self.se,
                    "lo": self.ci[0],
                    "hi": self.ci[1],
                    "n_test": self.n_test,
                    "n_cal": self.n_cal,
                    "lam": self.lam,
                    "raw": self.raw,
                    "clipped": self.clipped,
                }
            ]
        )

    def __str__(self) -> str:
        extra = f", λ = {self.lam:.3f}" if self.lam is not None else ""
        if self.clipped:
            extra += f", clipped from {self.raw:.3f}"
        return (
            f"{self.method}: {self.estimate:.3f} (se {self.se:.3f}) "
            f"{100 * (1 - self.alpha):g}% CI [{self.ci[0]:.3f}, {self.ci[1]:.3f}]{extra}"
        )


@dataclass(frozen=True, repr=False)
class JudgeRates(ResultDisplay):
    """Judge specificity q̂0, sensitivity q̂1 and Youden's Ĵ = q̂0 + q̂1 − 1 (Section 3.3).

    Standard errors are binomial: se(q̂1)² = q̂1(1 − q̂1)/m1 (the variance of the
    judge labels of the m1 true positives when runs are averaged), and
    se(Ĵ)² = se(q̂0)² + se(q̂1)² (disjoint items). Intervals are Wald, clipped to
    [0, 1] for q and [−1, 1] for J.
    """

    q0: float
    q1: float
    j: float
    se_q0: float
    se_q1: float
    se_j: float
    m0: int
    m1: int
    alpha: float

    def ci(self, which: str) -> tuple[float, float]:
        """Interval of ``"q0"``, ``"q1"`` or ``"j"``."""
        est, se = {
            "q0": (self.q0, self.se_q0),
            "q1": (self.q1, self.se_q1),
            "j": (self.j, self.se_j),
        }[which]
        return _ci(est, se, self.alpha, -1.0 if which == "j" else 0.0, 1.0)

    def _headline(self) -> str:
        return (
            f"{self.m0:,} negatives, {self.m1:,} positives; q̂0 {self.q0:.3f}, "
            f"q̂1 {self.q1:.3f}, Ĵ {self.j:.3f} ± {self.se_j:.3f}"
        )

    def to_frame(self) -> pd.DataFrame:
        rows = [
            {
                "quantity": k,
                "estimate": getattr(self, k),
                "se": getattr(self, f"se_{k}"),
                "lo": self.ci(k)[0],
                "hi": self.ci(k)[1],
            }
            for k in ("q0", "q1", "j")
        ]
        return pd.DataFrame(rows).assign(m0=self.m0, m1=self.m1)

    def __str__(self) -> str:
        return "; ".join(
            f"{k} = {getattr(self, k):.3f} [{self.ci(k)[0]:.3f}, {self.ci(k)[1]:.3f}]"
            for k in ("q0", "q1", "j")
        ) + (f" (m0 = {self.m0} negatives, m1 = {self.m1} positives)")


def _as_labels(x: Any, name: str, binary: bool) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    if a.size == 0:
        raise DataError(f"{name} is empty", column=name, expected="at least one label")
    bad = ~np.isfinite(a) | (a < 0) | (a > 1) | (binary & ~np.isin(a, (0.0, 1.0)))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise DataError(
            "label outside {0, 1}" if binary else "label outside [0, 1]",
            row=k,
            column=name,
            expected="0 or 1"
            if binary
            else "a judge label in {0, 1} or a mean over runs in [0, 1]",
            got=a[k],
        )
    return a


def _calibration(cal_human: Any, cal_judge: Any) -> tuple[np.ndarray, np.ndarray]:
    y = _as_labels(cal_human, "cal_human", True)
    h = _as_labels(cal_judge, "cal_judge", False)
    if y.shape != h.shape:
        raise DataError(
            f"cal_human has {y.size} labels but cal_judge has {h.size}",
            column="cal_judge",
            expected="one judge label per human label",
        )
    m1, m0 = int(y.sum()), int((1 - y).sum())
    if m1 == 0 or m0 == 0:
        raise DataError(
            f"the calibration set has {m1} positives and {m0} negatives: "
            f"q̂{1 if m1 == 0 else 0} (and J) is undefined",
            column="human_label",
            expected="at least one human label of each value (label more items)",
        )
    return y, h


def judge_rates(cal_human: Any, cal_judge: Any, *, alpha: float = 0.05) -> JudgeRates:
    """Specificity, sensitivity and Youden's J of a judge on calibration items.

    Parameters
    ----------
    cal_human
        True labels Z_j ∈ {0, 1}.
    cal_judge
        Judge labels Ẑ_j ∈ {0, 1} (or means over runs in [0, 1]).
    alpha
        Intervals have level 1 − alpha.
    """
    y, h = _calibration(cal_human, cal_judge)
    pos, neg = h[y == 1], 1 - h[y == 0]
    q1, q0 = pos.mean(), neg.mean()
    se1, se0 = np.sqrt(pos.var() / pos.size), np.sqrt(neg.var() / neg.size)
    return JudgeRates(
        q0=float(q0),
        q1=float(q1),
        j=float(q0 + q1 - 1),
        se_q0=float(se0),
        se_q1=float(se1),
        se_j=float(np.hypot(se0, se1)),
        m0=neg.size,
        m1=pos.size,
        alpha=alpha,
    )


def naive_estimate(judge: Any, *, alpha: float = 0.05) -> AccuracyEstimate:
    """The naive estimator p̂ = mean judge label (Section 3.2); it estimates p of Eq. 1."""
    h = _as_labels(judge, "judge", False)
    p, se = float(h.mean()), float(np.sqrt(h.var() / h.size))
    return AccuracyEstimate("naive", p, se, _ci(p, se, alpha, 0.0, 1.0), alpha, h.size)


def rogan_gladen(
    judge: Any,
    cal_human: Any,
    cal_judge: Any,
    *,
    alpha: float = 0.05,
) -> AccuracyEstimate:
    """Rogan–Gladen θ̂_RG = (p̂ + q̂0 − 1)/(q̂0 + q̂1 − 1) (Section 3.3), clipped to [0, 1].

    Pass another model's calibration labels for *shared* calibration (Appendix A).

    Parameters
    ----------
    judge
        Judge labels on the test items of the model being evaluated.
    cal_human, cal_judge
        True and judge labels on calibration items.
    alpha
        Interval level 1 − alpha.

    Returns
    -------
    AccuracyEstimate
        ``raw`` holds the unclipped value. The standard error is the delta method
        (Greiner 2003; Lang & Reiczigel 2014): se² = [p̂(1 − p̂)/n + (1 − θ̂)² q̂0(1 − q̂0)/m0
        + θ̂² q̂1(1 − q̂1)/m1]/Ĵ², evaluated at the unclipped θ̂.

    Raises
    ------
    DataError
        When Ĵ ≤ 0: the judge is no better than chance on these calibration items
        and the correction is undefined.
    """
    h = _as_labels(judge, "judge", False)
    rates = judge_rates(cal_human, cal_judge, alpha=alpha)
    if rates.j <= 0:
        raise DataError(
            f"Ĵ = q̂0 + q̂1 − 1 = {rates.j:.3f} ≤ 0: the judge does no better than "
            f"chance on the calibration items, so the Rogan–Gladen correction is "
            f"undefined",
            column="judge_label",
            expected="a judge with Ĵ > 0 (use naive or PPI++ instead)",
        )
    p = float(h.mean())
    raw = (p + rates.q0 - 1) / rates.j
    var = h.var() / h.size + (1 - raw) ** 2 * rates.se_q0**2 + raw**2 * rates.se_q1**2
    se = float(np.sqrt(var) / rates.j)
    est = float(np.clip(raw, 0, 1))
    return AccuracyEstimate(
        "rogan_gladen",
        est,
        se,
        _ci(est, se, alpha, 0.0, 1.0),
        alpha,
        h.size,
        rates.m0 + rates.m1,
        raw=float(raw),
    )


def ppi_mean(
    judge: Any, cal_human: Any, cal_judge: Any, *, lam: float | None = None, alpha: float = 0.05
) -> AccuracyEstimate:
    """PPI++ mean θ̂ = Ȳ_cal + λ(p̂_test − p̂_cal) (Section 3.3; Angelopoulos et al. 2024).

    Parameters
    ----------
    judge
        Judge labels on the test (unlabelled) items of this model.
    cal_human, cal_judge
        This model's calibration items: true and judge labels.
    lam
        Power-tuning parameter; ``None`` estimates the variance-minimising
        λ̂ = Ĉov(Y, Ẑ)/[(1 + n/N) V̂ar(Ẑ)], clipped to [0, 1] (the estimate of
        ``ppi_py.ppi_mean_pointestimate``: covariance over the n calibration items,
        variance over calibration and test judge labels together). Appendix A:
        λ* ≈ θ(1 − θ)J/[p(1 − p)] → 0 as J → 0 (graceful degradation).
    alpha
        Interval level 1 − alpha.

    Returns
    -------
    AccuracyEstimate
        se² = λ² V̂ar(Ẑ_test)/N + V̂ar(Y − λẐ)_cal/n, as ``ppi_py.ppi_mean_ci``.
    """
    h = _as_labels(judge, "judge", False)
    y = _as_labels(cal_human, "cal_human", True)
    hc = _as_labels(cal_judge, "cal_judge", False)
    if y.shape != hc.shape:
        raise DataError(
            f"cal_human has {y.size} labels but cal_judge has {hc.size}",
            column="cal_judge",
            expected="one judge label per human label",
        )
    n, big_n = y.size, h.size
    if lam is None:
        cov = np.mean((y - y.mean()) * (hc - hc.mean()))
        var = np.var(np.concatenate([hc, h]), ddof=1) if n + big_n > 1 else 0.0
        lam = float(np.clip(cov / ((1 + n / big_n) * var), 0, 1)) if var > 0 else 0.0
    est = float(y.mean() + lam * (h.mean() - hc.mean()))
    se = float(np.sqrt(lam**2 * h.var() / big_n + (y - lam * hc).var() / n))
    return AccuracyEstimate("ppi++", est, se, _ci(est, se, alpha), alpha, big_n, n, lam=float(lam))


def rg_shared_difference(
    judge_a: Any, judge_b: Any, cal_human: Any, cal_judge: Any, *, alpha: float = 0.05
) -> AccuracyEstimate:
    """Shared-calibration RG difference Δθ̂ = (p̂_a − p̂_b)/Ĵ with the SE of Appendix B.

    ``judge_a`` and ``judge_b`` are the two models' judge labels on the *same*
    test items (paired). The q̂0 terms cancel, and the delta method gives

    se² = V̂ar(Ẑ_a − Ẑ_b)/(N Ĵ²) + (p̂_a − p̂_b)² [q̂0(1 − q̂0)/m0 + q̂1(1 − q̂1)/m1]/Ĵ⁴,

    the test term scaling as 1/J² and the calibration term as 1/J⁴.
    """
    a = _as_labels(judge_a, "judge_a", False)
    b = _as_labels(judge_b, "judge_b", False)
    if a.shape != b.shape:
        raise DataError(
            f"judge_a has {a.size} labels and judge_b {b.size}",
            column="judge_b",
            expected="paired labels: one per test item for each model",
        )
    rates = judge_rates(cal_human, cal_judge, alpha=alpha)
    if rates.j <= 0:
        raise DataError(
            f"Ĵ = {rates.j:.3f} ≤ 0: the Rogan–Gladen correction is undefined",
            column="judge_label",
            expected="a judge with Ĵ > 0",
        )
    dp = float(a.mean() - b.mean())
    var = (
        np.var(a - b) / (a.size * rates.j**2)
        + dp**2 * (rates.se_q0**2 + rates.se_q1**2) / rates.j**4
    )
    est, se = dp / rates.j, float(np.sqrt(var))
    return AccuracyEstimate(
        "rg_shared_difference", est, se, _ci(est, se, alpha), alpha, a.size, rates.m0 + rates.m1
    )


def shared_calibration_bias(
    theta: float,
    delta_j: float,
    delta_q0: float,
    j_ref: float,
) -> float:
    """Asymptotic bias of RG for model A when it borrows model B's calibration (Appendix C).

    bias = (θ_A·ΔJ − Δq0)/J_B with ΔJ = J_A − J_B and Δq0 = q0,A − q0,B; equivalently
    [θ_A Δq1 − (1 − θ_A) Δq0]/J_B. Mismatch is amplified by 1/J_B.

    Parameters
    ----------
    theta
        True accuracy θ_A of the model whose estimate borrows calibration.
    delta_j, delta_q0
        J_A − J_B and q0,A − q0,B.
    j_ref
        J_B of the model whose calibration is borrowed.
    """
    if j_ref <= 0:
        raise DataError(
            f"J of the borrowed calibration is {j_ref} ≤ 0: RG is undefined", expected="j_ref > 0"
        )
    return (theta * delta_j - delta_q0) / j_ref
