"""Bad input never ends in a traceback (GitHub issue "Hardening").

* every CLI verb exits 2 with one line on stderr naming the file and what was expected;
* argument values are checked by the parser, the same way in every verb;
* the loaders raise :class:`judgebayes.DataError` (never ``UnicodeDecodeError``,
  ``IsADirectoryError`` or a pandas exception);
* names stay strings exactly as written; a repeated header is an error; BOM'd and
  gzip'd files load; errors in a folder of files name the file and its record;
* subsets report their own rows.

All inputs are tiny files written to ``tmp_path``.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.cli import main

# ----------------------------------------------------------------- tiny valid inputs
ARENA = [
    {"model_a": a, "model_b": b, "winner": w}
    for a, b, w in [
        ("a", "b", "model_a"),
        ("b", "c", "model_a"),
        ("c", "a", "model_a"),
        ("a", "b", "tie"),
        ("b", "c", "model_b"),
    ]
]
TABLE = [
    {"model_a": a, "model_b": b, "judge_label": y}
    for a, b, y in [("a", "b", 1), ("b", "c", 1), ("c", "a", 1), ("a", "b", 0), ("b", "c", 0.5)]
]
SOFT = [
    {
        "model_a": a,
        "model_b": b,
        "human_pref": k % 2,
        "judge_pref": (k + 1) % 2,
        "scores_a": json.dumps({"x": k}),
        "scores_b": json.dumps({"x": 5 - k}),
    }
    for k, (a, b) in enumerate([("a", "b"), ("b", "c"), ("c", "a"), ("a", "b")])
]
CONTEST = [
    {"first": a, "second": b, "question": str(k), "winner": w}
    for k, (a, b, w) in enumerate(
        [("a", "b", "a"), ("b", "a", "a"), ("b", "c", "Tie"), ("c", "b", "c")]
    )
]
ITEMS = [
    {"model": m, "item_id": i, "judge_label": (i + k) % 2, "human_label": i % 2 if i < 3 else None}
    for k, m in enumerate("mn")
    for i in range(6)
]

# the judge tools' formats (tests/test_tool_formats.py cites where each comes from)
ARENA_HARD = [
    {"question_id": f"q{k}", "model": m, "judge": "j", "games": [{"score": s1}, {"score": s2}]}
    for k, (m, s1, s2) in enumerate(
        [("m1", "A>B", "A>>B"), ("m2", "B>A", "A=B"), ("m1", "B>>A", "A<B"), ("m2", "A=B", "B>A")]
    )
]
GRADES = [
    {"question_id": f"q{k // 3}", "model": "abc"[k % 3], "score": s}
    for k, s in enumerate([8, 6, 8, 3, 5, 9, 7, 7, 2])
]
ALPACA = [
    {"instruction": f"i{k}", "generator_1": "base", "generator_2": m, "preference": p}
    for k, (m, p) in enumerate([("m1", 1.0), ("m2", 2.0), ("m1", 1.5), ("m2", 1.8), ("m1", 2.0)])
]
PREVALENCE = [
    {
        "id": f"{o}{k}",
        "model_a": "x" if k % 2 else o,
        "model_b": o if k % 2 else "x",
        "human_winner": "model_a" if k % 3 else "model_b",
        "judge_pick": "A" if k % 4 else "B",
    }
    for o in ("y", "z")
    for k in range(12)
]
RANKED = [
    {"model_a": a, "model_b": b, "judge_label": y, "human_label": h}
    for a, b, y, h in [
        ("a", "b", 1, 1),
        ("b", "c", 1, None),
        ("c", "a", 0.5, 0.5),
        ("a", "b", 0, None),
        ("b", "c", 0, 0),
        ("c", "a", 1, None),
        ("a", "c", 1, 1),
    ]
]

# verb -> (argv after the file, the verb's records, their label field, native suffix)
VERBS: dict[str, tuple[list[str], list[dict], str, str]] = {
    "elo-arena": (
        ["elo", "--format", "arena", "--n-boot", "20", "--no-progress"],
        ARENA,
        "winner",
        ".json",
    ),
    "elo-csv": (
        ["elo", "--format", "csv", "--n-boot", "20", "--no-progress"],
        TABLE,
        "judge_label",
        ".csv",
    ),
    "softelo": (
        ["softelo", "--format", "softelo", "--n-boot", "2", "--no-progress"],
        SOFT,
        "judge_pref",
        ".csv",
    ),
    "consistency": (["consistency"], CONTEST, "winner", ".json"),
    "audit": (
        ["audit", "--no-progress", "--no-budget", "--out", "{tmp}"],
        TABLE,
        "judge_label",
        ".csv",
    ),
    "rank": (["rank", "--format", "csv", "--no-progress"], RANKED, "judge_label", ".csv"),
    "calibrate": (["calibrate", "--n-boot", "100", "--no-progress"], ITEMS, "judge_label", ".csv"),
    "elo-arena-hard": (
        ["elo", "--format", "arena-hard", "--baseline", "base", "--n-boot", "20", "--no-progress"],
        ARENA_HARD,
        "games",
        ".json",
    ),
    "elo-grades": (
        ["elo", "--format", "grades", "--n-boot", "20", "--no-progress"],
        GRADES,
        "score",
        ".json",
    ),
    "elo-alpaca-eval": (
        ["elo", "--format", "alpaca-eval", "--n-boot", "20", "--no-progress"],
        ALPACA,
        "preference",
        ".json",
    ),
    "calibrate-prevalence": (
        ["calibrate", "--format", "prevalence", "--n-boot", "100", "--no-progress"],
        PREVALENCE,
        "judge_pick",
        ".json",
    ),
    "anchors-arena-hard": (
        ["anchors", "--format", "arena-hard", "--baseline", "base"],
        ARENA_HARD,
        "games",
        ".json",
    ),
    "anchors-grades": (["anchors", "--format", "grades"], GRADES, "score", ".json"),
}


def _csv(records: list[dict]) -> str:
    return pd.DataFrame(records).to_csv(index=False)


def _text(records: list[dict], suffix: str) -> str:
    return _csv(records) if suffix == ".csv" else json.dumps(records, ensure_ascii=False)


def _named(records: list[dict], name: str) -> list[dict]:
    """The records with the first model name replaced by ``name``."""
    key = next(k for k in ("model_a", "first", "model", "generator_1") if k in records[0])
    return [{**records[0], key: name}, *records[1:]]


# ------------------------------------------------------------------- bad inputs
# case -> writer(folder, records, label field, suffix) returning the path given to the CLI
Writer = Callable[[Path, list[dict], str, str], Path]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _gzip(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(d / f"j_contest_data{suffix}.gz", gzip.compress(_text(recs, suffix).encode()))


def _latin1(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(
        d / f"j_contest_data{suffix}", _text(_named(recs, "café"), suffix).encode("latin-1")
    )


def _empty(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(d / f"j_contest_data{suffix}", b"")


def _comma(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    lines = _csv(recs).splitlines()
    lines[1] = "gpt-4, turbo," + lines[1].split(",", 1)[1]  # an unquoted comma in a name
    return _write(d / "battles.csv", ("\n".join(lines) + "\n").encode())


def _one_jsonl(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(d / "one.jsonl", (json.dumps(recs[0]) + "\n").encode())


def _one_object(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(d / "j_contest_data.json", json.dumps(recs[0]).encode())


def _null_label(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(
        d / "j_contest_data.json", json.dumps([{**r, label: None} for r in recs]).encode()
    )


def _folder(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    (d / "battles").mkdir()
    return d / "battles"


def _missing(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return d / f"missing{suffix}"


def _bom(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(d / f"j_contest_data{suffix}", b"\xef\xbb\xbf" + _text(recs, suffix).encode())


def _dup_header(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    lines = _csv(recs).splitlines()
    lines = [
        lines[0] + "," + lines[0].split(",")[0],
        *(line + "," + line.split(",")[0] for line in lines[1:]),
    ]
    return _write(d / "battles.csv", ("\n".join(lines) + "\n").encode())


def _truncated_json(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(d / "j_contest_data.json", json.dumps(recs, indent=1)[:-20].encode())


def _zip(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"battles{suffix}", _text(recs, suffix))
    return _write(d / f"j_contest_data{suffix}", buffer.getvalue())


def _corrupt_gzip(d: Path, recs: list[dict], label: str, suffix: str) -> Path:
    return _write(
        d / f"j_contest_data{suffix}.gz", gzip.compress(_text(recs, suffix).encode())[:-12]
    )


# case -> (writer, what stderr must contain; None: the file is fine and must load)
CASES: dict[str, tuple[Writer, str | None]] = {
    "gzip": (_gzip, None),
    "bom": (_bom, None),
    "one-record-jsonl": (_one_jsonl, None),
    "latin-1": (_latin1, "UTF-8"),
    "empty": (_empty, "empty"),
    "unquoted-comma": (_comma, "line 2"),
    "single-object": (_one_object, "single JSON object"),
    "null-label": (_null_label, "record 0"),
    "folder": (_folder, "folder"),
    "missing": (_missing, "no such file"),
    "duplicate-header": (_dup_header, "appears 2 times"),
    "truncated-json": (_truncated_json, "invalid JSON"),
    "zip": (_zip, "zip archive"),
    "corrupt-gzip": (_corrupt_gzip, "corrupt gzip"),
}
# Judged items are one row per (model, item): a single record or a missing label is a
# well-read file that `calibrate` then rejects for its content, in one line.
CALIBRATE_OWN = {"one-record-jsonl", "null-label"}
# A folder is what `consistency` reads: an empty one has no contest files.
EXPECTED = {
    ("consistency", "folder"): "holds no .json, .jsonl or .csv file",
    ("elo-csv", "null-label"): "no battle has a judge_label",
    ("audit", "null-label"): "the battles carry no judge_label",
    # the tools' formats: a folder is where their files live; null labels are missing
    # values, counted, until nothing is left to fit
    **{
        (verb, "folder"): "holds no .jsonl"
        for verb in ("elo-arena-hard", "elo-grades", "anchors-arena-hard", "anchors-grades")
    },
    ("calibrate-prevalence", "folder"): "holds no .json files",
    ("elo-arena-hard", "null-label"): "games is not a list",
    ("anchors-arena-hard", "null-label"): "games is not a list",
    ("elo-grades", "null-label"): "no prompt has grades of two models",
    ("anchors-grades", "null-label"): "no prompt has grades of two models",
    ("elo-alpaca-eval", "null-label"): "no battle has a judge_label",
    ("calibrate-prevalence", "null-label"): "no judged items",
    # every judge verdict null: no battle a judge judged
    ("rank", "null-label"): "needs human-labelled battles judged by",
}


def _options(args: list[str], tmp_path: Path) -> list[str]:
    """A verb's options, its output folder (``{tmp}``) inside the test's folder."""
    return [a.replace("{tmp}", str(tmp_path / "out")) for a in args]


def _run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_exits_2_with_one_line_on_bad_input(
    verb: str, case: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    args, records, label, suffix = VERBS[verb]
    writer, needle = CASES[case]
    path = writer(tmp_path, records, label, suffix)
    code, err = _run([args[0], str(path), *_options(args[1:], tmp_path)], capsys)
    assert "Traceback" not in err
    if needle is None or (verb == "calibrate" and case in CALIBRATE_OWN):
        # a good file loads: the verb runs, or stops with one line that is not about reading
        assert code in (0, 2), err
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("judgebayes: error: "), err
            if not verb.startswith("calibrate"):
                assert not any(w in err for w in ("UTF-8", "gzip", "JSON", "empty")), err
        return
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("judgebayes: error: "), err
    assert EXPECTED.get((verb, case), needle) in err
    if case not in ("missing", "folder"):
        assert path.name in err  # the file is named


@pytest.mark.parametrize("verb", ["elo-arena", "elo-csv", "consistency"])
@pytest.mark.parametrize("case", ["gzip", "bom"])
def test_gzip_and_bom_files_run(
    verb: str, case: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    args, records, label, suffix = VERBS[verb]
    path = CASES[case][0](tmp_path, records, label, suffix)
    code, err = _run([args[0], str(path), *_options(args[1:], tmp_path)], capsys)
    assert code == 0, err


def test_consistency_side_files_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    contests = _write(tmp_path / "j_contest_data.json", json.dumps(CONTEST).encode())
    elo = _write(tmp_path / "elo.csv", "judge,arena_elo\nj,1200\ncafé,1100\n".encode("latin-1"))
    code, err = _run(["consistency", str(contests), "--judge-elo", str(elo)], capsys)
    assert code == 2 and err.count("\n") == 1 and "elo.csv" in err and "UTF-8" in err
    code, err = _run(["consistency", str(contests), "--judge-elo", str(tmp_path)], capsys)
    assert code == 2 and "folder" in err
    matchups = _write(tmp_path / "pairs.csv", b"")
    code, err = _run(["consistency", str(contests), "--matchups", str(matchups)], capsys)
    assert code == 2 and err.count("\n") == 1 and "pairs.csv is empty" in err


def test_the_installed_command_prints_one_line(tmp_path: Path) -> None:
    path = _latin1(tmp_path, ARENA, "winner", ".json")
    out = subprocess.run(
        [sys.executable, "-m", "judgebayes.cli", "elo", str(path), "--format", "arena"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "j_contest_data.json, line 1: not UTF-8 text" in out.stderr


# ------------------------------------------------------------- argument values
ARGS = {
    "demo": ["demo", "--no-progress"],
    "elo": ["elo", "x.csv", "--format", "csv"],
    "softelo": ["softelo", "x.csv", "--format", "softelo"],
    "calibrate": ["calibrate", "x.csv"],
    "rank": ["rank", "x.csv"],
}


@pytest.mark.parametrize(
    ("verb", "option", "value"),
    [
        *(
            (v, "--n-boot", x)
            for v in ("demo", "elo", "softelo", "calibrate")
            for x in ("1", "-2", "ten")
        ),
        *(
            (v, "--alpha", x)
            for v in ("elo", "softelo", "calibrate")
            for x in ("0", "1", "1.5", "nan")
        ),
        *((v, "--lam", x) for v in ("elo", "softelo") for x in ("-1", "inf")),
        *((v, "--seed", "-1") for v in ("demo", "elo", "softelo", "calibrate", "rank")),
        *(("rank", "--alpha", x) for x in ("0", "1.5")),
        *(("rank", "--judge", x) for x in ("gpt-4", "=f.json", "gpt-4=")),
        ("calibrate", "--n-splits", "0"),
        ("calibrate", "--n-boot", "99"),
        ("calibrate", "--calibration-size", "1.5"),
        ("calibrate", "--calibration-size", "0"),
        ("softelo", "--splits", "0"),
        ("softelo", "--smoothing", "1.5"),
        ("demo", "--models", "1"),
        ("demo", "--models", "-3"),
        ("demo", "--battles", "0"),
        *((v, "--map", x) for v in ("elo", "calibrate") for x in ("left", "=model_a", "left=")),
        *((v, "--label", x) for v in ("elo", "softelo") for x in ("A", "A=win", "A=2", "A=-1")),
    ],
)
def test_argument_values_are_checked_by_the_parser(
    verb: str, option: str, value: str, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*ARGS[verb], option, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: judgebayes") and "Traceback" not in err
    assert f"error: argument {option}: expected " in err.splitlines()[-1]
    assert repr(value) in err


# ---------------------------------------------------------------------- loaders
LOADERS = {
    "read_arena": (jb.read_arena, ARENA, "winner", ".json"),
    "read_table": (jb.read_table, TABLE, "judge_label", ".csv"),
    "read_softelo": (jb.read_softelo, SOFT, "judge_pref", ".csv"),
    "read_consistency": (jb.read_consistency, CONTEST, "winner", ".json"),
    "read_battles": (lambda p: jb.read_battles(p, "arena"), ARENA, "winner", ".json"),
    "read_judged_items": (jb.read_judged_items, ITEMS, "judge_label", ".csv"),
}
BAD = [
    "latin-1",
    "empty",
    "unquoted-comma",
    "single-object",
    "folder",
    "missing",
    "duplicate-header",
    "truncated-json",
    "zip",
    "corrupt-gzip",
]


@pytest.mark.parametrize("case", BAD)
@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_loaders_raise_data_error(loader: str, case: str, tmp_path: Path) -> None:
    read, records, label, suffix = LOADERS[loader]
    path = CASES[case][0](tmp_path, records, label, suffix)
    with pytest.raises(jb.DataError) as err:
        read(path)
    assert type(err.value) is jb.DataError and "\n" not in str(err.value)
    needle = "no *.json" if (loader, case) == ("read_consistency", "folder") else CASES[case][1]
    assert needle in str(err.value)


@pytest.mark.parametrize("loader", ["read_arena", "read_consistency"])
def test_a_null_winner_names_the_record(loader: str, tmp_path: Path) -> None:
    read, records, label, _ = LOADERS[loader]
    path = _write(
        tmp_path / "j_contest_data.json",
        json.dumps([*records[:2], {**records[2], label: None}]).encode(),
    )
    with pytest.raises(
        jb.DataError,
        match=r"^j_contest_data.json, record 2, column 'winner': "
        r"missing",
    ) as err:
        read(path)
    assert err.value.row == 2 and err.value.column == "winner"


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("case", ["gzip", "bom"])
def test_gzip_and_bom_load_like_the_plain_file(loader: str, case: str, tmp_path: Path) -> None:
    read, records, label, suffix = LOADERS[loader]
    plain = read(_write(tmp_path / f"plain_contest_data{suffix}", _text(records, suffix).encode()))
    other = read(CASES[case][0](tmp_path, records, label, suffix))
    pd.testing.assert_frame_equal(
        other.frame.drop(columns="judge", errors="ignore"),
        plain.frame.drop(columns="judge", errors="ignore"),
    )


def test_one_record_jsonl_and_column_objects_load(tmp_path: Path) -> None:
    assert len(jb.read_arena(_one_jsonl(tmp_path, ARENA, "winner", ".json"))) == 1
    columns = {k: [r[k] for r in ARENA] for k in ARENA[0]}
    assert len(jb.read_arena(_write(tmp_path / "c.json", json.dumps(columns).encode()))) == 5
    # a .json file that holds JSON lines is read as JSON lines
    lines = "\n".join(json.dumps(r) for r in ARENA)
    assert len(jb.read_arena(_write(tmp_path / "l.json", lines.encode()))) == 5


def test_loaders_read_by_suffix(tmp_path: Path) -> None:
    """An arena CSV, a Soft-Elo JSON and a gzip'd table all load."""
    arena = jb.read_arena(_write(tmp_path / "a.csv", _csv(ARENA).encode()))
    assert arena.column("human_label").tolist() == [1.0, 1.0, 1.0, 0.5, 0.0]
    soft = jb.read_softelo(_write(tmp_path / "s.json", json.dumps(SOFT).encode()))
    assert soft.column("judge_label").tolist() == [0.0, 1.0, 0.0, 1.0]
    table = jb.read_table(_write(tmp_path / "t.json.gz", gzip.compress(json.dumps(TABLE).encode())))
    assert table.column("judge_label").tolist() == [1.0, 1.0, 1.0, 0.0, 0.5]


