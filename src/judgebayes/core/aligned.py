"""Several judges on the same battles: aligned files, or one table with a ``judge`` column.

Both readers return one multi-judge :class:`~judgebayes.core.battles.Battles`: one row
per (battle, judge), ``battle_id`` shared by the rows of a battle, the human label of the
battle repeated on each of its rows (``human_label``, and ``human_bothbad`` for a
"tie (bothbad)", which stays a tie, 0.5), and ``position = "a"`` (Chatbot Arena shows
``model_a`` first).

:func:`read_aligned`
    One file per judge (and one for the humans) holding the same battles, each record
    ``{id, model_a, model_b, winner}`` with an id column (``num`` in the layout of
    Chatzi et al., *Prediction-Powered Ranking of Large Language Models*, NeurIPS
    2024, arXiv:2402.17826, whose ``.json`` files are JSON lines). ``winner`` is
    ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``. The files are joined by id:
    an id in one file only, or an id whose models or their order differ between files,
    is a :class:`~judgebayes.DataError` naming both files and the id.
:func:`read_judge_table`
    One long table with a ``judge`` column, the humans as the judge named ``human``.

A null (or absent) human ``winner`` keeps its battle, judged by the LLMs only (the usual
case: humans label a few hundred battles, judges label all); a judge's null verdict is
missing for that judge alone. Both are counted in the table's
:attr:`~judgebayes.DropReport.missing`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles, OnInvalid
from judgebayes.core.convert import (
    ARENA_WINNERS,
    Source,
    finish_battles,
    map_labels,
    naming,
    require_columns,
    source_frame,
)
from judgebayes.core.io import file_format
from judgebayes.errors import DataError

__all__ = ["HUMAN", "read_aligned", "read_judge_table"]

HUMAN = "human"
"""The name that marks the human labels: the file stem ``human`` of an aligned folder,
the ``judge`` value of the human rows in a judge table."""
_WINNER_EXPECTED = "one of 'model_a', 'model_b', 'tie', 'tie (bothbad)' or null"
_BOTHBAD = "tie (bothbad)"
_DROPPED = "on_invalid='drop'"
_FILE_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".parquet")


def _show(value: Any) -> str:
    """An id as the user wrote it: ``14``, ``'q7'`` (not ``np.int64(14)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _is_bothbad(values: pd.Series) -> np.ndarray:
    text = values.astype("string").str.strip().str.lower()
    return text.eq(_BOTHBAD).fillna(False).to_numpy(dtype=bool)


class _Votes:
    """One file's verdicts: ids, models, labels (P(A beats B)), bothbad flags."""

    def __init__(
        self, path: Path, id_column: str, who: str, on_invalid: OnInvalid, *, null_ok: bool
    ) -> None:
        self.path, self.who, self.id_column = path, who, id_column
        default = "json" if file_format(path, "json").startswith("json") else None
        with naming(path, default):
            frame = source_frame(path, ("model_a", "model_b", "winner", "question_id"), "json")
            require_columns(
                frame, (id_column, "model_a", "model_b"), f"{who}'s verdicts ({path.name})"
            )
            ids = frame[id_column]
            gap = ids.isna().to_numpy()
            if gap.any():
                raise DataError(
                    f"missing {id_column}",
                    row=int(np.flatnonzero(gap)[0]),
                    column=id_column,
                    expected="an id naming the battle in every record",
                )
            repeat = ids.duplicated().to_numpy()
            if repeat.any():
                row = int(np.flatnonzero(repeat)[0])
                first = int(np.flatnonzero((ids == ids.iloc[row]).to_numpy())[0])
                raise DataError(
                    f"repeats the battle {_show(ids.iloc[row])} of record {first}",
                    row=row,
                    column=id_column,
                    expected="one record per battle",
                )
            if not null_ok:
                require_columns(frame, ("winner",), f"{who}'s verdicts ({path.name})")
            winner = frame["winner"] if "winner" in frame else pd.Series(np.nan, index=frame.index)
            self.labels, self.bad = map_labels(
                winner, ARENA_WINNERS, "winner", _WINNER_EXPECTED, on_invalid, allow_missing=True
            )
        self.frame = frame
        self.ids = pd.Index(ids)
        self.bothbad = _is_bothbad(winner)
        self.n_null = int(winner.isna().sum())

    def align(self, ref: _Votes) -> np.ndarray:
        """Position of each of ``ref``'s battles in this file; a mismatch names both files."""
        pos = self.ids.get_indexer(ref.ids)
        if (pos < 0).any():
            k = int(np.flatnonzero(pos < 0)[0])
            raise DataError(
                f"battle {_show(ref.ids[k])} (record {k} of {ref.path.name}) is not in "
                f"{self.path.name}",
                column=self.id_column,
                expected=f"the same battles in every file: {ref.path.name} and {self.path.name} "
                "must hold the same ids",
            )
        if len(self.ids) > len(ref.ids):
            extra = np.setdiff1d(np.arange(len(self.ids)), pos)
            k = int(extra[0])
            raise DataError(
                f"battle {_show(self.ids[k])} (record {k} of {self.path.name}) is not in "
                f"{ref.path.name}",
                column=self.id_column,
                expected=f"the same battles in every file: {ref.path.name} and {self.path.name} "
                "must hold the same ids",
            )
        for col in ("model_a", "model_b"):
            mine = self.frame[col].to_numpy(dtype=object)[pos]
            theirs = ref.frame[col].to_numpy(dtype=object)
            differ = mine != theirs
            if differ.any():
                k = int(np.flatnonzero(differ)[0])
                raise DataError(
                    f"battle {_show(ref.ids[k])}: {self.path.name} (record {int(pos[k])}) has "
                    f"{self.frame['model_a'].iloc[pos[k]]!r} vs "
                    f"{self.frame['model_b'].iloc[pos[k]]!r} but {ref.path.name} (record {k}) has "
                    f"{ref.frame['model_a'].iloc[k]!r} vs {ref.frame['model_b'].iloc[k]!r}",
                    column=col,
                    expected="the same models in the same order for one id in every file",
                )
        return pos


def _judge_files(
    human: str | Path | None, judges: Mapping[str, str | Path] | Sequence[str | Path] | None
) -> tuple[Path | None, dict[str, Path]]:
    """The human file and ``{judge: file}`` (a folder: ``human.*`` and the other files)."""
    if human is not None and Path(human).is_dir():
        folder = Path(human)
        files = sorted(f for f in folder.iterdir() if f.is_file() and _stem(f) and _suffix_ok(f))
        found = {_stem(f): f for f in files}
        human_file = found.pop(HUMAN, None)
        if judges is None:
            judges = found
        if human_file is None and not judges:
            raise DataError(
                f"{folder} holds no verdict files",
                expected=f"{HUMAN}.json and one <judge>.json per judge (JSON lines)",
            )
    else:
        human_file = None if human is None else Path(human)
    if judges is None:
        judges = {}
    if not isinstance(judges, Mapping):
        judges = {_stem(Path(f)): f for f in judges}
    named = {str(k): Path(v) for k, v in judges.items()}
    if HUMAN in named:
        raise DataError(
            f"a judge is named {HUMAN!r}",
            expected=f"the human file as human=..., not as a judge named {HUMAN!r}",
        )
    if not named and human_file is None:
        raise DataError("no verdict files", expected="a human file and/or judge files")
    return human_file, named


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".bz2", ".xz"):
        name = name.removesuffix(suffix)
    for suffix in _FILE_SUFFIXES:
        if name.endswith(suffix):
            return name.removesuffix(suffix)
    return ""


