"""What judge tools write: Arena-Hard judgments, single grades, AlpacaEval annotations.

Each reader turns one tool's output into :class:`~judgebayes.core.battles.Battles`
(P(A beats B) labels, ``model_a`` the answer shown first where the tool says so):

``arena-hard`` (:func:`read_arena_hard`)
    lmarena/arena-hard-auto's ``data/<bench>/model_judgment/<judge>/<model>.jsonl``:
    records ``{question_id | uid, model, judge, [baseline], games: [game, game]}``, the
    first game showing the baseline as A and the model as B, the second the other way
    round (``gen_judgment.py``), each game's ``score`` one of ``A>>B``, ``A>B``, ``A=B``,
    ``B>A``, ``B>>A`` (or the mirrored spellings ``B<<A`` ... ``A<<B``) or null, as
    ``show_result.py`` parses it. Each game becomes one battle row: ``judge_label`` 1 /
    0.5 / 0, the five-point margin kept as ``verdict`` (2 ... −2), ``game`` 1 or 2,
    ``position = "a"``. Upstream counts a strong verdict (``A>>B``) three times in its
    Bradley–Terry fit (``--weight 3``); here it is one battle whose ``verdict`` keeps the
    margin (set a ``weight`` column from it to do the same). A null game (or score) is
    missing, counted in ``report.missing``, never dropped silently.
``grades`` (:func:`read_grades`)
    Single-answer grades (MT-Bench's ``single`` judgments, arena-bench-v1): records
    ``{question_id, model, score, [judge], [turn]}``, score −1 (or null) where the grade
    could not be parsed. For every prompt and every pair of models that both have a
    grade: a battle with ``judge_label`` 1 / 0.5 / 0 as A's grade is higher / equal /
    lower, and the grades as ``score_a``, ``score_b`` (so ``score_diff`` is the judge's
    score difference s, Soft-Elo's input). No order was shown: ``model_a`` is the name
    that sorts first.
``alpaca-eval`` (:func:`read_alpaca_eval`)
    tatsu-lab/alpaca_eval's ``annotations.json``: ``instruction``, ``generator_1``,
    ``generator_2``, ``preference`` in [1, 2] (1: ``output_1`` preferred, 2:
    ``output_2``; 1.5, or 0 in older files, a draw; AlpacaEval 2.0's weighted annotator
    gives a probability, ``preference − 1`` = P(``output_2`` preferred)),
    ``annotator``. ``generator_1`` becomes ``model_a``; ``judge_label`` is the rounded
    verdict (1 / 0.5 / 0) and ``judge_prob`` = 2 − ``preference`` keeps the soft one
    (``pair_stats("judge_prob")``). Both orders, when present, are separate battles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles, OnInvalid
from judgebayes.core.convert import finish_battles, naming, require_columns, source_frame
from judgebayes.core.io import reading
from judgebayes.errors import DataError

__all__ = [
    "VERDICT_STRINGS",
    "read_alpaca_eval",
    "read_arena_hard",
    "read_grades",
]

#: The Arena-Hard verdict strings (and their mirrored spellings) as margins of A over B
#: (arena-hard-auto ``show_result.py``'s ``label_to_score``).
VERDICT_STRINGS: dict[str, int] = {
    "A>>B": 2,
    "A>B": 1,
    "A=B": 0,
    "B>A": -1,
    "B>>A": -2,
    "B<<A": 2,
    "B<A": 1,
    "B=A": 0,
    "A<B": -1,
    "A<<B": -2,
}
_MARGIN_LABEL = {2: 1.0, 1: 1.0, 0: 0.5, -1: 0.0, -2: 0.0}
_JUDGMENT_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz")


def _json_lines_in(folder: Path) -> list[Path]:
    """The files of ``folder`` (not its subfolders) with a JSON(L) ending, sorted by name."""
    return sorted(
        f for f in folder.iterdir() if f.is_file() and f.name.endswith(_JUDGMENT_SUFFIXES)
    )


def _judgment_files(source: str | Path) -> list[tuple[Path, str | None]]:
    """``(file, judge named by its folder)`` for a file, a judge folder or a folder of judges."""
    path = Path(source)
    if not path.is_dir():
        return [(path, None)]
    files = _json_lines_in(path)
    if files:
        return [(f, None) for f in files]
    judges = sorted(d for d in path.iterdir() if d.is_dir())
    found = [(f, d.name) for d in judges for f in _json_lines_in(d)]
    if not found:
        raise DataError(
            f"the folder {path} holds no .jsonl judgment files",
            expected="model_judgment/<judge>/<model>.jsonl (or one such file)",
        )
    return found


def _margin(score: Any) -> float:
    """A game's score as a margin in {2, ..., −2}; NaN where the game or score is null."""
    if score is None:
        return np.nan
    key = str(score).strip().upper().replace(" ", "")
    if key not in VERDICT_STRINGS:
        raise KeyError(score)
    return float(VERDICT_STRINGS[key])


