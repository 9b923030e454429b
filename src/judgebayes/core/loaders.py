"""Loaders: every foreign label convention is converted here, and nowhere else.

=================== ============================================ =====================
format              source convention                            becomes
=================== ============================================ =====================
``arena``           Chatbot Arena / FastChat records, ``winner``  ``human_label``
                    in ``model_a | model_b | tie | tie (bothbad)``
``softelo``         Kargi & Salinas (*From Uncertain Judgments to Calibrated Rankings: Conformal Elo
Estimation for LLM Evaluation*, 2026, arXiv:2606.13221) annotation CSV: ``human_pref``,
``human_label``,
                    ``judge_pref`` with **0 = A wins**, 1 = B     ``judge_label``,
                    wins, 0.5 = tie; ``scores_a``/``scores_b``    ``score_a``,
                    dicts of rubric criteria                      ``score_b``
``consistency``     Ramaswamy, Demeure & Rrapaj (*Model Consistency as a Cheap yet Predictive Proxy
for LLM Elo Scores*, EMNLP 2025, arXiv:2509.23510) contest JSON: ``first``, ``second``,
``judge_label``,
                    ``winner`` = a model name or ``"Tie"``        ``position = "a"``
``csv``             any CSV / Parquet / JSON(L) table with a       as mapped
                    column mapping
``aligned``         one file per judge (and ``human``) on the     ``battle_id``,
                    same battles, joined by id (the PPR layout)   ``judge_label`` per
                                                                  judge, ``human_label``
``judges``          one table with a ``judge`` column, the        the same
                    humans as the judge ``human``
``arena-hard``      Arena-Hard ``model_judgment`` files: two      ``judge_label``,
                    games per question against a baseline         ``verdict`` margin
``grades``          single grades (MT-Bench, arena-bench), a      ``judge_label``,
                    pair of models per prompt                     ``score_a/b``
``alpaca-eval``     AlpacaEval ``annotations.json``:               ``judge_label``,
                    ``preference`` in [1, 2]                      ``judge_prob``
``auto``            content and suffix decide                     (:func:`battle_format`)
=================== ============================================ =====================

Several judges on the same battles are read by :mod:`judgebayes.core.aligned`, the
judge tools' formats by :mod:`judgebayes.core.tool_formats`.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.core.aligned import read_aligned, read_judge_table
from judgebayes.core.battles import Battles, OnInvalid
from judgebayes.core.convert import (
    ARENA_WINNERS,
    NAME_COLUMNS,
    Source,
    finish_battles,
    map_labels,
    naming,
    require_columns,
    source_frame,
)
from judgebayes.core.io import in_file, peek_columns, read_frame
from judgebayes.core.tool_formats import read_alpaca_eval, read_arena_hard, read_grades
from judgebayes.errors import DataError

__all__ = [
    "FORMATS",
    "read_arena",
    "read_battles",
    "read_consistency",
    "read_softelo",
    "read_table",
]

FORMATS = (
    "auto",
    "arena",
    "softelo",
    "consistency",
    "csv",
    "aligned",
    "judges",
    "arena-hard",
    "grades",
    "alpaca-eval",
)
"""The ``format`` values of :func:`read_battles` (the CLI's ``--format``)."""


def read_arena(source: Source, *, on_invalid: OnInvalid = "raise") -> Battles:
    """Chatbot Arena / FastChat battles (JSON list, JSON lines, CSV, Parquet, or records).

    ``winner`` ∈ {``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``} becomes
    ``human_label`` ∈ {1, 0, 0.5, 0.5}; ``human_bothbad`` marks "tie (bothbad)".
    ``question_id`` becomes ``prompt_id``; every other field is kept as a column. A file
    whose suffix names no format is read as JSON.
    """
    with naming(source, "json"):
        frame = source_frame(source, (*NAME_COLUMNS, "winner", "question_id"), "json")
        require_columns(frame, ("model_a", "model_b", "winner"), "Chatbot Arena battles")
        labels, bad = map_labels(
            frame["winner"],
            ARENA_WINNERS,
            "winner",
            "one of 'model_a', 'model_b', 'tie', 'tie (bothbad)'",
            on_invalid,
        )
        bothbad = frame["winner"].astype("string").str.strip().str.lower().eq("tie (bothbad)")
        frame = frame.assign(human_label=labels, human_bothbad=bothbad.fillna(False).to_numpy(bool))
        if "question_id" in frame and "prompt_id" not in frame:
            frame = frame.rename(columns={"question_id": "prompt_id"})
        if "judge" in frame:  # Arena's `judge` is the voter's hash, not an LLM judge
            frame = frame.rename(columns={"judge": "voter"})
        return finish_battles(frame, bad, "unknown winner", on_invalid)


def _parse_scores(values: pd.Series, column: str) -> pd.DataFrame:
    """Rubric dicts (JSON or Python literal strings) to one column per criterion."""
    parsed: list[dict[str, float]] = []
    criteria: list[str] | None = None
    for row, raw in enumerate(values):
        if isinstance(raw, Mapping):
            obj: Any = raw
        else:
            try:
                obj = json.loads(raw)
            except (TypeError, json.JSONDecodeError):
                try:
                    obj = ast.literal_eval(raw)
                except (ValueError, SyntaxError, TypeError):
                    raise DataError(
                        "unreadable rubric scores",
                        row=row,
                        column=column,
                        expected="a dict of criterion -> number",
                        got=raw,
                    ) from None
        if not isinstance(obj, Mapping) or not obj:
            raise DataError(
                "rubric scores are not a non-empty dict",
                row=row,
                column=column,
                expected="a dict of criterion -> number",
                got=raw,
            )
        if criteria is None:
            criteria = sorted(obj)
        elif sorted(obj) != criteria:
            missing = sorted(set(criteria) - set(obj))
            extra = sorted(set(obj) - set(criteria))
            raise DataError(
                f"rubric criteria differ from the first row's (missing {missing}, extra {extra})",
                row=row,
                column=column,
                expected=f"the criteria {criteria}",
            )
        try:
            scores = {k: float(v) for k, v in obj.items()}
        except (TypeError, ValueError):
            raise DataError(
                "a rubric score is not a number", row=row, column=column, got=raw
            ) from None
        if not all(np.isfinite(v) for v in scores.values()):
            raise DataError(
                "a rubric score is missing (NaN) or infinite",
                row=row,
                column=column,
                got=raw,
                expected="finite numbers",
            )
        parsed.append(scores)
    return pd.DataFrame(parsed, columns=criteria)


def read_softelo(path: str | Path | pd.DataFrame, *, on_invalid: OnInvalid = "raise") -> Battles:
    """The Soft-Elo annotation CSV of Kargi & Salinas (2026) (or the same table as JSON or Parquet).

    Columns ``model_a, model_b, human_pref, judge_pref, scores_a, scores_b``.
    Preferences use **0 = A wins, 1 = B wins, 0.5 = tie**; they become
    ``human_label = 1 − human_pref`` and ``judge_label = 1 − judge_pref``.
    ``scores_a`` / ``scores_b`` are dicts of rubric criteria (JSON or Python
    literals): every row must have the same criteria. The criteria means become
    ``score_a`` / ``score_b`` (so ``score_diff`` is Kargi & Salinas's (2026) s(x), Appendix A)
    and each criterion is kept as ``score_a:<criterion>`` / ``score_b:<criterion>``.
    A missing ``human_pref`` is allowed (battle not human-labelled).
    """
    with naming(path, "csv"):
        return _softelo(source_frame(path, NAME_COLUMNS, "csv"), on_invalid)


def _softelo(frame: pd.DataFrame, on_invalid: OnInvalid) -> Battles:
    require_columns(
        frame, ("model_a", "model_b", "judge_pref", "scores_a", "scores_b"), "Soft-Elo annotations"
    )
    out = frame.drop(columns=["scores_a", "scores_b"])
    bad = np.zeros(len(frame), dtype=bool)
    for src, dst in (("judge_pref", "judge_label"), ("human_pref", "human_label")):
        if src in frame:
            numeric = pd.to_numeric(frame[src], errors="coerce")
            labels, b = map_labels(
                numeric.where(numeric.notna(), frame[src]),
                {0.0: 1.0, 1.0: 0.0, 0.5: 0.5},
                src,
                "0 (A wins), 1 (B wins) or 0.5 (tie)",
                on_invalid,
                allow_missing=src == "human_pref",
            )
            out = out.drop(columns=[src]).assign(**{dst: labels})
            bad |= b
    sa = _parse_scores(frame["scores_a"], "scores_a")
    sb = _parse_scores(frame["scores_b"], "scores_b")
    if list(sa.columns) != list(sb.columns):
        raise DataError(
            f"scores_a has criteria {list(sa.columns)} but scores_b has {list(sb.columns)}",
            column="scores_b",
        )
    out["score_a"] = sa.mean(axis=1).to_numpy()
    out["score_b"] = sb.mean(axis=1).to_numpy()
    for crit in sa.columns:
        out[f"score_a:{crit}"] = sa[crit].to_numpy()
        out[f"score_b:{crit}"] = sb[crit].to_numpy()
    return finish_battles(out, bad, "unknown preference", on_invalid)


def read_consistency(path: str | Path, *, on_invalid: OnInvalid = "raise") -> Battles:
    """Contest JSON of Ramaswamy et al. (2025) (one file, or a folder of
    ``<judge>_contest_data.json``).

    Records ``{"first", "second", "question", "winner"}``: ``first`` becomes
    ``model_a`` (shown first, so ``position = "a"``), ``question`` becomes
    ``prompt_id``, and ``winner`` (a model name or ``"Tie"``) becomes
    ``judge_label``. The judge is named by the file name.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted([*path.glob("*.json"), *path.glob("*.json.gz")])
        if not files:
            raise DataError(
                f"no *.json contest files in {path}", expected="<judge>_contest_data.json files"
            )
    else:
        files = [path]
    frames, bads, starts = [], [], [0]
    for file in files:
        with naming(file, "json"):
            frame, bad = _contest(
                read_frame(file, text_columns=_CONTEST_NAMES, default="json"), file, on_invalid
            )
        frames.append(frame)
        bads.append(bad)
        starts.append(starts[-1] + len(frame))
    try:
        return finish_battles(
            pd.concat(frames, ignore_index=True),
            np.concatenate(bads),
            "winner is neither contestant nor 'Tie'",
            on_invalid,
        )
    except DataError as err:  # validated once, reported by file and record
        if err.row is None:
            raise
        k = int(np.searchsorted(starts, err.row, side="right")) - 1
        raise in_file(err, files[k], unit="record", first_row=starts[k]) from None


_CONTEST_NAMES = ("first", "second", "winner", "question")


def _contest(
    frame: pd.DataFrame,
    file: Path,
    on_invalid: OnInvalid,
) -> tuple[pd.DataFrame, np.ndarray]:
    """One judge's contest records (Ramaswamy et al., 2025) as battles, and the rows without a
    winner."""
    require_columns(frame, ("first", "second", "winner"), "contest records")
    winner, first, second = (
        frame[c].astype(object).to_numpy() for c in ("winner", "first", "second")
    )
    tie = np.array([isinstance(w, str) and w.strip().lower() == "tie" for w in winner])
    label = np.where(
        winner == first, 1.0, np.where(winner == second, 0.0, np.where(tie, 0.5, np.nan))
    )
    bad = np.isnan(label)
    if bad.any() and on_invalid == "raise":
        row = int(np.flatnonzero(bad)[0])
        missing = pd.isna(winner[row])
        raise DataError(
            "missing winner" if missing else "winner is neither contestant nor 'Tie'",
            row=row,
            column="winner",
            got=None if missing else winner[row],
            expected=f"{first[row]!r}, {second[row]!r} or 'Tie'",
        )
    judge = file.name.removesuffix(".gz").removesuffix(".json").removesuffix("_contest_data")
    out = frame.drop(columns=["first", "second", "winner"]).rename(
        columns={"question": "prompt_id"}
    )
    out.insert(0, "model_a", frame["first"])
    out.insert(1, "model_b", frame["second"])
    out.insert(2, "judge", judge)
    out["judge_label"] = label
    out["position"] = "a"
    return out, bad


def read_table(
    source: str | Path | pd.DataFrame,
    *,
    columns: Mapping[str, str] | None = None,
    labels: Mapping[Any, float] | None = None,
    on_invalid: OnInvalid = "raise",
) -> Battles:
    """Any CSV, Parquet or JSON(L) table, with a column mapping.

    Parameters
    ----------
    source
        A path (``.csv``, ``.tsv``, ``.parquet``, ``.json``, ``.jsonl``, each optionally
        ``.gz``) or a DataFrame. Model, judge and prompt names are read as strings exactly
        as written.
    columns
        ``{their_name: schema_name}``, e.g. ``{"left": "model_a", "right":
        "model_b", "verdict": "judge_label"}``.
    labels
        ``{their_value: P(A beats B)}`` applied to ``judge_label`` and
        ``human_label``, e.g. ``{"A": 1, "B": 0, "tie": 0.5}`` (string keys match
        case-insensitively).
    """
    columns = dict(columns or {})
    names = {
        *(c for c in NAME_COLUMNS if c not in columns),
        *(theirs for theirs, ours in columns.items() if ours in NAME_COLUMNS),
    }
    with naming(source, None):
        return _table(source_frame(source, names, None), columns, labels, on_invalid)


def _table(
    frame: pd.DataFrame,
    columns: Mapping[str, str],
    labels: Mapping[Any, float] | None,
    on_invalid: OnInvalid,
) -> Battles:
    if columns:
        require_columns(frame, columns.keys(), "column mapping")
        frame = frame.rename(columns=dict(columns))
    bad = np.zeros(len(frame), dtype=bool)
    if labels:
        norm = {
            (k.strip().lower() if isinstance(k, str) else k): float(v) for k, v in labels.items()
        }
        for col in ("judge_label", "human_label"):
            if col in frame:
                frame[col], b = map_labels(
                    frame[col], norm, col, f"one of {list(labels)}", on_invalid, allow_missing=True
                )
                bad |= b
    return finish_battles(frame, bad, "unknown label", on_invalid)


# format -> the columns that mark it (any one of each tuple), in the order auto tries them
_SIGNATURES: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("arena-hard", (("games",), ("model",), ("question_id", "uid"))),
    ("consistency", (("first",), ("second",), ("winner",))),
    ("softelo", (("judge_pref", "human_pref"), ("scores_a",), ("scores_b",))),
    ("alpaca-eval", (("generator_1",), ("generator_2",), ("preference",))),
    ("grades", (("question_id",), ("model",), ("score",))),
    ("judges", (("model_a",), ("model_b",), ("judge",), ("battle_id",))),
    ("arena", (("model_a",), ("model_b",), ("winner",))),
    ("csv", (("model_a",), ("model_b",), ("judge_label", "human_label", "score_diff"))),
)


def _sample_file(folder: Path) -> Path:
    """A file that shows what a folder holds (the first data file, subfolders included)."""
    files = sorted(
        f
        for f in folder.rglob("*")
        if f.is_file() and f.suffix.lower() in (".json", ".jsonl", ".csv", ".tsv", ".gz")
    )
    if not files:
        raise DataError(
            f"the folder {folder} holds no .json, .jsonl or .csv file",
            expected="a folder of battle files (contests, judgments, one file per judge)",
        )
    return files[0]


def battle_format(path: str | Path, *, judges: Mapping[str, str | Path] | None = None) -> str:
    """The format ``read_battles(format="auto")`` chooses: content and suffix decide.

    Judge files (``judges``) make it ``aligned``; so does a folder holding ``human.*``.
    Otherwise the columns of the file (a folder: its first file) decide, in this order:
    ``games`` → ``arena-hard``; ``first, second, winner`` → ``consistency``;
    ``judge_pref``/``human_pref, scores_a, scores_b`` → ``softelo``; ``generator_1,
    generator_2, preference`` → ``alpaca-eval``; ``question_id, model, score`` →
    ``grades``; ``model_a, model_b, judge, battle_id`` → ``judges``; ``model_a, model_b,
    winner`` → ``arena``; ``model_a, model_b`` and a label column → ``csv``.

    Raises
    ------
    DataError
        One line listing every format tried and what the file lacks for it.
    """
    if judges:
        return "aligned"
    path = Path(path)
    if path.is_dir():
        if any(f.is_file() and f.name.split(".")[0] == "human" for f in path.iterdir()):
            return "aligned"
        sample = _sample_file(path)
    else:
        sample = path
    columns = set(peek_columns(sample, default="json"))
    failed = []
    for fmt, marks in _SIGNATURES:
        lacking = [" or ".join(any_of) for any_of in marks if not columns & set(any_of)]
        if not lacking:
            return fmt
        failed.append(f"{fmt} (no {', '.join(lacking)})")
    shown = ", ".join(sorted(columns)[:8]) + (", ..." if len(columns) > 8 else "")
    raise DataError(
        f"{sample.name}: cannot tell its format from its columns ({shown}): tried "
        + "; ".join(failed),
        expected="--format NAME (one of " + ", ".join(f for f in FORMATS if f != "auto") + ")",
    )


def read_battles(
    path: str | Path | None,
    format: str = "auto",
    *,
    columns: Mapping[str, str] | None = None,
    labels: Mapping[Any, float] | None = None,
    judges: Mapping[str, str | Path] | None = None,
    baseline: str | None = None,
    on_invalid: OnInvalid = "raise",
) -> Battles:
    """Read battles in one of :data:`FORMATS` (the CLI's ``--format``).

    ``"auto"``: :func:`battle_format` decides. ``judges`` (``{judge: file}``) goes with
    ``format="aligned"``: ``path`` is then the human file (or ``None``), or a folder of
    one file per judge and ``human.json``. ``baseline`` is the Arena-Hard baseline for
    judgment files that do not name it.
    """
    if format == "auto":
        format = battle_format(path, judges=judges)  # type: ignore[arg-type]
    if format == "aligned":
        return read_aligned(path, judges, on_invalid=on_invalid)
    if judges:
        raise DataError(
            f"judge files go with format='aligned', not {format!r}",
            expected="format='aligned' (the CLI: --judge NAME=FILE)",
        )
    if path is None:
        raise DataError(f"format {format!r} reads one file", expected="a path")
    if format == "judges":
        return read_judge_table(path, columns=columns, labels=labels, on_invalid=on_invalid)
    if format == "arena":
        return read_arena(path, on_invalid=on_invalid)
    if format == "softelo":
        return read_softelo(path, on_invalid=on_invalid)
    if format == "consistency":
        return read_consistency(path, on_invalid=on_invalid)
    if format == "csv":
        return read_table(path, columns=columns, labels=labels, on_invalid=on_invalid)
    if format == "arena-hard":
        return read_arena_hard(path, baseline=baseline, on_invalid=on_invalid)
    if format == "grades":
        return read_grades(path, on_invalid=on_invalid)
    if format == "alpaca-eval":
        return read_alpaca_eval(path, on_invalid=on_invalid)
    raise DataError(f"unknown format {format!r}", expected=f"one of {FORMATS}")
