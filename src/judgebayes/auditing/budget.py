"""How many more human labels would make the answer twice as sharp? By simulation.

From the fitted model, data sets like the user's are drawn with more human labels, the
calibrated estimate is refitted on each, and the answer is read off the curve of interval
width (and rank-set size) against the number of labels.

**Battles.** The fitted model: the human outcome of every battle (the same pairs in the
same order as the data) follows Davidson's model (Davidson 1970) at the calibrated Elo
(θ̂ = (Elo − 1500)·ln 10/400) with the tie propensity ν̂ that reproduces the labelled tie
rate; the judges' verdicts on a battle are those of a labelled battle with the same human
outcome, drawn at random (the empirical joint distribution of the judges' verdicts given
the human outcome, by position, which keeps the judges' agreement with each other and their
position bias). n′ battles drawn at random keep their simulated human label; prediction-
powered BT (:func:`~judgebayes.rankings.ppi_bt`) is refitted with every judge, and its median
95% interval width and median rank-set size recorded. n′ runs over n·{1, 2, 4, 8} (at most
every battle), ``n_reps`` data sets each; the number that halves the simulated width at n is
interpolated on the log–log curve (extrapolated, and said so, beyond it).

**Judged items.** Each model's labelled (human, judge) pairs are resampled to n′ per model
and PPI++ (:func:`~judgebayes.calibration.ppi_mean`) recomputed with the model's judge-only
items; the median over models of the interval width is the curve.

The simulation leaves out what the fitted model leaves out (verdicts that depend on the
models beyond the human outcome, e.g. self-preference), so it answers "how much sharper",
not "how much more right".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import brentq

from judgebayes._stats import norm_ppf
from judgebayes.calibration.estimators import ppi_mean
from judgebayes.calibration.items import JudgedItems
from judgebayes.core.bt import ELO_BASE, ELO_SCALE
from judgebayes.core.ranksets import rank_sets
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError
from judgebayes.rankings.data import RankingData, outcome_codes
from judgebayes.rankings.elo import EloEstimate
from judgebayes.rankings.ppi_bt import ppi_bt
from judgebayes.simulate import davidson_probs

__all__ = ["Budget", "battle_budget", "item_budget"]

FACTORS = (1, 2, 4, 8)
"""Multiples of the current number of labels the simulation tries."""


@dataclass(frozen=True, repr=False)
class Budget(ResultDisplay):
    """The simulated curve and the labels that halve the interval (module docstring).

    Attributes
    ----------
    curve
        One row per number of labels ``n_labels``: ``median_width`` (median over models of
        the 95% interval width) and, for battles, ``median_rank_set`` (median rank-set
        size), each the mean over ``n_reps`` simulated data sets, with ``sd`` columns.
    n_now
        Labels the data have.
    halve_width
        Labels (in all) at which the simulated median width is half that at ``n_now``.
    halve_rank_set
        Labels at which the median rank-set size is half (battles), or NaN.
    extrapolated
        Which of the two lie beyond the simulated range (a power law fitted to the curve).
    unit
        ``"Elo"`` or ``"θ"`` (judged items: the width of a model's accuracy interval).
    n_reps
        Simulated data sets per point.
    n_max
        Most labels the data can carry (battles: one per battle; judged items: no limit,
        ``inf``).
    """

    curve: pd.DataFrame
    n_now: int
    halve_width: float
    halve_rank_set: float
    extrapolated: tuple[str, ...]
    unit: str
    n_reps: int
    n_max: float = float("inf")

    def _headline(self) -> str:
        w = self.curve.iloc[0]["median_width"]
        text = (
            f"{self.n_now:,} labels now: median interval {w:.3g} {self.unit}; "
            f"≈ {self.halve_width:,.0f} labels halve it"
        )
        if np.isfinite(self.halve_rank_set):
            text += f", ≈ {self.halve_rank_set:,.0f} halve the median rank-set"
        return text

    def to_frame(self) -> pd.DataFrame:
        return self.curve


def _halving(n: np.ndarray, value: np.ndarray, target: float) -> tuple[float, bool]:
    """The n where ``value`` falls to ``target``: interpolated log–log, or extrapolated."""
    n, value = np.asarray(n, float), np.asarray(value, float)
    ok = np.isfinite(value) & (value > 0)
    n, value = n[ok], value[ok]
    if len(n) < 2:
        return np.nan, False
    below = np.flatnonzero(value <= target)
    if below.size and below[0] > 0:
        k = below[0]
        x0, x1 = np.log(n[k - 1]), np.log(n[k])
        y0, y1 = np.log(value[k - 1]), np.log(value[k])
        if y1 == y0:
            return float(n[k]), False
        return float(np.exp(x0 + (np.log(target) - y0) * (x1 - x0) / (y1 - y0))), False
    if below.size:
        return float(n[0]), False
    slope, intercept = np.polyfit(np.log(n), np.log(value), 1)
    if slope >= 0:
        return np.inf, True
    return float(np.exp((np.log(target) - intercept) / slope)), True


def _tie_propensity(d: np.ndarray, tie_rate: float) -> float:
    """ν whose mean Davidson tie probability over gaps ``d`` is ``tie_rate``."""
    if tie_rate <= 0:
        return 0.0

    def gap(nu: float) -> float:
        return float(davidson_probs(d, nu)[1].mean()) - tie_rate

    hi = 1.0
    while gap(hi) < 0 and hi < 1e6:
        hi *= 4
    return brentq(gap, 0.0, hi)


def battle_budget(
    data: RankingData,
    fitted: EloEstimate,
    *,
    alpha: float = 0.05,
    n_reps: int = 2,
    seed: int = 0,
) -> Budget:
    """Labels that halve the calibrated board's interval and rank-sets (module docstring)."""
    lab = data.labelled
    n_now = int(lab.sum())
    h_lab = outcome_codes(data.human[lab])
    theta = (np.asarray(fitted.elo) - ELO_BASE) / ELO_SCALE
    index = [fitted.models.index(m) for m in data.models]
    theta = theta[index]
    d = theta[data.a] - theta[data.b]
    nu = _tie_propensity(d, float(np.mean(h_lab == 1)))
    p_a, p_tie, _ = davidson_probs(d, nu)
    pool = {k: np.flatnonzero(h_lab == k) for k in range(3)}
    verdicts_lab = data.verdicts[lab]
    judges = list(fitted.judges)
    label = np.array([1.0, 0.5, 0.0])
    z = float(norm_ppf(1 - alpha / 2))
    rng = np.random.default_rng(seed)
    grid = sorted({min(data.n_battles, n_now * f) for f in FACTORS})
    rows = []
    for n_labels in grid:
        widths, sizes = [], []
        for _ in range(n_reps):
            u = rng.random(data.n_battles)
            h = np.where(u < p_a, 0, np.where(u < p_a + p_tie, 1, 2))
            verdicts = np.empty_like(data.verdicts)
            for k in range(3):
                rows_k = np.flatnonzero(h == k)
                source = pool[k] if pool[k].size else np.arange(len(h_lab))
                verdicts[rows_k] = verdicts_lab[rng.choice(source, rows_k.size)]
            keep = np.zeros(data.n_battles, bool)
            keep[rng.choice(data.n_battles, n_labels, replace=False)] = True
            sim = RankingData(
                data.models,
                data.a,
                data.b,
                np.where(keep, label[h], np.nan),
                data.judges,
                verdicts,
            )
            try:
                est = (
                    ppi_bt(sim, judges) if judges and n_labels < data.n_battles else ppi_bt(sim, [])
                )
            except DataError:
                continue
            widths.append(float(np.median(2 * z * est.se)))
            draws = est.draws(1000, seed=int(rng.integers(1 << 31)))
            ranks = rank_sets(draws, models=est.models, estimate=est.elo, alpha=alpha)
            sizes.append(float(np.median(ranks.size)))
        rows.append(
            {
                "n_labels": n_labels,
                "median_width": np.mean(widths) if widths else np.nan,
                "median_width_sd": np.std(widths, ddof=1) if len(widths) > 1 else np.nan,
                "median_rank_set": np.mean(sizes) if sizes else np.nan,
                "median_rank_set_sd": np.std(sizes, ddof=1) if len(sizes) > 1 else np.nan,
            }
        )
    curve = pd.DataFrame(rows)
    w0, s0 = curve["median_width"].iloc[0], curve["median_rank_set"].iloc[0]
    halve_w, ext_w = _halving(curve["n_labels"], curve["median_width"], w0 / 2)
    if np.isfinite(s0) and s0 >= 2:
        halve_s, ext_s = _halving(curve["n_labels"], curve["median_rank_set"], s0 / 2)
    else:
        halve_s, ext_s = np.nan, False
    extrapolated = tuple(name for name, e in (("width", ext_w), ("rank-set", ext_s)) if e)
    return Budget(
        curve, n_now, halve_w, halve_s, extrapolated, "Elo", n_reps, float(data.n_battles)
    )


def item_budget(
    items: JudgedItems, *, alpha: float = 0.05, n_reps: int = 20, seed: int = 0
) -> Budget:
    """Labels that halve the median PPI++ interval of the models' accuracy (docstring)."""
    f = items.frame
    rng = np.random.default_rng(seed)
    per_model = {}
    for m, g in f.groupby("model"):
        cal = g[g["split"] == "calibration"]
        test = g.loc[g["split"] == "test", "judge_label"].to_numpy(float)
        if len(cal) >= 2 and len(test) >= 2 and cal["human_label"].nunique() == 2:
            per_model[m] = (
                cal["human_label"].to_numpy(float),
                cal["judge_label"].to_numpy(float),
                test,
            )
    if not per_model:
        raise DataError(
            "no model has both labelled items of both outcomes and judge-only items",
            column="human_label",
        )
    n_now = int(sum(len(y) for y, _, _ in per_model.values()))
    rows = []
    for factor in FACTORS:
        widths = []
        for _ in range(n_reps):
            w = []
            for y, yhat, test in per_model.values():
                k = rng.integers(0, len(y), len(y) * factor)
                e = ppi_mean(test, y[k], yhat[k], alpha=alpha)
                w.append(e.ci[1] - e.ci[0])
            widths.append(float(np.median(w)))
        rows.append(
            {
                "n_labels": n_now * factor,
                "median_width": np.mean(widths),
                "median_width_sd": np.std(widths, ddof=1),
            }
        )
    curve = pd.DataFrame(rows)
    halve, ext = _halving(
        curve["n_labels"], curve["median_width"], curve["median_width"].iloc[0] / 2
    )
    return Budget(curve, n_now, halve, np.nan, ("width",) if ext else (), "θ", n_reps)