def _arena_hard_rows(
    frame: pd.DataFrame, path: Path, folder_judge: str | None, baseline: str | None
) -> tuple[pd.DataFrame, int]:
    """One judgment file's games as rows, and how many games (or scores) are null."""
    qid = "question_id" if "question_id" in frame else "uid"
    require_columns(frame, (qid, "model", "games"), f"Arena-Hard judgments ({path.name})")
    if baseline is None and "baseline" not in frame:
        raise DataError(
            f"{path.name} does not name the baseline model (arena-hard v0.1 files do not)",
            column="baseline",
            expected="baseline='<model>' (the CLI: --baseline NAME), e.g. gpt-4-0314",
        )
    rows: list[dict[str, Any]] = []
    n_null = 0
    for k, record in enumerate(frame.itertuples(index=False)):
        rec = record._asdict()
        games = rec["games"]
        if not isinstance(games, list) or not 1 <= len(games) <= 2:
            raise DataError(
                "games is not a list of one or two games",
                row=k,
                column="games",
                got=games if not isinstance(games, list) else f"{len(games)} games",
                expected="[game 1 (baseline shown as A), game 2 (the model shown as A)]",
            )
        base = rec.get("baseline") if rec.get("baseline") is not None else baseline
        model = rec["model"]
        judge = rec.get("judge") if rec.get("judge") is not None else folder_judge
        if pd.isna(model) or model == base:
            raise DataError(
                "missing model, or the model is the baseline",
                row=k,
                column="model",
                got=model,
                expected=f"a model other than the baseline {base!r}",
            )
        for g, game in enumerate(games):
            if game is not None and not isinstance(game, Mapping):
                raise DataError(
                    f"game {g + 1} is not an object",
                    row=k,
                    column="games",
                    got=game,
                    expected='{"score": "A>B", ...} or null',
                )
            try:
                margin = _margin(None if game is None else game.get("score"))
            except KeyError as err:
                raise DataError(
                    f"unknown verdict in game {g + 1}",
                    row=k,
                    column="games",
                    got=err.args[0],
                    expected="one of A>>B, A>B, A=B, B>A, B>>A (or B<<A, B<A, B=A, A<B, A<<B) "
                    "or null",
                ) from None
            n_null += int(np.isnan(margin))
            a, b = (base, model) if g == 0 else (model, base)
            rows.append(
                {
                    "battle_id": f"{rec[qid]}|{model}|{g + 1}",
                    "prompt_id": rec[qid],
                    "model_a": a,
                    "model_b": b,
                    "position": "a",
                    "judge": "judge" if judge is None else str(judge),
                    "game": g + 1,
                    "verdict": margin,
                    "judge_label": _MARGIN_LABEL.get(margin, np.nan),
                }
            )
    return pd.DataFrame(rows), n_null


def read_arena_hard(
    source: str | Path,
    *,
    baseline: str | None = None,
    judge: str | None = None,
    on_invalid: OnInvalid = "raise",
) -> Battles:
    """Arena-Hard judgments: one battle per game against the baseline.

    Parameters
    ----------
    source
        One ``<model>.jsonl`` judgment file, a folder ``model_judgment/<judge>/`` of
        them, or ``model_judgment/`` holding one folder per judge.
    baseline
        The baseline model, for files that do not name it (arena-hard v0.1; v2.0
        records carry a ``baseline`` field, which wins).
    judge
        Keep this judge only (a folder of several judges' folders).
    on_invalid
        Passed to :class:`~judgebayes.Battles` validation.

    Returns
    -------
    Battles
        Rows ``battle_id`` (``<question>|<model>|<game>``), ``prompt_id``, ``model_a``
        (shown first), ``model_b``, ``position = "a"``, ``judge``, ``game``,
        ``verdict`` (the margin of A, 2 ... −2, NaN where null) and ``judge_label``.
        With several judges their rows of one game share ``battle_id``.

    Raises
    ------
    DataError
        Naming the file and record: a missing column, games that are not one or two
        game objects, an unknown verdict, a model that is the baseline, no baseline.
    """
    frames, n_null = [], 0
    for path, folder_judge in _judgment_files(source):
        with reading(path, unit="record"):
            frame = source_frame(path, ("question_id", "uid", "model", "judge", "baseline"), "json")
            rows, nulls = _arena_hard_rows(frame, path, folder_judge, baseline)
        frames.append(rows)
        n_null += nulls
    table = pd.concat(frames, ignore_index=True)
    if judge is not None:
        if judge not in set(table["judge"]):
            raise DataError(
                f"no judgments of judge {judge!r}",
                column="judge",
                expected=f"one of {sorted(set(table['judge']))}",
            )
        n_null -= int(table.loc[table["judge"] != judge, "verdict"].isna().sum())
        table = table[table["judge"] == judge].reset_index(drop=True)
    return finish_battles(
        table,
        np.zeros(len(table), bool),
        "",
        on_invalid,
        missing={"null game or score (no verdict)": n_null},
    )