def _suffix_ok(path: Path) -> bool:
    return bool(_stem(path))


def read_aligned(
    human: str | Path | None = None,
    judges: Mapping[str, str | Path] | Sequence[str | Path] | None = None,
    *,
    id_column: str = "num",
    on_invalid: OnInvalid = "raise",
) -> Battles:
    """Humans and LLM judges on the same battles, one file each, joined by battle id.

    Parameters
    ----------
    human
        The human verdicts, or a folder holding ``human.json`` (JSON lines; also
        ``.jsonl``, ``.csv``, ``.parquet``) and one file per judge named by the judge.
        ``None``: judges only.
    judges
        ``{judge: file}``, or files (each judge named by its file's stem). Default
        with a folder: every file in it but the human one.
    id_column
        The column naming the battle in every file (``num`` in the PPR layout).
    on_invalid
        ``"raise"``: an unknown ``winner`` raises, naming the file and the record.
        ``"drop"``: that verdict alone is removed (its row stays, its label missing) and
        counted in ``report.missing``.

    Returns
    -------
    Battles
        One row per (battle, judge) in the order of the reference file (the human
        file, else the first judge's), judges in the order given: ``battle_id``,
        ``prompt_id`` (``question_id``), ``model_a``, ``model_b``, ``position = "a"``,
        ``judge``, ``judge_label`` (NaN where that judge's verdict is null),
        ``human_label`` and ``human_bothbad`` when there is a human file, and
        ``judge_bothbad`` when a judge said "tie (bothbad)". With no judge file, one row
        per battle without judge columns. Null verdicts are counted in
        ``report.missing``.

    Raises
    ------
    DataError
        A file that cannot be read; a missing column; a repeated or missing id; an id
        in one file only, or whose models (or their order) differ between two files,
        naming both files and the id; an unknown ``winner``, naming file and record.
    """
    human_file, judge_files = _judge_files(human, judges)
    ref_votes = (
        _Votes(human_file, id_column, HUMAN, on_invalid, null_ok=True) if human_file else None
    )
    judge_votes = {
        name: _Votes(path, id_column, name, on_invalid, null_ok=False)
        for name, path in judge_files.items()
    }
    ref = ref_votes if ref_votes is not None else next(iter(judge_votes.values()))
    positions = {name: votes.align(ref) for name, votes in judge_votes.items()}
    n = len(ref.ids)
    base = pd.DataFrame(
        {
            "battle_id": ref.ids.to_numpy(),
            **(
                {"prompt_id": ref.frame["question_id"].to_numpy(dtype=object)}
                if "question_id" in ref.frame
                else {}
            ),
            "model_a": ref.frame["model_a"].to_numpy(dtype=object),
            "model_b": ref.frame["model_b"].to_numpy(dtype=object),
            "position": np.full(n, "a", dtype=object),
        }
    )
    missing: dict[str, int] = {}
    if ref_votes is not None:
        base["human_label"] = ref_votes.labels  # NaN where null, absent or unreadable
        base["human_bothbad"] = ref_votes.bothbad & ~ref_votes.bad
        missing["no human label (winner null or absent)"] = ref_votes.n_null
        missing[f"unreadable human winner, removed ({_DROPPED})"] = int(ref_votes.bad.sum())
    if not judge_votes:
        return finish_battles(base, np.zeros(n, bool), "", on_invalid, missing=missing)
    parts = []
    any_bothbad = any(v.bothbad.any() for v in judge_votes.values())
    for name, votes in judge_votes.items():
        pos = positions[name]
        part = base.copy()
        part.insert(5, "judge", name)
        part.insert(6, "judge_label", votes.labels[pos])
        if any_bothbad:
            part.insert(7, "judge_bothbad", votes.bothbad[pos])
        parts.append(part)
        missing[f"null verdict of {name}"] = votes.n_null
        missing[f"unreadable verdict of {name}, removed ({_DROPPED})"] = int(votes.bad.sum())
    frame = pd.concat(parts, ignore_index=True)
    return finish_battles(frame, np.zeros(len(frame), bool), "", on_invalid, missing=missing)


