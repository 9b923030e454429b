"""Pair statistics streamed from Parquet: arenas larger than memory.

:func:`scan_pairs` reads a Parquet file or a folder of them (hive folders such as
``judge=gpt-4o/`` included) in record batches with :mod:`pyarrow.dataset`, reading only
the columns it needs (the model columns, the target, ``judge`` and ``weight``), validates
each batch as :class:`~judgebayes.core.battles.Battles` validates a table, and counts it
per (judge, *ordered* pair, target, weight): hard labels without weights in a dense
``judges × models² × 4`` counter (A wins, tie, B wins, no target), anything else as
distinct cells merged across batches. Memory grows with pairs and judges (and with the
distinct values of continuous soft targets or weights), never with battles.

:class:`PairScan` then gives, for the whole source or one judge, exactly the
:class:`~judgebayes.core.pairs.PairStats` of the in-memory route
(``Battles(frame).pair_stats(target)``, ``.for_judge(j).pair_stats(target)``): the same
models, pairs, cells, sums and :class:`~judgebayes.core.report.DropReport`, ready for
:func:`~judgebayes.core.bt.fit_bt` and :func:`~judgebayes.core.bootstrap.bootstrap_bt`.
By design, only the columns read are validated (a row bad only in, e.g., ``score_a`` is
used here but dropped in memory), and an error names the file (relative to the folder)
and the row within it; the first bad row is sought batch by batch, the checks of a batch
running in the in-memory order.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.core.battles import LABEL_COLUMNS, OnInvalid
from judgebayes.core.convert import ARENA_WINNERS, hashable
from judgebayes.core.io import as_name
from judgebayes.core.pairs import PairStats, oriented_target
from judgebayes.core.report import DropReport
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

if TYPE_CHECKING:  # pyarrow is the optional extra judgebayes[parquet], imported on use
    import pyarrow as pa
    import pyarrow.dataset as ds

__all__ = ["PairScan", "scan_pairs", "stream_pair_stats"]

_LABELS = "1 (A wins), 0 (B wins), 0.5 (tie) or missing"
_WINNERS = "one of 'model_a', 'model_b', 'tie', 'tie (bothbad)'"
_CAP = 1 << 21  # model and judge codes < 2**21 pack into one int64 key
_DENSE_LIMIT = 1 << 23  # entries of the dense hard-label counter (64 MiB)


# --------------------------------------------------------------------- columns
def _encoded(arr: pa.Array) -> tuple[np.ndarray, list[Any]]:
    """Dictionary indices (−1 where null) and the dictionary's values of a column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(arr.type):
        arr = pc.dictionary_encode(arr)
    idx = arr.indices
    if idx.null_count:
        idx = pc.fill_null(idx, -1)
    return idx.to_numpy(zero_copy_only=False), arr.dictionary.to_pylist()


def _floats(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A column as floats (NaN where null) and the mask of values that are not numbers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    t = arr.type
    if (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_boolean(t)
        or pa.types.is_decimal(t)
    ):
        return pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False), np.zeros(
            len(arr), dtype=bool
        )
    raw = arr.to_pandas()
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    return values, np.isnan(values) & raw.notna().to_numpy()


def _mapped(arr: pa.Array, mapping: Mapping[Any, float]) -> tuple[np.ndarray, np.ndarray]:
    """Labels mapped as the loaders map them (strings stripped, lower-cased) and missing."""
    idx, values = _encoded(arr)
    keys = [v.strip().lower() if isinstance(v, str) else v for v in values]
    lut = np.array(
        [float(mapping.get(k, np.nan)) if hashable(k) else np.nan for k in keys] + [np.nan]
    )
    missing = np.array([isinstance(v, float) and math.isnan(v) for v in values] + [True])
    return lut[idx], missing[idx]


