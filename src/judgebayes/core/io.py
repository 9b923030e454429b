"""The file-reading boundary: a path becomes a DataFrame here, or one clear :class:`DataError`.

Every loader reads its files through :func:`read_frame`, which opens, decompresses,
decodes and parses one file. Whatever goes wrong on the way (no such file, a folder,
bytes that are not UTF-8, an empty file, a CSV line with more fields than the header,
invalid JSON, a single JSON object instead of a list of records, a repeated column
header) raises a :class:`~judgebayes.errors.DataError` that names the file, the line
or record, and the expected form — never ``UnicodeDecodeError``, ``IsADirectoryError``
or a pandas parser exception. :func:`reading` gives the same guarantee around readers
that live elsewhere, and makes a ``DataError`` raised while validating a file's rows
name the file.

* **Compression** is recognised by its magic bytes: gzip, bzip2 and xz files load
  (``battles.json.gz``: the format is the suffix before ``.gz``); a zip archive is an
  error that says to unpack it.
* **Text** is UTF-8, with or without a byte-order mark (UTF-16 with a BOM is read too).
* **Names stay strings exactly as written**: ``text_columns`` (model, judge and prompt
  names) are read without type guessing, so ``007`` and ``7`` are two names and
  ``NA``, ``None``, ``null`` are names; only an empty cell (CSV) or JSON ``null`` is
  missing there. Other columns keep pandas' usual numbers and missing-value spellings.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import math
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.errors import DataError

__all__ = [
    "NA_STRINGS",
    "as_name",
    "file_format",
    "in_file",
    "peek_columns",
    "read_frame",
    "reading",
    "records_frame",
    "require_file",
]

#: pandas' default spellings of a missing value (``read_csv``'s ``na_values``), used for
#: every column that is not a name column.
NA_STRINGS = (
    "",
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)
_FORMATS = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_UNIT = {"csv": "row", "tsv": "row", "parquet": "row", "json": "record", "jsonl": "record"}
_COMPRESSED = {
    b"\x1f\x8b": ("gzip", gzip.decompress),
    b"BZh": ("bzip2", bz2.decompress),
    b"\xfd7zXZ\x00": ("xz", lzma.decompress),
}
_COMPRESSION_SUFFIXES = (".gz", ".gzip", ".bz2", ".xz")
_EXPECTED_FILE = "a .csv, .tsv, .json, .jsonl or .parquet file (optionally .gz)"
_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_SPACE = re.compile(r"\s*")


def file_format(path: str | Path, default: str | None = None) -> str:
    """``csv``, ``tsv``, ``json``, ``jsonl`` or ``parquet`` from the suffix (``.gz`` skipped).

    An unknown suffix gives ``default``; without one it is a :class:`DataError`.
    """
    path = Path(path)
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION_SUFFIXES:
        suffixes.pop()
    fmt = _FORMATS.get(suffixes[-1] if suffixes else "", default)
    if fmt is None:
        raise DataError(
            f"unknown table format {path.suffix!r} for {path}",
            expected=".csv, .tsv, .parquet, .json or .jsonl (optionally .gz)",
        )
    return fmt


def read_frame(
    path: str | Path, *, text_columns: Iterable[str] | bool = (), default: str | None = None
) -> pd.DataFrame:
    """One file as a DataFrame; every failure is a :class:`DataError` naming the file.

    Parameters
    ----------
    path
        A ``.csv``/``.txt``, ``.tsv``, ``.json`` (a list of records, or JSON lines),
        ``.jsonl`` or ``.parquet`` file, optionally gzip/bzip2/xz-compressed.
    text_columns
        Columns read as strings exactly as written (names); ``True``: every column.
        A JSON number there becomes its text (``7`` → ``"7"``).
    default
        The format of a file whose suffix says none (``"json"``, ``"csv"``), else an
        unknown suffix is an error.
    """
    path = Path(path)
    require_file(path)
    fmt = file_format(path, default)
    with reading(path, unit=_UNIT[fmt]):
        if fmt == "parquet":
            return _parquet(path, text_columns)
        text = _decode(_read_bytes(path), path)
        if not text or text.isspace():
            raise _located(f"{path.name} is empty", path, expected=_expected(fmt))
        if fmt in ("csv", "tsv"):
            return _csv(text, path, sep="\t" if fmt == "tsv" else ",", text_columns=text_columns)
        return records_frame(_json_records(text, path, lines=fmt == "jsonl"), text_columns)


def peek_columns(path: str | Path, default: str | None = "json") -> tuple[str, ...]:
    """The column names of a table file: a CSV header, the keys of the first JSON record.

    Reads no more rows than it needs (the file is still decompressed whole); for
    choosing a reader by content (``--format auto``). An empty tuple when the file
    holds no record; every failure is a :class:`DataError` naming the file.
    """
    path = Path(path)
    require_file(path)
    fmt = file_format(path, default)
    with reading(path, unit=_UNIT[fmt]):
        if fmt == "parquet":
            return tuple(_parquet(path, ()).columns)
        text = _decode(_read_bytes(path), path)
        if not text or text.isspace():
            raise _located(f"{path.name} is empty", path, expected=_expected(fmt))
        if fmt in ("csv", "tsv"):
            first = next(iter(text.splitlines()), "")
            return tuple(next(csv.reader([first], delimiter="\t" if fmt == "tsv" else ",")))
        start = _SPACE.match(text).end()  # type: ignore[union-attr]
        if text[start : start + 1] == "[":  # a JSON list: its first element
            start = _SPACE.match(text, start + 1).end()  # type: ignore[union-attr]
            if text[start : start + 1] == "]":
                return ()
        try:
            first, _ = json.JSONDecoder().raw_decode(text, start)
        except json.JSONDecodeError as err:
            raise _located(
                f"{path.name}, line {err.lineno}: invalid JSON ({err.msg})",
                path,
                expected=_expected("json"),
            ) from None
        return tuple(first) if isinstance(first, dict) else ()


@contextmanager
def reading(path: str | Path, *, unit: str = "row") -> Iterator[None]:
    """Errors raised inside name ``path``; foreign reading errors become :class:`DataError`.

    A ``DataError`` that names no file is re-raised naming it (its row as ``unit``:
    ``"row"`` or ``"record"``); ``UnicodeDecodeError``, pandas' parser errors,
    ``OSError`` (a folder, a missing file), ``ValueError`` and ``TypeError`` become a
    one-line ``DataError``. Use it around readers that do not read through
    :func:`read_frame`.
    """
    path = Path(path)
    try:
        yield
    except DataError as err:
        raise in_file(err, path, unit=unit) from None
    except UnicodeDecodeError as err:
        raise _located(
            f"{path.name}: not UTF-8 text ({err.reason} at byte {err.start})",
            path,
            expected="UTF-8 text; re-save the file as UTF-8",
        ) from None
    except pd.errors.EmptyDataError:
        raise _located(f"{path.name} is empty", path, expected="a header line and rows") from None
    except FileNotFoundError:
        raise _located(f"no such file: {path}", path, expected=_EXPECTED_FILE) from None
    except IsADirectoryError:
        raise _located(f"{path} is a folder", path, expected=_EXPECTED_FILE) from None
    except (OSError, ValueError, TypeError) as err:
        detail = " ".join(str(err).split()) or type(err).__name__
        raise _located(f"{path.name}: cannot read it ({detail})", path) from None


def records_frame(
    records: Sequence[Mapping[str, Any]], text_columns: Iterable[str] | bool = ()
) -> pd.DataFrame:
    """A DataFrame of records (dicts); ``text_columns`` become names exactly as written."""
    for k, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise DataError(
                f"a {type(record).__name__} where a record belongs",
                row=k,
                expected='a JSON object (a record) such as {"model_a": ...}',
            )
    frame = pd.DataFrame(list(records))
    for col in _present(frame, text_columns):
        values = frame[col]
        if isinstance(values.dtype, pd.StringDtype) or (
            values.dtype == object and all(isinstance(v, str) for v in values.dropna())
        ):
            continue  # strings (and missing values) already
        frame[col] = pd.Series(
            [as_name(r.get(col), k, col) for k, r in enumerate(records)], dtype=object
        )  # numbers as written: 7 -> "7", not 7.0
    return frame


def _present(frame: pd.DataFrame, text_columns: Iterable[str] | bool) -> list[str]:
    if text_columns is True:
        return list(frame.columns)
    return [c for c in (text_columns or ()) if c in frame.columns]


def in_file(
    err: DataError,
    path: str | Path,
    *,
    unit: str = "row",
    first_row: int = 0,
) -> DataError:
    """``err`` naming the file first: ``"f.json, record 4, column 'winner': ..."``.

    ``first_row`` is the file's first row in a table joined from several files: the
    error's row becomes the row within the file. An error that names a file already
    is returned as it is.
    """
    if getattr(err, "path", None) is not None:
        return err
    if first_row == 0 and Path(path).name in str(err):  # names the file already
        err.path = Path(path)  # type: ignore[attr-defined]
        return err
    column = [] if err.column is None else [f"column {err.column!r}"]
    row = [] if err.row is None else [f"row {err.row}"]
    text = str(err)
    prefix = ", ".join(row + column) + ": "
    if text.startswith(prefix):
        text = text[len(prefix) :]
    local = None if err.row is None else err.row - first_row
    where = [Path(path).name, *(f"{unit} {local}" for _ in row), *column]
    new = _located(", ".join(where) + ": " + text, Path(path))
    new.row, new.column, new.expected, new.got = local, err.column, err.expected, err.got
    return new


def require_file(path: str | Path) -> None:
    """A :class:`DataError` unless ``path`` is an existing file (not a folder)."""
    path = Path(path)
    if not path.exists():
        raise _located(f"no such file: {path}", path, expected=_EXPECTED_FILE)
    if path.is_dir():
        raise _located(f"{path} is a folder", path, expected=_EXPECTED_FILE)


# ------------------------------------------------------------------- helpers
def _located(message: str, path: Path, **kwargs: Any) -> DataError:
    err = DataError(message, **kwargs)
    err.path = path  # type: ignore[attr-defined]
    return err


def _read_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    for magic, (name, decompress) in _COMPRESSED.items():
        if data.startswith(magic):
            try:
                return decompress(data)
            except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error) as err:
                raise _located(
                    f"{path.name}: truncated or corrupt {name} file ({err})",
                    path,
                    expected=f"a complete {name} file",
                ) from None
    if data.startswith(b"PK\x03\x04"):
        raise _located(
            f"{path.name} is a zip archive",
            path,
            expected="the file inside it (unzip it first), or a .gz file",
        )
    return data


def _decode(data: bytes, path: Path) -> str:
    if data.startswith(b"PAR1"):
        raise _located(f"{path.name} is a Parquet file", path, expected="the suffix .parquet")
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise _located(
            f"{path.name}, line {line}: not UTF-8 text (byte 0x{data[err.start]:02x})",
            path,
            expected="UTF-8 text; re-save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)",
        ) from None


def _expected(fmt: str) -> str:
    if fmt in ("csv", "tsv"):
        return "a header line and rows"
    return "a JSON list of records [{...}, ...] or JSON lines (one object per line)"


def _csv(
    text: str,
    path: Path,
    *,
    sep: str,
    text_columns: Iterable[str] | bool,
) -> pd.DataFrame:
    try:
        # the header and the first row alone: a first row longer than the header would
        # otherwise become an index column (or be cut, with index_col=False) silently
        header = (
            pd.read_csv(
                io.StringIO(text), sep=sep, header=None, nrows=2, dtype=str, keep_default_na=False
            )
            .iloc[0]
            .tolist()
        )
        seen: set[str] = set()
        for name in header:
            if name in seen:
                raise _located(
                    f"{path.name}, line 1: the column {name!r} appears "
                    f"{header.count(name)} times in the header",
                    path,
                    expected="each column name once",
                )
            seen.add(name)
        names = set(header) if text_columns is True else set(text_columns or ()) & seen
        return pd.read_csv(
            io.StringIO(text),
            sep=sep,
            dtype=dict.fromkeys(names, str),
            index_col=False,
            keep_default_na=False,
            na_values={c: [""] if c in names else list(NA_STRINGS) for c in header},
        )
    except pd.errors.ParserError as err:
        message = " ".join(str(err).split())
        if m := _FIELDS.search(message):
            n_header, line, n_seen = m.groups()
            raise _located(
                f"{path.name}, line {line}: {n_seen} fields, but the header has {n_header}",
                path,
                expected=f"one value per header column; quote values that contain {sep!r}",
            ) from None
        raise _located(
            f"{path.name}: cannot parse it as a table "
            f"({message.removeprefix('Error tokenizing data. ')})",
            path,
            expected="comma-separated values with a header line",
        ) from None


def _json_records(text: str, path: Path, *, lines: bool) -> list[Any]:
    """Records of a JSON list, a JSON-lines text, or an object of columns."""
    start = _SPACE.match(text).end()  # type: ignore[union-attr]
    first = text[start : start + 1]
    if not lines:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as err:
            if not (first == "{" and err.msg == "Extra data"):  # JSON lines in a .json file
                raise _located(
                    f"{path.name}, line {err.lineno}, column {err.colno}: invalid JSON ({err.msg})",
                    path,
                    expected=_expected("json"),
                ) from None
        else:
            return _document_records(doc, path)
    text_lines = text.splitlines()
    kept = [line for line in text_lines if line.strip()]
    try:  # one parse of all lines in C; a bad line is located line by line below
        records = json.loads("[" + ",".join(kept) + "]")
    except json.JSONDecodeError:
        records = None
    if (
        isinstance(records, list)
        and len(records) == len(kept)
        and all(isinstance(r, dict) for r in records)
    ):
        return records
    records = []
    for line_no, line in enumerate(text_lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise _located(
                f"{path.name}, line {line_no}: invalid JSON ({err.msg})",
                path,
                expected="one JSON object per line",
            ) from None
        if not isinstance(records[-1], dict):
            raise _located(
                f"{path.name}, line {line_no}: a JSON {type(records[-1]).__name__}, not an object",
                path,
                expected="one JSON object (a record) per line",
            )
    return records


def _document_records(doc: Any, path: Path) -> list[Any]:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict) and doc and all(isinstance(v, list) for v in doc.values()):
        lengths = {len(v) for v in doc.values()}
        if len(lengths) == 1:  # an object of equal-length columns (pandas' orient="list")
            n = lengths.pop()
            return [{k: v[i] for k, v in doc.items()} for i in range(n)]
    what = "a single JSON object" if isinstance(doc, dict) else f"a JSON {type(doc).__name__}"
    keys = f" (keys {list(doc)[:5]})" if isinstance(doc, dict) else ""
    raise _located(
        f"{path.name} holds {what}{keys}, not a list of records",
        path,
        expected="a JSON list of records [{...}, ...], or JSON lines (.jsonl, one object per line)",
    )


def as_name(value: Any, row: int, column: str) -> str | None:
    """A name as written: strings kept, JSON numbers as their text, null missing.

    A model or judge name read from JSON or a typed column may be a number (``7``,
    ``2.5``) or a boolean; it becomes the text JSON writes for it, so the same name
    reads the same from every format.

    Parameters
    ----------
    value
        The cell's value.
    row, column
        Where it was read (for the error).

    Returns
    -------
    str or None
        The name; ``None`` for a missing one (``None`` or NaN).

    Raises
    ------
    DataError
        When the value is neither a string, a number nor missing (a list, a mapping...).
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    raise DataError(
        f"a name is a {type(value).__name__}",
        row=row,
        column=column,
        got=value,
        expected="a string (or a number)",
    )


