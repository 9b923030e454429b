r"""Judge Consistency as a cheap proxy for the judge's own Elo (seed 002).

A *contest* is one verdict of a judge on answers of models i and j to one
question; a *matchup* ij is the set of a judge's contests between i and j
(both presentation orders pooled). For judge k and a set M of matchups:

* p_ij = (Wins_ij + ½·Ties_ij) / n_ij                                   (Eq. 3)
* mean Bernoulli variance  V̄ = Σ_{ij∈M} n_ij·p_ij(1 − p_ij) / Σ_{ij∈M} n_ij  (Eq. 1)
* Consistency = 1 − 4·V̄ ∈ [0, 1]                                      (Eq. 2)

This reproduces the paper's Table 1 for all 24 judges to 3 decimals (the
authors' code pools ``(i, j)`` and ``(j, i)`` contests into one symmetric
count matrix, which is the same as pooling both orders per unordered pair).
Computing p per *ordered* matchup instead inflates every judge's score through
position bias (see :func:`position_bias`).

Beyond the scores the module gives: agreement with the judges' Arena Elo
(Pearson, Spearman, rank displacement, regression MAE in-sample and
leave-one-judge-out, Section 3.2); the matchup-selection analysis of Section 3.3
(variance of matchup variances across judges vs Elo difference, Figure 2; the
convergence of the correlation as matchups are added, Figure 3); per-cluster
correlations (Appendix A.3); a position-bias check; and predictive intervals
for a new judge's Elo (a Bayesian regression and split-conformal intervals,
:mod:`judgebayes.conformal`), evaluated leave-one-judge-out.

The arrays live in :class:`MatchupCounts` (per judge × ordered matchup counts
of first-shown wins / ties / second-shown wins); every analysis is a few array
operations on them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.conformal import split_conformal
from judgebayes.core.battles import Battles
from judgebayes.core.report import DropReport
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "ClusterCorrelations",
    "ConvergenceCurve",
    "EloAgreement",
    "EloIntervals",
    "EloPrediction",
    "JudgeConsistency",
    "MatchupCounts",
    "MatchupVariance",
    "PositionBias",
    "cluster_correlations",
    "compare_elo",
    "consistency_from_counts",
    "convergence_curve",
    "elo_intervals_loo",
    "judge_consistency",
    "matchup_counts",
    "matchup_variance",
    "position_bias",
    "predict_elo",
    "rank_clusters",
    "read_elo",
]

_SINGLE_JUDGE = "judge"


# --------------------------------------------------------------------------- counts
@dataclass(frozen=True)
class MatchupCounts:
    """Per judge and ordered matchup: counts of (first-shown wins, ties, second-shown wins).

    An *ordered* matchup (unit) u is (model shown first, model shown second);
    both orders of a model pair map to the same unordered *pair* (i, j), i < j
    by model index (models sorted by name).

    Attributes
    ----------
    judges, models
        Names; indices below refer to these tuples.
    first, second
        Model index shown first / second in each unit, shape ``(n_units,)``.
    pair
        Pair index of each unit.
    pair_i, pair_j
        Model indices of each pair, ``pair_i < pair_j``.
    counts
        Shape ``(n_judges, n_units, 3)``: first wins, ties, second wins.
    report
        Rows received and rows not used (missing label).
    """

    judges: tuple[str, ...]
    models: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    pair: np.ndarray
    pair_i: np.ndarray
    pair_j: np.ndarray
    counts: np.ndarray
    report: DropReport = field(repr=False)

    @property
    def n_judges(self) -> int:
        return len(self.judges)

    @property
    def n_units(self) -> int:
        return int(self.first.size)

    @property
    def n_pairs(self) -> int:
        return int(self.pair_i.size)

    @property
    def n(self) -> np.ndarray:
        """Contests per judge and unit, ``(n_judges, n_units)``."""
        return self.counts.sum(axis=-1)

    @property
    def first_score(self) -> np.ndarray:
        """Wins + ½·ties of the model shown first, ``(n_judges, n_units)``."""
        return self.counts[..., 0] + 0.5 * self.counts[..., 1]

    def unit_names(self) -> list[tuple[str, str]]:
        """(first, second) model names of each unit."""
        return [(self.models[a], self.models[b]) for a, b in zip(self.first, self.second,
                                                                 strict=True)]

    def pair_names(self) -> list[tuple[str, str]]:
        """(i, j) model names of each pair."""
        return [(self.models[a], self.models[b]) for a, b in zip(self.pair_i, self.pair_j,
                                                                 strict=True)]

    def pair_totals(self, units: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Both orders pooled: contests n and wins of pair model i, each ``(n_judges, n_pairs)``.

        ``wins`` counts ties as ½ (Eq. 3). ``units``: an optional boolean mask or
        index array restricting the ordered matchups pooled.
        """
        keep = np.ones(self.n_units, dtype=bool)
        if units is not None:
            keep = np.zeros(self.n_units, dtype=bool)
            keep[np.asarray(units)] = True
        n_u = self.n * keep
        s_u = self.first_score * keep
        i_first = self.first == self.pair_i[self.pair]
        w_u = np.where(i_first, s_u, n_u - s_u)
        n = np.zeros((self.n_judges, self.n_pairs))
        w = np.zeros((self.n_judges, self.n_pairs))
        np.add.at(n.T, self.pair, n_u.T)
        np.add.at(w.T, self.pair, w_u.T)
        return n, w

    def pair_outcomes(self, units: np.ndarray | None = None) -> np.ndarray:
        """Both orders pooled: counts of (pair's i wins, tie, j wins), ``(n_judges, n_pairs, 3)``.

        ``units``: an optional boolean mask or index array of the ordered matchups pooled.
        """
        keep = np.ones(self.n_units, dtype=bool)
        if units is not None:
            keep = np.zeros(self.n_units, dtype=bool)
            keep[np.asarray(units)] = True
        i_first = self.first == self.pair_i[self.pair]
        oriented = np.where(i_first[None, :, None], self.counts, self.counts[..., ::-1])
        oriented = oriented * keep[None, :, None]
        pooled = np.zeros((self.n_judges, self.n_pairs, 3))
        np.add.at(pooled.transpose(1, 0, 2), self.pair, oriented.transpose(1, 0, 2))
        return pooled

    def unit_elo_diff(self, elo: Mapping[str, float] | pd.Series) -> np.ndarray:
        """|Elo(first) − Elo(second)| of every unit (a clear error for missing models)."""
        e = _elo_vector(elo, self.models, "model")
        return np.abs(e[self.first] - e[self.second])

    def pair_elo_diff(self, elo: Mapping[str, float] | pd.Series) -> np.ndarray:
        """|Elo(i) − Elo(j)| of every pair."""
        e = _elo_vector(elo, self.models, "model")
        return np.abs(e[self.pair_i] - e[self.pair_j])

    def for_judges(self, judges: Iterable[str]) -> MatchupCounts:
        """The same counts restricted to ``judges`` (in that order)."""
        idx = [_index_of(self.judges, j, "judge") for j in judges]
        return MatchupCounts(tuple(self.judges[k] for k in idx), self.models, self.first,
                             self.second, self.pair, self.pair_i, self.pair_j,
                             self.counts[idx], self.report)


