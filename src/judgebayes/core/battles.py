"""The one validated table every method reads: :class:`Battles`.

A battle is one comparison of model A with model B on one prompt. Labels are
always oriented as *P(A beats B)*: ``1`` = A wins, ``0`` = B wins, ``0.5`` = tie,
missing (``NaN``) = not labelled by that annotator. Loaders in
:mod:`judgebayes.core.loaders` convert every foreign convention into this one.

Schema (only ``model_a`` and ``model_b`` are required; other columns pass through)

================= ====================================================================
column            meaning
================= ====================================================================
``model_a``       name of model A (str)
``model_b``       name of model B (str), different from ``model_a``
``judge``         name of the judge that produced ``judge_label`` / scores (str)
``battle_id``     the underlying battle, shared by the rows of its judges (hashable)
``prompt_id``     identifier of the prompt (any hashable)
``judge_label``   the judge's verdict, P(A beats B) in {1, 0.5, 0} or missing
``human_label``   a human verdict, P(A beats B) in {1, 0.5, 0} or missing
``human_bothbad`` the human's tie was "tie (bothbad)" (bool; False otherwise)
``judge_bothbad`` the judge's tie was "tie (bothbad)" (bool; False otherwise)
``score_a``       the judge's rubric score of A (criteria mean), finite float
``score_b``       the judge's rubric score of B, finite float
``score_diff``    s = score_a - score_b (computed when both scores are given)
``position``      which model was shown first: ``"a"`` or ``"b"`` (Chatbot Arena shows
                  ``model_a`` first: ``"a"``)
``len_a``         length of A's response (>= 0)
``len_b``         length of B's response (>= 0)
``weight``        battle weight (> 0), default 1
================= ====================================================================

Several judges on the same battles
----------------------------------
The table stays *long*: one row per (battle, judge). ``battle_id`` names the battle
the rows share; on every row of one battle ``model_a``, ``model_b``, ``prompt_id``,
``human_label`` and ``human_bothbad`` are the same (the human label is the battle's,
repeated), and a judge has at most one row per battle. :meth:`Battles.battle_frame`
gives one row per battle, :meth:`Battles.judge_labels` one column per judge, and
:meth:`Battles.human_battles` the human-labelled battles alone (an all-human board).
A table without ``battle_id`` is one row per battle, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from judgebayes.core.clusters import Clusters
from judgebayes.core.pairs import PairStats
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

__all__ = ["BATTLE_COLUMNS", "LABEL_COLUMNS", "SCHEMA", "Battles", "UsedBattles"]

SCHEMA: dict[str, str] = {
    "model_a": "name of model A",
    "model_b": "name of model B",
    "judge": "judge name",
    "battle_id": "the battle the rows of its judges share",
    "prompt_id": "prompt identifier",
    "judge_label": "judge verdict P(A beats B) in {1, 0.5, 0}",
    "human_label": "human verdict P(A beats B) in {1, 0.5, 0}",
    "human_bothbad": "the human's tie was 'tie (bothbad)'",
    "judge_bothbad": "the judge's tie was 'tie (bothbad)'",
    "score_a": "judge rubric score of A",
    "score_b": "judge rubric score of B",
    "score_diff": "score_a - score_b",
    "position": "model shown first, 'a' or 'b'",
    "len_a": "response length of A",
    "len_b": "response length of B",
    "weight": "battle weight > 0",
}
"""The columns a :class:`Battles` table may hold, with what each means."""
LABEL_COLUMNS = ("judge_label", "human_label")
"""The verdict columns: P(A beats B) in {1, 0.5, 0}, or missing."""
BATTLE_COLUMNS = (
    "battle_id",
    "model_a",
    "model_b",
    "prompt_id",
    "position",
    "human_label",
    "human_bothbad",
)
"""The columns that describe a battle rather than one judge's row of it
(:meth:`Battles.battle_frame`); all but ``position`` are the same on every row of a
battle."""
_SHARED_COLUMNS = ("model_a", "model_b", "prompt_id", "human_label", "human_bothbad")
_BOTHBAD = {"human_bothbad": "human_label", "judge_bothbad": "judge_label"}
_SCORE_COLUMNS = ("score_a", "score_b", "score_diff")
_LENGTH_COLUMNS = ("len_a", "len_b")
_LABEL_VALUES = np.array([0.0, 0.5, 1.0])

OnInvalid = Literal["raise", "drop"]


class _Checker:
    """Collects row problems; raises on the first one or drops all of them."""

    def __init__(self, n: int, on_invalid: OnInvalid) -> None:
        if on_invalid not in ("raise", "drop"):
            raise ValueError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}")
        self.bad = np.zeros(n, dtype=bool)
        self.on_invalid = on_invalid
        self.dropped: dict[str, int] = {}

    def check(
        self, mask: np.ndarray, values: pd.Series, column: str, reason: str, expected: str
    ) -> None:
        mask = np.asarray(mask, dtype=bool) & ~self.bad
        if not mask.any():
            return
        if self.on_invalid == "raise":
            row = int(np.flatnonzero(mask)[0])
            raise DataError(reason, row=row, column=column, expected=expected, got=values.iloc[row])
        self.dropped[f"{reason} in {column!r}"] = int(mask.sum())
        self.bad |= mask


def _as_float(values: pd.Series, column: str, checker: _Checker) -> np.ndarray:
    numeric = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    checker.check(
        np.isnan(numeric) & values.notna().to_numpy(), values, column, "not a number", "a number"
    )
    return numeric


class Battles(ResultDisplay):
    """A validated table of battles (see the module docstring for the schema).

    Parameters
    ----------
    frame
        A :class:`pandas.DataFrame` (or anything it accepts) with at least
        ``model_a`` and ``model_b``.
    on_invalid
        ``"raise"`` (default): the first invalid row raises :class:`DataError`
        naming the row, the column and the expected form. ``"drop"``: invalid rows
        are removed and counted by reason in :attr:`report`.

    Notes
    -----
    Model names are stored as one :class:`pandas.Categorical` shared by both
    model columns, so aggregation into pair statistics needs no string work.
    A subset (:meth:`subset`, :meth:`for_judge`, :meth:`involving`, :meth:`without`)
    reports its own rows: the parent's report plus the rows it leaves out, by reason.
    """

    def __init__(
        self,
        frame: pd.DataFrame | Mapping,
        *,
        on_invalid: OnInvalid = "raise",
        _report: DropReport | None = None,
    ) -> None:
        if not isinstance(frame, pd.DataFrame):
            frame = pd.DataFrame(frame)
        self._frame, report = _validate(frame, on_invalid)
        self._report = _report if _report is not None else report

    # ------------------------------------------------------------------ basics
    @property
    def frame(self) -> pd.DataFrame:
        """The validated table (a copy: edit it and build a new :class:`Battles`)."""
        return self._frame.copy()

    @property
    def report(self) -> DropReport:
        """Rows received and dropped while building this table."""
        return self._report

    @property
    def models(self) -> tuple[str, ...]:
        """Model names, sorted."""
        return tuple(self._frame["model_a"].cat.categories)

    @property
    def judges(self) -> tuple[str, ...]:
        """Judge names (empty when there is no ``judge`` column)."""
        if "judge" not in self._frame:
            return ()
        return tuple(sorted(self._frame["judge"].dropna().unique()))

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self._frame.columns)

    def __contains__(self, column: str) -> bool:
        return column in self._frame.columns

    def __len__(self) -> int:
        return len(self._frame)

    @classmethod
    def _valid(cls, frame: pd.DataFrame, report: DropReport) -> Battles:
        """A table from rows that are already valid (only the model categories are rebuilt)."""
        out = cls.__new__(cls)
        out._frame, out._report = _shared_categories(frame), report
        return out

    def with_report(self, report: DropReport) -> Battles:
        """The same rows with another :attr:`report`.

        For a reader that dropped rows, or counted absent values, before the table
        was validated: the report then describes the input file, not the frame.
        """
        return Battles._valid(self._frame, report)

    def _summary(self) -> str:
        labels = [c for c in (*LABEL_COLUMNS, "score_diff") if c in self._frame]
        size = (
            f"{self._frame['battle_id'].nunique():,} battles in {len(self):,} rows"
            if "battle_id" in self._frame
            else f"{len(self):,} battles"
        )
        return f"{size}, {len(self.models)} models, {len(self.judges)} judges, labels={labels}"

    def _headline(self) -> str:
        report = self._report
        left_out = report.n_input - len(self)
        return self._summary() + (
            f"; {report.n_input:,} rows in, {left_out:,} dropped or not used" if left_out else ""
        )

    def to_frame(self) -> pd.DataFrame:
        """The validated table (a copy), as :attr:`frame`."""
        return self.frame

    def __str__(self) -> str:
        return f"Battles({self._summary()})"

    def codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Integer codes of model A and model B into :attr:`models`."""
        return (
            self._frame["model_a"].cat.codes.to_numpy(np.int64),
            self._frame["model_b"].cat.codes.to_numpy(np.int64),
        )

    def column(self, name: str) -> np.ndarray:
        """One column as a NumPy array; a clear error when it is absent."""
        if name not in self._frame:
            raise DataError(
                f"this table has no {name!r} column (columns: {', '.join(self._frame.columns)})",
                column=name,
            )
        return self._frame[name].to_numpy()

    def n_battles(self) -> pd.Series:
        """Number of battles each model took part in."""
        a, b = self.codes()
        counts = np.bincount(a, minlength=len(self.models)) + np.bincount(
            b, minlength=len(self.models)
        )
        return pd.Series(counts, index=pd.Index(self.models, name="model"), name="n_battles")

    # ----------------------------------------------------------------- subsets
    def subset(self, mask: np.ndarray | pd.Series, *, reason: str = "not selected") -> Battles:
        """Battles where ``mask`` is true (unused model names are removed).

        The subset's :attr:`report` is this table's plus the rows left out, counted
        as not used for ``reason``.
        """
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (len(self),):
            raise ValueError(f"mask has shape {mask.shape}, expected ({len(self)},)")
        if not mask.any():
            raise DataError(
                f"no battles left: all {len(self):,} are {reason}", expected="at least one battle"
            )
        frame = self._frame.loc[mask].reset_index(drop=True)
        return Battles._valid(frame, self._report.with_excluded(reason, int((~mask).sum())))

    def involving(self, model: str) -> Battles:
        """Battles in which ``model`` took part."""
        self._require_model(model)
        f = self._frame
        return self.subset(
            (f["model_a"] == model).to_numpy() | (f["model_b"] == model).to_numpy(),
            reason=f"not involving {model}",
        )

    def without(self, models: str | Iterable[str]) -> Battles:
        """Battles in which none of ``models`` took part."""
        names = [models] if isinstance(models, str) else list(models)
        for m in names:
            self._require_model(m)
        f = self._frame
        hit = f["model_a"].isin(names).to_numpy() | f["model_b"].isin(names).to_numpy()
        return self.subset(~hit, reason=f"involving {', '.join(names)}")

    def for_judge(self, judge: str) -> Battles:
        """Battles judged by ``judge``."""
        if judge not in self.judges:
            raise DataError(
                f"unknown judge {judge!r}", column="judge", expected=f"one of {list(self.judges)}"
            )
        return self.subset((self._frame["judge"] == judge).to_numpy(), reason="other judges")

    # ------------------------------------------------------- several judges
    def _require_battle_id(self, what: str) -> None:
        if "battle_id" not in self._frame:
            raise DataError(
                f"{what} needs a 'battle_id' column naming the battle each row belongs to "
                "(several judges' rows share it); this table has none",
                column="battle_id",
                expected="a multi-judge table, e.g. from read_aligned or read_judge_table",
            )

    def battle_frame(self) -> pd.DataFrame:
        """One row per battle: ``battle_id, model_a, model_b`` and, where present,
        ``prompt_id, position, human_label, human_bothbad``.

        Battles are in the order of their first row. ``position`` is kept only when
        every judge of a battle saw the same order.
        """
        self._require_battle_id("battle_frame()")
        f = self._frame
        cols = [c for c in BATTLE_COLUMNS if c in f]
        if "position" in f and (f.groupby("battle_id", sort=False)["position"].nunique() > 1).any():
            cols.remove("position")  # judges saw different orders: a row property, not a battle's
        return f.loc[~f["battle_id"].duplicated().to_numpy(), cols].reset_index(drop=True)

    def judge_labels(self) -> pd.DataFrame:
        """Every judge's label of every battle: indexed by ``battle_id``, one column per judge.

        NaN where a judge gave no verdict on a battle (a null verdict, or no row).
        Battles are in the order of their first row, judges as :attr:`judges`.
        """
        self._require_battle_id("judge_labels()")
        f = self._frame
        for col in ("judge", "judge_label"):
            if col not in f:
                raise DataError(
                    f"judge_labels() needs a {col!r} column; this table has none", column=col
                )
        wide = f.pivot(index="battle_id", columns="judge", values="judge_label")
        order = pd.Index(f["battle_id"].drop_duplicates(), name="battle_id")
        wide = wide.reindex(index=order, columns=list(self.judges))
        wide.columns.name = "judge"
        return wide

    def human_battles(self) -> Battles:
        """The battles with a human label, one row each, without judge columns.

        The table for an all-human leaderboard: the columns of :meth:`battle_frame`.
        Its :attr:`report` counts battles (``rows in`` = battles here), those without a
        human label as not used, and carries this table's dropped rows.
        """
        f = self._frame
        if "human_label" not in f:
            raise DataError(
                "human_battles() needs a 'human_label' column; this table has none",
                column="human_label",
            )
        if "battle_id" not in f and len(self.judges) > 1:
            self._require_battle_id("human_battles() of several judges' rows")
        battles = (
            self.battle_frame() if "battle_id" in f else f[[c for c in BATTLE_COLUMNS if c in f]]
        )
        keep = battles["human_label"].notna().to_numpy()
        if not keep.any():
            raise DataError("no battle has a human label", column="human_label")
        report = DropReport(
            len(battles) + self._report.n_dropped, dict(self._report.dropped)
        ).with_excluded("no human_label", int((~keep).sum()))
        return Battles._valid(battles.loc[keep].reset_index(drop=True), report)

    def _require_model(self, model: str) -> None:
        if model not in self.models:
            raise DataError(
                f"unknown model {model!r}",
                column="model_a/model_b",
                expected=f"one of the {len(self.models)} models in the table",
            )

    # ------------------------------------------------------------- statistics
    def default_target(self) -> str:
        """``judge_label`` when present, else ``human_label``."""
        for name in LABEL_COLUMNS:
            if name in self._frame:
                return name
        raise DataError(
            "no label column to fit: need 'judge_label' or 'human_label'", column="judge_label"
        )

    def pair_stats(
        self, target: str | np.ndarray | None = None, *, weights: str | np.ndarray | None = None
    ) -> PairStats:
        """Per-pair sufficient statistics of a target.

        Parameters
        ----------
        target
            A label column name (``"judge_label"``, ``"human_label"``), any other
            numeric column with values in [0, 1], or an array of soft targets
            P(A beats B), one per battle. ``None``: :meth:`default_target`.
            Battles whose target is missing are not used and are counted in the
            statistics' report.
        weights
            A column name or an array of positive battle weights. Default: the
            ``weight`` column when present, else 1.
        """
        used = self.used(target, weights)
        a, b = self.codes()
        a, b = a[used.rows], b[used.rows]
        return PairStats.from_battles(
            a, b, used.values, self.models, weights=used.weights, report=used.report
        )

    def clusters(
        self,
        cluster: str | np.ndarray = "prompt_id",
        target: str | np.ndarray | None = None,
        *,
        weights: str | np.ndarray | None = None,
    ) -> Clusters:
        """Which cluster (e.g. prompt) each battle of :meth:`pair_stats` belongs to.

        Parameters
        ----------
        cluster
            A column (default ``prompt_id``) or an array with one cluster label per battle.
            A missing label raises :class:`DataError` naming the row.
        target, weights
            As for :meth:`pair_stats`: the clusters are those of the battles it uses.
        """
        codes, name = self.cluster_codes(cluster)
        used = self.used(target, weights)
        a, b = self.codes()
        a, b = a[used.rows], b[used.rows]
        stats = PairStats.from_battles(
            a, b, used.values, self.models, weights=used.weights, report=used.report
        )
        cell = stats.cell_index(a, b, used.values, used.weights)
        return Clusters.from_cells(stats, cell, codes[used.rows], column=name)

    def cluster_codes(self, cluster: str | np.ndarray = "prompt_id") -> tuple[np.ndarray, str]:
        """Integer code (0..K−1) of every battle's cluster, and where the labels came from.

        ``cluster`` is a column or one label per battle; a missing label raises
        :class:`DataError` naming the row.
        """
        name = cluster if isinstance(cluster, str) else "cluster"
        labels = self.column(cluster) if isinstance(cluster, str) else np.asarray(cluster)
        if labels.shape != (len(self),):
            raise DataError(
                f"cluster labels have shape {labels.shape}, expected one per battle ({len(self)},)",
                column=name,
            )
        codes, _ = pd.factorize(pd.Series(labels), use_na_sentinel=True)
        if (codes < 0).any():
            row = int(np.flatnonzero(codes < 0)[0])
            raise DataError(
                "missing cluster label", row=row, column=name, expected="a cluster (prompt) id"
            )
        return codes, name

    def used(
        self, target: str | np.ndarray | None = None, weights: str | np.ndarray | None = None
    ) -> UsedBattles:
        """The battles a fit of ``target`` uses, their targets and weights (checked)."""
        if target is None:
            target = self.default_target()
        name = target if isinstance(target, str) else "target"
        values = self.column(target) if isinstance(target, str) else np.asarray(target, float)
        values = np.asarray(values, dtype=float)
        if values.shape != (len(self),):
            raise DataError(
                f"target has shape {values.shape}, expected one value per battle ({len(self)},)",
                column=name,
            )
        present = ~np.isnan(values)
        outside = present & ((values < 0) | (values > 1))
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise DataError(
                "target outside [0, 1]",
                row=row,
                column=name,
                expected="P(A beats B) in [0, 1]",
                got=float(values[row]),
            )
        if weights is None and "weight" in self._frame:
            weights = "weight"
        w = None
        if weights is not None:
            w = np.asarray(self.column(weights) if isinstance(weights, str) else weights, float)
            if w.shape != (len(self),) or not np.all(np.isfinite(w) & (w > 0)):
                raise DataError(
                    "weights must be one positive finite number per battle",
                    column=weights if isinstance(weights, str) else "weights",
                )
        report = self._report.with_excluded(f"no {name}", int((~present).sum()))
        if not present.any():
            raise DataError(f"no battle has a {name}", column=name)
        rows = np.flatnonzero(present)
        return UsedBattles(rows, values[rows], None if w is None else w[rows], report)


