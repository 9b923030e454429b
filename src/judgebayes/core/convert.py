"""What every reader of a foreign format shares: sources, required columns, label maps.

Each reader (:mod:`~judgebayes.core.loaders`, :mod:`~judgebayes.core.aligned`,
:mod:`~judgebayes.core.tool_formats`) turns a file, a DataFrame or records into a frame
(:func:`source_frame`), checks the columns its format needs (:func:`require_columns`),
converts the format's verdict spellings to P(A beats B) (:func:`map_labels`, with the
Chatbot Arena spellings in :data:`ARENA_WINNERS`), and validates the result into
:class:`~judgebayes.core.battles.Battles`, counting the rows it drops
(:func:`finish_battles`). Errors raised inside :func:`naming` name the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles, OnInvalid
from judgebayes.core.io import file_format, read_frame, reading, records_frame
from judgebayes.core.report import DropReport
from judgebayes.errors import DataError

__all__ = [
    "ARENA_WINNERS",
    "NAME_COLUMNS",
    "Source",
    "finish_battles",
    "hashable",
    "map_labels",
    "naming",
    "require_columns",
    "source_frame",
]

#: Chatbot Arena / FastChat ``winner`` spellings as P(A beats B).
ARENA_WINNERS: dict[str, float] = {
    "model_a": 1.0,
    "model_b": 0.0,
    "tie": 0.5,
    "tie (bothbad)": 0.5,
}
#: Columns that hold names (models, judges, prompts): read as strings exactly as written.
NAME_COLUMNS = ("model_a", "model_b", "judge", "prompt_id")
Source = str | Path | Iterable[Mapping[str, Any]] | pd.DataFrame


def source_frame(source: Source, names: Iterable[str], default: str | None) -> pd.DataFrame:
    """A file (through :func:`~judgebayes.core.io.read_frame`), a DataFrame or records.

    ``names`` are read as strings exactly as written; ``default`` is the format of a
    file whose suffix names none.
    """
    if isinstance(source, pd.DataFrame):
        return source.reset_index(drop=True)
    if isinstance(source, str | Path):
        return read_frame(source, text_columns=names, default=default)
    return records_frame(list(source), names)


def naming(source: Source, default: str | None) -> AbstractContextManager[None]:
    """Errors raised inside name ``source`` when it is a file (rows as records or rows)."""
    if not isinstance(source, str | Path):
        return nullcontext()
    unit = "record" if file_format(source, default or "csv").startswith("json") else "row"
    return reading(source, unit=unit)


def require_columns(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """A :class:`DataError` naming the first of ``columns`` that ``frame`` lacks."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"{what}: missing column(s) {missing}; columns present: {list(frame.columns)}",
            column=missing[0],
        )


def hashable(value: Any) -> bool:
    """Whether ``value`` can be a dict key (a JSON list or object cannot)."""
    try:
        hash(value)
    except TypeError:
        return False
    return True


def map_labels(
    values: pd.Series,
    mapping: Mapping[Any, float],
    column: str,
    expected: str,
    on_invalid: OnInvalid,
    *,
    allow_missing: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Map foreign labels to P(A beats B); returns (labels, bad-row mask).

    String keys match case-insensitively after stripping. Missing values give a
    missing label when ``allow_missing``, else they are bad rows.
    """
    missing = values.isna().to_numpy()
    if isinstance(values.dtype, pd.StringDtype) and all(isinstance(k, str) for k in mapping):
        # strings only: one vectorised strip/lower and a hash lookup, no Python per row
        keys = values.str.strip().str.lower().astype(object)
        mapped = keys.map(mapping).astype(float)
    else:
        keys = values.map(lambda v: v.strip().lower() if isinstance(v, str) else v)
        mapped = keys.map(lambda v: mapping.get(v, np.nan) if hashable(v) else np.nan)
    bad = mapped.isna().to_numpy() & ~(missing & allow_missing)
    if bad.any() and on_invalid == "raise":
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            "missing label" if missing[row] else "unknown label",
            row=row,
            column=column,
            expected=expected,
            got=None if missing[row] else values.iloc[row],
        )
    return mapped.to_numpy(dtype=float), bad


def finish_battles(
    frame: pd.DataFrame,
    bad: np.ndarray,
    reason: str,
    on_invalid: OnInvalid,
    *,
    missing: Mapping[str, int] | None = None,
) -> Battles:
    """Drop reader-level bad rows (counted under ``reason``), then validate the rest.

    ``missing`` counts values absent in the input whose rows are kept
    (:attr:`~judgebayes.DropReport.missing`).
    """
    if bad.all() and len(bad):
        raise DataError(
            f"every row is invalid ({reason}: {int(bad.sum())})", expected="at least one valid row"
        )
    if not bad.any():
        battles = Battles(frame, on_invalid=on_invalid)
    else:
        n_input = len(frame)
        kept = Battles(frame.loc[~bad].reset_index(drop=True), on_invalid=on_invalid)
        dropped = {reason: int(bad.sum()), **kept.report.dropped}
        battles = kept.with_report(DropReport(n_input, dropped))
    if missing:
        battles = battles.with_report(battles.report.with_missing(missing))
    return battles