def _index_of(names: tuple[str, ...], name: str, what: str) -> int:
    try:
        return names.index(name)
    except ValueError:
        raise DataError(f"unknown {what} {name!r}", column=what,
                        expected=f"one of {len(names)} names such as {list(names[:3])}",
                        ) from None


def _elo_vector(elo: Mapping[str, float] | pd.Series, names: tuple[str, ...],
                what: str) -> np.ndarray:
    elo = pd.Series(elo, dtype=float) if not isinstance(elo, pd.Series) else elo.astype(float)
    missing = [m for m in names if m not in elo.index]
    if missing:
        raise DataError(f"no Elo for {len(missing)} {what}(s): {missing[:5]}", column=what,
                        expected=f"an Elo for every {what}")
    e = elo.reindex(list(names)).to_numpy(dtype=float)
    bad = ~np.isfinite(e)
    if bad.any():
        raise DataError(f"the Elo of {names[int(np.flatnonzero(bad)[0])]!r} is missing or "
                        f"infinite", column=what, expected="a finite number")
    return e


def matchup_counts(battles: Battles, *, target: str = "judge_label",
                   matchups: Iterable[tuple[str, str]] | None = None) -> MatchupCounts:
    """Aggregate judged battles into :class:`MatchupCounts`.

    Parameters
    ----------
    battles
        Battles with a label column ``target`` (1 / 0.5 / 0, P(A beats B)) and a
        ``judge`` column (without it, all battles are one judge named
        ``"judge"``). The presentation order comes from ``position`` (``"a"``:
        model A shown first); without that column model A counts as shown first.
    target
        ``"judge_label"`` (default) or ``"human_label"``.
    matchups
        Optional model pairs (unordered, e.g. ``[("gpt-4-0314", "vicuna-7b")]``)
        to keep; both presentation orders of each are kept. Default: every pair
        present.

    Returns
    -------
    MatchupCounts
    """
    if target not in ("judge_label", "human_label"):
        raise DataError(f"target must be a label column, got {target!r}", column=target,
                        expected="'judge_label' or 'human_label'")
    label = np.asarray(battles.column(target), dtype=float)
    f = battles.frame
    a, b = battles.codes()
    present = ~np.isnan(label)
    report = battles.report.with_excluded(f"no {target}", int((~present).sum()))
    if "judge" in f:
        judge_col = f["judge"]
        missing = judge_col.isna().to_numpy()
        if missing.any():
            row = int(np.flatnonzero(missing)[0])
            raise DataError("missing judge name", row=row, column="judge",
                            expected="the name of the judge that gave the verdict")
        judge_names = judge_col.astype(str).to_numpy()
    else:
        judge_names = np.full(len(f), _SINGLE_JUDGE)
    b_first = (f["position"] == "b").to_numpy() if "position" in f else np.zeros(len(f), bool)
    first = np.where(b_first, b, a)
    second = np.where(b_first, a, b)
    score = np.where(b_first, 1.0 - label, label)
    models = battles.models
    m = len(models)

    keep = present.copy()
    if matchups is not None:
        lo_all, hi_all = np.minimum(a, b), np.maximum(a, b)
        wanted: set[int] = set()
        for pair in matchups:
            if len(pair) != 2:
                raise DataError(f"a matchup is a pair of model names, got {pair!r}",
                                column="matchups")
            x, y = (_index_of(models, str(name), "model") for name in pair)
            key = min(x, y) * m + max(x, y)
            if not np.any((lo_all * m + hi_all == key) & present):
                raise DataError(f"matchup {tuple(pair)!r} has no judged contests",
                                column="matchups")
            wanted.add(key)
        keep &= np.isin(lo_all * m + hi_all, np.fromiter(wanted, dtype=np.int64))
        n_out = int((present & ~keep).sum())
        report = report.with_excluded("not in the selected matchups", n_out)
    if not keep.any():
        raise DataError(f"no battle has a {target}", column=target)

    judges = tuple(sorted(set(judge_names[keep])))
    j_idx = np.searchsorted(np.array(judges), judge_names[keep])
    unit_key = first[keep] * m + second[keep]
    unit_keys, u_idx = np.unique(unit_key, return_inverse=True)
    u_first, u_second = unit_keys // m, unit_keys % m
    pair_key = np.minimum(u_first, u_second) * m + np.maximum(u_first, u_second)
    pair_keys, pair_of_unit = np.unique(pair_key, return_inverse=True)
    cat = np.rint(2.0 * (1.0 - score[keep])).astype(np.int64)  # 1 -> 0, 0.5 -> 1, 0 -> 2
    counts = np.zeros((len(judges), unit_keys.size, 3))
    np.add.at(counts, (j_idx, u_idx, cat), 1.0)
    return MatchupCounts(judges=judges, models=models, first=u_first, second=u_second,
                         pair=pair_of_unit, pair_i=pair_keys // m, pair_j=pair_keys % m,
                         counts=counts, report=report)


# ----------------------------------------------------------------------- consistency
def consistency_from_counts(n: np.ndarray, wins: np.ndarray, *, axis: int = -1,
                            ) -> np.ndarray:
    """Consistency 1 − 4·V̄ (Eq. 2) from matchup counts; V̄ (Eq. 1) is (1 − C)/4.

    Parameters
    ----------
    n
        Contests per matchup (any shape; matchups along ``axis``). Matchups with
        ``n = 0`` are ignored.
    wins
        Wins + ½·ties of one side of each matchup (Eq. 3), same shape.
    axis
        The matchup axis.

    Returns
    -------
    numpy.ndarray
        Consistency with ``axis`` removed; NaN where no matchup has a contest.
    """
    n = np.asarray(n, dtype=float)
    wins = np.asarray(wins, dtype=float)
    p = np.divide(wins, n, out=np.zeros_like(n), where=n > 0)
    total = n.sum(axis=axis)
    var_sum = (n * p * (1.0 - p)).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_var = np.where(total > 0, var_sum / np.where(total > 0, total, 1.0), np.nan)
    return 1.0 - 4.0 * mean_var