class _Names:
    """Names in order of first appearance; codes of a column's values (−1: missing)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def codes(self, arr: pa.Array, column: str) -> np.ndarray:
        idx, values = _encoded(arr)
        lut = np.array([self._code(as_name(v, 0, column)) for v in values] + [-1], dtype=np.int32)
        return lut[idx]

    def _code(self, name: str | None) -> int:
        if name is None:
            return -1
        return self.index.setdefault(name, len(self.index))

    def sorted_codes(self) -> tuple[tuple[str, ...], np.ndarray]:
        """Sorted names and, for each appearance code, its code among the sorted names."""
        names = list(self.index)
        order = np.argsort(np.array(names, dtype=object), kind="stable")
        rank = np.empty(len(names), dtype=np.int64)
        rank[order] = np.arange(len(names))
        return tuple(names[k] for k in order), rank


# --------------------------------------------------------------------- counting
def _runs(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order sorting by ``keys`` (the last one first) and where each run of equal keys starts."""
    order = np.lexsort(keys)
    new = np.zeros(len(order), dtype=bool)
    new[0] = True
    for key in keys:
        sorted_key = key[order]
        new[1:] |= sorted_key[1:] != sorted_key[:-1]
    return order, np.flatnonzero(new)


def _reduce(cells: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Merge equal (judge, a, b, target, weight) rows of ``cells``, summing their counts."""
    j, a, b, t, w, n = cells
    if len(j) == 0:
        return cells
    order, starts = _runs(w, t, (j * _CAP + a) * _CAP + b)
    return (*(x[order][starts] for x in (j, a, b, t, w)), np.add.reduceat(n[order], starts))


class _Counter:
    """Battles counted per (judge, ordered pair, target, weight); target −1 = missing."""

    def __init__(self) -> None:
        self.dense = np.zeros((0, 0, 0, 4), dtype=np.int64)
        self.use_dense = True
        self.parts: list[tuple[np.ndarray, ...]] = []
        self.n_parts = 0
        self.compacted = 0

    def add(
        self,
        j: np.ndarray,
        a: np.ndarray,
        b: np.ndarray,
        t: np.ndarray,
        w: np.ndarray | None,
        n_judges: int,
        n_models: int,
    ) -> None:
        """Count battles: judge codes ``j`` < ``n_judges``, model codes < ``n_models``."""
        missing = np.isnan(t)
        if w is None and self.use_dense and self._fit(n_judges, n_models):
            nj, m = self.dense.shape[:2]
            code = t * 2.0
            if missing.any():
                code[missing] = 3.0
            codes = code.astype(np.int32)
            key = (a * m + b) * 4 + codes
            if nj > 1:
                key += j * (m * m * 4)
            hard = codes == code
            if not hard.all():
                key, soft = key[hard], ~hard
                j, a, b, t, missing = j[soft], a[soft], b[soft], t[soft], missing[soft]
            self.dense += np.bincount(key, minlength=self.dense.size).reshape(self.dense.shape)
            if hard.all():
                return
        t = np.where(missing, -1.0, t)
        w = np.ones(len(t)) if w is None else np.where(missing, 1.0, w)  # weight unused there
        self._part(
            (
                j.astype(np.int64),
                a.astype(np.int64),
                b.astype(np.int64),
                t,
                w,
                np.ones(len(t), dtype=np.int64),
            )
        )

    def _fit(self, nj: int, m: int) -> bool:
        """Grow the dense counter to ``nj`` judges and ``m`` models, or give it up."""
        cj, cm = self.dense.shape[:2]
        if nj <= cj and m <= cm:
            return True
        nj, m = max(nj, cj, 1), max(m, cm, 1)
        nj, m = 1 << (nj - 1).bit_length(), 1 << (m - 1).bit_length()
        if nj * m * m * 4 > _DENSE_LIMIT:
            self._part(self._dense_cells())
            self.dense, self.use_dense = np.zeros((0, 0, 0, 4), dtype=np.int64), False
            return False
        grown = np.zeros((nj, m, m, 4), dtype=np.int64)
        grown[:cj, :cm, :cm] = self.dense
        self.dense = grown
        return True

    def _dense_cells(self) -> tuple[np.ndarray, ...]:
        j, a, b, code = np.unravel_index(np.flatnonzero(self.dense), self.dense.shape)
        n = self.dense[j, a, b, code]
        return (
            j.astype(np.int64),
            a.astype(np.int64),
            b.astype(np.int64),
            np.where(code == 3, -1.0, code / 2.0),
            np.ones(len(j)),
            n,
        )

    def _part(self, cells: tuple[np.ndarray, ...]) -> None:
        self.parts.append(_reduce(cells))
        self.n_parts += len(cells[0])
        if self.n_parts > max(1 << 20, 4 * self.compacted):
            self._compact()

    def _compact(self) -> None:
        merged = _reduce(tuple(np.concatenate(c) for c in zip(*self.parts, strict=True)))
        self.parts, self.n_parts = [merged], len(merged[0])
        self.compacted = self.n_parts

    def cells(self) -> tuple[np.ndarray, ...]:
        if self.dense.size:
            self.parts.append(self._dense_cells())
        if not self.parts:
            return tuple(np.zeros(0, dtype=d) for d in (np.int64,) * 3 + (float,) * 2 + (np.int64,))
        self._compact()
        return self.parts[0]


# --------------------------------------------------------------------- the scan
@dataclass(frozen=True, repr=False)
class PairScan(ResultDisplay):
    """Battles of a Parquet source counted per judge and ordered pair (see the module).

    Attributes
    ----------
    target
        The target column (``winner`` read as ``human_label`` for arena files).
    models
        Every model in a valid row, sorted (the models of ``Battles(...).models``).
    judges
        Judge names, sorted (empty when there is no ``judge`` column).
    report
        Rows read and dropped while validating (the table's report).
    cells
        ``judge, a, b, target, weight, count`` arrays: codes into :attr:`judges`
        (−1: no judge) and :attr:`models`, the target oriented to ``a`` (−1: missing).
    """

    target: str
    models: tuple[str, ...]
    judges: tuple[str, ...]
    report: DropReport
    cells: tuple[np.ndarray, ...]

    @property
    def n_battles(self) -> int:
        """Valid rows (battles), with or without a target."""
        return int(self.cells[5].sum())

    def _headline(self) -> str:
        return (
            f"{self.n_battles:,} battles, {len(self.models)} models, {len(self.judges)} "
            f"judges, target {self.target!r}; {self.report}"
        )

    def to_frame(self) -> pd.DataFrame:
        """Battles and battles with a target, per judge (``""`` when there is none)."""
        j, t, n = self.cells[0], self.cells[3], self.cells[5]
        names = np.array(("", *self.judges), dtype=object)[j + 1]
        frame = pd.DataFrame({"judge": names, "n_battles": n, "n_target": np.where(t >= 0, n, 0)})
        return frame.groupby("judge", as_index=False).sum()

    def pair_stats(self, judge: str | None = None) -> PairStats:
        """Pair statistics of all battles, or of one judge's (as ``Battles.for_judge``)."""
        j, a, b, t, w, n = self.cells
        report = self.report
        if judge is not None:
            if judge not in self.judges:
                raise DataError(
                    f"unknown judge {judge!r}",
                    column="judge",
                    expected=f"one of {list(self.judges)}",
                )
            mine = j == self.judges.index(judge)
            report = report.with_excluded("other judges", int(n[~mine].sum()))
            a, b, t, w, n = a[mine], b[mine], t[mine], w[mine], n[mine]
        present = t >= 0
        report = report.with_excluded(f"no {self.target}", int(n[~present].sum()))
        if not present.any():
            raise DataError(f"no battle has a {self.target}", column=self.target)
        used = np.unique(np.concatenate([a, b]))
        local = np.zeros(len(self.models), dtype=np.int64)
        local[used] = np.arange(len(used))
        models = tuple(self.models[k] for k in used)
        return _pair_stats(
            local[a[present]], local[b[present]], t[present], w[present], n[present], models, report
        )

    def by_judge(self) -> dict[str, PairStats]:
        """:meth:`pair_stats` of every judge."""
        return {name: self.pair_stats(name) for name in self.judges}


def _pair_stats(
    a: np.ndarray,
    b: np.ndarray,
    t: np.ndarray,
    w: np.ndarray,
    n: np.ndarray,
    models: tuple[str, ...],
    report: DropReport,
) -> PairStats:
    """:meth:`PairStats.from_battles` of counted battles (the same cells, sums and order)."""
    m = len(models)
    swap = a > b
    lo, hi = np.where(swap, b, a), np.where(swap, a, b)
    t = oriented_target(a, b, t)
    pair_keys, pair_of = np.unique(lo * m + hi, return_inverse=True)
    order, starts = _runs(w, t, pair_of)
    cell_pair, cell_target, cell_weight = (x[order][starts] for x in (pair_of, t, w))
    cell_count = np.add.reduceat(n[order], starts).astype(float)
    n_pairs = len(pair_keys)
    return PairStats(
        models=models,
        i=pair_keys // m,
        j=pair_keys % m,
        n=np.bincount(cell_pair, cell_count * cell_weight, minlength=n_pairs),
        y=np.bincount(cell_pair, cell_count * cell_weight * cell_target, minlength=n_pairs),
        cell_pair=cell_pair,
        cell_target=cell_target,
        cell_weight=cell_weight,
        cell_count=cell_count,
        report=report,
    )


class _Checks:
    """Row checks of one batch: the first bad row raises (naming file and row) or all drop."""

    def __init__(
        self,
        n: int,
        on_invalid: OnInvalid,
        file: str,
        path: Path,
        first_row: int,
        dropped: dict[str, int],
    ) -> None:
        self.bad = np.zeros(n, dtype=bool)
        self.on_invalid, self.file, self.path, self.first = on_invalid, file, path, first_row
        self.dropped = dropped

    def check(
        self,
        mask: np.ndarray,
        reason: str,
        column: str,
        expected: str,
        got: pa.Array | None,
        *,
        key: str | None = None,
    ) -> None:
        mask = mask & ~self.bad
        if not mask.any():
            return
        if self.on_invalid == "raise":
            row = int(np.flatnonzero(mask)[0])
            value = None if got is None else got[row].as_py()
            raise _in_file(
                DataError(
                    reason, row=self.first + row, column=column, expected=expected, got=value
                ),
                self.file,
                self.path,
            )
        key = key or f"{reason} in {column!r}"
        self.dropped[key] = self.dropped.get(key, 0) + int(mask.sum())
        self.bad |= mask


def _in_file(err: DataError, file: str, path: Path) -> DataError:
    """``err`` naming ``file`` first, as :func:`judgebayes.core.io.in_file` words it."""
    new = DataError(f"{file}, {err}")
    new.row, new.column, new.expected, new.got = err.row, err.column, err.expected, err.got
    new.path = path  # type: ignore[attr-defined]
    return new


@dataclass(frozen=True)
class _Plan:
    """Which file columns hold what, and how the target is read."""

    model_a: str
    model_b: str
    target: str  # our name of the target
    source: str  # the file column holding it
    judge: str | None
    weight: str | None
    mapping: Mapping[Any, float] | None  # labels= or the arena winners
    expected: str = ""  # the mapped values, for an error


def _plan(
    names: list[str],
    target: str | None,
    format: str,
    columns: Mapping[str, str],
    labels: Mapping[Any, float] | None,
) -> _Plan:
    ours = {columns.get(c, c): c for c in names}  # our name -> the file's
    missing = [c for c in ("model_a", "model_b") if c not in ours]
    if format == "arena" and "winner" not in ours:
        missing.append("winner")
    if missing:
        raise DataError(
            f"missing required column(s) {missing}; columns present: {names}",
            column=missing[0],
            expected="a column naming each battle's model A and model B",
        )
    if format == "arena":
        return _Plan(
            ours["model_a"],
            ours["model_b"],
            "human_label",
            ours["winner"],
            None,
            ours.get("weight"),
            ARENA_WINNERS,
            _WINNERS,
        )
    if target is None:
        target = next((c for c in LABEL_COLUMNS if c in ours), None)
        if target is None:
            raise DataError(
                "no label column to fit: need 'judge_label' or 'human_label'", column="judge_label"
            )
    if target not in ours:
        raise DataError(
            f"this table has no {target!r} column (columns: {', '.join(names)})", column=target
        )
    norm = None
    if labels and target in LABEL_COLUMNS:
        norm = {
            (k.strip().lower() if isinstance(k, str) else k): float(v) for k, v in labels.items()
        }
    return _Plan(
        ours["model_a"],
        ours["model_b"],
        target,
        ours[target],
        ours.get("judge"),
        ours.get("weight"),
        norm,
        f"one of {list(labels or ())}",
    )


def _dataset(source: Path, dictionary: set[str] | None = None) -> ds.Dataset:
    """The Parquet dataset of a file or folder (``dictionary``: columns read as such)."""
    try:
        import pyarrow as pa
        import pyarrow.dataset as ds
    except ImportError:
        raise _in_file(
            DataError(
                "reading Parquet needs pyarrow, an optional extra: pip "
                'install "judgebayes[parquet]"'
            ),
            source.name,
            source,
        ) from None
    fmt = ds.ParquetFileFormat(  # no pre-buffering: it holds column chunks ahead of use
        read_options=ds.ParquetReadOptions(dictionary_columns=dictionary or set()),
        default_fragment_scan_options=ds.ParquetFragmentScanOptions(pre_buffer=False),
    )
    if source.is_dir() and not any(p.is_file() for p in source.rglob("*")):
        raise _in_file(
            DataError(
                f"{source} is a folder with no files",
                expected="a Parquet file or a folder of Parquet files",
            ),
            source.name,
            source,
        )
    try:
        return ds.dataset(source, format=fmt, partitioning="hive" if source.is_dir() else None)
    except (pa.ArrowException, OSError) as err:
        detail = " ".join(str(err).split())
        raise _in_file(
            DataError(
                f"cannot read it as Parquet ({detail})",
                expected="a Parquet file or a folder of them",
            ),
            source.name,
            source,
        ) from None


def _batches(
    source: Path,
    plan: _Plan,
    batch_size: int,
    progress: bool,
) -> Iterator[tuple[dict[str, pa.Array], str, Path, int]]:
    """Record batches of the needed columns, with the file (name, path) and first row."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    schema = _dataset(source).schema
    wanted = [
        c
        for c in (plan.model_a, plan.model_b, plan.source, plan.judge, plan.weight)
        if c is not None
    ]
    text = {
        c
        for c in wanted
        if pa.types.is_string(schema.field(c).type)
        or pa.types.is_large_string(schema.field(c).type)
    }
    data = _dataset(source, text)
    fragments = sorted(data.get_fragments(), key=lambda f: f.path)
    total = sum(f.metadata.num_rows for f in fragments)
    with tqdm(total=total, desc="scan", unit="row", unit_scale=True, disable=not progress) as bar:
        for fragment in fragments:
            path = Path(fragment.path)
            file = str(path.relative_to(source)) if source.is_dir() else path.name
            keys = ds.get_partition_keys(fragment.partition_expression)
            read = [c for c in dict.fromkeys(wanted) if c not in keys]
            first = 0
            try:
                for batch in fragment.to_batches(
                    schema=data.schema,
                    columns=read,
                    batch_size=batch_size,
                    batch_readahead=0,
                    fragment_readahead=0,
                    use_threads=False,
                ):
                    n = batch.num_rows
                    cols = {c: batch.column(c) for c in read}
                    for c in wanted:
                        if c in keys:  # a hive partition: one value for the whole file
                            cols[c] = pa.DictionaryArray.from_arrays(
                                np.zeros(n, dtype=np.int32), pa.array([keys[c]])
                            )
                    yield cols, file, path, first
                    first += n
                    bar.update(n)
            except (pa.ArrowException, OSError) as err:
                detail = " ".join(str(err).split())
                raise _in_file(DataError(f"cannot read it ({detail})"), file, path) from None


def scan_pairs(
    source: str | Path,
    *,
    target: str | None = None,
    format: Literal["table", "arena"] = "table",
    columns: Mapping[str, str] | None = None,
    labels: Mapping[Any, float] | None = None,
    on_invalid: OnInvalid = "raise",
    batch_size: int = 1 << 20,
    progress: bool = True,
) -> PairScan:
    """Count the battles of a Parquet file or folder per judge and ordered pair.

    Parameters
    ----------
    source
        A Parquet file, or a folder of them (read recursively; ``key=value`` folders
        are hive partitions, e.g. ``judge=gpt-4o/part-0.parquet``).
    target
        ``judge_label``, ``human_label`` or any numeric column of P(A beats B) in
        [0, 1]; default as :meth:`Battles.default_target`.
    format
        ``"table"``: the :class:`~judgebayes.core.battles.Battles` schema (after
        ``columns``); ``"arena"``: Chatbot Arena records, ``winner`` read as
        ``human_label`` as :func:`~judgebayes.core.loaders.read_arena` reads it.
    columns, labels
        ``{their_name: schema_name}`` and ``{their_value: P(A beats B)}``, as for
        :func:`~judgebayes.core.loaders.read_table`.
    on_invalid
        ``"raise"``: the first invalid row raises :class:`DataError` naming the file, the
        row within it and the column; ``"drop"``: invalid rows are counted by reason.
    batch_size
        Rows per record batch (memory ~ 30 bytes × ``batch_size``).
    progress
        Show a progress bar over rows.

    Returns
    -------
    PairScan
        ``.pair_stats()``, ``.pair_stats(judge)`` and ``.by_judge()`` give
        :class:`~judgebayes.core.pairs.PairStats`.
    """
    if on_invalid not in ("raise", "drop"):
        raise ValueError(f"on_invalid must be 'raise' or 'drop', got {on_invalid!r}")
    if format not in ("table", "arena"):
        raise ValueError(f"format must be 'table' or 'arena', got {format!r}")
    source = Path(source)
    if not source.exists():
        raise _in_file(
            DataError(
                f"no such file or folder: {source}", expected="a Parquet file or a folder of them"
            ),
            source.name,
            source,
        )
    plan = _plan(list(_dataset(source).schema.names), target, format, dict(columns or {}), labels)
    models, judges, counter = _Names(), _Names(), _Counter()
    dropped: dict[str, int] = {}
    n_input = 0
    for cols, file, path, first in _batches(source, plan, batch_size, progress):
        n_input += len(cols[plan.model_a])
        _count(
            cols,
            plan,
            _Checks(len(cols[plan.model_a]), on_invalid, file, path, first, dropped),
            models,
            judges,
            counter,
        )
    if n_input == 0:
        raise DataError("no battles: the table is empty", expected="at least one row")
    cells = counter.cells()
    if len(cells[0]) == 0:
        raise DataError(f"every row is invalid ({dropped})", expected="at least one valid row")
    model_names, model_rank = models.sorted_codes()
    judge_names, judge_rank = judges.sorted_codes()
    j, a, b, t, w, n = cells
    j = np.r_[-1, judge_rank][j]
    return PairScan(
        target=plan.target,
        models=model_names,
        judges=judge_names,
        report=DropReport(n_input, dropped),
        cells=(j, model_rank[a], model_rank[b], t, w, n),
    )


def _count(
    cols: dict[str, pa.Array],
    plan: _Plan,
    check: _Checks,
    models: _Names,
    judges: _Names,
    counter: _Counter,
) -> None:
    """Validate one batch (the in-memory checks, in their order) and count its battles."""
    raw = cols[plan.source]
    if plan.mapping is not None:  # loader-level mapping first, as read_arena / read_table
        target, missing = _mapped(raw, plan.mapping)
        arena = plan.expected == _WINNERS  # a missing winner is invalid, a missing label not
        unknown = np.isnan(target) & (~missing | arena)
        column = "winner" if arena else plan.target
        if check.on_invalid == "raise" and unknown.any():
            row = int(np.flatnonzero(unknown)[0])
            check.check(
                unknown,
                "missing label" if missing[row] else "unknown label",
                column,
                plan.expected,
                None if missing[row] else raw,
            )
        reason = "unknown winner" if arena else "unknown label"
        check.check(unknown, reason, column, "", None, key=reason)
    else:
        target, not_number = _floats(raw)
    a = models.codes(cols[plan.model_a], "model_a")
    b = models.codes(cols[plan.model_b], "model_b")
    check.check(a < 0, "missing model name", "model_a", "a model name", None)
    check.check(b < 0, "missing model name", "model_b", "a model name", None)
    check.check(
        a == b, "a model battling itself", "model_b", "two different models", cols[plan.model_a]
    )
    if plan.mapping is None:
        if plan.target in LABEL_COLUMNS:
            check.check(not_number, "not a number", plan.target, "a number", raw)
            known = np.isnan(target) | (target == 0) | (target == 0.5) | (target == 1)
            check.check(~known, "unknown label", plan.target, _LABELS, raw)
        else:
            check.check(not_number, "not a number", plan.target, "P(A beats B) in [0, 1]", raw)
    w = None
    if plan.weight is not None:
        w, not_number = _floats(cols[plan.weight])
        check.check(not_number, "not a number", "weight", "a number", cols[plan.weight])
        check.check(
            ~np.isfinite(w),
            "missing or infinite value",
            "weight",
            "a finite number",
            cols[plan.weight],
        )
        check.check(w <= 0, "non-positive weight", "weight", "a weight > 0", cols[plan.weight])
    outside = ~check.bad & ((target < 0) | (target > 1))
    if outside.any():  # as Battles.pair_stats: never dropped
        row = int(np.flatnonzero(outside)[0])
        raise _in_file(
            DataError(
                "target outside [0, 1]",
                row=check.first + row,
                column=plan.target,
                expected="P(A beats B) in [0, 1]",
                got=float(target[row]),
            ),
            check.file,
            check.path,
        )
    j = (
        judges.codes(cols[plan.judge], "judge") + 1
        if plan.judge is not None
        else np.zeros(len(a), dtype=np.int32)
    )
    if check.bad.any():
        ok = ~check.bad
        j, a, b, target, w = j[ok], a[ok], b[ok], target[ok], None if w is None else w[ok]
    if len(j):
        counter.add(j, a, b, target, w, len(judges.index) + 1, len(models.index))


def stream_pair_stats(source: str | Path, *, judge: str | None = None, **scan: Any) -> PairStats:
    """Pair statistics of a Parquet file or folder, streamed (see :func:`scan_pairs`).

    Equal to ``Battles(frame).pair_stats(target)`` on the same rows (with ``judge``:
    ``.for_judge(judge).pair_stats(target)``). ``scan`` are the keyword arguments of
    :func:`scan_pairs`; ``scan_pairs(source, **scan).by_judge()`` gives every judge's
    pair statistics from one pass.
    """
    return scan_pairs(source, **scan).pair_stats(judge)
