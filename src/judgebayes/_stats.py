"""A few statistics from :mod:`scipy.stats`, without importing :mod:`scipy.stats`.

``import scipy.stats`` costs about a second (it builds every distribution object),
more than the whole ``judgebayes softelo`` fit; the command line would pay it at start-up
for a Pearson r, a Spearman ρ, a Kendall τ and a χ² quantile. The routes here give the same numbers
as SciPy, bit for bit: the quantiles are the :mod:`scipy.special` functions that
:mod:`scipy.stats` calls, and the correlations repeat SciPy's own arithmetic (its
centring, scaling and clipping). Inputs SciPy treats specially (constant or nearly
constant, non-finite, too short, not float64) are handed to :mod:`scipy.stats` itself,
imported then, so its warnings and errors are unchanged.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = [
    "chi2_ppf",
    "kendall_tau",
    "linregress_line",
    "norm_ppf",
    "pearson_r",
    "poisson_cdf",
    "rankdata",
    "spearman_rho",
    "t_ppf",
]


def norm_ppf(q: float | np.ndarray) -> float | np.ndarray:
    """``scipy.stats.norm.ppf(q)``: :func:`scipy.special.ndtri`, which SciPy calls."""
    return special.ndtri(q)


def chi2_ppf(q: float | np.ndarray, df: float) -> float | np.ndarray:
    """``scipy.stats.chi2.ppf(q, df)``: ``2 * gammaincinv(df / 2, q)``, SciPy's route."""
    return 2 * special.gammaincinv(df / 2, q)


def t_ppf(q: float | np.ndarray, df: float | np.ndarray) -> float | np.ndarray:
    """``scipy.stats.t.ppf(q, df)``: :func:`scipy.special.stdtrit`, which SciPy calls."""
    return special.stdtrit(df, q)


def poisson_cdf(k: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """``scipy.stats.poisson.cdf(k, mu)`` for integer ``k >= 0`` and ``mu >= 0``.

    SciPy's ``poisson._cdf`` is :func:`scipy.special.pdtr` of ``floor(k)``.
    """
    return special.pdtr(np.floor(k), mu)


def _plain(x: np.ndarray, y: np.ndarray, min_n: int) -> bool:
    """Whether SciPy takes its ordinary path: 1-D float64, equal length, finite, varying."""
    return (
        x.ndim == 1
        and y.shape == x.shape
        and len(x) >= min_n
        and x.dtype == np.float64
        and y.dtype == np.float64
        and bool(np.isfinite(x).all() and np.isfinite(y).all())
        and bool((x != x[0]).any() and (y != y[0]).any())
    )


def pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.pearsonr(x, y).statistic`` as a float.

    Repeats SciPy's arithmetic (``scipy/stats/_stats_py.py``): centre by the mean, scale
    by the largest deviation before the 2-norm, dot the unit vectors, clip to [-1, 1].
    """
    x, y = np.asarray(x), np.asarray(y)
    if _plain(x, y, 3):
        xmean, ymean = np.mean(x), np.mean(y)
        xm, ym = x - xmean, y - ymean
        xmax, ymax = np.max(np.abs(xm)), np.max(np.abs(ym))
        normxm = xmax * np.linalg.vector_norm(xm / xmax)
        normym = ymax * np.linalg.vector_norm(ym / ymax)
        threshold = np.finfo(np.float64).eps ** 0.75
        if normxm >= threshold * abs(xmean) and normym >= threshold * abs(ymean):
            return float(np.clip(np.vecdot(xm / normxm, ym / normym), -1.0, 1.0))
    from scipy.stats import pearsonr  # warns or raises as SciPy does

    return float(pearsonr(x, y).statistic)


def rankdata(a: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(a)`` (average ranks of ties) of a 1-D array without NaN."""
    a = np.asarray(a)
    sorter = np.argsort(a, kind="mergesort")
    inv = np.empty(sorter.size, dtype=np.intp)
    inv[sorter] = np.arange(sorter.size, dtype=np.intp)
    arr = a[sorter]
    obs = np.r_[True, arr[1:] != arr[:-1]]
    dense = obs.cumsum()[inv]
    count = np.r_[np.nonzero(obs)[0], len(obs)]
    # ranks are halves of integers, so any correct order of operations gives SciPy's floats
    return 0.5 * (count[dense] + count[dense - 1] + 1)


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.spearmanr(x, y).statistic`` as a float.

    SciPy ranks each column and takes :func:`numpy.corrcoef` of the ranks; so does this.
    """
    x, y = np.asarray(x), np.asarray(y)
    if _plain(x, y, 2):
        ranked = np.column_stack((rankdata(x), rankdata(y)))
        return float(np.corrcoef(ranked, rowvar=False)[1, 0])
    from scipy.stats import spearmanr  # warns or returns NaN as SciPy does

    return float(spearmanr(x, y).statistic)


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.kendalltau(x, y).statistic`` (τ-b) as a float.

    SciPy counts concordant minus discordant pairs C − D and the pairs tied in x and in y
    by a merge sort, then divides τ_b = (C − D) / √(n₀ − n_x) / √(n₀ − n_y) and clips to
    [−1, 1]. The same integer counts come from the signs of all n(n − 1)/2 differences
    (C − D = Σ sign(x_i − x_j)·sign(y_i − y_j)), which for a leaderboard's few models is
    quicker than importing :mod:`scipy.stats`; the division and clipping are SciPy's, so
    the float is too. Long vectors (over 2,000 entries) go to SciPy's O(n log n) route.
    """
    x, y = np.asarray(x), np.asarray(y)
    if _plain(x, y, 2) and len(x) <= 2000:
        i, j = np.triu_indices(len(x), 1)
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        con_minus_dis = int(np.sum(sx * sy))
        tot, x_ties, y_ties = len(i), int(np.sum(sx == 0)), int(np.sum(sy == 0))
        tau = con_minus_dis / np.sqrt(tot - x_ties) / np.sqrt(tot - y_ties)
        return float(np.minimum(1.0, max(-1.0, tau)))
    from scipy.stats import kendalltau  # warns or returns NaN as SciPy does

    return float(kendalltau(x, y).statistic)


def linregress_line(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Intercept and slope of the least-squares line of y on x.

    The arithmetic of :func:`scipy.stats.linregress` (same operations, so the same
    floating-point results): slope = S_xy / S_xx from the biased covariance matrix,
    intercept = ȳ − slope · x̄; without its argument-checking wrapper, whose cost per call
    (``docs/benchmarks.md``) adds up in the leave-one-judge-out and split-conformal
    loops, which fit thousands of lines.

    Parameters
    ----------
    x, y
        Equal-length 1-D arrays.

    Returns
    -------
    tuple of float
        ``(intercept, slope)``; both NaN when either array is empty (as ``linregress``,
        which also warns).

    Raises
    ------
    ValueError
        When all of ``x`` (more than one value) are identical, with SciPy's message.
    """
    x, y = np.asarray(x), np.asarray(y)
    if x.size == 0 or y.size == 0:
        return float("nan"), float("nan")  # as linregress (which also warns)
    if len(x) > 1 and np.amax(x) == np.amin(x):
        raise ValueError("Cannot calculate a linear regression if all x values are identical")
    ssxm, ssxym, _, _ = np.cov(x, y, bias=1).flat
    slope = ssxym / ssxm
    return float(np.mean(y, None) - slope * np.mean(x, None)), float(slope)
