r"""Judge Consistency as a cheap proxy for the judge's own Elo (Ramaswamy, Demeure & Rrapaj, *Model
Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510, Eqs.
1–3).

For judge k and a set M of matchups (both presentation orders of a pair pooled):

* p_ij = (Wins_ij + ½·Ties_ij) / n_ij                                   (Eq. 3)
* mean Bernoulli variance  V̄ = Σ_{ij∈M} n_ij·p_ij(1 − p_ij) / Σ_{ij∈M} n_ij  (Eq. 1)
* Consistency = 1 − 4·V̄ ∈ [0, 1]                                      (Eq. 2)

This reproduces the paper's Table 1 for all 24 judges to 3 decimals (the
authors' code pools ``(i, j)`` and ``(j, i)`` contests into one symmetric
count matrix, which is the same as pooling both orders per unordered pair).
Computing p per *ordered* matchup instead inflates every judge's score through
position bias (see :func:`judgebayes.consistency.position_bias`).

Every score comes with its standard error and a low-evidence flag (too few
contests per matchup: the plug-in p̂(1 − p̂) biases the score up by up to
1/(mean contests per matchup)); both are derived in
:mod:`judgebayes.consistency.evidence`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgebayes.consistency.counts import MatchupCounts, index_of, matchup_counts
from judgebayes.consistency.evidence import (
    MIN_CONTESTS_PER_MATCHUP,
    LowEvidenceWarning,
    consistency_se,
    flag_low_evidence,
    low_evidence_message,
)
from judgebayes.core.battles import Battles
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["JudgeConsistency", "consistency_from_counts", "judge_consistency", "judge_values"]


def consistency_from_counts(
    n: np.ndarray,
    wins: np.ndarray,
    *,
    axis: int = -1,
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


@dataclass(frozen=True, repr=False)
class JudgeConsistency(ResultDisplay):
    """Each judge's Consistency score (Ramaswamy et al., 2025, Eqs. 1–3).

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
    se
        Standard error of ``consistency``, per judge: the exact sampling variance
        of Eq. 2 over contests within matchups, at the observed outcome shares
        (see :mod:`judgebayes.consistency.evidence`).
    low_evidence
        True for a judge with fewer than ``min_contests`` contests per matchup on
        average: its score is biased up by as much as 1/(contests per matchup).
    min_contests
        The threshold behind ``low_evidence``.
    """

    judges: tuple[str, ...]
    consistency: np.ndarray
    mean_variance: np.ndarray
    n_contests: np.ndarray
    n_matchups: np.ndarray
    pool_orders: bool
    counts: MatchupCounts = field(repr=False)
    bias_corrected: bool = False
    se: np.ndarray | None = None
    low_evidence: np.ndarray | None = None
    min_contests: float = MIN_CONTESTS_PER_MATCHUP

    def __post_init__(self) -> None:
        # results built without them (older callers) get them from the counts
        if self.se is None:
            outcomes = self.counts.pair_outcomes() if self.pool_orders else self.counts.counts
            object.__setattr__(
                self, "se", consistency_se(outcomes, bias_corrected=self.bias_corrected)
            )
        if self.low_evidence is None:
            object.__setattr__(
                self, "low_evidence", flag_low_evidence(self._matchup_n(), self.min_contests)[0]
            )

    def _matchup_n(self) -> np.ndarray:
        """Contests per judge and matchup as the score counts them."""
        return self.counts.pair_totals()[0] if self.pool_orders else self.counts.n

    @property
    def contests_per_matchup(self) -> np.ndarray:
        """Mean contests per matchup n̄ = n_contests / n_matchups (the bias bound is 1/n̄)."""
        return np.divide(
            self.n_contests,
            self.n_matchups,
            out=np.zeros(len(self.judges)),
            where=self.n_matchups > 0,
        )

    @property
    def note(self) -> str:
        """Why flagged judges' scores mean little ("" when none is flagged)."""
        if not np.any(self.low_evidence):
            return ""
        return low_evidence_message(
            self.judges, self.low_evidence, self._matchup_n(), self.min_contests
        )

    def __getitem__(self, judge: str) -> float:
        return float(self.consistency[index_of(self.judges, judge, "judge")])

    def to_series(self) -> pd.Series:
        """Consistency indexed by judge."""
        return pd.Series(
            self.consistency, index=pd.Index(self.judges, name="judge"), name="consistency"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per judge, most consistent first."""
        frame = pd.DataFrame(
            {
                "judge": self.judges,
                "consistency": self.consistency,
                "se": self.se,
                "mean_variance": self.mean_variance,
                "n_contests": self.n_contests.astype(int),
                "n_matchups": self.n_matchups.astype(int),
                "low_evidence": np.asarray(self.low_evidence, dtype=bool),
            }
        )
        return frame.sort_values("consistency", ascending=False, kind="stable", ignore_index=True)

    def _headline(self) -> str:
        matchups = (
            f"{self.counts.n_pairs} matchups"
            if self.pool_orders
            else f"{self.counts.n_units} ordered matchups"
        )
        head = f"{len(self.judges)} judges, {matchups}, {int(np.sum(self.n_contests)):,} contests"
        if self.bias_corrected:
            head += " (bias-corrected)"
        ok = np.flatnonzero(np.isfinite(self.consistency))
        if ok.size == 0:
            return head + "; no scores"
        c = self.consistency[ok]
        best = ok[int(np.argmax(c))]
        head = (
            f"{head}; Consistency {c.min():.3f}–{c.max():.3f}; "
            f"best: {self.judges[best]} {self.consistency[best]:.3f} "
            f"(se {self.se[best]:.3f})"
        )
        return head + self._flag_text()

    def _flag_text(self) -> str:
        k = int(np.sum(self.low_evidence))
        return (
            f"; LOW EVIDENCE: {k} judge(s) with < {self.min_contests:g} contests per matchup"
            if k
            else ""
        )

    def pair_variance(self) -> pd.DataFrame:
        """p_ij(1 − p_ij) of every judge (rows) and pair (columns); NaN without contests."""
        n, w = self.counts.pair_totals()
        p = np.divide(w, n, out=np.full_like(n, np.nan), where=n > 0)
        cols = pd.MultiIndex.from_tuples(self.counts.pair_names(), names=["model_i", "model_j"])
        return pd.DataFrame(p * (1 - p), index=pd.Index(self.judges, name="judge"), columns=cols)

    def __str__(self) -> str:
        how = (
            "both presentation orders pooled"
            if self.pool_orders
            else "per ordered matchup (not pooled)"
        )
        if self.bias_corrected:
            how += ", bias-corrected p(1−p)"
        head = (
            f"Consistency of {len(self.judges)} judge(s) (Ramaswamy et al., 2025, Eq. 2; {how}; "
            f"{self.counts.n_pairs} matchups){self._flag_text()}"
        )
        body = self.to_frame().to_string(
            index=False,
            formatters={
                "consistency": "{:.3f}".format,
                "se": "{:.3f}".format,
                "mean_variance": "{:.4f}".format,
            },
        )
        note = self.note
        return head + "\n" + body + (f"\nnote: {note}" if note else "")


def judge_consistency(
    data: Battles | MatchupCounts,
    *,
    matchups: Iterable[tuple[str, str]] | None = None,
    pool_orders: bool = True,
    bias_corrected: bool = False,
    target: str = "judge_label",
    min_contests: float = MIN_CONTESTS_PER_MATCHUP,
    warn: bool = True,
) -> JudgeConsistency:
    """Consistency score of every judge (Ramaswamy et al., 2025, Eqs. 1–3).

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
    min_contests
        Flag (``low_evidence``) a judge with fewer contests per matchup on
        average: the plug-in raises its score by up to 1/(contests per matchup),
        0.2 at the default 5 (see :mod:`judgebayes.consistency.evidence`);
        ``0`` flags none.
    warn
        Emit :class:`LowEvidenceWarning`, naming the flagged judges and their
        counts, when any judge is flagged.

    Returns
    -------
    JudgeConsistency
        Scores with their standard errors (``se``, exact over contests within
        matchups at the observed outcome shares) and the ``low_evidence`` flags.
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
    outcomes = counts.pair_outcomes() if pool_orders else counts.counts
    if bias_corrected:
        p = np.divide(w, n, out=np.zeros_like(n), where=n > 0)
        sum_sq = outcomes[..., 0] + 0.25 * outcomes[..., 1]
        s2 = np.divide(sum_sq - n * p**2, n - 1, out=np.zeros_like(n), where=n > 1)
        unbiased = n * (p - p**2) + s2  # n × (p̂ − p̂² + s²/n)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_var = unbiased.sum(axis=1) / n.sum(axis=1)
        cons = 1.0 - 4.0 * mean_var
    else:
        cons = consistency_from_counts(n, w)
    flagged = flag_low_evidence(n, min_contests)[0]
    result = JudgeConsistency(
        judges=counts.judges,
        consistency=cons,
        mean_variance=(1.0 - cons) / 4.0,
        n_contests=n.sum(axis=1),
        n_matchups=(n > 0).sum(axis=1),
        pool_orders=pool_orders,
        counts=counts,
        bias_corrected=bias_corrected,
        se=consistency_se(outcomes, bias_corrected=bias_corrected),
        low_evidence=flagged,
        min_contests=float(min_contests),
    )
    if warn and flagged.any():
        warnings.warn(result.note, LowEvidenceWarning, stacklevel=2)
    return result


def _restrict_pairs(
    counts: MatchupCounts,
    matchups: Iterable[tuple[str, str]],
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
    return MatchupCounts(
        counts.judges,
        counts.models,
        counts.first[unit_mask],
        counts.second[unit_mask],
        remap[counts.pair[unit_mask]],
        counts.pair_i[pairs_kept],
        counts.pair_j[pairs_kept],
        counts.counts[:, unit_mask],
        counts.report,
    )


def judge_values(
    result: JudgeConsistency | Mapping[str, float] | pd.Series,
) -> tuple[tuple[str, ...], np.ndarray]:
    """Judge names and their Consistency, from a result or from scores by judge.

    Parameters
    ----------
    result
        A :class:`JudgeConsistency`, or Consistency scores keyed by judge (a mapping or
        a Series indexed by judge).

    Returns
    -------
    judges : tuple of str
        The judges, in the result's (or the mapping's) order.
    consistency : numpy.ndarray
        Their scores as floats, in the same order.
    """
    if isinstance(result, JudgeConsistency):
        return result.judges, np.asarray(result.consistency, float)
    series = pd.Series(result, dtype=float)
    return tuple(map(str, series.index)), series.to_numpy(float)
