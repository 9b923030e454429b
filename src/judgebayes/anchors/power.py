"""Power analysis of anchor-based comparisons (Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is
the key for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848, Section 4.3, Table 2,
Appendix C).

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

**Table 2 on a real anchor** (:func:`power_check`). For each pair of one anchor's
targets, the prompts Table 2's method asks for — N(½ + edge) over the pair's own share
of informative prompts, and over the anchor's I(p, A) as Section 4.3 does (its
footnote 6 calls the latter an approximation) — and the power the exact sign test
reaches on that many prompts drawn from the benchmark itself.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.stats import binom, norm, wilcoxon
from tqdm.auto import tqdm

from judgebayes.anchors.verdicts import VerdictTable, check_scale
from judgebayes.core.results import ResultDisplay
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "PowerCheck",
    "PowerTable",
    "WilcoxonPower",
    "detectable_edge",
    "n_total",
    "power_check",
    "power_table",
    "sign_test_n",
    "sign_test_power",
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
    """Discordant pairs a one-sided sign test needs (Don-Yehiya et al., 2026, Table 2, "Base").

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


def sign_test_power(
    n: float | Sequence[float], win_rate: float, *, alpha: float = 0.05
) -> np.ndarray:
    """Power of the one-sided sign test on ``n`` discordant pairs (Table 2's approximation).

    The inverse of :func:`sign_test_n`: with p the better model's share of the discordant
    pairs, the normal approximation of the module docstring gives

        power = Φ((√n·(p − ½) − z_{1−α}·½) / √(p(1 − p))),

    so ``sign_test_power(sign_test_n(p), p)`` reaches the power asked there (it is at least
    0.8 at Table 2's N and below it one pair earlier). ``n`` may be fractional (prompts ×
    informativeness); 0 pairs give power 0.
    """
    p = float(win_rate)
    _check_rates(np.array([p]), alpha, 0.5)
    n = np.asarray(n, dtype=float)
    z = (np.sqrt(np.maximum(n, 0.0)) * (p - 0.5) - norm.ppf(1.0 - alpha) * 0.5) / np.sqrt(
        p * (1.0 - p)
    )
    return np.where(n > 0, norm.cdf(z), 0.0)


