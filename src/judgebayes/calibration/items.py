"""Judged items: the validated table every calibration estimator reads (Fiedler, *Bias and
Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939).

:class:`JudgedItems` holds one row per judged response (``model, item_id,
judge_label`` plus optional ``human_label``, ``split``, ``run``). Rows with a human
label form the calibration set unless a ``split`` column says otherwise; repeated
judge runs of one item are collapsed to the item's mean judge label (Appendix E.4).
:func:`~judgebayes.calibration.readers.read_judged_items` reads such a table from CSV,
TSV, Parquet or JSON(L), and the formats judge tools write.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from judgebayes.core.report import DropReport
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from judgebayes.core.battles import Battles

__all__ = ["JudgedItems"]

_REQUIRED = ("model", "item_id", "judge_label")
_COLUMNS = ["model", "item_id", "split", "judge_label", "judge_pos", "n_runs", "human_label"]


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

    def human_accuracy(self) -> pd.Series:
        """Mean human label over every item that has one, per model: θ from all human labels.

        On data where every item carries its human verdict and :meth:`calibration_split`
        hid most of them, this is the all-human θ the estimators are scored against
        (calibration and test items together); NaN for a model without human labels.
        """
        out = self._frame.groupby("model")["human_label"].mean()
        return out.reindex(self.models).rename("theta_human")

    @classmethod
    def _from_frame(cls, frame: pd.DataFrame, n_input: int, report: DropReport) -> JudgedItems:
        """A table of already collapsed items (the columns of :attr:`frame`), unchecked."""
        out = cls.__new__(cls)
        out._frame = frame.sort_values(
            ["model", "split", "item_id"], key=lambda s: s.astype(str), ignore_index=True
        )[_COLUMNS]
        out.n_input = n_input
        out._report = report
        return out

    def calibration_split(
        self, size: float | int, *, seed: int = 0, per_model: bool = False
    ) -> JudgedItems:
        """These items with the human labels of a random calibration set only.

        The items that have a human label are the candidates; ``size`` of their item
        ids are drawn at random without replacement and form the calibration set. Every
        other item becomes a test item: its human label is kept only as the truth
        (:meth:`true_test_accuracy`, :meth:`human_accuracy`), which no estimator reads.
        This is how a fully labelled benchmark tells what a calibration budget would
        have given (Appendix E.3 draws one such split; a study draws many).

        Parameters
        ----------
        size
            A fraction in (0, 1) of the candidate item ids, ``max(1, round(size × n))``
            of them (10% of 276 battles: 28, as in the debias-llm-as-a-judge vignette),
            or a count (an ``int``).
        seed
            Seed of the draw.
        per_model
            Draw ``size`` of each model's items separately, so that every model has a
            calibration set of fixed size (the paper's design). Needs items that belong
            to one model each; without it, an item id shared by several models (a
            battle seen from both sides, :meth:`from_battles`) is one human judgement
            and, drawn, calibrates every model it belongs to.

        Returns
        -------
        JudgedItems
            The same items and report, with a new ``split``.

        Raises
        ------
        DataError
            ``per_model`` with an item id shared by several models, or no item with a
            human label.
        ValueError
            ``size`` neither a fraction in (0, 1) nor a count between 1 and the
            number of candidates.
        """
        f = self._frame
        has = f["human_label"].notna().to_numpy()
        if not has.any():
            raise DataError(
                "no item has a human label to draw a calibration set from",
                column="human_label",
                expected="human labels on the items a calibration set may use",
            )
        candidates = f[has]
        if per_model:
            shared = candidates.groupby("item_id", sort=False)["model"].nunique()
            if (shared > 1).any():
                raise DataError(
                    f"item {shared.index[np.argmax(shared.to_numpy() > 1)]!r} belongs to "
                    f"{int(shared.max())} models, so a calibration set per model is not "
                    "defined",
                    column="item_id",
                    expected="per_model=False for items shared by several models "
                    "(e.g. both sides of a battle)",
                )
            pools = [g["item_id"].to_numpy() for _, g in candidates.groupby("model", sort=True)]
        else:
            pools = [pd.unique(candidates["item_id"].to_numpy())]
        rng = np.random.default_rng(seed)
        chosen: list[Any] = []
        for pool in pools:
            k = _draw_count(size, len(pool))
            chosen.extend(pool[np.sort(rng.choice(len(pool), size=k, replace=False))])
        is_cal = has & f["item_id"].isin(pd.Index(chosen)).to_numpy()
        frame = f.assign(split=np.where(is_cal, "calibration", "test"))
        return JudgedItems._from_frame(frame, self.n_input, self._report)

    @classmethod
    def from_battles(
        cls,
        battles: Battles,
        judge: str | None = None,
        *,
        models: Sequence[str] | None = None,
        ties: Literal["loss", "drop"] = "loss",
    ) -> JudgedItems:
        """Judged items of every model against the field, from pairwise battles.

        The binary setting of Section 3.1 for a win rate (Section 3.2: Eq. 1 holds with
        θ the human preference rate): for a model X, θ_X = P(the human says X won) over
        X's battles against the field. A battle between X and Y is one item of X and
        one item of Y (``item_id`` = its ``battle_id``), each with

        * ``human_label`` = 1 when the human says this side won, 0 otherwise (missing
          when no human labelled the battle: a test item);
        * ``judge_label`` = 1 when the judge says this side won, 0 otherwise.

        Ties. ``"loss"`` (default): a tie is "did not win" for both sides, so θ is
        the strict win rate, as in the experiments of Chatzi et al.,
        *Prediction-Powered Ranking of Large Language Models* (NeurIPS 2024,
        arXiv:2402.17826; ``ignore_ties=0``) and the debias-llm-as-a-judge vignette.
        Every battle is an item whether or not a human labelled it: the test items
        must be defined without the human label that is hidden on them, or the
        calibration items would not represent them. ``"drop"``: battles the human or
        the judge called a tie are left out, and θ is the win rate among decisive
        battles. The human's tie is part of the human label, so this population can be
        formed only where every battle has its human verdict (a re-judged benchmark);
        it is the population of the agreement rates Chatzi et al. report.

        Parameters
        ----------
        battles
            Battles with ``judge_label`` (``P(A beats B)``: 1, 0.5, 0) and, on the
            labelled battles, ``human_label``; several judges' rows need ``battle_id``
            (:func:`~judgebayes.read_aligned`, :func:`judgebayes.datasets.load_ppr`).
            Without ``battle_id`` each row is its own battle.
        judge
            The judge whose labels to use (needed when the table has several).
        models
            The field: only battles between two of these models (default: all).
        ties
            ``"loss"`` or ``"drop"`` (above).

        Returns
        -------
        JudgedItems
            Two items per battle, ``model`` the side; rows left out are counted in
            :attr:`report` by reason, in items (two per battle): no verdict from the
            judge, outside the field, a tie with ``ties="drop"``.

        Notes
        -----
        The two items of a battle are dependent (with ``ties="drop"``,
        Z_Y = 1 − Z_X). :func:`~judgebayes.calibration.calibrate`'s bootstrap and
        :meth:`calibration_split` treat an ``item_id`` as one unit, so a battle's two
        items are resampled, and labelled, together.
        """
        if ties not in ("loss", "drop"):
            raise ValueError(f"ties must be 'loss' or 'drop', got {ties!r}")
        if "judge_label" not in battles:
            raise DataError(
                "the battles have no 'judge_label' column",
                column="judge_label",
                expected="a judge's verdicts",
            )
        if judge is not None:
            battles = battles.for_judge(judge)
        elif len(battles.judges) > 1:
            raise DataError(
                f"the battles hold {len(battles.judges)} judges' labels: name one",
                column="judge",
                expected=f"judge= one of {list(battles.judges)}",
            )
        f = battles.frame
        ids = f["battle_id"].to_numpy() if "battle_id" in f else np.arange(len(f))
        a, b = f["model_a"].astype(str).to_numpy(), f["model_b"].astype(str).to_numpy()
        judged = f["judge_label"].to_numpy(float)
        human = f["human_label"].to_numpy(float) if "human_label" in f else np.full(len(f), np.nan)
        dropped: dict[str, int] = {}
        keep = np.ones(len(f), bool)

        def leave_out(mask: np.ndarray, reason: str) -> None:
            mask = mask & keep
            dropped[reason] = 2 * int(mask.sum())
            keep[mask] = False

        if models is not None:
            field = [str(m) for m in models]
            unknown = sorted(set(field) - set(battles.models))
            if unknown:
                raise DataError(
                    f"unknown model {unknown[0]!r}",
                    column="model_a/model_b",
                    expected=f"models of the battles: {list(battles.models)}",
                )
            leave_out(~(np.isin(a, field) & np.isin(b, field)), "outside the field (models=)")
        leave_out(np.isnan(judged), "no verdict from the judge")
        if ties == "drop":
            leave_out(human == 0.5, "human tie (ties='drop')")
            leave_out(judged == 0.5, "judge tie (ties='drop')")
        if not keep.any():
            raise DataError(
                "no battle left to make items of", expected="battles with a judge verdict"
            )
        k = np.flatnonzero(keep)
        # side A wins at label 1, side B at label 0; a tie (0.5) is no win for either
        items = pd.DataFrame(
            {
                "model": np.concatenate([a[k], b[k]]),
                "item_id": np.concatenate([ids[k], ids[k]]),
                "judge_label": np.concatenate([judged[k] == 1, judged[k] == 0]).astype(float),
                "human_label": np.where(
                    np.isnan(np.concatenate([human[k], human[k]])),
                    np.nan,
                    np.concatenate([human[k] == 1, human[k] == 0]),
                ),
            }
        )
        return cls(items, dropped=dropped)

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


def _draw_count(size: float | int, n: int) -> int:
    """How many of ``n`` candidates a calibration set of ``size`` takes."""
    if isinstance(size, bool):
        raise ValueError(f"size must be a fraction in (0, 1) or a count, got {size!r}")
    if isinstance(size, int | np.integer):
        k = int(size)
    elif isinstance(size, float | np.floating) and 0 < size < 1:
        k = max(1, round(float(size) * n))
    else:
        raise ValueError(f"size must be a fraction in (0, 1) or an integer count, got {size!r}")
    if not 1 <= k <= n:
        raise ValueError(f"a calibration set of {k} items from {n} candidates")
    return k


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
    return items[_COLUMNS], len(frame)
