"""The verdict table of anchor-based evaluation (Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity
is the key for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848, Section 2) and its
tensor.

A verdict is the judge's margin of ``model_a`` over ``model_b`` on one prompt on the
Arena-Hard five-point scale (Don-Yehiya et al., 2026, Section 2: v ∈ {−2, −1, 0, 1, 2}):

======== ====== ===================================
verdict  string meaning
======== ====== ===================================
 2       A>>B   A is clearly better
 1       A>B    A is slightly better
 0       A=B    tie
−1       B>A    B is slightly better
−2       B>>A   B is clearly better
======== ====== ===================================

``model_a`` is the answer the judge saw first. A *quadratic* table holds every model
pair; an *anchor-based* one has the anchor on one side of every row. When a (judge,
prompt, pair) was judged in both orders, the two oriented verdicts are averaged
(position-debiased, v = (v_ab − v_ba) / 2) and :attr:`VerdictTable.n_debiased` counts
how many were. Nothing is dropped: a row that cannot be read is a
:class:`~judgebayes.errors.DataError` naming its row and column.

:meth:`VerdictTable.tensor` gives the debiased verdicts of one judge as an array
``V[prompt, a, b]`` (the margin of a over b, ``V[i, b, a] = −V[i, a, b]``, NaN where
not judged); the anchor-based verdict matrix V^{p,A} of the paper is ``V[:, :, A]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from judgebayes.core.battles import Battles
from judgebayes.core.io import peek_columns, read_frame, reading
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.core.tool_formats import VERDICT_STRINGS, read_arena_hard, read_grades
from judgebayes.errors import DataError

__all__ = [
    "SCALES",
    "VERDICT_FORMATS",
    "VERDICT_STRINGS",
    "VerdictTable",
    "read_verdicts",
    "verdict_format",
    "verdict_table",
    "verdicts_from_battles",
]

#: The ``format`` values of :func:`read_verdicts` (``judgebayes anchors --format``).
VERDICT_FORMATS = ("auto", "table", "arena-hard", "grades")

#: Verdict scales an analysis can read the table on: the five-point margins or their sign.
SCALES = ("five", "three")
_REQUIRED = ("prompt_id", "model_a", "model_b", "verdict")
_NAMES = ("prompt_id", "model_a", "model_b", "judge")
_EXPECTED_VERDICT = "one of 2, 1, 0, -1, -2 or the strings 'A>>B', 'A>B', 'A=B', 'B>A', 'B>>A'"


def _first_bad(bad: np.ndarray) -> int | None:
    hits = np.flatnonzero(bad)
    return int(hits[0]) if hits.size else None


def _parse_verdicts(values: pd.Series) -> np.ndarray:
    """Verdict cells as integer margins in {−2, …, 2}; the first bad cell raises."""
    text = values.astype("string").str.strip()
    key = text.str.upper().str.replace(" ", "", regex=False)
    named = key.map(VERDICT_STRINGS)
    number = pd.to_numeric(text, errors="coerce")
    out = named.astype(float).where(named.notna(), number).to_numpy(dtype=float)
    row = _first_bad(values.isna().to_numpy() | ~np.isin(out, (-2.0, -1.0, 0.0, 1.0, 2.0)))
    if row is not None:
        got = values.iloc[row]
        what = (
            "missing verdict"
            if pd.isna(got)
            else "a verdict must be a whole margin"
            if np.isfinite(out[row])
            else "not a verdict"
        )
        raise DataError(
            what,
            row=row,
            column="verdict",
            got=None if pd.isna(got) else got,
            expected=_EXPECTED_VERDICT,
        )
    return out.astype(np.int8)


def _names(frame: pd.DataFrame, column: str) -> np.ndarray:
    """A name column as strings; a missing or empty name is a DataError naming the row."""
    values = frame[column]
    text = values.astype("string")
    row = _first_bad((values.isna() | text.str.strip().eq("")).to_numpy(dtype=bool))
    if row is not None:
        raise DataError(
            "missing name", row=row, column=column, expected=f"a {column} for every row"
        )
    return text.to_numpy(dtype=object)


@dataclass(frozen=True, repr=False)
class VerdictTable(ResultDisplay):
    """Validated five-point verdicts (Don-Yehiya et al., 2026, Section 2), one row per judgment.

    Build it with :func:`verdict_table` (a frame) or :func:`read_verdicts` (a file).

    Attributes
    ----------
    models, prompts, judges
        Sorted names.
    judge, prompt, a, b
        Integer codes of each row into ``judges``, ``prompts`` and ``models``
        (``a`` is ``model_a``, the answer shown first).
    verdict
        Each row's integer margin of ``model_a`` over ``model_b``.
    n_debiased
        (judge, prompt, pair) judged in both orders, whose verdicts are averaged.
    report
        Rows in and used (none are dropped: bad rows raise).
    """

    models: tuple[str, ...]
    prompts: tuple[str, ...]
    judges: tuple[str, ...]
    judge: np.ndarray
    prompt: np.ndarray
    a: np.ndarray
    b: np.ndarray
    verdict: np.ndarray
    n_debiased: int
    report: DropReport

    # ------------------------------------------------------------- display
    def _headline(self) -> str:
        kind = "quadratic" if self.is_quadratic() else "anchor-based"
        return (
            f"{len(self):,} verdicts ({kind}), {len(self.models)} models, "
            f"{len(self.prompts):,} prompts, {len(self.judges)} judge(s); "
            f"{self.n_debiased:,} (prompt, pair)s judged in both orders averaged"
        )

    def to_frame(self) -> pd.DataFrame:
        """The rows: ``judge, prompt_id, model_a, model_b, verdict``."""

        def names(values: tuple[str, ...], codes: np.ndarray) -> pd.Categorical:
            return pd.Categorical.from_codes(codes, categories=list(values))

        return pd.DataFrame(
            {
                "judge": names(self.judges, self.judge),
                "prompt_id": names(self.prompts, self.prompt),
                "model_a": names(self.models, self.a),
                "model_b": names(self.models, self.b),
                "verdict": self.verdict,
            }
        )

    def __len__(self) -> int:
        return len(self.verdict)

    def to_battles(self) -> Battles:
        """The verdicts as :class:`~judgebayes.Battles`, one battle per row.

        ``judge``, ``prompt_id``, ``model_a`` (shown first: ``position`` ``"a"``),
        ``model_b``, ``judge_label`` the margin's sign as P(A beats B) (1, ½, 0) and the
        margin kept as ``verdict``, so :func:`verdicts_from_battles` gives this table back.
        With several judges, the rows of one (prompt, model_a, model_b) share a
        ``battle_id`` (``prompt|model_a|model_b``): the judges judged the same battle.
        """
        frame = self.to_frame().astype({c: str for c in _NAMES})
        frame["judge_label"] = (np.sign(self.verdict) + 1.0) / 2.0
        frame["position"] = "a"
        if len(self.judges) > 1:
            frame.insert(
                0, "battle_id", frame["prompt_id"] + "|" + frame["model_a"] + "|" + frame["model_b"]
            )
        return Battles(frame)

    # ------------------------------------------------------------- views
    def _take(self, keep: np.ndarray) -> VerdictTable:
        return verdict_table(self.to_frame()[keep].astype({c: str for c in _NAMES}))

    def for_judge(self, judge: str) -> VerdictTable:
        """The verdicts of one judge."""
        if judge not in self.judges:
            raise DataError(
                f"no judge {judge!r} in the table",
                column="judge",
                expected=f"one of {list(self.judges)}",
            )
        if len(self.judges) == 1:
            return self
        return self._take(self.judge == self.judges.index(judge))

    def subset(
        self, *, prompts: Iterable[str] | None = None, models: Iterable[str] | None = None
    ) -> VerdictTable:
        """Rows on the given prompts and between the given models only."""
        keep = np.ones(len(self), dtype=bool)
        if prompts is not None:
            keep &= np.isin(self.prompt, _codes(self.prompts, prompts))
        if models is not None:
            chosen = _codes(self.models, models)
            keep &= np.isin(self.a, chosen) & np.isin(self.b, chosen)
        return self._take(keep)

    def one_judge(self, judge: str | None = None) -> VerdictTable:
        """This table if it holds one judge; ``judge`` picks one of several."""
        if judge is not None:
            return self.for_judge(judge)
        if len(self.judges) > 1:
            raise DataError(
                f"the table holds verdicts of {len(self.judges)} judges; pick one "
                f"with judge=... (e.g. {self.judges[0]!r})",
                column="judge",
            )
        return self

    def _pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(judge, prompt, lo, hi) group key per row, and its margin oriented to ``lo``."""
        m, n = len(self.models), len(self.prompts)
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        key = ((self.judge.astype(np.int64) * n + self.prompt) * m + lo) * m + hi
        oriented = np.where(self.a < self.b, self.verdict, -self.verdict).astype(float)
        groups, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        return groups, inverse, counts, oriented

    def pair_verdicts(self) -> pd.DataFrame:
        """Position-debiased verdicts: one row per (judge, prompt, unordered pair).

        Columns ``judge, prompt_id, model_i, model_j, verdict, n_orders``: ``model_i``
        sorts before ``model_j``; ``verdict`` is the margin of ``model_i``, the mean of
        its oriented verdicts over the orders it was judged in (``n_orders`` 1 or 2).
        """
        groups, inverse, counts, oriented = self._pairs()
        m, n = len(self.models), len(self.prompts)
        rest, hi = np.divmod(groups, m)
        rest, lo = np.divmod(rest, m)
        k, i = np.divmod(rest, n)
        return pd.DataFrame(
            {
                "judge": np.asarray(self.judges, dtype=object)[k],
                "prompt_id": np.asarray(self.prompts, dtype=object)[i],
                "model_i": np.asarray(self.models, dtype=object)[lo],
                "model_j": np.asarray(self.models, dtype=object)[hi],
                "verdict": np.bincount(inverse, oriented, minlength=groups.size) / counts,
                "n_orders": counts,
            }
        )

    def tensor(self, judge: str | None = None, *, scale: str = "five") -> np.ndarray:
        """Debiased verdicts ``V[prompt, a, b]`` of one judge (:attr:`prompts` × :attr:`models`²).

        ``V[i, a, b]`` is the margin of model a over model b on prompt i, antisymmetric,
        NaN where the pair was not judged on that prompt (and on the diagonal).
        ``scale="three"`` collapses margins to their sign {−1, 0, 1} (Don-Yehiya et al., 2026,
        Section 2, the Bradley–Terry input); ``"five"`` keeps them (averaged orders may give
        half-margins such as 0.5).
        """
        check_scale(scale)
        table = self.one_judge(judge)
        if table is not self:
            return table.tensor(scale=scale)
        groups, inverse, counts, oriented = self._pairs()
        m, n = len(self.models), len(self.prompts)
        rest, hi = np.divmod(groups, m)
        i, lo = np.divmod(rest % (n * m), m)
        v = np.bincount(inverse, oriented, minlength=groups.size) / counts
        if scale == "three":
            v = np.sign(v)
        out = np.full((n, m, m), np.nan)
        out[i, lo, hi] = v
        out[i, hi, lo] = -v
        return out

    def is_quadratic(self) -> bool:
        """Whether every pair of models was judged on at least one prompt (per judge)."""
        m = len(self.models)
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        pairs = np.unique((self.judge.astype(np.int64) * m + lo) * m + hi)
        return m >= 2 and pairs.size == len(self.judges) * m * (m - 1) // 2

    def opponents(self) -> pd.Series:
        """How many distinct models each model was judged against (any judge)."""
        m = len(self.models)
        pairs = np.unique(np.r_[self.a * m + self.b, self.b * m + self.a])
        return pd.Series(np.bincount(pairs // m, minlength=m), index=list(self.models))

    def usable_anchors(self) -> tuple[str, ...]:
        """Models judged against at least two others: those an anchor analysis can use."""
        counts = self.opponents()
        return tuple(m for m in self.models if counts[m] >= 2)


def _codes(names: tuple[str, ...], chosen: Iterable[str]) -> np.ndarray:
    index = {n: k for k, n in enumerate(names)}
    return np.array([index[c] for c in chosen if c in index], dtype=int)


def _factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct names and each value's code (pandas' hash factorize, then sorted)."""
    codes, uniques = pd.factorize(values)
    order = np.argsort(uniques.astype(str))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return np.asarray(uniques, dtype=object)[order], rank[codes]


def check_scale(scale: str) -> None:
    """A ValueError unless ``scale`` is ``"five"`` or ``"three"``."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")