def read_grades(
    source: str | Path | pd.DataFrame,
    *,
    judge: str | None = None,
    on_invalid: OnInvalid = "raise",
) -> Battles:
    """Single-answer grades as pairwise battles: per prompt, every pair of graded models.

    Parameters
    ----------
    source
        A JSON-lines file (MT-Bench ``single`` judgments; arena-bench-v1
        ``model_judgment/<model>.jsonl``), a folder of them, or a DataFrame, with
        ``question_id``, ``model``, ``score`` and optionally ``judge`` (a name, or
        MT-Bench's ``[judge model, prompt name]``: the model is kept) and ``turn``
        (a prompt is a question and turn).
    judge
        The judge's name where the records do not name one (default ``"judge"``).
    on_invalid
        Passed to :class:`~judgebayes.Battles` validation.

    Returns
    -------
    Battles
        One battle per (judge, prompt, unordered pair with both grades): ``model_a``
        the name that sorts first, ``judge_label`` 1 / 0.5 / 0, ``score_a``,
        ``score_b``, ``score_diff``. Grades of −1 or null are missing (counted in
        ``report.missing``, with the pairs they leave out).

    Raises
    ------
    DataError
        A missing column, a grade that is not a number, or a model graded twice on one
        prompt by one judge (naming the file and record).
    """
    files = _grade_files(source)
    parts = []
    for path in files:
        if isinstance(path, pd.DataFrame):
            parts.append(_grade_rows(path, judge))
            continue
        with naming(path, "json"):
            # not "judge": MT-Bench writes [judge model, prompt name] there
            frame = source_frame(path, ("question_id", "model"), "json")
            parts.append(_grade_rows(frame, judge))
    grades = pd.concat(parts, ignore_index=True)
    where = files[0] if len(files) == 1 and not isinstance(files[0], pd.DataFrame) else None
    with reading(where, unit="record") if where is not None else nullcontext():
        repeat = grades.duplicated(["judge", "prompt_id", "model"]).to_numpy()
        if repeat.any() and len(files) == 1:
            row = int(np.flatnonzero(repeat)[0])
            raise DataError(
                "a second grade of this model on this prompt",
                row=row,
                column="model",
                got=grades["model"].iloc[row],
                expected="one grade per (judge, prompt, model)",
            )
    if repeat.any():
        first = grades.loc[repeat].iloc[0]
        raise DataError(
            f"model {first['model']!r} is graded twice on prompt {first['prompt_id']!r} "
            f"(by {first['judge']!r}) across the files",
            expected="one grade per (judge, prompt, model)",
        )
    return _pairs(grades, on_invalid)


def _grade_files(source: str | Path | pd.DataFrame) -> list[Path | pd.DataFrame]:
    if isinstance(source, pd.DataFrame):
        return [source]
    path = Path(source)
    if not path.is_dir():
        return [path]
    files = _json_lines_in(path)
    if not files:
        raise DataError(
            f"the folder {path} holds no .jsonl grade files",
            expected="one JSON-lines file of single grades per model",
        )
    return list(files)


def _grade_rows(frame: pd.DataFrame, judge: str | None) -> pd.DataFrame:
    require_columns(frame, ("question_id", "model", "score"), "single grades")
    score = pd.to_numeric(frame["score"], errors="coerce")
    bad = (score.isna() & frame["score"].notna()).to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            "a grade that is not a number",
            row=row,
            column="score",
            got=frame["score"].iloc[row],
            expected="a number (−1 or null where the grade could not be parsed)",
        )
    if "judge" in frame:
        names = [
            (j[0] if isinstance(j, list | tuple) and j else j) for j in frame["judge"].tolist()
        ]
        judges = pd.Series(names, dtype=object).fillna(judge or "judge").astype(str)
    else:
        judges = pd.Series(judge or "judge", index=frame.index, dtype=object)
    prompt = frame["question_id"].astype(str)
    if "turn" in frame and frame["turn"].nunique(dropna=True) > 1:
        prompt = prompt + "/turn" + frame["turn"].astype("Int64").astype(str)
    missing = score.isna() | (score == -1)
    return pd.DataFrame(
        {
            "judge": judges.to_numpy(),
            "prompt_id": prompt.to_numpy(),
            "model": frame["model"].astype(str).to_numpy(),
            "score": score.where(~missing).to_numpy(dtype=float),
        }
    )


