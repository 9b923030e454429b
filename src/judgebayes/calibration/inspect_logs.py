"""Inspect AI eval logs as judged items: a model-graded score per sample (Fiedler, *Bias and
Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939).

An Inspect (github.com/UKGovernmentBEIS/inspect_ai) evaluation of a model writes a
log (``.eval``, or ``.json``) holding one score per sample and epoch from each
scorer; a model-graded scorer (``model_graded_qa``, ``model_graded_fact``) is an LLM
judge of the model's answer. Each scored sample becomes a judged item of the evaluated
model (``log.eval.model``): ``item_id`` the sample id, ``judge_label`` the grade (``C``
→ 1, ``I`` → 0; numbers 0/1 as they are; other grades through ``labels``), ``run`` the
epoch. Human verdicts on the same answers are joined from a table by sample id (and
model, when several models were evaluated).

Logs are read with :func:`inspect_ai.log.read_eval_log`, the optional extra
``judgebayes[inspect]``; without it a one-line :class:`~judgebayes.DataError` says what
to install. A sample whose grade could not be parsed (a NaN score) or that failed with
an error has no judge label: it is left out and counted in
:attr:`~judgebayes.calibration.items.JudgedItems.report`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.calibration.items import JudgedItems
from judgebayes.core.io import read_frame, reading, require_file
from judgebayes.errors import DataError

__all__ = ["GRADES", "read_inspect_logs"]

GRADES: dict[str, float] = {"C": 1.0, "I": 0.0}
"""Inspect's correct / incorrect grades as judge labels (``P``, partial, needs ``labels``)."""
_INSTALL = (
    'reading Inspect logs needs inspect_ai, an optional extra: pip install "judgebayes[inspect]"'
)


def _read_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise DataError(f"{path.name}: {_INSTALL}") from None
    require_file(path)
    try:
        return read_eval_log(str(path))
    except Exception as err:  # a zip or JSON that is no Inspect log: one line naming the file
        detail = " ".join(str(err).split())[:200] or type(err).__name__
        raise DataError(
            f"{path.name}: not an Inspect eval log ({type(err).__name__}: {detail})",
            expected="a .eval or .json log written by inspect_ai",
        ) from None