def read_judge_table(
    source: Source,
    *,
    human: str | None = HUMAN,
    id_column: str = "battle_id",
    columns: Mapping[str, str] | None = None,
    labels: Mapping[Any, float] | None = None,
    on_invalid: OnInvalid = "raise",
) -> Battles:
    """One long table of several judges' verdicts, the humans as one more ``judge``.

    Parameters
    ----------
    source
        A CSV, TSV, JSON(L) or Parquet file, a DataFrame or records, with columns
        ``id_column``, ``model_a``, ``model_b``, ``judge`` and the verdict: ``winner``
        (Chatbot Arena spellings, or ``labels``) or ``judge_label`` (P(A beats B), or
        ``labels``).
    human
        The ``judge`` value of the human rows (``None``: every row is an LLM judge).
        Each battle has at most one human row; its label becomes ``human_label`` on
        every row of the battle.
    id_column
        The column naming the battle (renamed ``battle_id``).
    columns
        ``{their_name: our_name}`` applied first.
    labels
        ``{their_value: P(A beats B)}`` for the verdict column.
    on_invalid
        ``"raise"``, or ``"drop"``: an unknown verdict alone is removed (its row stays,
        its label missing) and counted in ``report.missing``.

    Returns
    -------
    Battles
        One row per (battle, LLM judge), as :func:`read_aligned`. A battle only the
        humans labelled keeps one row with no judge (``judge`` and ``judge_label``
        missing), so that :meth:`~judgebayes.Battles.human_battles` has it.

    Raises
    ------
    DataError
        A missing column; a battle with two human rows or two rows of one judge; a
        judge row whose models differ from the human row of its battle; an unknown
        verdict (naming row and column).
    """
    names = ("model_a", "model_b", "judge", "winner", "prompt_id", "question_id")
    with naming(source, None):
        frame = source_frame(source, names, None)
        if columns:
            require_columns(frame, columns.keys(), "column mapping")
            frame = frame.rename(columns=dict(columns))
        require_columns(frame, (id_column, "model_a", "model_b", "judge"), "judge table")
        if "winner" in frame:
            verdict, mapping = "winner", ARENA_WINNERS
        elif "judge_label" in frame:
            verdict, mapping = "judge_label", {0.0: 0.0, 0.5: 0.5, 1.0: 1.0}
        else:
            raise DataError(
                f"judge table: no verdict column; columns present: {list(frame.columns)}",
                column="winner",
                expected="a 'winner' column (model_a/model_b/tie) or 'judge_label' (1/0.5/0)",
            )
        if labels:
            mapping = {
                (k.strip().lower() if isinstance(k, str) else k): float(v)
                for k, v in labels.items()
            }
        values = frame[verdict]
        if verdict == "judge_label" and not labels:
            numeric = pd.to_numeric(values, errors="coerce")
            values = numeric.where(numeric.notna(), values)
        label, bad = map_labels(
            values,
            mapping,
            verdict,
            f"one of {list(labels or mapping)} or null",
            on_invalid,
            allow_missing=True,
        )
        bothbad = _is_bothbad(frame[verdict])
        frame = frame.rename(columns={id_column: "battle_id", "question_id": "prompt_id"})
        if "question_id" in frame.columns and "prompt_id" in frame.columns:
            frame = frame.drop(columns=["question_id"])
        is_human = (
            frame["judge"].astype("string").eq(human).fillna(False).to_numpy(dtype=bool)
            if human is not None
            else np.zeros(len(frame), dtype=bool)
        )
        return _join_human(frame, label, bothbad, bad, is_human, verdict, on_invalid)


