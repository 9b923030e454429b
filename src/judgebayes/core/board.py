"""What every Elo leaderboard answers beyond its table: paired comparisons, all pairs with a
multiplicity correction, the win-rate matrix and the score against a baseline.

:class:`EloBoard` is the behaviour shared by the boards with intervals
(:class:`~judgebayes.core.bootstrap.BootstrapElo`, whose uncertainty is a set of bootstrap
replicates, and :class:`~judgebayes.core.sandwich.SandwichElo`, whose uncertainty is a
sandwich covariance). A board provides :meth:`EloBoard._differences`, the estimate,
standard error, interval and p-values of Elo differences, and everything here is built on
it, so a comparison is clustered by prompt whenever the board is.

* ``board.compare("A", "B", rope=δ)``: ΔElo = Elo_A − Elo_B with its 1 − α interval, the
  one-sided p-value of H₀: ΔElo ≤ δ, and whether A is ahead of B at the level (the whole
  interval above δ; δ is a region of practical equivalence, in Elo points);
* ``board.compare_all(correction="holm" | "bh")``: every pair, two-sided p-values adjusted
  by Holm (family-wise error) or Benjamini–Hochberg (false discovery rate);
* ``board.win_rates()``: P(i beats j) predicted by the fit (σ(Δθ); a tie counts ½) with
  its interval, beside the observed rate of the pair with a Wilson interval;
* ``board.vs_baseline("B")``: Arena-Hard's "score vs a baseline" (Li et al., *From
  Crowdsourced Data to High-Quality Benchmarks: Arena-Hard and BenchBuilder Pipeline*,
  2024, arXiv:2406.11939): every model's predicted win rate against the baseline, in
  per cent, with its interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from scipy.special import expit

from judgebayes._stats import norm_ppf
from judgebayes.core.bt import ELO_SCALE, EloFit
from judgebayes.core.davidson import davidson_probabilities
from judgebayes.core.pairs import PairStats
from judgebayes.core.ranksets import RankSets
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "BaselineScores",
    "Comparison",
    "EloBoard",
    "PairwiseComparisons",
    "WinRateMatrix",
    "holm",
]

Correction = Literal["holm", "bh"]


@dataclass(frozen=True)
class Differences:
    """Elo differences Elo_i − Elo_j of several pairs (arrays, one entry per pair).

    ``p_at_most`` is the one-sided p-value of H₀: ΔElo ≤ rope; ``p_two_sided`` that of
    H₀: ΔElo = 0; ``ahead`` the share of replicates (or the normal probability) in which
    Elo_i > Elo_j.
    """

    estimate: np.ndarray
    se: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    p_at_most: np.ndarray
    p_two_sided: np.ndarray
    ahead: np.ndarray


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control).

    p̃_(k) = max_{l ≤ k} min(1, (K − l + 1)·p_(l)) for the sorted p-values. SciPy has
    Benjamini–Hochberg (``scipy.stats.false_discovery_control``) but not Holm, so these
    few lines are written here.
    """
    p = np.asarray(p, dtype=float)
    order = np.argsort(p, kind="stable")
    k = len(p)
    stepped = np.minimum(1.0, (k - np.arange(k)) * p[order])
    adjusted = np.empty(k)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted


