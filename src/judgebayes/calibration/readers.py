"""Judged items from files: a plain table, the pairwise prevalence layout, Inspect logs.

:func:`read_judged_items` reads any of :data:`ITEM_FORMATS` (the ``--format`` of
``judgebayes calibrate``) into :class:`~judgebayes.calibration.items.JudgedItems`:

================ ==================================================== ==================
format           what the file holds                                  one item is
================ ==================================================== ==================
``table``        ``model, item_id, judge_label`` (+ ``human_label``,   a row
                 ``split``, ``run``), any CSV/TSV/JSON(L)/Parquet
``prevalence``   pairwise battles of one model X against opponents:   a battle; θ =
                 ``{id, model_a, model_b, human_winner, judge_pick}``  P(humans prefer X)
                 (the layout of github.com/yiqunchen/debias-llm-as-a-
                 judge, ``data/judge_results/``)
``inspect``      Inspect AI eval logs (``.eval``, ``.json``) with a    a sample
                 model-graded score (:mod:`~judgebayes.calibration.
                 inspect_logs`)
``auto``         the content decides: ``human_winner`` and
                 ``judge_pick`` make a prevalence file, ``.eval`` an
                 Inspect log, anything else a table
================ ==================================================== ==================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.calibration.items import JudgedItems
from judgebayes.core.io import peek_columns, read_frame, reading
from judgebayes.errors import DataError

__all__ = ["ITEM_FORMATS", "read_judged_items", "read_prevalence"]

ITEM_FORMATS = ("auto", "table", "prevalence", "inspect")
"""The ``format`` values of :func:`read_judged_items` (``judgebayes calibrate --format``)."""

_PREVALENCE = ("id", "model_a", "model_b", "human_winner", "judge_pick")
_SIDES = {  # a pick or winner -> the side it names ("tie": neither)
    "a": "a",
    "model_a": "a",
    "b": "b",
    "model_b": "b",
    "tie": "tie",
    "tie (bothbad)": "tie",
}


def _side(values: pd.Series, column: str) -> np.ndarray:
    """``"a"``, ``"b"``, ``"tie"`` or None (missing) per row; an unknown value raises."""
    text = values.astype("string").str.strip().str.lower()
    side = text.map(_SIDES)
    bad = side.isna().to_numpy() & values.notna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            "unknown side",
            row=row,
            column=column,
            got=values.iloc[row],
            expected="'A' or 'B' (or 'model_a' / 'model_b', 'tie'), or null",
        )
    return side.astype(object).where(side.notna(), None).to_numpy()


def _judge_of(path: Path) -> tuple[str, str, str] | None:
    """``(model, opponent, judge)`` from ``<model>_vs_<opponent>_<judge>.json``."""
    stem = path.name.removesuffix(".gz").rsplit(".", 1)[0]
    if "_vs_" not in stem:
        return None
    model, rest = stem.split("_vs_", 1)
    if "_" not in rest:
        return None
    opponent, judge = rest.rsplit("_", 1)
    return model, opponent, judge


def read_prevalence(
    source: str | Path | Sequence[str | Path] | pd.DataFrame,
    *,
    target: str | None = None,
    judge: str | None = None,
    calibration: float | None = None,
    seed: int = 0,
) -> JudgedItems:
    """Pairwise battles of one model against opponents, as judged items (Fiedler, *Bias and
    Uncertainty in LLM-as-a-Judge Estimation*, 2026, arXiv:2605.06939).

    θ = P(humans prefer ``target``) per opponent: each battle of ``target`` against an
    opponent is one item of that opponent (the :class:`JudgedItems` ``model``), its
    ``human_label`` 1 when the human winner is ``target``, its ``judge_label`` 1 when
    the judge picked ``target``. A tie (human or judge) is "not preferred", 0, as in the
    upstream vignette "Real Data Example" (github.com/yiqunchen/debias-llm-as-a-judge,
    commit 4b4879a). A battle the judge did not pick (``judge_pick`` null) is left out
    and counted in :attr:`JudgedItems.report`; one without a human winner is a test
    item.

    Parameters
    ----------
    source
        A JSON (or CSV, Parquet) file of records ``{id, model_a, model_b,
        human_winner, judge_pick}``, several files, a folder of
        ``<model>_vs_<opponent>_<judge>.json`` files, or a DataFrame.
        ``human_winner`` is ``model_a``/``model_b`` (or ``tie``), ``judge_pick`` ``A``/``B``.
    target
        The model whose preference rate θ is estimated. Default: the one model in every
        battle (with one opponent, the ``<model>`` of the files' names).
    judge
        With a folder of several judges' files, the judge to read (its files'
        ``<judge>`` suffix).
    calibration
        When every battle has a human winner: the share of each opponent's battles
        drawn at random as the calibration set, the rest test items whose human labels
        only score the estimates (:meth:`JudgedItems.calibration_split` with
        ``per_model=True``; the vignette draws 10%). ``None``: every battle with a
        human winner is a calibration item.
    seed
        Seeds the draw of the calibration set.

    Returns
    -------
    JudgedItems
        One item per battle with a judge pick, ``model`` = the opponent.

    Raises
    ------
    DataError
        Missing columns; an unknown side; a battle without ``target``; no single
        model common to every battle (name ``target``); several judges in a folder
        and no ``judge``.
    """
    frames = [(path, _read_battles(path)) for path in _files(source, judge)]
    rows = pd.concat([f for _, f in frames], ignore_index=True)
    if target is None:
        common = set(rows["model_a"]) | set(rows["model_b"])
        for _, f in frames:
            common &= set(f["model_a"]) | set(f["model_b"])
        in_all = [
            m for m in sorted(common) if ((rows["model_a"] == m) | (rows["model_b"] == m)).all()
        ]
        named = {(_judge_of(path) or ("",))[0] for path, _ in frames if isinstance(path, Path)}
        if len(in_all) > 1 and len(named) == 1 and named <= set(in_all):
            in_all = sorted(named)  # <model>_vs_<opponent>_<judge>.json names the model
        if len(in_all) != 1:
            raise DataError(
                f"cannot tell which model's preference rate to estimate: "
                f"{'several models are' if in_all else 'no model is'} in every battle "
                f"({in_all})",
                expected="target='<model>' (the CLI: --target NAME)",
            )
        target = in_all[0]
    items, dropped = [], 0
    for path, frame in frames:
        # errors name the file and the record
        with reading(path, unit="record") if isinstance(path, Path) else nullcontext():
            is_a = (frame["model_a"] == target).to_numpy()
            is_b = (frame["model_b"] == target).to_numpy()
            if not (is_a | is_b).all():
                row = int(np.flatnonzero(~(is_a | is_b))[0])
                raise DataError(
                    f"a battle without {target!r}",
                    row=row,
                    column="model_a",
                    got=f"{frame['model_a'].iloc[row]} vs {frame['model_b'].iloc[row]}",
                    expected=f"{target!r} as model_a or model_b in every battle",
                )
            human = _side(frame["human_winner"], "human_winner")
            pick = _side(frame["judge_pick"], "judge_pick")
            mine = np.where(is_a, "a", "b")
            keep = np.array([p is not None for p in pick])
            dropped += int((~keep).sum())
            items.append(
                pd.DataFrame(
                    {
                        "model": np.where(is_a, frame["model_b"], frame["model_a"])[keep],
                        "item_id": frame["id"].to_numpy()[keep],
                        "judge_label": (pick == mine).astype(float)[keep],
                        "human_label": np.where(
                            [h is None for h in human], np.nan, (human == mine).astype(float)
                        )[keep],
                    }
                )
            )
    judged = JudgedItems(
        pd.concat(items, ignore_index=True), dropped={"judge_pick null (no verdict)": dropped}
    )
    if calibration is None:
        return judged
    return judged.calibration_split(calibration, seed=seed, per_model=True)


def _files(
    source: str | Path | Sequence[str | Path] | pd.DataFrame, judge: str | None
) -> list[Path | pd.DataFrame]:
    """The prevalence files to read (one judge's files of a folder)."""
    if isinstance(source, pd.DataFrame):
        return [source]
    if isinstance(source, str | Path) and not Path(source).is_dir():
        return [Path(source)]
    if isinstance(source, str | Path):
        files = sorted(f for f in Path(source).iterdir() if f.suffix in (".json", ".jsonl", ".csv"))
        if not files:
            raise DataError(
                f"the folder {source} holds no .json files",
                expected="a table of judged items, or a folder of prevalence files "
                "<model>_vs_<opponent>_<judge>.json",
            )
    else:
        files = [Path(f) for f in source]
    judges = {f: (_judge_of(f) or ("", "", ""))[2] for f in files}
    names = sorted(set(judges.values()) - {""})
    if judge is not None:
        files = [f for f in files if judges[f] == judge]
        if not files:
            raise DataError(
                f"no file of judge {judge!r}", expected=f"one of {names}", column="judge"
            )
    elif len(names) > 1:
        raise DataError(
            f"the files hold {len(names)} judges' picks ({', '.join(names)}); pick one",
            expected="judge='<name>' (the CLI: --judge NAME)",
        )
    return list(files)


def _read_battles(source: Path | pd.DataFrame) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        frame = source.reset_index(drop=True)
    else:
        frame = read_frame(source, text_columns=_PREVALENCE, default="json")
    missing = [c for c in _PREVALENCE if c not in frame.columns]
    if missing:
        where = f"{source.name}: " if isinstance(source, Path) else ""
        raise DataError(
            f"{where}missing column(s) {missing}; columns present: {list(frame.columns)}",
            column=missing[0],
            expected="records {id, model_a, model_b, human_winner, judge_pick}",
        )
    return frame


def _read_table(
    path: str | Path, columns: Mapping[str, str] | None, labels: Mapping[Any, float] | None
) -> JudgedItems:
    renamed = {ours: theirs for theirs, ours in (columns or {}).items()}
    names = [renamed.get(c, c) for c in ("model", "item_id")]
    frame = read_frame(path, text_columns=names)  # names exactly as written; errors name the file
    if columns:
        absent = [c for c in columns if c not in frame]
        if absent:
            raise DataError(
                f"column mapping names absent column(s) {absent}",
                column=absent[0],
                expected=f"one of {list(frame.columns)}",
            )
        frame = frame.rename(columns=dict(columns))
    with reading(path):
        return JudgedItems(frame, labels=labels)


def item_format(path: str | Path) -> str:
    """The format ``auto`` chooses for ``path`` (see the module docstring)."""
    path = Path(path)
    if path.is_dir():
        return "prevalence"
    if path.suffix.lower() == ".eval":
        return "inspect"
    columns = peek_columns(path)
    if {"human_winner", "judge_pick"} <= set(columns):
        return "prevalence"
    if {"eval", "samples"} & set(columns) and {"version", "status"} <= set(columns):
        return "inspect"
    return "table"


def read_judged_items(
    path: str | Path,
    *,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
    labels: Mapping[Any, float] | None = None,
    target: str | None = None,
    judge: str | None = None,
    calibration: float | None = None,
    seed: int = 0,
    human: str | Path | None = None,
    scorer: str | None = None,
) -> JudgedItems:
    """Read judged items in one of :data:`ITEM_FORMATS`.

    Parameters
    ----------
    path
        The file (a folder for ``prevalence``).
    format
        ``"auto"`` (default), ``"table"``, ``"prevalence"`` or ``"inspect"``.
    columns
        ``table``: ``{their_name: our_name}``, e.g. ``{"question": "item_id"}``.
    labels
        ``table``, ``inspect``: other label spellings, e.g. ``{"Yes": 1, "No": 0}``.
    target, judge, calibration, seed
        ``prevalence``: :func:`read_prevalence`.
    human, scorer
        ``inspect``: :func:`~judgebayes.calibration.inspect_logs.read_inspect_logs`.
    """
    if format == "auto":
        format = item_format(path)
    if format == "table":
        return _read_table(path, columns, labels)
    if format == "prevalence":
        return read_prevalence(path, target=target, judge=judge, calibration=calibration, seed=seed)
    if format == "inspect":
        from judgebayes.calibration.inspect_logs import read_inspect_logs

        return read_inspect_logs(path, human=human, scorer=scorer, labels=labels)
    raise DataError(f"unknown format {format!r}", expected=f"one of {ITEM_FORMATS}")