def _parquet(path: Path, text_columns: Iterable[str] | bool) -> pd.DataFrame:
    """Read a (possibly compressed) Parquet file with pandas' engine.

    The engine, pyarrow, is the optional extra ``judgebayes[parquet]``; without it (and
    without fastparquet) a one-line :class:`DataError` says what to install.
    """
    with path.open("rb") as file:
        plain = file.read(4) == b"PAR1"
    data = b"" if plain else _read_bytes(path)  # compressed: unpack in memory
    if not plain and not data.startswith(b"PAR1"):
        raise _located(
            f"{path.name} is not a Parquet file",
            path,
            expected="a Parquet file, or the suffix of its real format",
        )
    try:
        frame = pd.read_parquet(path if plain else io.BytesIO(data))
    except ImportError:  # pandas found no Parquet engine
        raise _located(
            f"{path.name}: reading Parquet needs pyarrow, an optional extra: "
            'pip install "judgebayes[parquet]" (or save the table as CSV)',
            path,
        ) from None
    for col in _present(frame, text_columns):
        if frame[col].dtype.kind in "biuf":
            frame[col] = [
                as_name(v.item() if hasattr(v, "item") else v, k, col)
                for k, v in enumerate(frame[col].to_numpy())
            ]
    return frame


def json_ready(value: Any, path: str = "", reasons: dict[str, str] | None = None) -> Any:
    """``value`` with NumPy scalars as Python numbers and non-finite floats as ``None``.

    Each replaced float is recorded in ``reasons`` under its dotted path (``"unbounded"``
    for ±inf, ``"not computed"`` for NaN), so nothing is lost silently.
    """
    reasons = {} if reasons is None else reasons
    if isinstance(value, Mapping):
        return {
            k: json_ready(v, f"{path}.{k}" if path else str(k), reasons) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [json_ready(v, f"{path}[{i}]", reasons) for i, v in enumerate(value)]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist(), path, reasons)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        reasons[path] = "unbounded" if np.isinf(value) else "not computed"
        return None
    return value


def write_json(path: str | Path, data: Mapping[str, Any]) -> Path:
    """Write ``data`` as strict JSON (no ``Infinity``/``NaN`` tokens).

    Non-finite numbers become ``null`` and a top-level ``"null_reasons"`` maps each of
    them to why it is missing.
    """
    reasons: dict[str, str] = {}
    clean = json_ready(dict(data), reasons=reasons)
    if reasons:
        clean["null_reasons"] = reasons
    path = Path(path)
    path.write_text(json.dumps(clean, indent=2, allow_nan=False, default=str) + "\n")
    return path