@dataclass(frozen=True)
class JudgeConsistency:
    """Each judge's Consistency score (seed 002, Eqs. 1–3).

    Attributes
    ----------
    judges
        Judge names.
    consistency
        1 − 4·mean variance, per judge.
    mean_variance
        Eq. 1, per judge.
    n_contests
        Contests used, per judge.
    n_matchups
        Matchups with at least one contest, per judge.
    pool_orders
        True (the paper): p per unordered pair, both orders pooled; False: p per
        ordered matchup (inflated by position bias).
    counts
        The :class:`MatchupCounts` behind the scores.
    bias_corrected
        True when p(1 − p) was estimated without the plug-in's bias.
    """

    judges: tuple[str, ...]
    consistency: np.ndarray
    mean_variance: np.ndarray
    n_contests: np.ndarray
    n_matchups: np.ndarray
    pool_orders: bool
    counts: MatchupCounts = field(repr=False)
    bias_corrected: bool = False

    def __getitem__(self, judge: str) -> float:
        return float(self.consistency[_index_of(self.judges, judge, "judge")])

    def to_series(self) -> pd.Series:
        """Consistency indexed by judge."""
        return pd.Series(self.consistency, index=pd.Index(self.judges, name="judge"),
                         name="consistency")

    def to_frame(self) -> pd.DataFrame:
        """One row per judge, most consistent first."""
        frame = pd.DataFrame({"judge": self.judges, "consistency": self.consistency,
                              "mean_variance": self.mean_variance,
                              "n_contests": self.n_contests.astype(int),
                              "n_matchups": self.n_matchups.astype(int)})
        return frame.sort_values("consistency", ascending=False, kind="stable",
                                 ignore_index=True)

    def pair_variance(self) -> pd.DataFrame:
        """p_ij(1 − p_ij) of every judge (rows) and pair (columns); NaN without contests."""
        n, w = self.counts.pair_totals()
        p = np.divide(w, n, out=np.full_like(n, np.nan), where=n > 0)
        cols = pd.MultiIndex.from_tuples(self.counts.pair_names(), names=["model_i", "model_j"])
        return pd.DataFrame(p * (1 - p), index=pd.Index(self.judges, name="judge"),
                            columns=cols)

    def __str__(self) -> str:
        how = ("both presentation orders pooled" if self.pool_orders
               else "per ordered matchup (not pooled)")
        if self.bias_corrected:
            how += ", bias-corrected p(1−p)"
        head = (f"Consistency of {len(self.judges)} judge(s) (seed 002, Eq. 2; {how}; "
                f"{self.counts.n_pairs} matchups)")
        body = self.to_frame().to_string(index=False, formatters={
            "consistency": "{:.3f}".format, "mean_variance": "{:.4f}".format})
        return head + "\n" + body


def judge_consistency(data: Battles | MatchupCounts, *,
                      matchups: Iterable[tuple[str, str]] | None = None,
                      pool_orders: bool = True, bias_corrected: bool = False,
                      target: str = "judge_label") -> JudgeConsistency:
    """Consistency score of every judge (seed 002, Eqs. 1–3).

    Parameters
    ----------
    data
        Judged battles (see :func:`matchup_counts`) or their counts.
    matchups
        Model pairs forming the matchup set M (default: every pair present).
    pool_orders
        ``True`` (the paper, Section 2.2): both presentation orders of a pair
        form one matchup. ``False``: each ordered matchup on its own.
    bias_corrected
        ``False`` (the paper): the plug-in p̂(1 − p̂). ``True``: the unbiased
        estimate p̂ − p̂² + s²/n of p(1 − p), with s² the sample variance of the
        contest scores (1, ½, 0) — for win/loss only this is n/(n − 1)·p̂(1 − p̂).
        The plug-in is biased towards consistency by 4·E[s²]/n per matchup
        (about 0.02 at 40 contests per matchup). Needs ``pool_orders=True``.
    target
        Label column when ``data`` is :class:`Battles`.

    Returns
    -------
    JudgeConsistency
    """
    if isinstance(data, Battles):
        counts = matchup_counts(data, target=target, matchups=matchups)
    else:
        counts = data
        if matchups is not None:
            counts = _restrict_pairs(counts, matchups)
    if pool_orders:
        n, w = counts.pair_totals()
    else:
        if bias_corrected:
            raise DataError("bias_corrected=True needs pool_orders=True", column="bias_corrected")
        n, w = counts.n, counts.first_score
    if bias_corrected:
        outcomes = counts.pair_outcomes()
        p = np.divide(w, n, out=np.zeros_like(n), where=n > 0)
        sum_sq = outcomes[..., 0] + 0.25 * outcomes[..., 1]
        s2 = np.divide(sum_sq - n * p**2, n - 1, out=np.zeros_like(n), where=n > 1)
        unbiased = n * (p - p**2) + s2  # n × (p̂ − p̂² + s²/n)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_var = unbiased.sum(axis=1) / n.sum(axis=1)
        cons = 1.0 - 4.0 * mean_var
    else:
        cons = consistency_from_counts(n, w)
    return JudgeConsistency(judges=counts.judges, consistency=cons,
                            mean_variance=(1.0 - cons) / 4.0,
                            n_contests=n.sum(axis=1), n_matchups=(n > 0).sum(axis=1),
                            pool_orders=pool_orders, counts=counts,
                            bias_corrected=bias_corrected)


def _restrict_pairs(counts: MatchupCounts, matchups: Iterable[tuple[str, str]],
                    ) -> MatchupCounts:
    names = counts.pair_names()
    lookup = {frozenset(p): k for k, p in enumerate(names)}
    keep = []
    for pair in matchups:
        k = lookup.get(frozenset(map(str, pair)))
        if k is None:
            raise DataError(f"matchup {tuple(pair)!r} is not in the data", column="matchups")
        keep.append(k)
    unit_mask = np.isin(counts.pair, keep)
    pairs_kept = np.unique(counts.pair[unit_mask])
    remap = -np.ones(counts.n_pairs, dtype=np.int64)
    remap[pairs_kept] = np.arange(pairs_kept.size)
    return MatchupCounts(counts.judges, counts.models, counts.first[unit_mask],
                         counts.second[unit_mask], remap[counts.pair[unit_mask]],
                         counts.pair_i[pairs_kept], counts.pair_j[pairs_kept],
                         counts.counts[:, unit_mask], counts.report)