@dataclass(frozen=True)
class UsedBattles:
    """The battles a fit uses (:meth:`Battles.used`).

    Attributes
    ----------
    rows
        Row numbers (into the table) of the battles whose target is present.
    values
        Their targets P(A beats B).
    weights
        Their weights, or ``None`` (all 1).
    report
        The table's report with the battles without a target counted as not used.
    """

    rows: np.ndarray
    values: np.ndarray
    weights: np.ndarray | None
    report: DropReport


def _validate(frame: pd.DataFrame, on_invalid: OnInvalid) -> tuple[pd.DataFrame, DropReport]:
    n_input = len(frame)
    missing = [c for c in ("model_a", "model_b") if c not in frame.columns]
    if missing:
        raise DataError(
            f"missing required column(s) {missing}; columns present: {list(frame.columns)}",
            column=missing[0],
            expected="a column naming each battle's model A and model B",
        )
    repeated = frame.columns[frame.columns.duplicated()]
    if len(repeated):
        raise DataError(
            f"the column {repeated[0]!r} appears more than once",
            column=str(repeated[0]),
            expected="each column name once",
        )
    if n_input == 0:
        raise DataError("no battles: the table is empty", expected="at least one row")
    frame = frame.reset_index(drop=True)
    checker = _Checker(n_input, on_invalid)
    out: dict[str, object] = {}

    for col in ("model_a", "model_b"):
        values = frame[col]
        checker.check(values.isna().to_numpy(), values, col, "missing model name", "a model name")
        out[col] = values.astype("string").astype(object)
    same = (out["model_a"] == out["model_b"]).to_numpy(dtype=bool)  # type: ignore[union-attr]
    checker.check(
        same, frame["model_a"], "model_b", "a model battling itself", "two different models"
    )

    for col in LABEL_COLUMNS:
        if col in frame:
            values = _as_float(frame[col], col, checker)
            known = np.isnan(values) | np.isin(values, _LABEL_VALUES)
            checker.check(
                ~known,
                frame[col],
                col,
                "unknown label",
                "1 (A wins), 0 (B wins), 0.5 (tie) or missing",
            )
            out[col] = values

    for col in (*_SCORE_COLUMNS, *_LENGTH_COLUMNS, "weight"):
        if col in frame:
            values = _as_float(frame[col], col, checker)
            checker.check(
                ~np.isfinite(values),
                frame[col],
                col,
                "missing or infinite value",
                "a finite number",
            )
            if col in _LENGTH_COLUMNS:
                checker.check(values < 0, frame[col], col, "negative length", "a length >= 0")
            if col == "weight":
                checker.check(values <= 0, frame[col], col, "non-positive weight", "a weight > 0")
            out[col] = values
    if "score_a" in out and "score_b" in out:
        diff = np.asarray(out["score_a"]) - np.asarray(out["score_b"])
        if "score_diff" in out:
            off = ~np.isclose(np.asarray(out["score_diff"]), diff, atol=1e-9)
            checker.check(
                off,
                frame["score_diff"],
                "score_diff",
                "score_diff differs from score_a - score_b",
                "score_a - score_b",
            )
        out["score_diff"] = diff
    elif ("score_a" in out) != ("score_b" in out):
        col = "score_b" if "score_a" in out else "score_a"
        raise DataError(
            "score_a and score_b come together",
            column=col,
            expected="both rubric scores, or score_diff alone",
        )

    if "position" in frame:
        pos = frame["position"].astype("string").str.lower()
        checker.check(
            ~pos.isin(["a", "b"]).to_numpy(dtype=bool),
            frame["position"],
            "position",
            "unknown position",
            "'a' (A shown first) or 'b' (B shown first)",
        )
        out["position"] = pos.astype(object)
    for col in ("judge", "prompt_id"):
        if col in frame:
            out[col] = frame[col]
    for col, label in _BOTHBAD.items():
        if col in frame:
            flags = _as_flags(frame[col], col, checker)
            tie = np.asarray(out[label]) == 0.5 if label in out else np.zeros(n_input, bool)
            checker.check(
                flags & ~tie,
                frame[col],
                col,
                f"'tie (bothbad)' where {label} is not a tie",
                f"True only where {label} is 0.5",
            )
            out[col] = flags
    if "battle_id" in frame:
        _check_battles(frame, out, checker)

    result = frame.copy()
    for col, values in out.items():
        result[col] = values
    if checker.bad.any():
        result = result.loc[~checker.bad].reset_index(drop=True)
        if len(result) == 0:
            raise DataError(
                f"every row is invalid ({checker.dropped})", expected="at least one valid row"
            )
    return _shared_categories(result), DropReport(n_input, checker.dropped)


