"""Judged items: the validated table every calibration estimator reads (seed 001).

:class:`JudgedItems` holds one row per judged response (``model, item_id,
judge_label`` plus optional ``human_label``, ``split``, ``run``). Rows with a human
label form the calibration set unless a ``split`` column says otherwise; repeated
judge runs of one item are collapsed to the item's mean judge label (Appendix E.4).
:func:`~judgebayes.calibration.readers.read_judged_items` reads such a table from CSV,
TSV, Parquet or JSON(L), and the formats judge tools write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.core.report import DropReport
from judgebayes.errors import DataError

__all__ = ["JudgedItems"]

_REQUIRED = ("model", "item_id", "judge_label")


def _labels01(
    values: pd.Series, column: str, labels: Mapping[Any, float] | None, allow_missing: bool
) -> np.ndarray:
    """Labels as floats in {0, 1} (NaN = missing); the first bad row raises."""
    raw = values
    if labels:
        norm_map = {
            (k.strip().lower() if isinstance(k, str) else k): float(v) for k, v in labels.items()
        }
        values = values.map(
            lambda v: norm_map.get(v.strip().lower() if isinstance(v, str) else v, v)
        )
    if values.dtype == bool:
        values = values.astype(float)
    num = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    missing = values.isna().to_numpy()
    bad = (~missing & ~np.isin(num, (0.0, 1.0))) | (missing & (not allow_missing))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        what = "missing label" if missing[row] else "label outside {0, 1}"
        hint = "" if labels else " (map other values with labels={'Yes': 1, 'No': 0})"
        raise DataError(
            what,
            row=row,
            column=column,
            expected="0 or 1" + hint,
            got=None if missing[row] else raw.iloc[row],
        )
    return np.where(missing, np.nan, num)


class JudgedItems:
    """A validated table of judged items, collapsed to one row per (model, item).

    Parameters
    ----------
    frame
        Rows with ``model`` (str), ``item_id`` (hashable), ``judge_label`` ∈ {0, 1};
        optional ``human_label`` ∈ {0, 1} or missing, ``split`` ∈ {"calibration",
        "test"} and ``run`` (repeated judge runs of one item).
    labels
        Optional mapping of other label spellings to 0/1, e.g. ``{"Yes": 1, "No": 0}``.
    dropped
        Rows a reader left out before building the table, by reason (a judge that gave
        no verdict): counted in :attr:`report`.

    Notes
    -----
    Without ``split``, an item is in the calibration set of its model when it has a
    human label. With ``split``, calibration rows need a human label and human labels
    on test rows are kept only as the *true* test accuracy
    (:meth:`true_test_accuracy`); no estimator reads them. Repeated runs (``run``)
    are collapsed to ``judge_label`` = mean over runs, ``judge_pos`` = number of
    positive runs, ``n_runs`` (Appendix E.4: passing k·n run-level rows would bias
    PPI++'s λ upwards).
    """

    def __init__(
        self,
        frame: pd.DataFrame | Mapping,
        *,
        labels: Mapping[Any, float] | None = None,
        dropped: Mapping[str, int] | None = None,
    ) -> None:
        if not isinstance(frame, pd.DataFrame):
            frame = pd.DataFrame(frame)
        self._frame, self.n_input = _validate_items(frame.reset_index(drop=True), labels)
        left_out = {k: int(v) for k, v in (dropped or {}).items() if v}
        self._report = DropReport(self.n_input + sum(left_out.values()), left_out)

    @property
    def report(self) -> DropReport:
        """Rows read and rows a reader left out, by reason (judged rows, before runs
        are collapsed)."""
        return self._report

    @property
    def frame(self) -> pd.DataFrame:
        """``model, item_id, split, judge_label, judge_pos, n_runs, human_label`` (a copy)."""
        return self._frame.copy()

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(sorted(self._frame["model"].unique()))

    def __len__(self) -> int:
        return len(self._frame)

    def __repr__(self) -> str:
        s = self.summary()
        left_out = self._report.n_dropped
        return (
            f"JudgedItems({len(self)} judged items from {self.n_input} rows, "
            f"{len(s)} models, {int(s['n_cal'].sum())} with human labels"
            + (f"; {left_out} rows left out: {dict(self._report.dropped)})" if left_out else ")")
        )

    def _rows(self, model: str, split: str) -> pd.DataFrame:
        if model not in self.models:
            raise DataError(
                f"unknown model {model!r}", column="model", expected=f"one of {list(self.models)}"
            )
        f = self._frame
        return f[(f["model"] == model) & (f["split"] == split)]

    def calibration(self, model: str) -> tuple[np.ndarray, np.ndarray]:
        """``(human_label, judge_label)`` of ``model``'s calibration items."""
        rows = self._rows(model, "calibration")
        return rows["human_label"].to_numpy(float), rows["judge_label"].to_numpy(float)

    def test(self, model: str) -> np.ndarray:
        """Judge labels (mean over runs) of ``model``'s test items."""
        return self._rows(model, "test")["judge_label"].to_numpy(float)

    def true_test_accuracy(self) -> pd.Series:
        """Mean human label on test items per model (NaN without test labels)."""
        test = self._frame[self._frame["split"] == "test"]
        out = test.groupby("model")["human_label"].mean()
        return out.reindex(self.models).rename("theta_test")

    def summary(self) -> pd.DataFrame:
        """Per model: calibration size, positives, negatives, test size, max runs."""
        f = self._frame
        cal = f["split"] == "calibration"
        g = pd.DataFrame(
            {
                "model": f["model"],
                "cal": cal,
                "pos": cal & (f["human_label"] == 1),
                "neg": cal & (f["human_label"] == 0),
                "test": ~cal,
                "runs": f["n_runs"],
            }
        ).groupby("model")
        out = pd.DataFrame(
            {
                "n_cal": g["cal"].sum(),
                "n_pos": g["pos"].sum(),
                "n_neg": g["neg"].sum(),
                "n_test": g["test"].sum(),
                "max_runs": g["runs"].max(),
            }
        ).astype(int)
        return out.reindex(self.models).rename_axis("model").reset_index()


def _validate_items(
    frame: pd.DataFrame,
    labels: Mapping[Any, float] | None,
) -> tuple[pd.DataFrame, int]:
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise DataError(
            f"missing column(s) {missing}; columns present: {list(frame.columns)}",
            column=missing[0],
            expected="columns model, item_id, judge_label (+ optional human_label, split, run)",
        )
    if len(frame) == 0:
        raise DataError("no judged items: the table is empty", expected="at least one row")
    for col in ("model", "item_id"):
        bad = frame[col].isna().to_numpy()
        if bad.any():
            raise DataError(
                f"missing {col}",
                row=int(np.flatnonzero(bad)[0]),
                column=col,
                expected="a model name" if col == "model" else "an item id",
            )
    out = pd.DataFrame({"model": frame["model"].astype(str), "item_id": frame["item_id"]})
    out["judge_label"] = _labels01(frame["judge_label"], "judge_label", labels, False)
    out["human_label"] = (
        _labels01(frame["human_label"], "human_label", labels, True)
        if "human_label" in frame
        else np.nan
    )
    has_human = ~np.isnan(out["human_label"].to_numpy())
    if "split" in frame:
        split = frame["split"].astype("string").str.strip().str.lower()
        split = split.replace({"cal": "calibration", "calib": "calibration"})
        bad = ~split.isin(["calibration", "test"]).to_numpy(dtype=bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise DataError(
                "unknown split",
                row=row,
                column="split",
                expected="'calibration' or 'test'",
                got=frame["split"].iloc[row],
            )
        out["split"] = split.astype(object).to_numpy()
        unlabelled = (out["split"] == "calibration").to_numpy() & ~has_human
        if unlabelled.any():
            raise DataError(
                "calibration row without a human label",
                row=int(np.flatnonzero(unlabelled)[0]),
                column="human_label",
                expected="0 or 1 on every calibration row",
            )
    else:
        out["split"] = np.where(has_human, "calibration", "test")
    keys = ["model", "item_id"] + (["run"] if "run" in frame else [])
    if "run" in frame:
        out["run"] = frame["run"]
    dup = out.duplicated(keys).to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        raise DataError(
            f"duplicate {tuple(keys)}",
            row=row,
            column=keys[-1],
            expected="one row per (model, item_id)"
            + (" and run" if "run" in frame else "; add a 'run' column for repeated judge runs"),
            got=out[keys].iloc[row].tolist(),
        )
    g = out.assign(h=out["human_label"].fillna(-1.0)).groupby(["model", "item_id"], sort=False)
    for col, what in (("h", "human_label"), ("split", "split")):
        varies = (g[col].transform("nunique") > 1).to_numpy()
        if varies.any():
            raise DataError(
                f"{what} differs between runs of one item",
                row=int(np.flatnonzero(varies)[0]),
                column=what,
                expected="the same value on every run of an item",
            )
    items = g.agg(
        split=("split", "first"),
        judge_label=("judge_label", "mean"),
        judge_pos=("judge_label", "sum"),
        n_runs=("judge_label", "size"),
        human_label=("human_label", "first"),
    ).reset_index()
    items["judge_pos"] = items["judge_pos"].round().astype(int)
    items = items.sort_values(
        ["model", "split", "item_id"], key=lambda s: s.astype(str), ignore_index=True
    )
    return items[
        ["model", "item_id", "split", "judge_label", "judge_pos", "n_runs", "human_label"]
    ], len(frame)