def verdict_table(
    frame: pd.DataFrame | Mapping, *, columns: Mapping[str, str] | None = None
) -> VerdictTable:
    """Validate verdicts into a :class:`VerdictTable` (Don-Yehiya et al., 2026, Section 2).

    Parameters
    ----------
    frame
        Columns ``prompt_id, model_a, model_b, verdict`` and optionally ``judge``
        (``model_a`` is the answer shown first). Verdicts are margins in {−2, …, 2} or
        the Arena-Hard strings ``A>>B, A>B, A=B, B>A, B>>A``.
    columns
        Renames ``{theirs: ours}`` applied first.

    Raises
    ------
    DataError
        Naming the first bad row and column: a missing column or value, an unknown
        verdict, a model judged against itself, or a (judge, prompt, model_a, model_b)
        that repeats an earlier row.
    """
    frame = pd.DataFrame(frame).rename(columns=dict(columns or {})).reset_index(drop=True)
    for col in _REQUIRED:
        if col not in frame.columns:
            raise DataError(
                f"missing column {col!r} (columns: {list(frame.columns)})",
                column=col,
                expected="columns prompt_id, model_a, model_b, verdict and optionally judge",
            )
    if len(frame) == 0:
        raise DataError("no verdicts", expected="at least one row")
    names = {c: _names(frame, c) for c in _NAMES if c in frame.columns}
    judge_names = names.get("judge", np.full(len(frame), "judge", dtype=object))
    verdict = _parse_verdicts(frame["verdict"])
    same = _first_bad(names["model_a"] == names["model_b"])
    if same is not None:
        raise DataError(
            "a model judged against itself",
            row=same,
            column="model_b",
            got=names["model_b"][same],
            expected="a model other than model_a",
        )
    models, ab = _factorize(np.r_[names["model_a"], names["model_b"]])
    prompts, prompt = _factorize(names["prompt_id"])
    judges, judge = _factorize(judge_names)
    a, b = ab[: len(frame)], ab[len(frame) :]
    m, n = len(models), len(prompts)
    key = ((judge.astype(np.int64) * n + prompt) * m + a) * m + b
    order = np.argsort(key, kind="stable")
    repeat = np.flatnonzero(key[order][1:] == key[order][:-1])
    if repeat.size:
        first, second = sorted(order[repeat[0] : repeat[0] + 2])
        raise DataError(
            f"repeats row {first}: judge {judge_names[second]!r} already judged "
            f"{names['model_a'][second]!r} (shown first) against "
            f"{names['model_b'][second]!r} on prompt {names['prompt_id'][second]!r}",
            row=int(second),
            column="prompt_id",
            expected="one verdict per (judge, prompt, model_a, model_b); the "
            "other order (model_b first) is a separate judgment",
        )
    mirror = ((judge.astype(np.int64) * n + prompt) * m + b) * m + a
    n_both = int(np.isin(mirror, key).sum()) // 2
    return VerdictTable(
        models=tuple(models),
        prompts=tuple(prompts),
        judges=tuple(judges),
        judge=judge,
        prompt=prompt,
        a=a,
        b=b,
        verdict=verdict,
        n_debiased=n_both,
        report=DropReport(len(frame)),
    )