def _as_flags(values: pd.Series, column: str, checker: _Checker) -> np.ndarray:
    """A yes/no column as bools: True/False, 1/0, "true"/"false"; missing is False."""
    if values.dtype == bool:
        return values.to_numpy()
    text = values.astype("string").str.strip().str.lower()
    flags = text.isin(["true", "1", "1.0"]).to_numpy(dtype=bool)
    known = flags | text.isin(["false", "0", "0.0", ""]).to_numpy(dtype=bool) | values.isna()
    checker.check(
        ~np.asarray(known, dtype=bool), values, column, "not a yes/no flag", "True or False"
    )
    return flags


def _check_battles(frame: pd.DataFrame, out: dict[str, object], checker: _Checker) -> None:
    """The rows of one ``battle_id`` describe one battle: one row per judge, same models."""
    ids = frame["battle_id"]
    missing = ids.isna().to_numpy()
    checker.check(
        missing, ids, "battle_id", "missing battle id", "an id shared by the rows of one battle"
    )
    keys = pd.DataFrame({"battle_id": ids})
    if "judge" in frame:
        keys["judge"] = frame["judge"]
    checker.check(
        keys.duplicated().to_numpy() & ~missing,
        ids,
        "battle_id",
        "a battle judged twice by one judge",
        "one row per (battle_id, judge)",
    )
    codes = pd.factorize(ids)[0]
    rows = np.arange(len(codes))
    first = np.full(codes.max() + 1 if len(codes) else 0, -1, dtype=np.int64)
    first[codes[::-1][codes[::-1] >= 0]] = rows[::-1][codes[::-1] >= 0]  # first row per id
    ref = np.where(codes >= 0, first[codes], rows)
    for col in _SHARED_COLUMNS:
        if col not in frame:
            continue
        # compare integer codes, not objects: missing values share the code -1
        value_codes = pd.factorize(np.asarray(out.get(col, frame[col]), dtype=object))[0]
        same = value_codes == value_codes[ref]
        checker.check(
            ~np.asarray(same, dtype=bool),
            frame[col],
            col,
            "differs between the rows of one battle_id",
            f"the same {col} on every row of a battle (its judges' rows)",
        )


def _shared_categories(frame: pd.DataFrame) -> pd.DataFrame:
    """``model_a`` and ``model_b`` as one Categorical of the sorted names in use."""
    a, b = frame["model_a"], frame["model_b"]
    names = sorted(set(pd.unique(a)) | set(pd.unique(b)))
    if isinstance(a.dtype, pd.CategoricalDtype):  # a subset: drop the names no longer used
        return frame.assign(
            model_a=a.cat.set_categories(names), model_b=b.cat.set_categories(names)
        )
    return frame.assign(
        model_a=pd.Categorical(a, categories=names), model_b=pd.Categorical(b, categories=names)
    )