def detectable_edge(n: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest edge p − ½ the sign test detects on ``n`` discordant pairs (Table 2).

    The edge at which :func:`sign_test_power` reaches ``power``: the root in (0, ½) of
    √n·e = z_{1−α}·½ + z_power·√(¼ − e²) (Table 2's formula solved for the win rate
    instead of N). NaN where ``n`` is too small for any edge below ½ (fewer than about
    z_{1−α}² discordant pairs).
    """
    _check_rates(np.array([0.75]), alpha, power)
    if not n > 0:
        return float("nan")
    z_a, z_b = norm.ppf(1.0 - alpha), norm.ppf(power)

    def gap(e: float) -> float:
        return np.sqrt(n) * e - z_a * 0.5 - z_b * np.sqrt(0.25 - e * e)

    top = 0.5 - 1e-12
    if gap(top) < 0:
        return float("nan")
    return float(brentq(gap, 0.0, top))


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
    """Table 2 of Don-Yehiya et al. (2026): sign-test sample sizes and totals at given tie rates.

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
        ax = panel_axes(ax, (6, 4))
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
    """Don-Yehiya et al.'s (2026) Table 2: the sign test's N and N_total = N / (1 − ties)."""
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
        ax = panel_axes(ax, (6, 4))
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

    Don-Yehiya et al. (2026), Appendix C (Listing 1), with the sign test run on the same draws; see
    the module docstring. ``table`` must be quadratic (every anchor, every target pair).

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


# --------------------------------------------------------- Table 2 on a real anchor
@dataclass(frozen=True, repr=False)
class PowerCheck(ResultDisplay):
    """Table 2's sample size for each target pair of one anchor, and the power it reaches.

    For every pair (a, b) of the anchor's targets whose edge lies in ``edges``, the
    prompts Table 2's method asks for, ⌈N(½ + edge) / I⌉, with I the pair's own share
    of informative prompts (``n_pair``) and with the anchor's I(p, A) averaged over
    all its pairs, as Section 4.3 does (``n_anchor``; footnote 6 calls it an
    approximation); then the power of the exact one-sided sign test at each N on
    prompts drawn from the benchmark (``power_pair``, ``power_anchor``).

    Attributes
    ----------
    anchor
        The anchor.
    pairs
        One row per pair: ``model_a`` (the better of the two against the anchor),
        ``model_b``, ``edge``, ``informativeness``, ``n_pair``, ``n_anchor``,
        ``power_pair``, ``power_anchor`` (NaN where N exceeds the prompts and they are
        drawn without replacement).
    anchor_informativeness
        I(p, A) over all target pairs (Section 4.3).
    n_prompts, replace, n_sim, alpha, power, seed
        Benchmark size; whether prompts are drawn with replacement (the benchmark as
        the population) or subsampled without; simulated experiments per N; the test's
        level and target power; seed. A simulated power's Monte Carlo SE is
        √(p(1 − p)/n_sim).
    """

    anchor: str
    pairs: pd.DataFrame
    anchor_informativeness: float
    n_prompts: int
    replace: bool
    n_sim: int
    alpha: float
    power: float
    seed: int

    def to_frame(self) -> pd.DataFrame:
        return self.pairs.copy()

    def summary(self) -> pd.Series:
        """Pairs, and the mean and spread of the power reached at each N."""
        p = self.pairs
        return pd.Series(
            {
                "pairs": len(p),
                "mean_power_pair": p["power_pair"].mean(),
                "mean_power_anchor": p["power_anchor"].mean(),
                "share_below_target_anchor": float(
                    (p["power_anchor"].dropna() < self.power).mean()
                ),
                "mc_se": float(np.sqrt(self.power * (1 - self.power) / self.n_sim)),
            }
        )

    def _headline(self) -> str:
        s = self.summary()
        how = "with replacement" if self.replace else "subsampled without replacement"
        return (
            f"anchor {self.anchor} (I = {self.anchor_informativeness:.3f}), {int(s['pairs'])} "
            f"target pairs, prompts drawn {how}: mean power {s['mean_power_pair']:.3f} at "
            f"N / I_pair, {s['mean_power_anchor']:.3f} at N / I(p, A) (target {self.power:g})"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Power reached against the pair's edge, at N / I_pair and at N / I(p, A)."""
        ax = panel_axes(ax, (6, 4))
        p = self.pairs
        ax.scatter(p["edge"], p["power_pair"], s=16, label="N / I of the pair")
        ax.scatter(p["edge"], p["power_anchor"], s=16, marker="x", label="N / I(p, A)")
        ax.axhline(self.power, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("edge (discordant win share − ½)")
        ax.set_ylabel("power of the sign test")
        ax.legend(frameon=False)
        ax.grid(alpha=0.3)
        return ax


def _sign_power(
    d: np.ndarray, n: int, *, n_sim: int, alpha: float, replace: bool, rng: np.random.Generator
) -> float:
    """Rejection rate of the exact one-sided sign test on n prompts drawn from ``d``."""
    if not replace and n > d.size:
        return float("nan")
    if replace:
        draws = d[rng.integers(0, d.size, size=(n_sim, n))]
    else:
        draws = d[np.argsort(rng.random((n_sim, d.size)), axis=1)[:, :n]]
    plus, minus = (draws > 0).sum(axis=1), (draws < 0).sum(axis=1)
    p = binom.sf(plus - 1, plus + minus, 0.5)
    return float(np.mean(np.where(plus + minus > 0, p, 1.0) < alpha))


def power_check(
    table: VerdictTable,
    anchor: str,
    *,
    edges: tuple[float, float] = (0.05, 0.25),
    alpha: float = 0.05,
    power: float = 0.8,
    n_sim: int = 2000,
    replace: bool = True,
    judge: str | None = None,
    scale: str = "five",
    seed: int = 0,
    progress: bool = True,
) -> PowerCheck:
    """Table 2's sample size on a real anchor, checked by drawing prompts (Section 4.3).

    For each pair of the anchor's targets with an edge in ``edges`` (Table 2 spans
    +5 % to +25 %), the per-prompt differences d_i = v_{i,a}^A − v_{i,b}^A give the
    edge (discordant win share − ½) and the pair's informativeness; the sign test's
    N(½ + edge) (:func:`sign_test_n`) divided by the pair's own informativeness and by
    the anchor's I(p, A) are the prompts Table 2's method asks for. Each is checked by
    ``n_sim`` experiments on that many prompts drawn from the benchmark (with
    replacement: the benchmark's prompts as the population; without: subsamples, only
    up to the benchmark's size) and the exact one-sided sign test at ``alpha``.

    Parameters
    ----------
    table
        A verdict table in which the anchor met its targets on shared prompts.
    anchor
        The anchor.
    edges
        The range of edges [lo, hi] of the pairs checked.
    scale
        ``"five"`` (margins: a pair is discordant when its margins differ, as I(p, A) of
        Section 4.3) or ``"three"``.
    """
    check_scale(scale)
    table = table.one_judge(judge)
    v = table.tensor(scale=scale)
    k = table.models.index(anchor) if anchor in table.models else -1
    if k < 0:
        raise ValueError(f"no model {anchor!r}; models: {list(table.models)}")
    against = v[:, :, k]
    targets = np.flatnonzero(np.isfinite(against).any(axis=0))
    rng = np.random.default_rng(seed)
    rows = []
    total_d = total_c = 0.0
    candidates = [(a, b) for i, a in enumerate(targets) for b in targets[i + 1 :]]
    found = []
    for a, b in candidates:
        d = against[:, a] - against[:, b]
        d = d[np.isfinite(d)]
        total_d, total_c = total_d + (d != 0).sum(), total_c + d.size
        plus, minus = int((d > 0).sum()), int((d < 0).sum())
        if plus + minus == 0:
            continue
        edge = plus / (plus + minus) - 0.5
        if edge < 0:
            a, b, d, edge = b, a, -d, -edge
        if edges[0] <= edge <= edges[1] and edge > 0:
            found.append((a, b, d, edge))
    info_anchor = total_d / total_c
    for a, b, d, edge in tqdm(found, desc="pairs", disable=not progress):
        info = float((d != 0).mean())
        base = int(sign_test_n(0.5 + edge, alpha=alpha, power=power)[0])
        n_pair, n_anchor = n_total(base, info), n_total(base, info_anchor)
        rows.append(
            {
                "model_a": table.models[a],
                "model_b": table.models[b],
                "edge": edge,
                "informativeness": info,
                "n_base": base,
                "n_pair": n_pair,
                "n_anchor": n_anchor,
                "power_pair": _sign_power(
                    d, n_pair, n_sim=n_sim, alpha=alpha, replace=replace, rng=rng
                ),
                "power_anchor": _sign_power(
                    d, n_anchor, n_sim=n_sim, alpha=alpha, replace=replace, rng=rng
                ),
            }
        )
    columns = ["model_a", "model_b", "edge", "informativeness", "n_base", "n_pair"]
    columns += ["n_anchor", "power_pair", "power_anchor"]
    return PowerCheck(
        anchor=anchor,
        pairs=pd.DataFrame(rows, columns=columns).sort_values("edge", ignore_index=True),
        anchor_informativeness=float(info_anchor),
        n_prompts=len(table.prompts),
        replace=replace,
        n_sim=n_sim,
        alpha=alpha,
        power=power,
        seed=seed,
    )