def verdicts_from_battles(battles: Battles, *, clear_gap: float | None = None) -> VerdictTable:
    """The verdict table of battles read from a judge tool's output.

    The margin is the ``verdict`` column where there is one (Arena-Hard judgments,
    :func:`~judgebayes.core.tool_formats.read_arena_hard`), else the sign of
    ``score_diff`` (single grades, :func:`~judgebayes.core.tool_formats.read_grades`:
    A's grade higher 1, equal 0, lower −1, so the table is on the three-point scale),
    else the judge label (1 → 1, 0.5 → 0, 0 → −1). Rows without a margin (a null game)
    are left out and counted in :attr:`VerdictTable.report`, with the battles' own
    counts of missing values.

    Parameters
    ----------
    battles
        Battles with a ``verdict``, ``score_diff`` or ``judge_label`` column.
    clear_gap
        Single grades on Don-Yehiya et al.'s (2026) five-point scale (Section 2) instead of their
        sign: a grade difference d gives the margin sign(d)·(1 + [|d| ≥ clear_gap]) — equal grades a
        tie, a gap below ``clear_gap`` "slightly better" (±1), a gap of at least ``clear_gap``
        "clearly better" (±2). With 1–10 grades, ``clear_gap=3`` calls a gap of one or two points
        slight. Only for battles with ``score_diff``.
    """
    frame = battles.frame
    if clear_gap is not None and ("verdict" in frame or "score_diff" not in frame):
        raise DataError(
            "clear_gap maps grade differences to margins, and these battles have none",
            column="score_diff",
            expected="single grades (read_grades) for clear_gap; none for verdicts",
        )
    if clear_gap is not None and not clear_gap > 0:
        raise ValueError(f"clear_gap must be positive, got {clear_gap!r}")
    if "verdict" in frame:
        margin = pd.to_numeric(frame["verdict"], errors="coerce").to_numpy(dtype=float)
    elif "score_diff" in frame:
        gap = frame["score_diff"].to_numpy(dtype=float)
        margin = np.sign(gap)
        if clear_gap is not None:
            margin = margin * np.where(np.abs(gap) >= clear_gap, 2.0, 1.0)
    elif "judge_label" in frame:
        margin = 2.0 * frame["judge_label"].to_numpy(dtype=float) - 1.0
    else:
        raise DataError(
            "no verdicts in these battles",
            column="verdict",
            expected="a verdict, score_diff or judge_label column",
        )
    keep = ~np.isnan(margin)
    rows = pd.DataFrame(
        {
            "prompt_id": frame["prompt_id"].astype(str).to_numpy()
            if "prompt_id" in frame
            else np.arange(len(frame)).astype(str),
            "model_a": frame["model_a"].astype(str).to_numpy(),
            "model_b": frame["model_b"].astype(str).to_numpy(),
            "judge": frame["judge"].astype(str).to_numpy() if "judge" in frame else "judge",
            "verdict": margin,
        }
    )[keep]
    table = verdict_table(rows.astype({"verdict": int}))
    report = battles.report
    left = {"no verdict (null game or score)": int((~keep).sum())}
    return replace(
        table,
        report=DropReport(
            report.n_input,
            {**report.dropped, **{k: v for k, v in left.items() if v}},
            dict(report.excluded),
            dict(report.missing),
        ),
    )