def _join_human(
    frame: pd.DataFrame,
    label: np.ndarray,
    bothbad: np.ndarray,
    bad: np.ndarray,
    is_human: np.ndarray,
    verdict: str,
    on_invalid: OnInvalid,
) -> Battles:
    """Human rows become the ``human_label`` of their battle's judge rows."""
    out = frame.drop(columns=[verdict]).copy()
    out["judge_label"] = label
    missing: dict[str, int] = {
        "null judge verdict": int((np.isnan(label) & ~bad & ~is_human).sum()),
        f"unreadable judge verdict, removed ({_DROPPED})": int(bad[~is_human].sum()),
    }
    if is_human.any():
        humans = out.loc[is_human]
        ids = humans["battle_id"]
        repeat = ids.duplicated().to_numpy()
        if repeat.any():
            row = int(np.flatnonzero(is_human)[np.flatnonzero(repeat)[0]])
            raise DataError(
                f"a second human row for battle {_show(frame['battle_id'].iloc[row])}",
                row=row,
                column="judge",
                expected="at most one human row per battle",
            )
        index = pd.Index(ids)
        h_label = np.where(bad[is_human], np.nan, label[is_human])
        h_bothbad = bothbad[is_human] & ~bad[is_human]
        missing[f"unreadable human verdict, removed ({_DROPPED})"] = int(bad[is_human].sum())
        judge_rows = np.flatnonzero(~is_human)
        pos = index.get_indexer(out["battle_id"].iloc[judge_rows])
        for col in ("model_a", "model_b"):
            have = pos >= 0
            theirs = humans[col].to_numpy(dtype=object)[pos[have]]
            mine = out[col].iloc[judge_rows[have]].to_numpy(dtype=object)
            differ = np.flatnonzero(mine != theirs)
            if differ.size:
                row = int(judge_rows[have][differ[0]])
                hrow = int(np.flatnonzero(is_human)[pos[have][differ[0]]])
                raise DataError(
                    f"battle {_show(out['battle_id'].iloc[row])}: this row has "
                    f"{out['model_a'].iloc[row]!r} vs {out['model_b'].iloc[row]!r} but its "
                    f"human row {hrow} has {out['model_a'].iloc[hrow]!r} vs "
                    f"{out['model_b'].iloc[hrow]!r}",
                    row=row,
                    column=col,
                    expected="the same models in the same order on every row of a battle",
                )
        judged = set(out["battle_id"].iloc[judge_rows])
        human_only = np.array([i not in judged for i in ids], dtype=bool)
        judges = out.loc[~is_human].copy()
        judges["human_label"] = np.where(pos >= 0, h_label[np.maximum(pos, 0)], np.nan)
        judges["human_bothbad"] = np.where(pos >= 0, h_bothbad[np.maximum(pos, 0)], False)
        alone = humans.loc[human_only].copy()
        alone["judge"] = None
        alone["judge_label"] = np.nan
        alone["human_label"] = h_label[human_only]
        alone["human_bothbad"] = h_bothbad[human_only]
        out = pd.concat([judges, alone], ignore_index=True)
        missing["battles no judge labelled (kept with no judge)"] = int(human_only.sum())
        missing["judge rows of battles with no human row"] = int((pos < 0).sum())
        missing["null human verdict"] = int((np.isnan(label[is_human]) & ~bad[is_human]).sum())
    else:
        out = out.loc[~is_human]
    if "position" not in out:
        out["position"] = "a"
    return finish_battles(
        out.reset_index(drop=True), np.zeros(len(out), bool), "", on_invalid, missing=missing
    )
