r"""Split-conformal prediction intervals around any point estimate.

The construction of Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation*, 2026, arXiv:2606.13221), Section 3.3 (used there for a new model's
human Elo from its judge-derived Elo; used by :mod:`judgebayes.consistency` for a new judge's Elo
from its Consistency score). For calibration items i = 1..n with reference value y_i, estimate ŷ_i
and optional local scale SE_i:

* signed residual ε_i = ŷ_i − y_i (Kargi & Salinas, 2026, Eq. 2);
* nonconformity score S_i = |ε_i| / SE_i, the *normalised* score of
  Papadopoulos et al. (2008) (Kargi & Salinas, 2026, Eq. 3), or S_i = |ε_i| when no scale
  is given (the plain absolute-residual score);
* q̂ = the ⌈(1 − α)(n + 1)⌉-th smallest of S_1..S_n;
* interval for a new item C = [ŷ − q̂·SE, ŷ + q̂·SE] (Kargi & Salinas, 2026, Eq. 4), or ŷ ± q̂.

If the test score is exchangeable with the calibration scores, P(y ∈ C) ≥ 1 − α
(and ≤ 1 − α + 1/(n + 1) for continuous scores). When ⌈(1 − α)(n + 1)⌉ > n the
calibration set is too small for that level: the interval is then infinite
(``on_infinite="inf"``) or a :class:`~judgebayes.errors.DataError` is raised
(``on_infinite="raise"``). It is never silently clipped to the largest score.

This module knows nothing about Elo: it takes arrays of references, estimates and
scales.

References
----------
Papadopoulos, Gammerman & Vovk (2008), Normalized nonconformity measures for
regression conformal prediction. Lei, G'Sell, Rinaldo, Tibshirani & Wasserman
(2018), Distribution-free predictive inference for regression, JASA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = [
    "ConformalEvaluation",
    "ConformalInterval",
    "conformal_quantile",
    "conformal_rank",
    "evaluate_split_conformal",
    "loo_conformal",
    "nonconformity_scores",
    "split_conformal",
]

OnInfinite = Literal["inf", "raise"]


def _as_vector(x: object, name: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(x, dtype=float))
    if arr.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {arr.shape}", column=name)
    bad = ~np.isfinite(arr)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{name} has a missing or infinite value",
            row=row,
            column=name,
            got=float(arr[row]),
            expected="finite numbers",
        )
    return arr


def _as_scale(se: object, n: int, name: str) -> np.ndarray:
    arr = _as_vector(se, name)
    if arr.shape == (1,) and n != 1:
        arr = np.full(n, arr[0])
    if arr.shape != (n,):
        raise DataError(f"{name} has {arr.size} values, expected {n} (one per item)", column=name)
    bad = arr <= 0
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{name} must be positive",
            row=row,
            column=name,
            got=float(arr[row]),
            expected="a standard error > 0",
        )
    return arr


def nonconformity_scores(
    y: np.ndarray, estimate: np.ndarray, se: np.ndarray | None = None
) -> np.ndarray:
    """Nonconformity scores S_i = |ŷ_i − y_i| / SE_i (Kargi & Salinas, 2026, Eqs. 2–3).

    Parameters
    ----------
    y
        Reference values (e.g. human Elo), shape ``(n,)``.
    estimate
        Point estimates ŷ_i (e.g. judge-derived Elo), shape ``(n,)``.
    se
        Local scales SE_i > 0 (e.g. bootstrap standard errors). ``None``: the
        plain absolute residual |ŷ_i − y_i|.

    Returns
    -------
    numpy.ndarray
        The scores, shape ``(n,)``.
    """
    y = _as_vector(y, "y")
    estimate = _as_vector(estimate, "estimate")
    if y.shape != estimate.shape:
        raise DataError(
            f"y has {y.size} values but estimate has {estimate.size}", column="estimate"
        )
    resid = np.abs(estimate - y)
    if se is None:
        return resid
    return resid / _as_scale(se, y.size, "se")


def conformal_rank(n: int, alpha: float) -> int:
    """k = ⌈(1 − α)(n + 1)⌉: q̂ is the k-th smallest of n calibration scores (Eq. 4).

    A tiny tolerance keeps products that are integers in exact arithmetic (for
    example (1 − 0.2)·(4 + 1) = 4) from rounding up to the next integer.
    """
    if not 0 < alpha < 1:
        raise DataError(
            "alpha must be in (0, 1)",
            column="alpha",
            got=alpha,
            expected="a miscoverage level such as 0.1",
        )
    if n < 0:
        raise DataError("the calibration set size must be >= 0", got=n)
    return max(1, math.ceil((1.0 - alpha) * (n + 1) - 1e-9))


def _too_small_message(n: int, alpha: float) -> str:
    need = conformal_rank(n, alpha)
    n_min = math.ceil(1.0 / alpha - 1.0 - 1e-9)
    return (
        f"{n} calibration scores are too few for alpha={alpha:g}: q̂ would be the "
        f"{need}-th smallest, which does not exist; use at least {n_min} calibration "
        f"items or a larger alpha (or on_infinite='inf' for an infinite interval)"
    )


def _unbounded_note(n: int, alpha: float) -> str:
    need = conformal_rank(n, alpha)
    return (
        f"the {1 - alpha:.0%} level needs the {need}-th smallest of the calibration "
        f"scores and there were {n}, so the interval is unbounded (this level needs at "
        f"least {math.ceil(1.0 / alpha - 1.0 - 1e-9)} calibration items)"
    )


def conformal_quantile(
    scores: np.ndarray, alpha: float, *, on_infinite: OnInfinite = "inf"
) -> float:
    """q̂: the ⌈(1 − α)(n + 1)⌉-th smallest calibration score (Kargi & Salinas, 2026, Eq. 4).

    Parameters
    ----------
    scores
        Calibration nonconformity scores, shape ``(n,)``.
    alpha
        Miscoverage level; intervals cover with probability ≥ 1 − α.
    on_infinite
        When ⌈(1 − α)(n + 1)⌉ > n: ``"inf"`` returns ``inf`` (an infinite
        interval, the honest answer); ``"raise"`` raises :class:`DataError`.

    Returns
    -------
    float
        q̂ (``inf`` when the calibration set is too small).
    """
    scores = np.atleast_1d(np.asarray(scores, dtype=float))
    if scores.ndim != 1 or np.isnan(scores).any() or (scores < 0).any():
        raise DataError("scores must be a 1-D array of non-negative numbers", column="scores")
    if on_infinite not in ("inf", "raise"):
        raise ValueError(f"on_infinite must be 'inf' or 'raise', got {on_infinite!r}")
    n = scores.size
    k = conformal_rank(n, alpha)
    if k > n:
        if on_infinite == "raise":
            raise DataError(_too_small_message(n, alpha))
        return math.inf
    return float(np.partition(scores, k - 1)[k - 1])


@dataclass(frozen=True, repr=False)
class ConformalInterval(ResultDisplay):
    """Conformal intervals ŷ ± q̂·SE for one or more items.

    Attributes
    ----------
    estimate
        Point estimates ŷ, shape ``(n,)``.
    scale
        SE used to scale q̂ (ones for absolute-residual scores).
    q_hat
        The conformal quantile used for each item (equal for all items of one
        split; one per item for :func:`loo_conformal`); ``inf`` when the
        calibration set was too small.
    alpha
        Miscoverage level.
    n_calibration
        Calibration scores behind each q̂.
    score
        ``"normalized"`` (|ε|/SE) or ``"absolute"`` (|ε|).
    """

    estimate: np.ndarray
    scale: np.ndarray
    q_hat: np.ndarray
    alpha: float
    n_calibration: int
    score: Literal["normalized", "absolute"]

    @property
    def lower(self) -> np.ndarray:
        """ŷ − q̂·SE (``-inf`` when q̂ is infinite)."""
        return self.estimate - self.q_hat * self.scale

    @property
    def upper(self) -> np.ndarray:
        """ŷ + q̂·SE (``inf`` when q̂ is infinite)."""
        return self.estimate + self.q_hat * self.scale

    @property
    def width(self) -> np.ndarray:
        """2·q̂·SE."""
        return 2.0 * self.q_hat * self.scale

    @property
    def rank(self) -> int:
        """⌈(1 − α)(n + 1)⌉ for this calibration size."""
        return conformal_rank(self.n_calibration, self.alpha)

    @property
    def finite(self) -> bool:
        """False when the calibration set was too small for ``alpha``."""
        return bool(np.all(np.isfinite(self.q_hat)))

    def covers(self, y: np.ndarray) -> np.ndarray:
        """Whether each reference value lies in its interval."""
        y = np.asarray(y, dtype=float)
        return (self.lower <= y) & (y <= self.upper)

    @property
    def note(self) -> str | None:
        """Why the intervals are unbounded (``None`` when they are finite)."""
        if self.finite:
            return None
        return _unbounded_note(self.n_calibration, self.alpha)

    def _headline(self) -> str:
        width = f"median width {np.median(self.width):.3g}" if self.finite else self.note
        return (
            f"{self.estimate.size} {1 - self.alpha:.0%} split-conformal intervals "
            f"({self.score}, n_calibration={self.n_calibration}); {width}"
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "estimate": self.estimate,
                "lower": self.lower,
                "upper": self.upper,
                "width": self.width,
                "se": self.scale,
                "q_hat": self.q_hat,
            }
        )

    def __str__(self) -> str:
        q = np.unique(self.q_hat)
        q_text = f"{q[0]:.3g}" if q.size == 1 else f"{q.min():.3g}–{q.max():.3g}"
        head = (
            f"{100 * (1 - self.alpha):g}% split-conformal intervals ({self.score} "
            f"scores, n_calibration={self.n_calibration}, q̂={q_text})"
        )
        if not self.finite:
            head += (
                "\n  calibration set too small: ⌈(1−α)(n+1)⌉ = "
                f"{self.rank} > n = {self.n_calibration}, so the interval is infinite"
            )
        return head + "\n" + self.to_frame().to_string(index=False, float_format="{:.3f}".format)


def split_conformal(
    estimate: np.ndarray,
    calib_y: np.ndarray,
    calib_estimate: np.ndarray,
    *,
    se: np.ndarray | None = None,
    calib_se: np.ndarray | None = None,
    alpha: float = 0.1,
    on_infinite: OnInfinite = "inf",
) -> ConformalInterval:
    """Split-conformal intervals for new items (Kargi & Salinas, 2026, Eqs. 2–4).

    Parameters
    ----------
    estimate
        Point estimates ŷ of the new items.
    calib_y, calib_estimate
        References and estimates of the calibration items (the estimates must
        not have been fitted to these references).
    se, calib_se
        Local scales of the new and the calibration items; both or neither.
        With them the scores are normalised (Eq. 3) and the half-width is
        q̂·SE (Eq. 4); without them the scores are |ε| and the half-width q̂.
    alpha
        Miscoverage level.
    on_infinite
        ``"inf"`` (default) or ``"raise"`` when ⌈(1 − α)(n + 1)⌉ > n.

    Returns
    -------
    ConformalInterval
    """
    if (se is None) != (calib_se is None):
        raise DataError(
            "give a scale for both the new and the calibration items, or for "
            "neither (se and calib_se)",
            column="se" if se is None else "calib_se",
        )
    estimate = _as_vector(estimate, "estimate")
    scores = nonconformity_scores(calib_y, calib_estimate, calib_se)
    q = conformal_quantile(scores, alpha, on_infinite=on_infinite)
    scale = np.ones_like(estimate) if se is None else _as_scale(se, estimate.size, "se")
    return ConformalInterval(
        estimate=estimate,
        scale=scale,
        q_hat=np.full(estimate.size, q),
        alpha=float(alpha),
        n_calibration=int(scores.size),
        score="absolute" if se is None else "normalized",
    )


@dataclass(frozen=True, repr=False)
class ConformalEvaluation(ResultDisplay):
    """Empirical coverage and width of conformal intervals over repeated splits.

    Attributes
    ----------
    method
        ``"split"`` (random calibration/test splits) or ``"loo"`` (each item
        tested against all the others).
    alpha
        Miscoverage level.
    n_calibration, n_test
        Items per calibration and test set.
    coverage_per_split
        Fraction of test items covered, per split.
    median_width_per_split
        Median interval width over the test items, per split (``inf`` when the
        calibration set was too small).
    q_hat_per_split
        q̂ of each split.
    seed
        Seed of the random splits (``None`` for ``"loo"``).
    intervals
        For ``"loo"``: every item's interval.
    """

    method: Literal["split", "loo"]
    alpha: float
    n_calibration: int
    n_test: int
    coverage_per_split: np.ndarray
    median_width_per_split: np.ndarray
    q_hat_per_split: np.ndarray
    seed: int | None
    intervals: ConformalInterval | None = field(default=None, repr=False)

    @property
    def n_splits(self) -> int:
        return int(self.coverage_per_split.size)

    @property
    def coverage(self) -> float:
        """Mean empirical coverage over splits (Kargi & Salinas, 2026, Table 3)."""
        return float(self.coverage_per_split.mean())

    @property
    def median_width(self) -> float:
        """Mean over splits of the median interval width (Kargi & Salinas, 2026, Table 3)."""
        return float(self.median_width_per_split.mean())

    @property
    def guaranteed(self) -> tuple[float, float]:
        """Exchangeability bounds on expected coverage: [1 − α, ⌈(1−α)(n+1)⌉/(n+1)].

        The upper bound holds for continuous (tie-free) scores.
        """
        k = conformal_rank(self.n_calibration, self.alpha)
        if k > self.n_calibration:
            return (1.0, 1.0)
        return (1.0 - self.alpha, k / (self.n_calibration + 1))

    def _headline(self) -> str:
        head = (
            f"{1 - self.alpha:.0%} {self.method} conformal, {self.n_splits} splits "
            f"(n_calibration={self.n_calibration}, n_test={self.n_test}); coverage "
            f"{self.coverage:.3f}, median width {self.median_width:.3g}"
        )
        if self.note is None:
            return head
        need = conformal_rank(self.n_calibration, self.alpha)
        return f"{head} (unbounded: the level needs {need} calibration points)"

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "split": np.arange(self.n_splits),
                "coverage": self.coverage_per_split,
                "median_width": self.median_width_per_split,
                "q_hat": self.q_hat_per_split,
            }
        )

    @property
    def note(self) -> str | None:
        """Why some intervals are unbounded (``None`` when all are finite)."""
        if np.all(np.isfinite(self.q_hat_per_split)):
            return None
        return (
            _unbounded_note(self.n_calibration, self.alpha)
            + "; the coverage of an unbounded interval is trivially 1"
            + (
                ""
                if self.method == "loo"
                else ": use leave-one-out (jackknife+) conformal over all items instead"
            )
        )

    def to_dict(self) -> dict[str, object]:
        """Plain JSON values: an unbounded width is ``None`` and ``note`` says why."""
        width = self.median_width
        return {
            "method": self.method,
            "alpha": self.alpha,
            "n_calibration": self.n_calibration,
            "n_test": self.n_test,
            "n_splits": self.n_splits,
            "coverage": self.coverage,
            "median_width": width if math.isfinite(width) else None,
            "seed": self.seed,
            "note": self.note,
        }

    def __str__(self) -> str:
        lo = float(self.coverage_per_split.min())
        hi = float(self.coverage_per_split.max())
        kind = (
            "leave-one-out"
            if self.method == "loo"
            else f"{self.n_splits} random calibration/test splits"
        )
        return (
            f"{100 * (1 - self.alpha):g}% conformal intervals, {kind} "
            f"(n_calibration={self.n_calibration}, n_test={self.n_test}): coverage "
            f"{self.coverage:.3f} [{lo:.3f}–{hi:.3f}], mean median width "
            f"{self.median_width:.3g}" + ("" if self.note is None else f"\nnote: {self.note}")
        )


def evaluate_split_conformal(
    y: np.ndarray,
    estimate: np.ndarray,
    se: np.ndarray | None = None,
    *,
    alpha: float = 0.1,
    n_calibration: int | None = None,
    n_splits: int = 100,
    seed: int = 0,
    on_infinite: OnInfinite = "inf",
) -> ConformalEvaluation:
    """Coverage and width of split-conformal intervals over random splits.

    The protocol of Kargi & Salinas (2026), Section 5.3 / Table 3: items are split at random
    into a calibration set and a test set; q̂ comes from the calibration scores,
    the test items get ŷ ± q̂·SE; the split's coverage is the fraction of test
    references inside their interval and its width the median interval width.
    Reported: mean coverage and mean median width over ``n_splits`` splits.

    Parameters
    ----------
    y, estimate, se
        References, estimates and optional scales of all items (``se=None``:
        absolute-residual scores).
    alpha
        Miscoverage level.
    n_calibration
        Calibration items per split (default: half, rounded down).
    n_splits
        Number of random splits.
    seed
        Seed of the splits.
    on_infinite
        ``"inf"`` or ``"raise"`` when the calibration set is too small.

    Returns
    -------
    ConformalEvaluation
    """
    scores = nonconformity_scores(y, estimate, se)
    n = scores.size
    n_cal = n // 2 if n_calibration is None else int(n_calibration)
    if not 1 <= n_cal <= n - 1:
        raise DataError(
            f"n_calibration must leave at least one item on each side, got {n_cal} of {n} items",
            column="n_calibration",
        )
    if n_splits < 1:
        raise DataError("n_splits must be >= 1", column="n_splits", got=n_splits)
    q_first = conformal_quantile(scores[:n_cal], alpha, on_infinite=on_infinite)
    scale = np.ones(n) if se is None else _as_scale(se, n, "se")
    rng = np.random.default_rng(seed)
    coverage = np.empty(n_splits)
    width = np.empty(n_splits)
    q_hat = np.empty(n_splits)
    for s in range(n_splits):
        perm = rng.permutation(n)
        cal, test = perm[:n_cal], perm[n_cal:]
        q = (
            q_first
            if math.isinf(q_first)
            else conformal_quantile(scores[cal], alpha, on_infinite=on_infinite)
        )
        coverage[s] = np.mean(scores[test] <= q)
        width[s] = np.median(2.0 * q * scale[test])
        q_hat[s] = q
    return ConformalEvaluation(
        method="split",
        alpha=float(alpha),
        n_calibration=n_cal,
        n_test=n - n_cal,
        coverage_per_split=coverage,
        median_width_per_split=width,
        q_hat_per_split=q_hat,
        seed=seed,
    )


def loo_conformal(
    y: np.ndarray,
    estimate: np.ndarray,
    se: np.ndarray | None = None,
    *,
    alpha: float = 0.1,
    on_infinite: OnInfinite = "inf",
) -> ConformalEvaluation:
    """Leave-one-out conformal: each item's interval is calibrated on all the others.

    Item i gets ŷ_i ± q̂_{−i}·SE_i with q̂_{−i} the ⌈(1 − α)n⌉-th smallest of the
    other n − 1 scores. Under exchangeability each interval covers with
    probability ≥ 1 − α; the empirical coverage is the fraction of items covered.
    (The estimates themselves must be out-of-sample for every item, e.g.
    leave-one-out fits.)

    Parameters
    ----------
    y, estimate, se
        References, estimates and optional scales.
    alpha
        Miscoverage level.
    on_infinite
        ``"inf"`` or ``"raise"`` when n − 1 calibration scores are too few.

    Returns
    -------
    ConformalEvaluation
        ``method="loo"``, one "split" per item, and ``intervals`` for all items.
    """
    scores = nonconformity_scores(y, estimate, se)
    n = scores.size
    if n < 2:
        raise DataError("leave-one-out conformal needs at least 2 items", got=n)
    k = conformal_rank(n - 1, alpha)
    if k > n - 1:
        if on_infinite == "raise":
            raise DataError(_too_small_message(n - 1, alpha))
        q = np.full(n, math.inf)
    else:
        # The k-th smallest of the others: the k-th smallest overall unless item i
        # itself is among the k smallest, in which case the (k+1)-th.
        order = np.sort(scores)
        kth, next_ = order[k - 1], order[k] if k < n else math.inf
        q = np.where(scores <= kth, next_, kth)
        if np.any(scores == kth):  # ties at the k-th value: compute those exactly
            for i in np.flatnonzero(scores == kth):
                q[i] = np.partition(np.delete(scores, i), k - 1)[k - 1]
    scale = np.ones(n) if se is None else _as_scale(se, n, "se")
    intervals = ConformalInterval(
        estimate=_as_vector(estimate, "estimate"),
        scale=scale,
        q_hat=q,
        alpha=float(alpha),
        n_calibration=n - 1,
        score="absolute" if se is None else "normalized",
    )
    covered = (scores <= q).astype(float)
    return ConformalEvaluation(
        method="loo",
        alpha=float(alpha),
        n_calibration=n - 1,
        n_test=1,
        coverage_per_split=covered,
        median_width_per_split=intervals.width,
        q_hat_per_split=q,
        seed=None,
        intervals=intervals,
    )
