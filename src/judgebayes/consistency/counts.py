"""Per judge and ordered matchup: counts of first-shown wins, ties and second-shown wins.

A *contest* is one verdict of a judge on answers of models i and j to one
question; a *matchup* ij is the set of a judge's contests between i and j.
:class:`MatchupCounts` holds the counts per judge × ordered matchup (model shown
first, model shown second); both orders of a pair map to one unordered *pair*.
Every analysis of Ramaswamy, Demeure & Rrapaj (*Model Consistency as a Cheap yet Predictive Proxy
for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510) (:mod:`judgebayes.consistency`) is a few array
operations on these counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["MatchupCounts", "elo_vector", "index_of", "matchup_counts"]

_SINGLE_JUDGE = "judge"


@dataclass(frozen=True, repr=False)
class MatchupCounts(ResultDisplay):
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
        return [
            (self.models[a], self.models[b]) for a, b in zip(self.first, self.second, strict=True)
        ]

    def pair_names(self) -> list[tuple[str, str]]:
        """(i, j) model names of each pair."""
        return [
            (self.models[a], self.models[b]) for a, b in zip(self.pair_i, self.pair_j, strict=True)
        ]

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
        e = elo_vector(elo, self.models, "model")
        return np.abs(e[self.first] - e[self.second])

    def pair_elo_diff(self, elo: Mapping[str, float] | pd.Series) -> np.ndarray:
        """|Elo(i) − Elo(j)| of every pair."""
        e = elo_vector(elo, self.models, "model")
        return np.abs(e[self.pair_i] - e[self.pair_j])

    def for_judges(self, judges: Iterable[str]) -> MatchupCounts:
        """The same counts restricted to ``judges`` (in that order)."""
        idx = [index_of(self.judges, j, "judge") for j in judges]
        return MatchupCounts(
            tuple(self.judges[k] for k in idx),
            self.models,
            self.first,
            self.second,
            self.pair,
            self.pair_i,
            self.pair_j,
            self.counts[idx],
            self.report,
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per judge and ordered matchup with at least one contest."""
        k, u = np.nonzero(self.n > 0)
        c = self.counts[k, u].astype(int)
        return pd.DataFrame(
            {
                "judge": [self.judges[i] for i in k],
                "first": [self.models[i] for i in self.first[u]],
                "second": [self.models[i] for i in self.second[u]],
                "first_wins": c[:, 0],
                "ties": c[:, 1],
                "second_wins": c[:, 2],
                "n": c.sum(axis=1),
            }
        )

    def _headline(self) -> str:
        return (
            f"{self.n_judges} judges, {len(self.models)} models, {self.n_pairs} matchups "
            f"({self.n_units} ordered), {int(self.counts.sum()):,} contests"
        )


def index_of(names: tuple[str, ...], name: str, what: str) -> int:
    """Position of ``name`` in ``names``, or a :class:`~judgebayes.DataError` naming it.

    Parameters
    ----------
    names
        The known names (a result's models or judges), in their order.
    name
        The name looked up.
    what
        What the names are (``"model"``, ``"judge"``): the error's column and wording.

    Returns
    -------
    int
        ``names.index(name)``.

    Raises
    ------
    DataError
        When ``name`` is not one of ``names``.
    """
    try:
        return names.index(name)
    except ValueError:
        raise DataError(
            f"unknown {what} {name!r}",
            column=what,
            expected=f"one of {len(names)} names such as {list(names[:3])}",
        ) from None


def elo_vector(
    elo: Mapping[str, float] | pd.Series, names: tuple[str, ...], what: str
) -> np.ndarray:
    """The Elo of each of ``names``, in their order, checked present and finite.

    Parameters
    ----------
    elo
        Elo ratings by name (a mapping or a Series indexed by name); extra names are
        ignored.
    names
        The names whose Elo is wanted (a result's models or judges).
    what
        What the names are (``"model"``, ``"judge"``): the error's column and wording.

    Returns
    -------
    numpy.ndarray
        Float array of length ``len(names)``.

    Raises
    ------
    DataError
        When a name has no Elo, or its Elo is NaN or infinite.
    """
    elo = pd.Series(elo, dtype=float) if not isinstance(elo, pd.Series) else elo.astype(float)
    missing = [m for m in names if m not in elo.index]
    if missing:
        raise DataError(
            f"no Elo for {len(missing)} {what}(s): {missing[:5]}",
            column=what,
            expected=f"an Elo for every {what}",
        )
    e = elo.reindex(list(names)).to_numpy(dtype=float)
    bad = ~np.isfinite(e)
    if bad.any():
        raise DataError(
            f"the Elo of {names[int(np.flatnonzero(bad)[0])]!r} is missing or infinite",
            column=what,
            expected="a finite number",
        )
    return e


def matchup_counts(
    battles: Battles,
    *,
    target: str = "judge_label",
    matchups: Iterable[tuple[str, str]] | None = None,
) -> MatchupCounts:
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
        raise DataError(
            f"target must be a label column, got {target!r}",
            column=target,
            expected="'judge_label' or 'human_label'",
        )
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
            raise DataError(
                "missing judge name",
                row=row,
                column="judge",
                expected="the name of the judge that gave the verdict",
            )
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
                raise DataError(
                    f"a matchup is a pair of model names, got {pair!r}", column="matchups"
                )
            x, y = (index_of(models, str(name), "model") for name in pair)
            key = min(x, y) * m + max(x, y)
            if not np.any((lo_all * m + hi_all == key) & present):
                raise DataError(
                    f"matchup {tuple(pair)!r} has no judged contests", column="matchups"
                )
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
    return MatchupCounts(
        judges=judges,
        models=models,
        first=u_first,
        second=u_second,
        pair=pair_of_unit,
        pair_i=pair_keys // m,
        pair_j=pair_keys % m,
        counts=counts,
        report=report,
    )