def _pairs(grades: pd.DataFrame, on_invalid: OnInvalid) -> Battles:
    """Every pair of graded models per (judge, prompt): one battle each."""
    n_missing = int(grades["score"].isna().sum())
    models = sorted(grades["model"].unique())
    wide = grades.pivot_table(
        index=["judge", "prompt_id"], columns="model", values="score", dropna=False
    ).reindex(columns=models)
    values = wide.to_numpy(dtype=float)
    keys = wide.index.to_frame(index=False)
    parts, n_unpaired = [], 0
    for i in range(len(models)):
        for j in range(i + 1, len(models)):
            ga, gb = values[:, i], values[:, j]
            both = ~np.isnan(ga) & ~np.isnan(gb)
            n_unpaired += int((np.isnan(ga) ^ np.isnan(gb)).sum())
            if not both.any():
                continue
            parts.append(
                pd.DataFrame(
                    {
                        "judge": keys["judge"].to_numpy()[both],
                        "prompt_id": keys["prompt_id"].to_numpy()[both],
                        "model_a": models[i],
                        "model_b": models[j],
                        "judge_label": np.where(
                            ga[both] > gb[both], 1.0, np.where(ga[both] < gb[both], 0.0, 0.5)
                        ),
                        "score_a": ga[both],
                        "score_b": gb[both],
                    }
                )
            )
    if not parts:
        raise DataError("no prompt has grades of two models", expected="at least one pair")
    table = pd.concat(parts, ignore_index=True)
    if table["judge"].nunique() > 1:
        table.insert(
            0, "battle_id", table["prompt_id"] + "|" + table["model_a"] + "|" + table["model_b"]
        )
    return finish_battles(
        table,
        np.zeros(len(table), bool),
        "",
        on_invalid,
        missing={
            "grade missing or −1 (not parsed)": n_missing,
            "pairs left out: one of the two grades missing": n_unpaired,
        },
    )


def read_alpaca_eval(
    source: str | Path | Sequence[Mapping[str, Any]] | pd.DataFrame,
    *,
    on_invalid: OnInvalid = "raise",
) -> Battles:
    """AlpacaEval annotations (``annotations.json``) as battles of generator_1 vs generator_2.

    ``preference`` 1 → ``judge_label`` 1 (``generator_1``, ``model_a``, wins), 2 → 0,
    1.5 (or 0) → 0.5; a continuous preference p (AlpacaEval 2.0's weighted annotator)
    gives ``judge_prob`` = 2 − p (the win rate upstream is mean(p − 1) for
    ``generator_2``) and ``judge_label`` its rounding (1.5 a tie). A null preference
    (upstream: no annotation) is missing, counted in ``report.missing``. ``annotator``
    becomes ``judge``, ``instruction`` ``prompt_id``.

    Raises
    ------
    DataError
        A missing column, or a preference outside [1, 2] that is not 0 (naming the
        file, record and column).
    """
    with naming(source, "json"):
        frame = source_frame(
            source, ("instruction", "generator_1", "generator_2", "annotator"), "json"
        )
        require_columns(
            frame, ("instruction", "generator_1", "generator_2", "preference"), "AlpacaEval"
        )
        pref = pd.to_numeric(frame["preference"], errors="coerce").to_numpy(dtype=float)
        given = frame["preference"].notna().to_numpy()
        pref = np.where(pref == 0, 1.5, pref)  # older files: 0 is a draw
        bad = given & ~((pref >= 1) & (pref <= 2))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise DataError(
                "preference outside [1, 2]",
                row=row,
                column="preference",
                got=frame["preference"].iloc[row],
                expected="1 (output_1 preferred) ... 2 (output_2 preferred), 1.5 or 0 a draw",
            )
        prob = 2.0 - pref  # P(generator_1 beats generator_2)
        label = np.where(prob > 0.5, 1.0, np.where(prob < 0.5, 0.0, 0.5))
        out = frame.drop(columns=["preference"]).rename(
            columns={"generator_1": "model_a", "generator_2": "model_b", "instruction": "prompt_id"}
        )
        if "annotator" in out:
            out = out.rename(columns={"annotator": "judge"})
        out["judge_label"] = np.where(given, label, np.nan)
        out["judge_prob"] = np.where(given, prob, np.nan)
        return finish_battles(
            out,
            np.zeros(len(out), bool),
            "",
            on_invalid,
            missing={"null preference (not annotated)": int((~given).sum())},
        )