# ------------------------------------------------------------------------ names
NAMES = ["007", "7", "NA", "None", "null", "nan", "1.0"]


def _name_rows() -> list[dict]:
    return [
        {"model_a": a, "model_b": b, "judge": j, "judge_label": 1}
        for a, b, j in zip(NAMES, NAMES[1:] + NAMES[:1], NAMES[::-1], strict=True)
    ]


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".json", ".jsonl", ".parquet"])
def test_names_are_strings_exactly_as_written(suffix: str, tmp_path: Path) -> None:
    frame = pd.DataFrame(_name_rows())
    path = tmp_path / f"names{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(path)
    elif suffix in (".csv", ".tsv"):
        frame.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")
    else:
        frame.to_json(path, orient="records", lines=suffix == ".jsonl")
    b = jb.read_table(path)
    assert b.models == tuple(sorted(NAMES)) and b.judges == tuple(sorted(NAMES))
    assert b.frame["model_a"].tolist() == NAMES


def test_missing_cells_stay_missing_outside_name_columns(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.csv",
        b"model_a,model_b,judge_label,human_label\n007,7,1,NA\n7,NA,,0\nNA,007,0.5,\n",
    )
    b = jb.read_table(path)
    assert b.models == ("007", "7", "NA")
    np.testing.assert_array_equal(b.column("judge_label"), [1.0, np.nan, 0.5])
    np.testing.assert_array_equal(b.column("human_label"), [np.nan, 0.0, np.nan])
    with pytest.raises(jb.DataError, match=r"t2.csv, row 0, column 'model_b': missing model"):
        jb.read_table(_write(tmp_path / "t2.csv", b"model_a,model_b\n007,\n"))


