"""Loaders convert every foreign convention at the boundary (real files and fixtures)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb


def test_consistency_contests_load_with_labels_positions_and_judges(
    consistency_dir: Path, consistency_battles
) -> None:
    b = consistency_battles
    assert len(b.judges) == 24
    assert len(b.models) == 35
    raw = json.loads((consistency_dir / "gpt-4o-mini-2024-07-18_contest_data.json").read_text())
    one = b.for_judge("gpt-4o-mini-2024-07-18").frame
    assert len(one) == len(raw)
    first = raw[0]
    row = one.iloc[0]
    assert (row["model_a"], row["model_b"]) == (first["first"], first["second"])
    expected = {first["first"]: 1.0, first["second"]: 0.0, "Tie": 0.5}[first["winner"]]
    assert row["judge_label"] == expected
    assert set(one["position"]) == {"a"}
    # Counting labels straight from the JSON agrees with the table.
    ties = sum(r["winner"] == "Tie" for r in raw)
    assert int((one["judge_label"] == 0.5).sum()) == ties
    assert b.report.n_dropped == 0


def test_consistency_bad_winner_names_the_record(tmp_path: Path) -> None:
    path = tmp_path / "j_contest_data.json"
    path.write_text(
        json.dumps(
            [
                {"first": "a", "second": "b", "question": "1", "winner": "a"},
                {"first": "a", "second": "b", "question": "2", "winner": "c"},
            ]
        )
    )
    with pytest.raises(jb.DataError) as err:
        jb.read_consistency(path)
    assert err.value.row == 1 and err.value.column == "winner"
    dropped = jb.read_consistency(path, on_invalid="drop")
    assert len(dropped) == 1 and dropped.report.n_dropped == 1


def test_arena_json_and_jsonl(tmp_path: Path) -> None:
    records = [
        {
            "model_a": "m1",
            "model_b": "m2",
            "winner": "model_a",
            "question_id": "q1",
            "language": "English",
        },
        {"model_a": "m2", "model_b": "m3", "winner": "model_b", "question_id": "q2"},
        {"model_a": "m3", "model_b": "m1", "winner": "tie", "question_id": "q3"},
        {"model_a": "m1", "model_b": "m3", "winner": "tie (bothbad)", "question_id": "q4"},
    ]
    (tmp_path / "b.json").write_text(json.dumps(records))
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    for name in ("b.json", "b.jsonl"):
        b = jb.read_arena(tmp_path / name)
        assert b.column("human_label").tolist() == [1.0, 0.0, 0.5, 0.5]
        assert b.column("prompt_id").tolist() == ["q1", "q2", "q3", "q4"]
        assert "language" in b
    records[2]["winner"] = "model_c"
    with pytest.raises(jb.DataError) as err:
        jb.read_arena(records)
    assert err.value.row == 2 and "model_a" in str(err.value)


def test_softelo_csv_flips_preferences_and_averages_criteria(tmp_path: Path) -> None:
    crit_a = [
        {"adherence": 8, "clarity": 6},
        {"adherence": 5, "clarity": 5},
        {"adherence": 9, "clarity": 9},
    ]
    crit_b = [
        {"adherence": 4, "clarity": 6},
        {"adherence": 7, "clarity": 9},
        {"adherence": 9, "clarity": 9},
    ]
    f = pd.DataFrame(
        {
            "model_a": ["a", "b", "a"],
            "model_b": ["b", "c", "c"],
            "human_pref": [0, 1, np.nan],
            "judge_pref": [0, 1, 0.5],
            "scores_a": [json.dumps(c) for c in crit_a[:2]] + [str(crit_a[2])],
            "scores_b": [json.dumps(c) for c in crit_b],
        }
    )
    path = tmp_path / "ann.csv"
    f.to_csv(path, index=False)
    b = jb.read_softelo(path)
    assert b.column("judge_label").tolist() == [1.0, 0.0, 0.5]  # 0 means A wins
    np.testing.assert_array_equal(b.column("human_label"), [1.0, 0.0, np.nan])
    np.testing.assert_allclose(b.column("score_diff"), [2.0, -3.0, 0.0])
    assert b.column("score_a:adherence").tolist() == [8, 5, 9]
    bad = f.copy()
    bad.loc[1, "scores_b"] = json.dumps({"adherence": 7})
    with pytest.raises(jb.DataError, match="criteria differ") as err:
        jb.read_softelo(bad)
    assert err.value.row == 1 and err.value.column == "scores_b"
    bad = f.copy()
    bad.loc[0, "judge_pref"] = 3
    with pytest.raises(jb.DataError, match="unknown label") as err:
        jb.read_softelo(bad)
    assert err.value.row == 0 and err.value.column == "judge_pref"


def test_generic_table_with_column_and_label_mapping(tmp_path: Path) -> None:
    f = pd.DataFrame({"left": ["a", "b"], "right": ["b", "c"], "verdict": ["A", "tie"]})
    for path in (tmp_path / "t.csv", tmp_path / "t.parquet"):
        (f.to_csv(path, index=False) if path.suffix == ".csv" else f.to_parquet(path))
        b = jb.read_table(
            path,
            columns={"left": "model_a", "right": "model_b", "verdict": "judge_label"},
            labels={"A": 1, "B": 0, "tie": 0.5},
        )
        assert b.column("judge_label").tolist() == [1.0, 0.5]
    with pytest.raises(jb.DataError, match="missing column"):
        jb.read_table(f, columns={"nope": "model_a"})
    with pytest.raises(jb.DataError, match="unknown table format"):
        jb.read_table(tmp_path / "t.csv2" if (tmp_path / "t.csv2").touch() is None else None)
