"""Power analysis of anchor-based comparisons (seed 004, Section 4.3, Table 2, Appendix C).

**Sign test.** Two models a, b judged against one anchor on N prompts; the prompts on
which their verdicts differ are the discordant pairs, and a wins a share p of them.
H₀: p ≤ ½, one-sided, level α, power 1 − β. The normal approximation gives the
discordant pairs needed (Table 2, "Base")

    N = ⌈((z_{1−α}·√(¼) + z_{1−β}·√(p(1 − p))) / (p − ½))²⌉,

617 / 153 / 67 / 37 / 23 for p = 55 … 75 % at α = 0.05 and power 0.8, and the
exact binomial search beside it (the smallest N whose exact one-sided binomial test
reaches the power). Ties are thrown away by the sign test, so the prompts needed are
N_total = N / I(p, A) (Section 4.3): 1,012 and 1,372 at 39 % and 55 % ties for +5 %.

Table 2 prints 341 for +10 % at 55 % ties where exact arithmetic gives
153 / 0.45 = 340 exactly: in binary floating point 1 − 0.55 = 0.44999999999999996 and
⌈153 / 0.44999999999999996⌉ = 341. :func:`n_total` rounds the ratio to 9 decimals
before the ceiling, so it gives 340; every other cell of Table 2 is reproduced.

**Wilcoxon signed-rank simulation** (Appendix C, Listing 1). From a quadratic verdict
table every anchor A and target pair (a, b) gives an empirical distribution of the
per-prompt differences d_i = v_{i,a}^A − v_{i,b}^A (22·C(21, 2) = 4,620 of them in
the paper). Those whose discordant win share lies in [½ + effect, ½ + effect + 0.01)
(oriented so that the better target is a) are the pool; each simulated experiment
draws one distribution from the pool and N prompts from it with replacement, and
runs ``scipy.stats.wilcoxon(S, alternative="greater", zero_method="pratt")``; N is
the smallest sample size whose rejection rate reaches the power. The paper reports
N = 930 against 1,143 = ⌈617 / 0.54⌉ for the sign test at its 54 % mean
informativeness. The effect size of a distribution is not defined in the paper; we
read it as the discordant win share minus ½, the "edge" of Table 2. Here both tests
run on the same simulated draws (common random numbers across N), so the two
simulated sample sizes are directly comparable; the formula value is reported beside
them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.stats import binom, norm, wilcoxon
from tqdm.auto import tqdm

from judgebayes.anchors.verdicts import VerdictTable, check_scale
from judgebayes.core.results import ResultDisplay
from judgebayes.plots import _axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "PowerTable",
    "WilcoxonPower",
    "n_total",
    "power_table",
    "sign_test_n",
    "verdict_differences",
    "wilcoxon_power",
]

TABLE2_WIN_RATES = (0.55, 0.60, 0.65, 0.70, 0.75)
TABLE2_TIES = (0.39, 0.55)


def _check_rates(win_rate: np.ndarray, alpha: float, power: float) -> None:
    if np.any(win_rate <= 0.5) or np.any(win_rate >= 1.0):
        raise ValueError("the win rate among discordant pairs must lie in (0.5, 1)")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")


def sign_test_n(
    win_rate: float | Sequence[float],
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    method: str = "normal",
) -> np.ndarray:
    """Discordant pairs a one-sided sign test needs (seed 004, Table 2, "Base").

    Parameters
    ----------
    win_rate
        Share of discordant pairs the better model wins, p > ½ (Table 2: 0.55–0.75).
    alpha, power
        One-sided level and power (Table 2: 0.05 and 0.8).
    method
        ``"normal"``: the normal approximation of the module docstring (Table 2);
        ``"exact"``: the smallest N whose exact binomial test reaches ``power``
        (:func:`scipy.stats.binom`; the power is not monotone in N, so a few larger N
        may fall below it again).
    """
    p = np.atleast_1d(np.asarray(win_rate, dtype=float))
    _check_rates(p, alpha, power)
    z_a, z_b = norm.ppf(1.0 - alpha), norm.ppf(power)
    normal = np.ceil(((z_a * 0.5 + z_b * np.sqrt(p * (1.0 - p))) / (p - 0.5)) ** 2)
    if method == "normal":
        return normal.astype(int)
    if method != "exact":
        raise ValueError(f"method must be 'normal' or 'exact', got {method!r}")
    out = np.empty(p.size, dtype=int)
    for k, (pk, guess) in enumerate(zip(p, normal, strict=True)):
        n = np.arange(1, int(3 * guess) + 50)
        crit = binom.isf(alpha, n, 0.5)  # reject when X > crit: P(X > crit | ½) ≤ α
        reach = binom.sf(crit, n, pk) >= power
        out[k] = int(n[np.argmax(reach)]) if reach.any() else -1
    return out


def n_total(n: int | np.ndarray, informativeness: float | np.ndarray) -> int | np.ndarray:
    """Prompts needed when only a share I of them is informative: ⌈N / I⌉ (Section 4.3).

    The ratio is rounded to 9 decimals before the ceiling, so 153 / (1 − 0.55) is 340,
    not the 341 of Table 2 (see the module docstring). Scalars give an ``int``.
    """
    info = np.asarray(informativeness, dtype=float)
    if np.any(info <= 0) or np.any(info > 1):
        raise ValueError("informativeness must lie in (0, 1]")
    out = np.ceil(np.round(np.asarray(n, dtype=float) / info, 9)).astype(int)
    return int(out) if out.ndim == 0 else out


@dataclass(frozen=True, repr=False)
class PowerTable(ResultDisplay):
    """Table 2 of seed 004: sign-test sample sizes and totals at given tie rates.

    Attributes
    ----------
    win_rate
        Discordant win rates p.
    n_normal, n_exact
        Discordant pairs needed: normal approximation (Table 2) and exact binomial.
    ties
        Tie rates 1 − I.
    totals
        ``(len(win_rate), len(ties))``: N_total = ⌈n_normal / (1 − ties)⌉.
    alpha, power
        One-sided level and power.
    """

    win_rate: np.ndarray
    n_normal: np.ndarray
    n_exact: np.ndarray
    ties: tuple[float, ...]
    totals: np.ndarray
    alpha: float
    power: float

    def to_frame(self) -> pd.DataFrame:
        """``win_rate, edge, n_base, n_exact`` and one ``total_ties_XX`` column per tie rate."""
        frame = pd.DataFrame(
            {
                "win_rate": self.win_rate,
                "edge": self.win_rate - 0.5,
                "n_base": self.n_normal,
                "n_exact": self.n_exact,
            }
        )
        for k, t in enumerate(self.ties):
            frame[f"total_ties_{100 * t:g}"] = self.totals[:, k]
        return frame

    def _headline(self) -> str:
        return (
            f"one-sided sign test, α = {self.alpha:g}, power {self.power:g}: "
            f"{self.n_normal[0]:,} discordant pairs at {self.win_rate[0]:.0%}, totals "
            + " / ".join(f"{t:,}" for t in self.totals[0])
            + " at "
            + " / ".join(f"{x:.0%}" for x in self.ties)
            + " ties"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Prompts needed against the discordant win rate: base N and each tie rate's total."""
        ax = _axes(ax, (6, 4))
        ax.plot(self.win_rate, self.n_normal, "o-", label="discordant pairs (no ties)")
        for k, t in enumerate(self.ties):
            ax.plot(self.win_rate, self.totals[:, k], "s--", label=f"total, {t:.0%} ties")
        ax.set_yscale("log")
        ax.set_xlabel("win rate among discordant pairs")
        ax.set_ylabel("prompts needed")
        ax.legend(frameon=False)
        ax.grid(alpha=0.3, which="both")
        return ax

    def __str__(self) -> str:
        head = f"{'win rate':>9} {'edge':>6} {'base N':>8} {'exact N':>8}" + "".join(
            f" {'total (' + format(t, '.0%') + ' ties)':>18}" for t in self.ties
        )
        lines = [head]
        for k, p in enumerate(self.win_rate):
            lines.append(
                f"{p:>9.0%} {p - 0.5:>+6.0%} {self.n_normal[k]:>8,} "
                f"{self.n_exact[k]:>8,}" + "".join(f" {t:>18,}" for t in self.totals[k])
            )
        return "\n".join(lines)