def _grade(value: Any, labels: Mapping[str, float]) -> float | None:
    """A score value as a judge label; None where the grade is missing; KeyError if unknown."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, str):
        key = value.strip().upper()
        if key in labels:
            return float(labels[key])
        raise KeyError(value)
    if isinstance(value, bool | int | float) and float(value) in (0.0, 1.0):
        return float(value)
    raise KeyError(value)


def read_inspect_logs(
    logs: str | Path | Sequence[str | Path],
    *,
    human: str | Path | pd.DataFrame | None = None,
    scorer: str | None = None,
    labels: Mapping[Any, float] | None = None,
) -> JudgedItems:
    """Model-graded scores of Inspect eval logs as judged items, with human labels joined.

    Parameters
    ----------
    logs
        One log (``.eval`` or ``.json``), several, or a folder of them (one log per
        evaluated model, or several runs).
    human
        Human verdicts on the same answers: a table (CSV, JSON, Parquet, or a
        DataFrame) with the sample id (``id``, ``sample_id`` or ``item_id``),
        ``human_label`` (0/1 or ``labels``) and, when the logs evaluate several
        models, ``model``.
    scorer
        The scorer whose scores are the judge's verdicts, when a sample has several.
    labels
        Other grade spellings, e.g. ``{"P": 0}`` for a partial-credit grader;
        ``C`` → 1 and ``I`` → 0 always.

    Returns
    -------
    JudgedItems
        One item per (model, sample) (epochs collapsed as runs); ``report`` counts the
        samples left out (ungraded, failed).

    Raises
    ------
    DataError
        inspect_ai not installed; a file that is no Inspect log; several scorers and
        no ``scorer``; an unknown grade (naming log, sample and epoch); a human row
        for a sample no log holds, or without a model when several were evaluated.
    """
    grades = {**GRADES, **{str(k).strip().upper(): float(v) for k, v in (labels or {}).items()}}
    rows: list[dict[str, Any]] = []
    left_out = {"grade missing (not parsed)": 0, "sample failed with an error": 0}
    seen: set[tuple[str, str]] = set()  # every (model, sample id), graded or not
    for path in _log_files(logs):
        log = _read_log(path)
        model = str(log.eval.model)
        for sample in log.samples or ():
            seen.add((model, str(sample.id)))
            if sample.error is not None:
                left_out["sample failed with an error"] += 1
                continue
            scores = sample.scores or {}
            name = _scorer(scores, scorer, path, sample)
            if name is None:
                left_out["grade missing (not parsed)"] += 1
                continue
            try:
                label = _grade(scores[name].value, grades)
            except KeyError:
                raise DataError(
                    f"{path.name}, sample {sample.id!r} (epoch {sample.epoch}), scorer "
                    f"{name!r}: unknown grade {scores[name].value!r}",
                    expected=f"one of {sorted(grades)} or 0/1; map others with labels=",
                ) from None
            if label is None:
                left_out["grade missing (not parsed)"] += 1
                continue
            rows.append(
                {
                    "model": model,
                    "item_id": str(sample.id),
                    "run": int(sample.epoch),
                    "judge_label": label,
                }
            )
    if not rows:
        raise DataError(
            f"no graded sample in the logs ({left_out})", expected="a model-graded score"
        )
    frame = pd.DataFrame(rows)
    if human is not None:
        frame["human_label"], unused = _human_labels(human, frame, seen)
        left_out["human label of a sample left out"] = unused
    if frame["run"].nunique() == 1:
        frame = frame.drop(columns=["run"])
    return JudgedItems(frame, labels=labels, dropped=left_out)


def _log_files(logs: str | Path | Sequence[str | Path]) -> list[Path]:
    if isinstance(logs, str | Path):
        path = Path(logs)
        if path.is_dir():
            files = sorted(f for f in path.iterdir() if f.suffix in (".eval", ".json"))
            if not files:
                raise DataError(f"{path} holds no .eval or .json logs", expected="Inspect logs")
            return files
        return [path]
    return [Path(f) for f in logs]


def _scorer(scores: Mapping[str, Any], chosen: str | None, path: Path, sample: Any) -> str | None:
    if not scores:
        return None
    if chosen is not None:
        if chosen not in scores:
            raise DataError(
                f"{path.name}, sample {sample.id!r}: no scorer {chosen!r}",
                expected=f"one of {sorted(scores)}",
            )
        return chosen
    if len(scores) > 1:
        raise DataError(
            f"{path.name}: samples hold scores of {len(scores)} scorers ({', '.join(scores)})",
            expected="scorer='<name>' (the CLI: --scorer NAME): the model-graded one",
        )
    return next(iter(scores))


def _human_labels(
    human: str | Path | pd.DataFrame, items: pd.DataFrame, seen: set[tuple[str, str]]
) -> tuple[np.ndarray, int]:
    """Each item row's human label (missing where none), joined by sample id (and model),
    and how many human labels belong to samples left out (ungraded or failed)."""
    if isinstance(human, pd.DataFrame):
        table, where = human.reset_index(drop=True), None
    else:
        where = Path(human)
        table = read_frame(where, text_columns=("id", "sample_id", "item_id", "model"))
    with reading(where) if where is not None else nullcontext():
        id_col = next((c for c in ("id", "sample_id", "item_id") if c in table), None)
        if id_col is None or "human_label" not in table:
            raise DataError(
                f"human labels need a sample id and human_label; columns: {list(table.columns)}",
                column="human_label" if id_col else "id",
                expected="columns id (or sample_id), human_label and, with several models, model",
            )
        models = sorted(items["model"].unique())
        if "model" not in table:
            if len(models) > 1:
                raise DataError(
                    f"the logs evaluate {len(models)} models; a human label needs its model",
                    column="model",
                    expected=f"a model column with one of {models}",
                )
            table = table.assign(model=models[0])
        keys = pd.MultiIndex.from_arrays([table["model"].astype(str), table[id_col].astype(str)])
        repeat = keys.duplicated()
        if repeat.any():
            raise DataError(
                "a second human label for one sample",
                row=int(np.flatnonzero(repeat)[0]),
                column=id_col,
                expected="one human label per (model, sample)",
            )
        known = pd.MultiIndex.from_arrays([items["model"], items["item_id"]])
        unknown = np.array([k not in seen for k in keys], dtype=bool)
        if unknown.any():
            row = int(np.flatnonzero(unknown)[0])
            raise DataError(
                "no sample of the logs has this model and id",
                row=row,
                column=id_col,
                got=f"{keys[row][0]} / {keys[row][1]}",
                expected="a sample id (and model) of the logs",
            )
        values = pd.Series(table["human_label"].to_numpy(), index=keys)
        return values.reindex(known).to_numpy(dtype=object), int((~keys.isin(known)).sum())