# ----------------------------------------------------------------------------- Elo
def read_elo(path: str | Path, *, key: str | None = None) -> pd.Series:
    """An Elo table (CSV with a name column and ``arena_elo`` or ``elo``) as a Series.

    Parameters
    ----------
    path
        CSV such as ``judge,arena_elo`` or ``model,arena_elo``.
    key
        The name column (default: ``judge`` or ``model``, whichever exists,
        else the first column).

    Returns
    -------
    pandas.Series
        Elo indexed by name.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"no such file: {path}", expected="a CSV with columns judge,arena_elo")
    frame = pd.read_csv(path)
    if key is None:
        key = next((c for c in ("judge", "model") if c in frame), frame.columns[0])
    value = next((c for c in ("arena_elo", "elo") if c in frame), None)
    if key not in frame or value is None:
        raise DataError(f"{path.name} has columns {list(frame.columns)}", column=key,
                        expected="a name column (judge or model) and an 'arena_elo' column")
    elo = pd.to_numeric(frame[value], errors="coerce")
    bad = elo.isna() | ~np.isfinite(elo.fillna(0))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"{path.name}: Elo is not a number", row=row, column=value,
                        got=frame[value].iloc[row], expected="a finite number")
    names = frame[key].astype(str)
    dup = names.duplicated().to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        raise DataError(f"{path.name}: duplicate name", row=row, column=key,
                        got=names.iloc[row], expected="each name once")
    return pd.Series(elo.to_numpy(float), index=pd.Index(names, name=key), name=value)


def _ols(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    res = stats.linregress(x, y)
    return float(res.intercept), float(res.slope)


@dataclass(frozen=True)
class EloAgreement:
    """How well Consistency tracks the judges' Arena Elo (seed 002, Section 3.2).

    Two regressions predict Elo from Consistency C:

    * *direct*: ordinary least squares of Elo on C (Elo = a + b·C), the
      regression that minimises the prediction error it is judged by;
    * *inverse*: the paper's (authors' code): least squares of C on Elo, the
      line of Figure 1, inverted (Elo = (C − a')/b'). Its MAE is the paper's
      35.2 Elo (with the unrounded Arena Elo the authors used).

    Both come in-sample and leave-one-judge-out (each judge predicted by a line
    fitted to the others).

    Attributes
    ----------
    judges, consistency, elo
        Per judge.
    pearson, pearson_pvalue, spearman, spearman_pvalue
        Correlation of Consistency with Elo.
    rank_consistency, rank_elo
        Ranks (1 = highest; ties averaged).
    rank_displacement
        Mean |rank by Consistency − rank by Elo| (the paper's "within 2.8 positions").
    intercept, slope
        Direct regression Elo = intercept + slope·C (all judges).
    predicted, predicted_loo
        Direct-regression predictions, in-sample and leave-one-judge-out.
    predicted_inverse, predicted_inverse_loo
        Inverse-regression predictions.
    """

    judges: tuple[str, ...]
    consistency: np.ndarray
    elo: np.ndarray
    pearson: float
    pearson_pvalue: float
    spearman: float
    spearman_pvalue: float
    rank_consistency: np.ndarray
    rank_elo: np.ndarray
    intercept: float
    slope: float
    predicted: np.ndarray
    predicted_loo: np.ndarray
    predicted_inverse: np.ndarray
    predicted_inverse_loo: np.ndarray

    @property
    def rank_displacement(self) -> float:
        return float(np.mean(np.abs(self.rank_consistency - self.rank_elo)))

    @property
    def mae(self) -> float:
        """Direct regression, in-sample."""
        return float(np.mean(np.abs(self.predicted - self.elo)))

    @property
    def mae_loo(self) -> float:
        """Direct regression, leave-one-judge-out."""
        return float(np.mean(np.abs(self.predicted_loo - self.elo)))

    @property
    def mae_inverse(self) -> float:
        """The paper's inverted regression, in-sample."""
        return float(np.mean(np.abs(self.predicted_inverse - self.elo)))

    @property
    def mae_inverse_loo(self) -> float:
        """The paper's inverted regression, leave-one-judge-out."""
        return float(np.mean(np.abs(self.predicted_inverse_loo - self.elo)))

    def to_frame(self) -> pd.DataFrame:
        """One row per judge, highest Elo first."""
        frame = pd.DataFrame({
            "judge": self.judges, "consistency": self.consistency, "arena_elo": self.elo,
            "rank_consistency": self.rank_consistency, "rank_elo": self.rank_elo,
            "rank_shift": self.rank_consistency - self.rank_elo,
            "elo_pred": self.predicted, "elo_pred_loo": self.predicted_loo,
            "elo_pred_inverse": self.predicted_inverse,
            "elo_pred_inverse_loo": self.predicted_inverse_loo})
        return frame.sort_values("arena_elo", ascending=False, kind="stable",
                                 ignore_index=True)

    def to_dict(self) -> dict[str, float | int]:
        return {"n_judges": len(self.judges), "pearson": self.pearson,
                "pearson_pvalue": self.pearson_pvalue, "spearman": self.spearman,
                "spearman_pvalue": self.spearman_pvalue,
                "rank_displacement": self.rank_displacement, "intercept": self.intercept,
                "slope": self.slope, "mae": self.mae, "mae_loo": self.mae_loo,
                "mae_inverse": self.mae_inverse, "mae_inverse_loo": self.mae_inverse_loo}

    def plot(self, ax: Axes | None = None, *, labels: bool = True) -> Axes:
        """Figure 1: Consistency against Arena Elo with the fitted line."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 5))
        ax.scatter(self.elo, self.consistency, color="#1f5fa8", zorder=3)
        a, b = _ols(self.elo, self.consistency)
        xs = np.linspace(self.elo.min(), self.elo.max(), 50)
        ax.plot(xs, a + b * xs, "--", color="#c2185b", label=f"Pearson r = {self.pearson:.2f}")
        if labels:
            for name, x, y in zip(self.judges, self.elo, self.consistency, strict=True):
                ax.annotate(name, (x, y), fontsize=6, xytext=(3, 2),
                            textcoords="offset points")
        ax.set_xlabel("Arena Elo of the judge")
        ax.set_ylabel("Consistency")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", frameon=False)
        return ax

    def __str__(self) -> str:
        d = self.to_dict()
        return (f"Consistency vs Arena Elo over {d['n_judges']} judges: Pearson r = "
                f"{self.pearson:.3f} (p = {self.pearson_pvalue:.1e}), Spearman ρ = "
                f"{self.spearman:.3f}; mean rank displacement {self.rank_displacement:.2f}\n"
                f"Elo from Consistency, MAE: OLS Elo~C {self.mae:.1f} (leave-one-judge-out "
                f"{self.mae_loo:.1f}); paper's inverted C~Elo line {self.mae_inverse:.1f} "
                f"(leave-one-judge-out {self.mae_inverse_loo:.1f})")


def _values(result: JudgeConsistency | Mapping[str, float] | pd.Series,
            ) -> tuple[tuple[str, ...], np.ndarray]:
    if isinstance(result, JudgeConsistency):
        return result.judges, np.asarray(result.consistency, float)
    series = pd.Series(result, dtype=float)
    return tuple(map(str, series.index)), series.to_numpy(float)


def compare_elo(result: JudgeConsistency | Mapping[str, float] | pd.Series,
                judge_elo: Mapping[str, float] | pd.Series) -> EloAgreement:
    """Correlation, rank displacement and regression MAE of Consistency vs Elo.

    Parameters
    ----------
    result
        Consistency scores (a :class:`JudgeConsistency` or ``{judge: score}``).
    judge_elo
        Arena Elo of every judge (extra entries are ignored).

    Returns
    -------
    EloAgreement
    """
    judges, c = _values(result)
    if len(judges) < 3:
        raise DataError(f"need at least 3 judges to compare with Elo, got {len(judges)}")
    if not np.all(np.isfinite(c)):
        raise DataError("a judge has no Consistency score (no contests)", column="consistency")
    e = _elo_vector(judge_elo, judges, "judge")
    pr = stats.pearsonr(c, e)
    sr = stats.spearmanr(c, e)
    a, b = _ols(c, e)
    a_inv, b_inv = _ols(e, c)
    n = len(judges)
    loo, loo_inv = np.empty(n), np.empty(n)
    for k in range(n):
        rest = np.arange(n) != k
        ak, bk = _ols(c[rest], e[rest])
        loo[k] = ak + bk * c[k]
        ak, bk = _ols(e[rest], c[rest])
        loo_inv[k] = (c[k] - ak) / bk
    return EloAgreement(
        judges=judges, consistency=c, elo=e, pearson=float(pr.statistic),
        pearson_pvalue=float(pr.pvalue), spearman=float(sr.statistic),
        spearman_pvalue=float(sr.pvalue), rank_consistency=stats.rankdata(-c),
        rank_elo=stats.rankdata(-e), intercept=a, slope=b, predicted=a + b * c,
        predicted_loo=loo, predicted_inverse=(c - a_inv) / b_inv,
        predicted_inverse_loo=loo_inv)


# ---------------------------------------------------------- matchup selection (§3.3)
@dataclass(frozen=True)
class MatchupVariance:
    """Per matchup: spread of the judges' variances vs the Elo gap (Section 3.3, Figure 2).

    Attributes
    ----------
    pairs
        (model i, model j) of each matchup.
    elo_diff
        |Elo_i − Elo_j| (contestants' Arena Elo).
    variance_across_judges
        Population variance (ddof 0, as the authors) over judges of each judge's
        p_ij(1 − p_ij) on this matchup.
    mean_variance
        Mean over judges of p_ij(1 − p_ij).
    n_judges
        Judges with contests on the matchup.
    pearson
        Correlation of ``elo_diff`` with ``variance_across_judges``.
    """

    pairs: tuple[tuple[str, str], ...]
    elo_diff: np.ndarray
    variance_across_judges: np.ndarray
    mean_variance: np.ndarray
    n_judges: np.ndarray
    pearson: float

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame({"model_i": [p[0] for p in self.pairs],
                              "model_j": [p[1] for p in self.pairs],
                              "elo_diff": self.elo_diff,
                              "variance_across_judges": self.variance_across_judges,
                              "mean_variance": self.mean_variance,
                              "n_judges": self.n_judges.astype(int)})
        return frame.sort_values("elo_diff", ascending=False, kind="stable", ignore_index=True)

    def plot(self, ax: Axes | None = None) -> Axes:
        """Figure 2: variance of matchup variances against the matchup's Elo gap."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4.5))
        ax.scatter(self.elo_diff, self.variance_across_judges, s=14, color="#1f5fa8")
        a, b = _ols(self.elo_diff, self.variance_across_judges)
        xs = np.linspace(0, self.elo_diff.max(), 50)
        ax.plot(xs, a + b * xs, color="#c2185b", label=f"Pearson r = {self.pearson:.2f}")
        ax.set_xlabel("|Elo difference| of the matchup")
        ax.set_ylabel("variance across judges of p(1−p)")
        ax.grid(alpha=0.3)
        ax.legend(frameon=False)
        return ax

    def __str__(self) -> str:
        return (f"Variance across judges of the matchup variance vs |Elo difference| "
                f"({len(self.pairs)} matchups): Pearson r = {self.pearson:.3f}\n"
                + self.to_frame().head(10).to_string(index=False, float_format="{:.4f}".format))


def matchup_variance(data: JudgeConsistency | MatchupCounts,
                     contestant_elo: Mapping[str, float] | pd.Series) -> MatchupVariance:
    """Variance over judges of each matchup's variance vs its Elo gap (Section 3.3).

    Parameters
    ----------
    data
        Consistency scores or the counts behind them.
    contestant_elo
        Arena Elo of the judged (contestant) models.

    Returns
    -------
    MatchupVariance
    """
    counts = data.counts if isinstance(data, JudgeConsistency) else data
    n, w = counts.pair_totals()
    p = np.divide(w, n, out=np.full_like(n, np.nan), where=n > 0)
    v = p * (1 - p)
    n_j = (n > 0).sum(axis=0)
    if np.any(n_j == 0):
        raise DataError("a matchup has no contests from any judge")
    var_across = np.nanvar(v, axis=0)
    diff = counts.pair_elo_diff(contestant_elo)
    r = float(stats.pearsonr(diff, var_across).statistic) if len(diff) > 2 else math.nan
    return MatchupVariance(pairs=tuple(counts.pair_names()), elo_diff=diff,
                           variance_across_judges=var_across,
                           mean_variance=np.nanmean(v, axis=0), n_judges=n_j, pearson=r)


@dataclass(frozen=True)
class ConvergenceCurve:
    """Correlation of Consistency with judge Elo as matchups are added (Figure 3).

    Attributes
    ----------
    n_matchups
        1..K, the number of matchups used.
    r_sorted
        Pearson r when matchups are added largest Elo difference first.
    r_random
        Pearson r along each random order, shape ``(n_orders, K)``.
    sorted_units
        The matchups in the sorted order ((first, second) names for ordered
        matchups, (i, j) for pairs).
    unit
        ``"ordered"`` (the paper: 140 ordered matchups; both orders of a pair,
        once selected, are pooled) or ``"pair"`` (70 unordered pairs).
    seed
        Seed of the random orders.
    """

    n_matchups: np.ndarray
    r_sorted: np.ndarray
    r_random: np.ndarray
    sorted_units: tuple[tuple[str, str], ...]
    unit: Literal["ordered", "pair"]
    seed: int

    @property
    def r_random_mean(self) -> np.ndarray:
        """Mean r over random orders (the paper's blue line, 25 orders)."""
        with np.errstate(invalid="ignore"):
            return np.nanmean(self.r_random, axis=0)

    def r_random_quantiles(self, q: tuple[float, float] = (0.1, 0.9)) -> np.ndarray:
        """Quantiles of r over random orders, shape ``(2, K)``."""
        return np.nanquantile(self.r_random, q, axis=0)

    def to_frame(self) -> pd.DataFrame:
        lo, hi = self.r_random_quantiles()
        return pd.DataFrame({"n_matchups": self.n_matchups, "r_sorted": self.r_sorted,
                             "r_random_mean": self.r_random_mean, "r_random_q10": lo,
                             "r_random_q90": hi})

    def plot(self, ax: Axes | None = None) -> Axes:
        """Figure 3: the convergence curves."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4.5))
        lo, hi = self.r_random_quantiles()
        ax.fill_between(self.n_matchups, lo, hi, color="#1f5fa8", alpha=0.2, lw=0,
                        label="random orders, 10–90%")
        ax.plot(self.n_matchups, self.r_random_mean, color="#1f5fa8",
                label=f"random orders, mean of {self.r_random.shape[0]}")
        ax.plot(self.n_matchups, self.r_sorted, color="#c2185b",
                label="largest Elo difference first")
        ax.set_xlabel(f"number of {'ordered ' if self.unit == 'ordered' else ''}matchups")
        ax.set_ylabel("Pearson r (Consistency, judge Elo)")
        ax.set_ylim(-1, 1)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", frameon=False)
        return ax

    def __str__(self) -> str:
        picks = [k for k in (1, 2, 5, 10, 20, 30, 50, 70, 100, 140) if k <= len(self.n_matchups)]
        frame = self.to_frame().set_index("n_matchups").loc[picks]
        return (f"Convergence of Pearson r as {self.unit} matchups are added "
                f"({self.r_random.shape[0]} random orders, seed {self.seed}):\n"
                + frame.to_string(float_format="{:.3f}".format))


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of x (…, J) with y (J,); NaN for constant or missing rows."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean()
    den = np.sqrt((xc**2).sum(axis=-1) * (yc**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=-1) / den
    return np.where(den > 1e-15, r, np.nan)


def convergence_curve(data: JudgeConsistency | MatchupCounts,
                      judge_elo: Mapping[str, float] | pd.Series,
                      contestant_elo: Mapping[str, float] | pd.Series, *,
                      unit: Literal["ordered", "pair"] = "ordered", n_orders: int = 25,
                      seed: int = 0) -> ConvergenceCurve:
    """Pearson r of Consistency with judge Elo as matchups are added (Section 3.3).

    After k matchups, each judge's Consistency (Eq. 2) is computed on those
    matchups only; r is its correlation with the judges' Elo. Orders: largest
    contestant Elo difference first (ties kept in data order), and ``n_orders``
    uniformly random orders.

    Parameters
    ----------
    data
        Consistency scores or their counts.
    judge_elo, contestant_elo
        Arena Elo of the judges and of the judged models.
    unit
        ``"ordered"`` (the paper's 140 matchups: one presentation order of a
        pair; a pair's selected orders are pooled) or ``"pair"``.
    n_orders
        Random orders (the paper: 25).
    seed
        Seed of the random orders.

    Returns
    -------
    ConvergenceCurve
    """
    counts = data.counts if isinstance(data, JudgeConsistency) else data
    elo_j = _elo_vector(judge_elo, counts.judges, "judge")
    if unit == "ordered":
        n_u = counts.n
        i_first = counts.first == counts.pair_i[counts.pair]
        w_u = np.where(i_first, counts.first_score, n_u - counts.first_score)
        unit_pair = counts.pair
        diff = counts.unit_elo_diff(contestant_elo)
        names = counts.unit_names()
    elif unit == "pair":
        n_u, w_u = counts.pair_totals()
        unit_pair = np.arange(counts.n_pairs)
        diff = counts.pair_elo_diff(contestant_elo)
        names = counts.pair_names()
    else:
        raise DataError(f"unit must be 'ordered' or 'pair', got {unit!r}", column="unit")
    if n_orders < 1:
        raise DataError("n_orders must be >= 1", column="n_orders", got=n_orders)
    n_units = n_u.shape[1]
    steps = np.arange(n_units)
    judges_ix = np.arange(counts.n_judges)

    def curve(order: np.ndarray) -> np.ndarray:
        n_add = np.zeros((n_units, counts.n_judges, counts.n_pairs))
        w_add = np.zeros_like(n_add)
        cols = unit_pair[order][:, None]
        n_add[steps[:, None], judges_ix[None, :], cols] = n_u[:, order].T
        w_add[steps[:, None], judges_ix[None, :], cols] = w_u[:, order].T
        cons = consistency_from_counts(np.cumsum(n_add, axis=0), np.cumsum(w_add, axis=0))
        return _pearson_rows(cons, elo_j)

    sorted_order = np.argsort(-diff, kind="stable")
    rng = np.random.default_rng(seed)
    r_random = np.stack([curve(rng.permutation(n_units)) for _ in range(n_orders)])
    return ConvergenceCurve(n_matchups=steps + 1, r_sorted=curve(sorted_order),
                            r_random=r_random,
                            sorted_units=tuple(names[k] for k in sorted_order), unit=unit,
                            seed=seed)


# ----------------------------------------------------------------- clusters (A.3)
def rank_clusters(values: Mapping[str, float] | pd.Series, sizes: Iterable[int], *,
                  labels: Iterable[str] | None = None) -> dict[str, str]:
    """Cut names into consecutive groups by descending value (e.g. Elo).

    The paper's Appendix A.3 clusters are the 10 / 8 / 6 judges of highest /
    middle / lowest Arena Elo (``sizes=(10, 8, 6)``), as listed in the authors' code.

    Returns
    -------
    dict
        ``{name: cluster label}``.
    """
    series = pd.Series(values, dtype=float).sort_values(ascending=False, kind="stable")
    sizes = [int(s) for s in sizes]
    if sum(sizes) != len(series) or min(sizes) < 1:
        raise DataError(f"cluster sizes {sizes} must be positive and sum to the "
                        f"{len(series)} names", column="sizes")
    labels = list(labels) if labels is not None else [f"cluster {k + 1}"
                                                       for k in range(len(sizes))]
    if len(labels) != len(sizes):
        raise DataError(f"{len(labels)} labels for {len(sizes)} clusters", column="labels")
    out, start = {}, 0
    for size, label in zip(sizes, labels, strict=True):
        for name in series.index[start:start + size]:
            out[str(name)] = label
        start += size
    return out


@dataclass(frozen=True)
class ClusterCorrelations:
    """Correlation of Consistency with Elo within clusters of judges (Appendix A.3).

    Attributes
    ----------
    labels
        Cluster labels, in the order first seen.
    members
        Judges of each cluster.
    pearson, spearman
        Per cluster (NaN for clusters of fewer than 3 judges).
    """

    labels: tuple[str, ...]
    members: tuple[tuple[str, ...], ...]
    pearson: np.ndarray
    spearman: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"cluster": self.labels,
                             "n_judges": [len(m) for m in self.members],
                             "pearson": self.pearson, "spearman": self.spearman,
                             "judges": [", ".join(m) for m in self.members]})

    def __str__(self) -> str:
        frame = self.to_frame().drop(columns="judges")
        return "Consistency vs Elo within clusters of judges\n" + frame.to_string(
            index=False, float_format="{:.3f}".format)


def cluster_correlations(result: JudgeConsistency | Mapping[str, float] | pd.Series,
                         judge_elo: Mapping[str, float] | pd.Series,
                         clusters: Mapping[str, str]) -> ClusterCorrelations:
    """Pearson and Spearman correlation with Elo inside each cluster (Appendix A.3).

    Parameters
    ----------
    result
        Consistency scores.
    judge_elo
        Arena Elo of the judges.
    clusters
        ``{judge: cluster label}`` for every judge of ``result`` (see
        :func:`rank_clusters`).

    Returns
    -------
    ClusterCorrelations
    """
    judges, c = _values(result)
    missing = [j for j in judges if j not in clusters]
    unknown = [j for j in clusters if j not in judges]
    if missing or unknown:
        raise DataError(f"clusters must assign exactly the scored judges (no cluster for "
                        f"{missing[:3]}, unknown judges {unknown[:3]})", column="clusters")
    e = _elo_vector(judge_elo, judges, "judge")
    labels = tuple(dict.fromkeys(clusters[j] for j in judges))
    members, pearson, spearman = [], [], []
    for label in labels:
        idx = [k for k, j in enumerate(judges) if clusters[j] == label]
        members.append(tuple(judges[k] for k in idx))
        if len(idx) >= 3 and np.ptp(c[idx]) > 0 and np.ptp(e[idx]) > 0:
            pearson.append(float(stats.pearsonr(c[idx], e[idx]).statistic))
            spearman.append(float(stats.spearmanr(c[idx], e[idx]).statistic))
        else:
            pearson.append(math.nan)
            spearman.append(math.nan)
    return ClusterCorrelations(labels=labels, members=tuple(members),
                               pearson=np.array(pearson), spearman=np.array(spearman))


# -------------------------------------------------------------------- position bias
@dataclass(frozen=True)
class PositionBias:
    """P(the answer shown first wins), per judge.

    Attributes
    ----------
    judges
        Judge names.
    n
        Contests.
    first_rate, tie_rate, second_rate
        Fractions of contests won by the first-shown answer, tied, won by the
        second.
    p_first
        P(first shown wins) with ties as ½ (Eq. 3's convention); 0.5 = no bias.
    p_first_lo, p_first_hi
        Normal-approximation 1 − α interval of ``p_first``.
    p_value
        Two-sided exact binomial (sign) test of first vs second wins among
        decisive contests (ties carry no position information).
    consistency_pooled, consistency_by_order
        Consistency with both orders pooled (the paper) and per ordered
        matchup; the difference is how much position bias would inflate the
        score without the balanced design.
    alpha
        Interval level.
    """

    judges: tuple[str, ...]
    n: np.ndarray
    first_rate: np.ndarray
    tie_rate: np.ndarray
    second_rate: np.ndarray
    p_first: np.ndarray
    p_first_lo: np.ndarray
    p_first_hi: np.ndarray
    p_value: np.ndarray
    consistency_pooled: np.ndarray
    consistency_by_order: np.ndarray
    alpha: float

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame({
            "judge": self.judges, "n": self.n.astype(int), "first_rate": self.first_rate,
            "tie_rate": self.tie_rate, "second_rate": self.second_rate,
            "p_first": self.p_first, "p_first_lo": self.p_first_lo,
            "p_first_hi": self.p_first_hi, "p_value": self.p_value,
            "consistency_pooled": self.consistency_pooled,
            "consistency_by_order": self.consistency_by_order,
            "inflation": self.consistency_by_order - self.consistency_pooled})
        return frame.sort_values("p_first", ascending=False, kind="stable", ignore_index=True)

    def __str__(self) -> str:
        return ("Position bias: P(first-shown answer wins), ties as ½; consistency pooled "
                "over orders vs per ordered matchup\n" + self.to_frame().to_string(
                    index=False, float_format="{:.3f}".format,
                    formatters={"p_value": "{:.1e}".format}))


def position_bias(data: Battles | MatchupCounts, *, alpha: float = 0.05,
                  target: str = "judge_label") -> PositionBias:
    """Measure each judge's preference for the answer shown first.

    Parameters
    ----------
    data
        Judged battles with a ``position`` column (which model was shown first)
        or their counts.
    alpha
        Level of the ``p_first`` intervals.
    target
        Label column when ``data`` is :class:`Battles`.

    Returns
    -------
    PositionBias
    """
    if isinstance(data, Battles):
        if "position" not in data:
            raise DataError("position bias needs a 'position' column (which model was shown "
                            "first: 'a' or 'b')", column="position")
        counts = matchup_counts(data, target=target)
    else:
        counts = data
    tot = counts.counts.sum(axis=1)  # (J, 3)
    n = tot.sum(axis=1)
    first, tie, second = (tot[:, k] / n for k in range(3))
    p_first = first + 0.5 * tie
    # per-contest score s ∈ {1, ½, 0}: Var(s) = E[s²] − p² = first + tie/4 − p²
    var = np.maximum(first + 0.25 * tie - p_first**2, 0.0)
    half = stats.norm.ppf(1 - alpha / 2) * np.sqrt(var / n)
    pvals = np.array([stats.binomtest(int(f), int(f + s), 0.5).pvalue if f + s > 0
                      else math.nan for f, s in zip(tot[:, 0], tot[:, 2], strict=True)])
    pooled = judge_consistency(counts, pool_orders=True).consistency
    by_order = judge_consistency(counts, pool_orders=False).consistency
    return PositionBias(judges=counts.judges, n=n, first_rate=first, tie_rate=tie,
                        second_rate=second, p_first=p_first, p_first_lo=p_first - half,
                        p_first_hi=p_first + half, p_value=pvals, consistency_pooled=pooled,
                        consistency_by_order=by_order, alpha=float(alpha))


# ------------------------------------------------- predicting a new judge's Elo
def _bayes_predictive(x: np.ndarray, y: np.ndarray, x_new: np.ndarray,
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
    a, b = _ols(x, y)
    return a + b * x_new


def _jackknife_calibration(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Leave-one-out OLS predictions ŷ_{−i}(x_i) of every item."""
    n = x.size
    out = np.empty(n)
    for i in range(n):
        rest = np.arange(n) != i
        out[i] = _ols_predict(x[rest], y[rest], x[i:i + 1])[0]
    return out


@dataclass(frozen=True)
class EloPrediction:
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
        return pd.DataFrame({"consistency": self.consistency, "elo": self.estimate,
                             "bayes_lo": self.bayes_lower, "bayes_hi": self.bayes_upper,
                             "conformal_lo": self.conformal_lower,
                             "conformal_hi": self.conformal_upper})

    def __str__(self) -> str:
        return (f"Elo predicted from Consistency ({self.n_judges} training judges, "
                f"{100 * (1 - self.alpha):g}% intervals)\n"
                + self.to_frame().to_string(index=False, float_format="{:.1f}".format,
                                            formatters={"consistency": "{:.3f}".format}))


def _xy(result: JudgeConsistency | Mapping[str, float] | pd.Series,
        judge_elo: Mapping[str, float] | pd.Series,
        ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    judges, c = _values(result)
    if not np.all(np.isfinite(c)):
        raise DataError("a judge has no Consistency score (no contests)", column="consistency")
    return judges, c, _elo_vector(judge_elo, judges, "judge")


def predict_elo(result: JudgeConsistency | Mapping[str, float] | pd.Series,
                judge_elo: Mapping[str, float] | pd.Series,
                new_consistency: float | Iterable[float], *, alpha: float = 0.1,
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
    t = stats.t.ppf(1 - alpha / 2, df)
    conf = split_conformal(loc, calib_y=e, calib_estimate=_jackknife_calibration(c, e),
                           alpha=alpha)
    return EloPrediction(consistency=x_new, estimate=loc, bayes_lower=loc - t * scale,
                         bayes_upper=loc + t * scale, conformal_lower=conf.lower,
                         conformal_upper=conf.upper, alpha=float(alpha), n_judges=c.size)


@dataclass(frozen=True)
class EloIntervals:
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
        return pd.DataFrame({"judge": self.judges, "arena_elo": self.elo,
                             "estimate": self.estimate, "lower": self.lower,
                             "upper": self.upper, "covered": self.covered,
                             "width": self.width})

    def to_dict(self) -> dict[str, object]:
        return {"method": self.method, "alpha": self.alpha, "coverage": self.coverage,
                "mean_width": self.mean_width, "median_width": self.median_width,
                "n_judges": len(self.judges), "n_splits": self.n_splits, "seed": self.seed}

    def __str__(self) -> str:
        names = {"bayes": "Bayesian posterior predictive", "split": "split conformal",
                 "jackknife": "jackknife conformal"}
        return (f"Leave-one-judge-out {100 * (1 - self.alpha):g}% {names[self.method]} "
                f"intervals for Elo from Consistency: coverage {self.coverage:.3f} "
                f"(± {self.coverage_se:.3f}) over {len(self.judges)} judges, median width "
                f"{self.median_width:.1f} Elo")


def elo_intervals_loo(result: JudgeConsistency | Mapping[str, float] | pd.Series,
                      judge_elo: Mapping[str, float] | pd.Series, *,
                      method: Literal["bayes", "split", "jackknife"] = "split",
                      alpha: float = 0.1, n_calibration: int | None = None,
                      n_splits: int = 50, seed: int = 0) -> EloIntervals:
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
            loc, scale, df = _bayes_predictive(c[rest], e[rest], c[k:k + 1])
            half = stats.t.ppf(1 - alpha / 2, df) * scale[0]
            est[k], lo[k], hi[k] = loc[0], loc[0] - half, loc[0] + half
        covered = ((lo <= e) & (e <= hi)).astype(float)
        width = hi - lo
        return EloIntervals("bayes", judges, e, est, lo, hi, covered, width, float(alpha))
    if method == "jackknife":
        for k in range(n):
            rest = np.flatnonzero(np.arange(n) != k)
            cal_est = _jackknife_calibration(c[rest], e[rest])
            loc = _ols_predict(c[rest], e[rest], c[k:k + 1])
            iv = split_conformal(loc, calib_y=e[rest], calib_estimate=cal_est, alpha=alpha)
            est[k], lo[k], hi[k] = loc[0], iv.lower[0], iv.upper[0]
        covered = ((lo <= e) & (e <= hi)).astype(float)
        width = hi - lo
        return EloIntervals("jackknife", judges, e, est, lo, hi, covered, width, float(alpha))
    if method != "split":
        raise DataError(f"method must be 'bayes', 'split' or 'jackknife', got {method!r}",
                        column="method")
    n_cal = (n - 1) // 2 if n_calibration is None else int(n_calibration)
    if not 1 <= n_cal <= n - 3:
        raise DataError(f"n_calibration must leave at least 2 training judges, got {n_cal} "
                        f"of {n - 1}", column="n_calibration")
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
    return EloIntervals("split", judges, e, est, lo, hi, covered, width, float(alpha),
                        n_splits=n_splits, seed=seed)