def test_mapped_name_columns_and_arena_and_softelo_keep_names(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.csv", b"left,right,verdict\n007,7,A\n7,None,B\n")
    b = jb.read_table(
        path,
        columns={"left": "model_a", "right": "model_b", "verdict": "judge_label"},
        labels={"A": 1, "B": 0},
    )
    assert b.models == ("007", "7", "None")
    arena = jb.read_arena(_write(tmp_path / "a.csv", b"model_a,model_b,winner\n007,7,tie\n"))
    assert arena.models == ("007", "7")
    soft = pd.DataFrame(SOFT).assign(model_a=["007", "7", "null", "007"])
    soft.to_csv(tmp_path / "s.csv", index=False)
    assert set(jb.read_softelo(tmp_path / "s.csv").models) == {"007", "7", "null", "a", "b", "c"}


def test_numeric_names_in_contest_json_are_strings(tmp_path: Path) -> None:
    records = [
        {"first": 7, "second": "007", "question": 1, "winner": 7},
        {"first": "007", "second": 7, "question": 2, "winner": "Tie"},
        {"first": 7.5, "second": 7, "question": 3, "winner": 7},
    ]
    b = jb.read_consistency(_write(tmp_path / "j_contest_data.json", json.dumps(records).encode()))
    assert b.models == ("007", "7", "7.5")
    assert b.column("judge_label").tolist() == [1.0, 0.5, 0.0]
    assert b.column("prompt_id").tolist() == ["1", "2", "3"]


def test_a_repeated_column_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.csv", b"model_a,model_b,model_a,judge_label\na,b,c,1\n")
    with pytest.raises(jb.DataError, match=r"t\.csv, line 1: the column 'model_a' appears 2 times"):
        jb.read_table(path)
    frame = pd.DataFrame([["a", "b", "c"]], columns=["model_a", "model_b", "model_b"])
    with pytest.raises(jb.DataError, match="'model_b' appears more than once"):
        jb.Battles(frame)
    renamed = pd.DataFrame({"left": ["a"], "model_a": ["x"], "model_b": ["b"]})
    with pytest.raises(jb.DataError, match="'model_a' appears more than once"):
        jb.read_table(renamed, columns={"left": "model_a"})


# ------------------------------------------------------------------- many files
def test_errors_in_a_folder_name_the_file_and_its_record(
    consistency_dir: Path, tmp_path: Path
) -> None:
    names = ["chatgpt-4o-latest_contest_data.json", "claude-3-haiku-20240307_contest_data.json"]
    for name in names:
        shutil.copy(consistency_dir / name, tmp_path / name)
    path = tmp_path / names[1]
    records = json.loads(path.read_text())
    records[4]["second"] = records[4]["winner"] = records[4]["first"]  # found when the
    # joined table is validated
    path.write_text(json.dumps(records))
    with pytest.raises(jb.DataError) as err:
        jb.read_consistency(tmp_path)
    assert str(err.value).startswith(
        f"{names[1]}, record 4, column 'model_b': a model battling itself"
    )
    assert err.value.row == 4
    records[4]["winner"] = "nobody"  # found while reading the file
    path.write_text(json.dumps(records))
    with pytest.raises(jb.DataError, match=rf"^{names[1]}, record 4, column 'winner'"):
        jb.read_consistency(tmp_path)
    dropped = jb.read_consistency(tmp_path, on_invalid="drop")
    assert dropped.report.n_dropped == 1
    assert dropped.report.n_input == len(records) + len(
        json.loads((tmp_path / names[0]).read_text())
    )


# ---------------------------------------------------------------------- subsets
def test_subsets_report_their_own_rows() -> None:
    b = jb.Battles(
        {
            "model_a": ["x", "y", "z", "x"],
            "model_b": ["y", "z", "x", "z"],
            "judge": ["j", "j", "k", "k"],
            "judge_label": [1, 0.5, 0, 1],
        }
    )
    one = b.for_judge("j")
    assert one.report.n_input == 4 and one.report.n_used == len(one) == 2
    assert one.report.excluded == {"other judges": 2}
    assert str(one.report) == "4 rows in, 2 used; 2 not used: other judges"
    assert b.involving("z").report.excluded == {"not involving z": 1}
    with pytest.raises(jb.DataError, match="no battles left"):
        b.without(["x", "y"])  # every battle involves x or y
    two = b.without("z").subset(np.array([True]))
    assert two.report.excluded == {"involving z": 3} and two.report.n_used == 1
    picked = b.subset(np.array([True, False, True, True]), reason="long prompts")
    assert picked.report.excluded == {"long prompts": 1}
    assert b.report.n_used == 4  # the parent is unchanged
    stats = one.pair_stats()
    assert stats.report.n_used == stats.n_battles == 2


def test_judge_subset_of_the_contests_reports_its_rows(consistency_battles) -> None:
    judge = "claude-3-haiku-20240307"
    one = consistency_battles.for_judge(judge)
    n = len(consistency_battles)
    assert one.report.n_input == n and one.report.n_used == len(one)
    assert str(one.report) == (
        f"{n:,} rows in, {len(one):,} used; {n - len(one):,} not used: other judges"
    )


def test_dropped_rows_stay_in_a_subsets_report() -> None:
    b = jb.Battles(
        {
            "model_a": ["x", "y", "z", "x"],
            "model_b": ["y", "y", "x", "z"],
            "judge": ["j", "j", "k", "k"],
        },
        on_invalid="drop",
    )
    one = b.for_judge("k")
    assert one.report.n_input == 4 and one.report.n_dropped == 1 and one.report.n_used == 2


# ---------------------------------------------------------------------- display
def test_battles_and_drop_reports_read_well_as_a_cells_last_line() -> None:
    b = jb.Battles(
        {
            "model_a": ["x", "y", "z", "x"],
            "model_b": ["y", "z", "x", "z"],
            "judge": ["j", "j", "k", "k"],
            "judge_label": [1, 0.5, 0, 1],
        }
    )
    one = b.for_judge("j")
    assert repr(one) == (
        "<Battles: 2 battles, 3 models, 1 judges, labels=['judge_label']; "
        "4 rows in, 2 dropped or not used>"
    )
    assert str(b) == "Battles(4 battles, 3 models, 2 judges, labels=['judge_label'])"
    assert "<table" in one._repr_html_() and len(one.to_frame()) == 2
    report = one.report
    assert repr(report) == "<DropReport: 4 rows in, 2 used, 2 not used>"
    assert report.to_frame()["rows"].tolist() == [4, 2, 2]
    assert "<table" in report._repr_html_()
    assert report == jb.DropReport(4, {}, {"other judges": 2})


def test_judged_items_keep_model_names_as_written(tmp_path: Path) -> None:
    rows = "".join(f"{m},{i},1,1\n" for m in ("007", "7", "NA", "null") for i in (1, 2))
    path = _write(tmp_path / "items.csv", f"model,item_id,judge_label,human_label\n{rows}".encode())
    assert set(jb.read_judged_items(path).models) == {"007", "7", "NA", "null"}


def test_summary_json_is_strict_json_with_reasons_for_nulls(tmp_path: Path) -> None:
    """Unbounded widths and NaNs become null with a reason; no Infinity/NaN tokens."""
    import json
    import math

    import numpy as np

    from judgebayes.core.io import write_json

    path = write_json(
        tmp_path / "s.json",
        {"width": math.inf, "rows": [{"cov": np.nan}], "n": np.int64(3), "ok": np.float64(0.5)},
    )
    text = path.read_text()
    assert "Infinity" not in text and "NaN" not in text
    data = json.loads(text)
    assert data["width"] is None and data["n"] == 3 and data["ok"] == 0.5
    assert data["null_reasons"] == {"width": "unbounded", "rows[0].cov": "not computed"}


# ------------------------------------------------------- anchors: the anchor layout
def _verdicts(pairs: list[tuple[str, str]]) -> str:
    return "prompt_id,model_a,model_b,verdict\n" + "".join(
        f"p{k},{a},{b},{v}\n"
        for k in range(3)
        for (a, b), v in zip(pairs, [1, -1, 0, 2, -2][: len(pairs)], strict=True)
    )


STAR = [("A", "x"), ("A", "y"), ("A", "z"), ("w", "A")]
ANCHOR_CASES = {
    # an arena's sparse battles: a ring, nobody meets everyone
    "ring": (
        _verdicts([("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "a")]),
        None,
        [],
        "no model is judged against every other one",
    ),
    # two anchors and two targets: ambiguous
    "two-by-two": (
        _verdicts([("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")]),
        None,
        [],
        "cannot tell the anchors from the targets",
    ),
    # human scores that name other models (Arena Elo spelled differently)
    "human-names": (_verdicts(STAR), "model,elo\nX,1\nY,2\nZ,3\n", [], "human scores given"),
    "unknown-anchor": (_verdicts(STAR), None, ["--anchors", "B"], "no model 'B'"),
    # a grade gap for a file of verdicts, not grades
    "clear-gap-on-verdicts": (
        _verdicts(STAR),
        None,
        ["--clear-gap", "3"],
        "clear_gap applies to single grades",
    ),
}


@pytest.mark.parametrize("case", sorted(ANCHOR_CASES))
def test_anchors_bad_layout_exits_2_with_one_line(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    text, human, extra, needle = ANCHOR_CASES[case]
    path = _write(tmp_path / "verdicts.csv", text.encode())
    argv = ["anchors", str(path), "--n-boot", "10", "--no-progress", *extra]
    if human is not None:
        argv += ["--human", str(_write(tmp_path / "elo.csv", human.encode()))]
    code, err = _run(argv, capsys)
    assert code == 2 and "Traceback" not in err, err
    assert err.count("\n") == 1 and err.startswith("judgebayes: error: "), err
    assert needle in err
    assert ("elo.csv" if human is not None else "verdicts.csv") in err


def test_audit_names_file_row_and_column(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`judgebayes audit` on a bad cell: exit 2, one line with the file, the row, the column."""
    rows = [dict(r) for r in TABLE]
    rows[2]["judge_label"] = "maybe"
    path = tmp_path / "battles.csv"
    path.write_text(_csv(rows))
    code, err = _run(["audit", str(path), "--no-progress", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "battles.csv" in err and "row 2" in err and "judge_label" in err, err


def test_audit_names_both_judge_files(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Aligned judge files that disagree on a battle: both files and the id are named."""
    human = [{"num": k, "model_a": "a", "model_b": "b", "winner": "model_a"} for k in range(3)]
    judge = [dict(r) for r in human]
    judge[1]["num"] = 7
    for name, recs in (("human", human), ("gpt", judge)):
        (tmp_path / f"{name}.json").write_text("\n".join(json.dumps(r) for r in recs))
    argv = ["audit", str(tmp_path / "human.json"), "--judge", f"gpt={tmp_path / 'gpt.json'}"]
    code, err = _run([*argv, "--no-progress", "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "human.json" in err and "gpt.json" in err and "battle 1" in err, err