def _benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values, by SciPy (imported here: ``scipy.stats``
    costs a second at import, and only this correction needs it)."""
    from scipy.stats import false_discovery_control

    return false_discovery_control(p)


def wilson(wins: np.ndarray, n: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a rate wins / n (ties counted ½) at level 1 − α.

    The closed form (Wilson 1927); SciPy's ``binomtest(...).proportion_ci`` takes integer
    counts only, and a tie makes the count a half-integer.
    """
    z = norm_ppf(1 - alpha / 2)
    n = np.asarray(n, dtype=float)
    rate = np.asarray(wins, dtype=float) / n
    centre = (rate + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * np.sqrt(rate * (1 - rate) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    return centre - half, centre + half


@dataclass(frozen=True, repr=False)
class Comparison(ResultDisplay):
    """Is model A ahead of model B? ΔElo = Elo_A − Elo_B with its interval.

    Attributes
    ----------
    model_a, model_b
        The two models.
    delta, se
        ΔElo and its standard error.
    ci
        The ``1 - alpha`` interval of ΔElo (clustered whenever the board is).
    p_value
        One-sided p-value of H₀: ΔElo ≤ ``rope``.
    prob_ahead
        Share of bootstrap replicates (sandwich: the normal probability) in which A's Elo
        is above B's.
    win_probability
        A's expected score against B in one battle (P(A wins) + ½ P(tie)) predicted by the
        fit: σ(ΔElo / (400 / ln 10)) for Bradley–Terry, Davidson's at its fitted ν.
    alpha, rope
        The level and the region of practical equivalence δ (Elo points).
    ahead
        A is ahead of B at the level: the whole interval lies above ``rope``.
    """

    model_a: str
    model_b: str
    delta: float
    se: float
    ci: tuple[float, float]
    p_value: float
    prob_ahead: float
    win_probability: float
    alpha: float
    rope: float
    ahead: bool

    def _headline(self) -> str:
        verdict = "ahead" if self.ahead else "not shown ahead"
        return (
            f"{self.model_a} − {self.model_b}: {self.delta:+.1f} Elo "
            f"[{self.ci[0]:+.1f}, {self.ci[1]:+.1f}]; {self.model_a} {verdict} at "
            f"{1 - self.alpha:.0%}" + (f" beyond ±{self.rope:g}" if self.rope else "")
        )

    def to_frame(self) -> pd.DataFrame:
        """One row: the comparison's fields."""
        return pd.DataFrame(
            [
                {
                    "model_a": self.model_a,
                    "model_b": self.model_b,
                    "delta": self.delta,
                    "se": self.se,
                    "delta_lo": self.ci[0],
                    "delta_hi": self.ci[1],
                    "p_value": self.p_value,
                    "prob_ahead": self.prob_ahead,
                    "win_probability": self.win_probability,
                    "rope": self.rope,
                    "ahead": self.ahead,
                }
            ]
        )

    def __str__(self) -> str:
        return (
            f"{self._headline()}\n"
            f"SE {self.se:.1f} Elo; one-sided p = {self.p_value:.3g} for ΔElo ≤ {self.rope:g}; "
            f"{self.model_a} ahead in {self.prob_ahead:.1%} of the uncertainty draws; "
            f"expected score of {self.model_a} against {self.model_b} = "
            f"{self.win_probability:.3f}"
        )


@dataclass(frozen=True, repr=False)
class PairwiseComparisons(ResultDisplay):
    """Every pair of models compared, p-values adjusted for multiplicity.

    Attributes
    ----------
    table
        One row per unordered pair, the better model (by Elo) first: ``model_a, model_b,
        delta, se, delta_lo, delta_hi, p_value`` (two-sided, H₀: ΔElo = 0),
        ``p_adjusted`` and ``significant`` (``p_adjusted < alpha``).
    correction
        ``"holm"`` or ``"bh"``.
    alpha
        The level.
    """

    table: pd.DataFrame
    correction: str
    alpha: float

    def _headline(self) -> str:
        k = int(self.table["significant"].sum())
        return (
            f"{len(self.table):,} pairs, {k:,} told apart at {1 - self.alpha:.0%} "
            f"({self.correction})"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def __str__(self) -> str:
        return f"{self._headline()}\n" + self.table.to_string(index=False, float_format="%.3g")


@dataclass(frozen=True, repr=False)
class WinRateMatrix(ResultDisplay):
    """Predicted and observed win rates of every ordered pair of models.

    Attributes
    ----------
    table
        One row per ordered pair (i, j), i ≠ j: ``model_a, model_b, predicted,
        predicted_lo, predicted_hi`` (P(i beats j) from the fit, a tie counting ½, with its
        1 − α interval), ``observed, observed_lo, observed_hi`` (the pair's rate with its
        Wilson interval, battle-level; NaN where the pair never met) and ``n`` (battles).
    alpha
        The level.
    """

    table: pd.DataFrame
    alpha: float

    def matrix(self, value: str = "predicted") -> pd.DataFrame:
        """A models × models table of one column (``predicted``, ``observed``, ...)."""
        models = list(dict.fromkeys(self.table["model_a"]))
        return self.table.pivot(index="model_a", columns="model_b", values=value).reindex(
            index=models, columns=models
        )

    def _headline(self) -> str:
        met = self.table["n"] > 0
        gap = (self.table["observed"] - self.table["predicted"]).abs()[met]
        return (
            f"{self.table['model_a'].nunique()} models, {int(met.sum()) // 2:,} pairs met; "
            f"mean |observed − predicted| {gap.mean():.3f}"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def plot(self, ax: Axes | None = None, *, value: str = "predicted") -> Axes:
        """Heatmap of :meth:`matrix` (rows beat columns)."""
        from judgebayes.plots import win_rate_heatmap

        return win_rate_heatmap(self.matrix(value), ax=ax, title=f"{value} P(row beats column)")


@dataclass(frozen=True, repr=False)
class BaselineScores(ResultDisplay):
    """Arena-Hard's score: each model's predicted win rate against a baseline, in per cent.

    Attributes
    ----------
    baseline
        The baseline model (its own score is 50).
    table
        ``model, score, score_lo, score_hi`` (per cent, 1 − α interval), best first.
    alpha
        The level.
    """

    baseline: str
    table: pd.DataFrame
    alpha: float

    def _headline(self) -> str:
        top = self.table.iloc[0]
        return (
            f"score vs {self.baseline} ({1 - self.alpha:.0%} intervals), "
            f"{len(self.table)} models; top {top['model']} {top['score']:.1f}"
        )

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def __str__(self) -> str:
        return f"{self._headline()}\n" + self.table.to_string(index=False, float_format="%.1f")


class EloBoard(ResultDisplay):
    """Behaviour shared by Elo leaderboards with intervals (module docstring).

    A subclass provides ``fit`` (:class:`~judgebayes.core.bt.EloFit`, whose ``models``
    and ``elo`` are the board's), ``elo_lo``, ``elo_hi``, ``se``, ``alpha``,
    ``design_effect`` (per model, or ``None`` without clusters), ``rank_sets``
    (:class:`~judgebayes.core.ranksets.RankSets`), :meth:`_differences` and
    :meth:`_pair_stats`.
    """

    __slots__ = ()

    fit: EloFit
    alpha: float
    design_effect: np.ndarray | None

    @property
    def models(self) -> tuple[str, ...]:
        return self.fit.models

    @property
    def elo(self) -> np.ndarray:
        """Point estimates (the full-data MAP fit's Elo)."""
        return self.fit.elo

    @property
    def elo_lo(self) -> np.ndarray:  # pragma: no cover - every board defines it
        raise NotImplementedError

    @property
    def elo_hi(self) -> np.ndarray:  # pragma: no cover - every board defines it
        raise NotImplementedError

    @property
    def se(self) -> np.ndarray:  # pragma: no cover - every board defines it
        raise NotImplementedError

    @property
    def rank_sets(self) -> RankSets:  # pragma: no cover - every board defines it
        raise NotImplementedError

    def _differences(self, i: np.ndarray, j: np.ndarray, rope: float) -> Differences:
        """Elo_i − Elo_j for the index arrays ``i``, ``j`` (see :class:`Differences`)."""
        raise NotImplementedError  # pragma: no cover - every board defines it

    @property
    def median_design_effect(self) -> float:
        """Median over models of the design effect (NaN without clusters)."""
        effect = self.design_effect
        if effect is None or np.all(np.isnan(effect)):
            return float("nan")
        return float(np.nanmedian(effect))

    def __getitem__(self, model: str) -> float:
        """Elo of one model."""
        return float(self.elo[self._index(model)])

    def _index(self, model: str) -> int:
        if model not in self.models:
            raise DataError(
                f"unknown model {model!r}",
                expected=f"one of the {len(self.models)} models of the board",
            )
        return self.models.index(model)

    def to_frame(self) -> pd.DataFrame:
        """Leaderboard sorted by Elo: ``model, elo, elo_lo, elo_hi, se, n_battles, rank_lo,
        rank_hi, tier`` (simultaneous rank-sets and tiers, :attr:`rank_sets`)."""
        ranks = self.rank_sets
        frame = pd.DataFrame(
            {
                "model": self.models,
                "elo": self.elo,
                "elo_lo": self.elo_lo,
                "elo_hi": self.elo_hi,
                "se": self.se,
                "n_battles": self.fit.n_battles,
                "rank_lo": ranks.rank_lo,
                "rank_hi": ranks.rank_hi,
                "tier": ranks.tier,
            }
        )
        return frame.sort_values("elo", ascending=False, ignore_index=True)

    def plot(self, ax: Axes | None = None, *, truth: Mapping[str, float] | None = None) -> Axes:
        """Forest plot of the leaderboard with its rank-sets (:func:`judgebayes.plots.forest`)."""
        from judgebayes.plots import forest

        return forest(self, ax=ax, alpha=self.alpha, truth=truth)

    # -------------------------------------------------------------- comparisons
    def compare(self, model_a: str, model_b: str, *, rope: float = 0.0) -> Comparison:
        """Is ``model_a`` ahead of ``model_b``? ΔElo with its interval (module docstring).

        Parameters
        ----------
        model_a, model_b
            Two models of the board.
        rope
            δ ≥ 0: A is ahead only when the whole ``1 - alpha`` interval of ΔElo lies
            above δ Elo points (a region of practical equivalence).
        """
        if rope < 0:
            raise ValueError("rope must be >= 0")
        i, j = self._index(model_a), self._index(model_b)
        if i == j:
            raise DataError("compare two different models", expected="two model names")
        d = self._differences(np.array([i]), np.array([j]), rope)
        return Comparison(
            model_a=model_a,
            model_b=model_b,
            delta=float(d.estimate[0]),
            se=float(d.se[0]),
            ci=(float(d.lower[0]), float(d.upper[0])),
            p_value=float(d.p_at_most[0]),
            prob_ahead=float(d.ahead[0]),
            win_probability=float(self._win_probability(d.estimate[:1])[0]),
            alpha=self.alpha,
            rope=rope,
            ahead=bool(d.lower[0] > rope),
        )

    def compare_all(self, *, correction: Correction = "holm") -> PairwiseComparisons:
        """Every pair, two-sided p-values adjusted by Holm or Benjamini–Hochberg."""
        if correction not in ("holm", "bh"):
            raise ValueError(f"correction must be 'holm' or 'bh', got {correction!r}")
        order = np.argsort(-self.elo, kind="stable")
        upper = np.triu_indices(len(order), 1)
        i, j = order[upper[0]], order[upper[1]]
        d = self._differences(i, j, 0.0)
        adjusted = (
            holm(d.p_two_sided) if correction == "holm" else _benjamini_hochberg(d.p_two_sided)
        )
        names = np.asarray(self.models, dtype=object)
        table = pd.DataFrame(
            {
                "model_a": names[i],
                "model_b": names[j],
                "delta": d.estimate,
                "se": d.se,
                "delta_lo": d.lower,
                "delta_hi": d.upper,
                "p_value": d.p_two_sided,
                "p_adjusted": adjusted,
                "significant": adjusted < self.alpha,
            }
        )
        return PairwiseComparisons(table, correction, self.alpha)

    def win_rates(self) -> WinRateMatrix:
        """Predicted and observed P(i beats j) of every ordered pair, with intervals."""
        m = len(self.models)
        i, j = np.nonzero(~np.eye(m, dtype=bool))
        d = self._differences(i, j, 0.0)
        stats = self._pair_stats()
        n = np.zeros((m, m))
        wins = np.zeros((m, m))
        n[stats.i, stats.j] = n[stats.j, stats.i] = stats.n
        wins[stats.i, stats.j] = stats.y
        wins[stats.j, stats.i] = stats.n - stats.y
        met = n[i, j] > 0
        observed = np.full(len(i), np.nan)
        lo, hi = np.full(len(i), np.nan), np.full(len(i), np.nan)
        observed[met] = wins[i, j][met] / n[i, j][met]
        lo[met], hi[met] = wilson(wins[i, j][met], n[i, j][met], self.alpha)
        names = np.asarray(self.models, dtype=object)
        table = pd.DataFrame(
            {
                "model_a": names[i],
                "model_b": names[j],
                "predicted": self._win_probability(d.estimate),
                "predicted_lo": self._win_probability(d.lower),
                "predicted_hi": self._win_probability(d.upper),
                "observed": observed,
                "observed_lo": lo,
                "observed_hi": hi,
                "n": n[i, j],
            }
        )
        order = {m: k for k, m in enumerate(names[np.argsort(-self.elo, kind="stable")])}
        table = table.sort_values(
            ["model_a", "model_b"], key=lambda s: s.map(order), ignore_index=True
        )
        return WinRateMatrix(table, self.alpha)

    def vs_baseline(self, baseline: str) -> BaselineScores:
        """Every model's predicted win rate against ``baseline`` in per cent (Arena-Hard's
        score), with its ``1 - alpha`` interval; best first."""
        b = self._index(baseline)
        i = np.arange(len(self.models))
        d = self._differences(i, np.full(len(i), b), 0.0)
        score = 100 * self._win_probability(d.estimate)
        table = pd.DataFrame(
            {
                "model": self.models,
                "score": score,
                "score_lo": np.where(i == b, 50.0, 100 * self._win_probability(d.lower)),
                "score_hi": np.where(i == b, 50.0, 100 * self._win_probability(d.upper)),
            }
        )
        table = table.sort_values("score", ascending=False, ignore_index=True)
        return BaselineScores(baseline, table, self.alpha)

    def _win_probability(self, delta_elo: np.ndarray) -> np.ndarray:
        """P(i beats j), a tie counting ½, at Elo gap ``delta_elo``: σ(Δ / (400 / ln 10)),
        or, for a Davidson fit, P(i wins) + ½ P(tie) at the fitted ν."""
        d = np.asarray(delta_elo) / ELO_SCALE
        if not self.fit.davidson:
            return expit(d)
        win, _, tie = davidson_probabilities(d, float(self.fit.kappa))
        return win + tie / 2

    def _pair_stats(self) -> PairStats:  # pragma: no cover - every board defines it
        """The pair statistics of the fit (observed win rates)."""
        raise NotImplementedError