def power_table(
    win_rates: Sequence[float] = TABLE2_WIN_RATES,
    ties: Sequence[float] = TABLE2_TIES,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PowerTable:
    """Seed 004's Table 2: the sign test's N and N_total = N / (1 − ties)."""
    p = np.asarray(win_rates, dtype=float)
    t = tuple(float(x) for x in ties)
    if any(not 0 <= x < 1 for x in t):
        raise ValueError("tie rates must lie in [0, 1)")
    base = sign_test_n(p, alpha=alpha, power=power)
    totals = np.stack([n_total(base, 1.0 - x) for x in t], axis=1) if t else np.empty((p.size, 0))
    return PowerTable(
        win_rate=p,
        n_normal=base,
        n_exact=sign_test_n(p, alpha=alpha, power=power, method="exact"),
        ties=t,
        totals=totals.astype(int),
        alpha=alpha,
        power=power,
    )


# --------------------------------------------------------- Wilcoxon simulation
def verdict_differences(
    table: VerdictTable,
    *,
    judge: str | None = None,
    scale: str = "five",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (anchor, target pair) distribution of d_i = v_{i,a}^A − v_{i,b}^A (Appendix C).

    Returns
    -------
    (differences, edge, informativeness)
        ``differences`` ``(K, N)`` oriented so that ``edge`` ≥ 0 (NaN where a verdict
        is missing, observed values first); ``edge`` the discordant win share − ½;
        ``informativeness`` the share of prompts with d ≠ 0.
    """
    check_scale(scale)
    table = table.one_judge(judge)
    v = table.tensor(scale=scale)
    m = v.shape[1]
    a, b = np.triu_indices(m, k=1)
    rows = []
    for anchor in range(m):
        keep = (a != anchor) & (b != anchor)
        against = v[:, :, anchor]
        rows.append((against[:, a[keep]] - against[:, b[keep]]).T)
    d = np.concatenate(rows)
    d = d[np.isfinite(d).sum(axis=1) >= 2]
    seen = np.isfinite(d)
    plus, minus = (d > 0).sum(axis=1), (d < 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        edge = plus / (plus + minus) - 0.5
    flip = edge < 0
    d[flip] = -d[flip]
    order = np.argsort(~seen, axis=1, kind="stable")  # observed values first
    d = np.take_along_axis(d, order, axis=1)
    return d, np.abs(edge), (plus + minus) / seen.sum(axis=1)


@dataclass(frozen=True, repr=False)
class WilcoxonPower(ResultDisplay):
    """Simulated sample sizes of the Wilcoxon signed-rank and sign tests (Appendix C).

    Attributes
    ----------
    effect
        Edge of the distributions drawn (discordant win share − ½), in [effect, effect + width).
    n_wilcoxon, n_sign
        Smallest N (prompts, ties included) whose simulated rejection rate reaches
        ``power`` (NaN when not reached within ``n_max``).
    n_sign_formula
        ⌈sign_test_n(½ + effect) / I⌉ at the pool's mean informativeness I (the paper's
        1,143 = ⌈617 / 0.54⌉).
    n_pool, n_candidates
        Distributions in the pool, and in all.
    informativeness
        Mean share of non-zero differences over the pool.
    grid, power_wilcoxon, power_sign
        The simulated power curves.
    n_sim, alpha, power, seed
        Simulated experiments per N, level, target power, seed. The Monte Carlo
        standard error of a rejection rate near the target is √(power(1 − power)/n_sim).
    """

    effect: float
    n_wilcoxon: float
    n_sign: float
    n_sign_formula: int
    n_pool: int
    n_candidates: int
    informativeness: float
    grid: np.ndarray
    power_wilcoxon: np.ndarray
    power_sign: np.ndarray
    n_sim: int
    alpha: float
    power: float
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """The power curves: ``n, power_wilcoxon, power_sign``."""
        return pd.DataFrame(
            {"n": self.grid, "power_wilcoxon": self.power_wilcoxon, "power_sign": self.power_sign}
        )

    def _headline(self) -> str:
        return (
            f"+{self.effect:.0%} edge, {self.n_pool} of {self.n_candidates:,} "
            f"distributions (mean I {self.informativeness:.2f}): Wilcoxon N = "
            f"{self.n_wilcoxon:,.0f}, sign test N = {self.n_sign:,.0f} simulated / "
            f"{self.n_sign_formula:,} by N/I; {self.n_sim:,} experiments per N"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Simulated power of both tests against N, with the target power."""
        ax = _axes(ax, (6, 4))
        ax.plot(self.grid, self.power_wilcoxon, "o-", ms=3, label="Wilcoxon signed-rank")
        ax.plot(self.grid, self.power_sign, "s-", ms=3, label="sign test")
        ax.axhline(self.power, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("prompts N (ties included)")
        ax.set_ylabel("simulated power")
        ax.legend(frameon=False)
        ax.grid(alpha=0.3)
        return ax


def _rejection_rates(s: np.ndarray, n: int, alpha: float) -> tuple[float, float]:
    x = s[:, :n]
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")
        # method="approx" is SciPy's default ("auto") for N > 50, where the answer lies;
        # "auto" would run permutation tests row by row below that.
        p_w = wilcoxon(
            x, axis=1, zero_method="pratt", alternative="greater", method="approx"
        ).pvalue
    plus, minus = (x > 0).sum(axis=1), (x < 0).sum(axis=1)
    p_s = binom.sf(plus - 1, plus + minus, 0.5)  # exact one-sided sign test
    return (
        float(np.mean(np.nan_to_num(p_w, nan=1.0) < alpha)),
        float(np.mean(np.where(plus + minus > 0, p_s, 1.0) < alpha)),
    )


def _first_reaching(
    s: np.ndarray, grid: np.ndarray, rates: np.ndarray, power: float, alpha: float, which: int
) -> float:
    """Smallest N reaching ``power``: the first grid point, then bisection below it."""
    hit = np.flatnonzero(rates >= power)
    if hit.size == 0:
        return float("nan")
    hi = int(grid[hit[0]])
    lo = int(grid[hit[0] - 1]) if hit[0] > 0 else 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _rejection_rates(s, mid, alpha)[which] >= power:
            hi = mid
        else:
            lo = mid
    return float(hi)


def wilcoxon_power(
    table: VerdictTable,
    *,
    effect: float = 0.05,
    width: float = 0.01,
    alpha: float = 0.05,
    power: float = 0.8,
    n_sim: int = 1000,
    n_max: int = 3000,
    n_grid: int = 24,
    judge: str | None = None,
    scale: str = "five",
    seed: int = 0,
    progress: bool = True,
) -> WilcoxonPower:
    """Simulated N of the Wilcoxon signed-rank test on empirical verdict distributions.

    Seed 004, Appendix C (Listing 1), with the sign test run on the same draws; see the
    module docstring. ``table`` must be quadratic (every anchor, every target pair).

    Parameters
    ----------
    effect, width
        The pool: distributions whose edge lies in [effect, effect + width).
    alpha, power
        One-sided level and target power.
    n_sim
        Simulated experiments per N (the paper's M).
    n_max, n_grid
        Largest N tried and the number of grid points (geometric) before bisection.
    scale
        Verdicts on the five-point scale (Wilcoxon uses the margins) or {−1, 0, 1}.
    seed
        Random seed (the same draws serve every N: common random numbers).
    """
    d, edge, info = verdict_differences(table, judge=judge, scale=scale)
    pool = np.flatnonzero((edge >= effect) & (edge < effect + width))
    if pool.size == 0:
        raise ValueError(
            f"no (anchor, target pair) distribution has an edge in "
            f"[{effect}, {effect + width}); try another effect or width"
        )
    rng = np.random.default_rng(seed)
    pick = pool[rng.integers(0, pool.size, n_sim)]
    length = np.isfinite(d[pick]).sum(axis=1)
    pos = (rng.random((n_sim, n_max)) * length[:, None]).astype(int)
    s = d[pick[:, None], pos]
    grid = np.unique(np.geomspace(10, n_max, n_grid).astype(int))
    rates = np.array(
        [
            _rejection_rates(s, int(n), alpha)
            for n in tqdm(grid, desc="Wilcoxon power", disable=not progress)
        ]
    )
    mean_info = float(info[pool].mean())
    return WilcoxonPower(
        effect=effect,
        n_wilcoxon=_first_reaching(s, grid, rates[:, 0], power, alpha, 0),
        n_sign=_first_reaching(s, grid, rates[:, 1], power, alpha, 1),
        n_sign_formula=n_total(
            int(sign_test_n(0.5 + effect, alpha=alpha, power=power)[0]), mean_info
        ),
        n_pool=int(pool.size),
        n_candidates=int(d.shape[0]),
        informativeness=mean_info,
        grid=grid,
        power_wilcoxon=rates[:, 0],
        power_sign=rates[:, 1],
        n_sim=n_sim,
        alpha=alpha,
        power=power,
        seed=seed,
    )