def read_verdicts(
    path: str | Path,
    *,
    format: str = "auto",
    columns: Mapping[str, str] | None = None,
    baseline: str | None = None,
    judge: str | None = None,
    clear_gap: float | None = None,
) -> VerdictTable:
    """Read verdicts in one of :data:`VERDICT_FORMATS`.

    ``table`` (a CSV, TSV, JSON, JSON lines or Parquet file; optionally gzipped) of
    ``prompt_id, model_a, model_b, verdict[, judge]``: names (prompt, model, judge)
    and verdicts are read as written (``007`` stays ``"007"``); every error names the
    file, the row and the column (:func:`judgebayes.core.io.read_frame`).
    ``arena-hard``: Arena-Hard judgments (a ``<model>.jsonl`` file or a
    ``model_judgment/<judge>/`` folder; ``baseline`` for files that do not name it).
    ``grades``: single grades, a verdict per prompt and pair from the two grades (their
    sign; with ``clear_gap``, the five-point margin of :func:`verdicts_from_battles`).
    ``auto``: records with ``games`` are Arena-Hard judgments, records with ``score``
    and ``model`` single grades, anything else a table (a folder: its first file).
    Both tool formats go through :func:`verdicts_from_battles`.
    """
    if format == "auto":
        format = verdict_format(path)
    if format == "arena-hard":
        return verdicts_from_battles(read_arena_hard(path, baseline=baseline, judge=judge))
    if format == "grades":
        return verdicts_from_battles(read_grades(path, judge=judge), clear_gap=clear_gap)
    if clear_gap is not None:
        raise DataError(
            f"clear_gap applies to single grades; {Path(path).name} holds {format} verdicts",
            expected="format 'grades' with clear_gap",
        )
    if format != "table":
        raise DataError(f"unknown format {format!r}", expected=f"one of {VERDICT_FORMATS}")
    wanted = [*_NAMES, "verdict", *(columns or {})]
    frame = read_frame(path, text_columns=wanted)
    with reading(path):
        return verdict_table(frame, columns=columns)


def verdict_format(path: str | Path) -> str:
    """The format ``auto`` chooses for ``path`` (see :func:`read_verdicts`)."""
    path = Path(path)
    if path.is_dir():
        inner = sorted(f for f in path.rglob("*.json*") if f.is_file())
        if not inner:
            raise DataError(
                f"the folder {path} holds no judgment files",
                expected="model_judgment/<judge>/<model>.jsonl or single-grade .jsonl files",
            )
        path = inner[0]
    columns = set(peek_columns(path, default="csv"))
    if "games" in columns:
        return "arena-hard"
    if {"score", "model", "question_id"} <= columns:
        return "grades"
    return "table"
