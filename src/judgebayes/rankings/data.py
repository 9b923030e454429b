"""Battles where every battle may carry judge verdicts and some carry a human label.

The estimators of :mod:`judgebayes.rankings` combine a few human labels with many judge
verdicts on the *same* battles. They work on arrays, one entry per battle:

* ``a``, ``b``: the models shown first (position A) and second (position B), as indices
  into ``models``;
* ``human``: the human outcome as P(A beats B) (1 = A wins, 0.5 = tie, 0 = B wins), NaN
  where no human labelled the battle;
* ``verdicts``: one column per judge, the judge's verdict in the same coding, NaN where
  that judge did not judge the battle.

Position is kept (a is *shown first*, not the pair's first model), because a judge's
errors depend on it: gpt-3.5-turbo calls position A the winner in 86% of the PPR battles.
:class:`RankingData` holds these arrays validated; everything else in the subpackage reads
them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["OUTCOMES", "RankingData", "outcome_codes"]

OUTCOMES = ("A", "tie", "B")
"""Outcome classes, in the order of :func:`outcome_codes`: A wins, tie, B wins."""


def outcome_codes(labels: np.ndarray) -> np.ndarray:
    """Labels P(A beats B) ∈ {1, ½, 0} (NaN: none) as class codes 0 = A, 1 = tie, 2 = B, −1."""
    labels = np.asarray(labels, dtype=float)
    codes = np.full(labels.shape, -1, dtype=np.int64)
    codes[labels == 1.0] = 0
    codes[labels == 0.5] = 1
    codes[labels == 0.0] = 2
    return codes


def _check_labels(values: np.ndarray, column: str) -> None:
    bad = ~np.isnan(values) & ~np.isin(values, (0.0, 0.5, 1.0))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            "not a battle outcome",
            row=row,
            column=column,
            expected="1 (A wins), 0.5 (tie), 0 (B wins) or missing",
            got=float(values[row]),
        )


@dataclass(frozen=True, repr=False)
class RankingData(ResultDisplay):
    """Battles with judge verdicts and (on some) a human label, as validated arrays.

    Attributes
    ----------
    models
        Model names; ``a`` and ``b`` index into them.
    a, b
        Model shown first (position A) and second (position B) in every battle.
    human
        Human outcome P(A beats B) ∈ {0, ½, 1}, NaN where unlabelled.
    judges
        Judge names, one per column of ``verdicts``.
    verdicts
        Judge verdicts, shape ``(n_battles, n_judges)``, same coding, NaN where missing.
    report
        Rows received and left out on the way in.
    """

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    human: np.ndarray
    judges: tuple[str, ...]
    verdicts: np.ndarray
    report: DropReport = field(default_factory=lambda: DropReport(0))

    @classmethod
    def from_arrays(
        cls,
        model_a: Sequence[str] | np.ndarray,
        model_b: Sequence[str] | np.ndarray,
        human: Sequence[float] | np.ndarray,
        verdicts: Mapping[str, Sequence[float] | np.ndarray] | None = None,
        *,
        models: Sequence[str] | None = None,
    ) -> RankingData:
        """Validate battles given as model names, human labels and judge verdicts.

        Parameters
        ----------
        model_a, model_b
            Names of the models shown first and second, one per battle.
        human
            Human outcome P(A beats B) ∈ {0, ½, 1}, NaN (or None) where unlabelled.
        verdicts
            ``{judge: verdicts}``, each one per battle in the same coding.
        models
            The models to rank, in this order (default: every name, sorted); a battle
            with a model outside them raises :class:`DataError`.
        """
        a_names = np.asarray(model_a, dtype=object)
        b_names = np.asarray(model_b, dtype=object)
        n = len(a_names)
        if len(b_names) != n:
            raise DataError(f"model_b has {len(b_names)} entries, model_a {n}", column="model_b")
        names = tuple(sorted(set(a_names) | set(b_names))) if models is None else tuple(models)
        index = {m: k for k, m in enumerate(names)}
        a = np.fromiter((index.get(m, -1) for m in a_names), np.int64, n)
        b = np.fromiter((index.get(m, -1) for m in b_names), np.int64, n)
        for column, codes, raw in (("model_a", a, a_names), ("model_b", b, b_names)):
            if (codes < 0).any():
                row = int(np.flatnonzero(codes < 0)[0])
                raise DataError(
                    "unknown model",
                    row=row,
                    column=column,
                    expected=f"one of the {len(names)} models to rank",
                    got=raw[row],
                )
        same = a == b
        if same.any():
            row = int(np.flatnonzero(same)[0])
            raise DataError(
                "a model battles itself", row=row, column="model_b", got=str(b_names[row])
            )
        human_arr = pd.to_numeric(pd.Series(human, dtype=object), errors="coerce").to_numpy(float)
        if len(human_arr) != n:
            raise DataError(f"human has {len(human_arr)} entries, expected {n}", column="human")
        _check_labels(human_arr, "human")
        judges = tuple(verdicts or {})
        cols = []
        for judge in judges:
            v = pd.to_numeric(pd.Series(verdicts[judge], dtype=object), errors="coerce")
            v = v.to_numpy(float)
            if len(v) != n:
                raise DataError(f"judge {judge!r} has {len(v)} verdicts, expected {n}")
            _check_labels(v, judge)
            cols.append(v)
        matrix = np.column_stack(cols) if cols else np.empty((n, 0))
        return cls(names, a, b, human_arr, judges, matrix, DropReport(n))

    @classmethod
    def from_battles(cls, battles: Battles, judges: Sequence[str] | None = None) -> RankingData:
        """The arrays of a :class:`~judgebayes.Battles` table.

        A long table (``battle_id``: one row per (battle, judge), as
        :func:`~judgebayes.read_aligned` and :func:`~judgebayes.datasets.load_ppr` give)
        becomes one entry per battle with one verdict column per judge
        (:meth:`~judgebayes.Battles.judge_labels`); a table without ``battle_id`` is one
        battle per row, its ``judge_label`` the verdict of its one judge. ``human_label``
        (NaN where unlabelled) is the human outcome. Where ``position`` says model B was
        shown first the battle is turned round (labels 1 − y), so that ``a`` is always the
        model shown first.

        Parameters
        ----------
        battles
            The table.
        judges
            Keep these judges' verdicts only (default: every judge).
        """
        if "battle_id" in battles:
            frame = battles.battle_frame()
            if "position" in battles and "position" not in frame:
                raise DataError(
                    "the judges of a battle saw its models in different orders; the "
                    "rankings read each judge's verdict by the order shown, one per battle",
                    column="position",
                )
            has_verdicts = "judge_label" in battles and "judge" in battles
            wide = battles.judge_labels() if has_verdicts else pd.DataFrame(index=frame.index)
            verdicts = {str(j): wide[j].to_numpy(float) for j in wide.columns}
        else:
            frame = battles.frame
            names = battles.judges
            if len(names) > 1:
                raise DataError(
                    f"{len(names)} judges in a table without 'battle_id': their rows cannot "
                    "be matched to the same battles",
                    column="battle_id",
                    expected="a battle_id column shared by the rows of one battle",
                )
            name = names[0] if names else "judge"
            verdicts = (
                {name: frame["judge_label"].to_numpy(float)} if "judge_label" in frame else {}
            )
        if judges is not None:
            unknown = [j for j in judges if j not in verdicts]
            if unknown:
                raise DataError(
                    f"unknown judge {unknown[0]!r}",
                    column="judge",
                    expected=f"one of {list(verdicts)}",
                )
            verdicts = {j: verdicts[j] for j in judges}
        human = (
            frame["human_label"].to_numpy(float)
            if "human_label" in frame
            else np.full(len(frame), np.nan)
        )
        a_names = frame["model_a"].astype(str).to_numpy(object)
        b_names = frame["model_b"].astype(str).to_numpy(object)
        if "position" in frame:
            swap = (frame["position"] == "b").to_numpy()
            a_names, b_names = np.where(swap, b_names, a_names), np.where(swap, a_names, b_names)
            human = np.where(swap, 1.0 - human, human)
            verdicts = {j: np.where(swap, 1.0 - v, v) for j, v in verdicts.items()}
        out = cls.from_arrays(a_names, b_names, human, verdicts, models=battles.models)
        return out  # its report counts battles (the table's counts rows, one per judge)

    # ------------------------------------------------------------------ basics
    @property
    def n_battles(self) -> int:
        return len(self.a)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def labelled(self) -> np.ndarray:
        """Battles that carry a human label."""
        return ~np.isnan(self.human)

    def judge_index(self, judge: str) -> int:
        """Column of ``judge`` in :attr:`verdicts`; a :class:`DataError` naming the judges."""
        if judge not in self.judges:
            raise DataError(
                f"unknown judge {judge!r}", column="judge", expected=f"one of {list(self.judges)}"
            )
        return self.judges.index(judge)

    def verdict(self, judge: str) -> np.ndarray:
        """Verdicts of one judge (NaN where it did not judge)."""
        return self.verdicts[:, self.judge_index(judge)]

    def _headline(self) -> str:
        return (
            f"{self.n_battles:,} battles among {self.n_models} models, "
            f"{int(self.labelled.sum()):,} with a human label, judges {list(self.judges)}"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per battle: ``model_a, model_b, human`` and one column per judge."""
        names = np.asarray(self.models, dtype=object)
        frame = pd.DataFrame(
            {"model_a": names[self.a], "model_b": names[self.b], "human": self.human}
        )
        for k, judge in enumerate(self.judges):
            frame[judge] = self.verdicts[:, k]
        return frame

    # ----------------------------------------------------------------- subsets
    def subset(self, mask: np.ndarray, *, reason: str = "not selected") -> RankingData:
        """Battles where ``mask`` is true, the rest counted as not used for ``reason``."""
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (self.n_battles,):
            raise ValueError(f"mask has shape {mask.shape}, expected ({self.n_battles},)")
        return replace(
            self,
            a=self.a[mask],
            b=self.b[mask],
            human=self.human[mask],
            verdicts=self.verdicts[mask],
            report=self.report.with_excluded(reason, int((~mask).sum())),
        )

    def with_judges(self, judges: Sequence[str]) -> RankingData:
        """The same battles with only ``judges``' verdicts (in that order)."""
        cols = [self.judge_index(j) for j in judges]
        return replace(self, judges=tuple(judges), verdicts=self.verdicts[:, cols])

    def hide_human(self, keep: np.ndarray) -> RankingData:
        """The same battles with the human label kept only where ``keep`` is true.

        How an experiment draws "n battles carry their human label": the other labels
        are set to NaN; their battles keep the judges' verdicts.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.n_battles,):
            raise ValueError(f"keep has shape {keep.shape}, expected ({self.n_battles},)")
        return replace(self, human=np.where(keep, self.human, np.nan))

    def restrict(self, models: Sequence[str]) -> RankingData:
        """Battles between ``models`` only, re-indexed to them (in that order)."""
        unknown = [m for m in models if m not in self.models]
        if unknown:
            raise DataError(
                f"unknown model {unknown[0]!r}", expected=f"one of the {self.n_models} models"
            )
        new = np.full(self.n_models, -1, dtype=np.int64)
        for k, m in enumerate(models):
            new[self.models.index(m)] = k
        keep = (new[self.a] >= 0) & (new[self.b] >= 0)
        out = self.subset(keep, reason="models not ranked")
        return replace(out, models=tuple(models), a=new[out.a], b=new[out.b])
