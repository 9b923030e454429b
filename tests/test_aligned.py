"""Several judges on the same battles: the long multi-judge Battles and its two readers.

Fixtures are written here in the layout of the PPR data (Chatzi et al., NeurIPS 2024,
github.com/Networks-Learning/prediction-powered-ranking at af64521, ``data/*.json``:
JSON lines despite the suffix, ``{"num", "question_id", "model_a", "model_b",
"winner"}``, line k of every file the same battle); the real files are read in
tests/test_datasets.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import DataError

BATTLES = [  # num, question_id, model_a, model_b
    (10, "q1", "m1", "m2"),
    (11, "q2", "m2", "m3"),
    (12, "q3", "m3", "m1"),
    (13, "q4", "m1", "m3"),
    (14, "q5", "m2", "m1"),
]
HUMAN = ["model_a", "tie (bothbad)", None, "model_b", "tie"]
GPT = ["model_a", "tie", "model_b", None, "model_a"]
CLAUDE = ["model_b", "model_a", "model_b", "model_b", "tie"]


def _write(path: Path, winners: list, *, battles=BATTLES, drop_key: int | None = None) -> Path:
    lines = []
    for k, ((num, q, a, b), w) in enumerate(zip(battles, winners, strict=True)):
        record = {"num": num, "question_id": q, "model_a": a, "model_b": b, "winner": w}
        if k == drop_key:
            del record["winner"]
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def ppr_like(tmp_path: Path) -> Path:
    _write(tmp_path / "human.json", HUMAN, drop_key=2)  # an absent winner: no human label
    _write(tmp_path / "gpt.json", GPT)
    _write(tmp_path / "claude.json", CLAUDE)
    return tmp_path


def _label(w: str | None) -> float:
    return {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}.get(w, np.nan)


def test_aligned_files_join_by_battle_id(ppr_like: Path) -> None:
    b = jb.read_aligned(
        ppr_like / "human.json", {"gpt": ppr_like / "gpt.json", "claude": ppr_like / "claude.json"}
    )
    assert len(b) == 10 and b.judges == ("claude", "gpt") and b.models == ("m1", "m2", "m3")
    battles = b.battle_frame()
    assert battles["battle_id"].tolist() == [10, 11, 12, 13, 14]
    assert battles["prompt_id"].tolist() == ["q1", "q2", "q3", "q4", "q5"]
    assert battles["model_a"].astype(str).tolist() == ["m1", "m2", "m3", "m1", "m2"]
    assert set(battles["position"]) == {"a"}
    np.testing.assert_array_equal(battles["human_label"], [1.0, 0.5, np.nan, 0.0, 0.5])
    # "tie (bothbad)" is a tie, told apart from the plain tie
    assert battles["human_bothbad"].tolist() == [False, True, False, False, False]
    wide = b.judge_labels()
    assert list(wide.columns) == ["claude", "gpt"] and wide.index.tolist() == [10, 11, 12, 13, 14]
    np.testing.assert_array_equal(wide["gpt"], [_label(w) for w in GPT])
    np.testing.assert_array_equal(wide["claude"], [_label(w) for w in CLAUDE])
    # every row of a battle carries the battle's human label
    frame = b.frame
    for bid, rows in frame.groupby("battle_id"):
        assert rows["human_label"].nunique(dropna=False) == 1, bid
    # nulls are missing for that annotator alone, counted, and no row is dropped
    assert b.report.n_dropped == 0 and b.report.n_input == 10
    assert b.report.missing == {
        "no human label (winner null or absent)": 1,
        "null verdict of gpt": 1,
    }
    # the gpt judge's fit leaves out its null verdict and says so
    stats = b.for_judge("gpt").pair_stats("judge_label")
    assert stats.report.n_used == 4 and stats.report.excluded["no judge_label"] == 1


def test_human_battles_is_one_row_per_labelled_battle(ppr_like: Path) -> None:
    b = jb.read_aligned(ppr_like)  # a folder: human.json and one file per judge
    assert b.judges == ("claude", "gpt")
    human = b.human_battles()
    assert len(human) == 4 and human.judges == () and "judge_label" not in human
    assert human.column("battle_id").tolist() == [10, 11, 13, 14]
    assert human.report.n_input == 5 and human.report.excluded == {"no human_label": 1}
    # an all-human board equals a board of the human file read alone
    alone = jb.read_arena(ppr_like / "human.json", on_invalid="drop")
    fit_h = jb.fit_bt(human)
    fit_a = jb.fit_bt(alone.subset(~np.isnan(alone.column("human_label"))))
    np.testing.assert_allclose(fit_h.elo, fit_a.elo)


def test_the_judge_table_layout_reads_as_the_aligned_files(ppr_like: Path) -> None:
    rows = []
    for judge, winners in (("human", HUMAN), ("gpt", GPT), ("claude", CLAUDE)):
        for (num, q, a, b), w in zip(BATTLES, winners, strict=True):
            rows.append(
                {"battle_id": num, "question_id": q, "model_a": a, "model_b": b, "judge": judge}
                | {"winner": None if (judge == "human" and num == 12) else w}
            )
    (ppr_like / "long").mkdir()
    path = ppr_like / "long" / "votes.csv"
    pd.DataFrame(rows).sample(frac=1.0, random_state=0).to_csv(path, index=False)
    table = jb.read_judge_table(path)
    aligned = jb.read_aligned(ppr_like)
    pd.testing.assert_frame_equal(
        table.judge_labels().sort_index(), aligned.judge_labels().sort_index()
    )
    key = ["battle_id", "model_a", "model_b", "human_label", "human_bothbad"]
    left = table.battle_frame()[key].sort_values("battle_id", ignore_index=True)
    right = aligned.battle_frame()[key].sort_values("battle_id", ignore_index=True)
    pd.testing.assert_frame_equal(
        left.astype({"model_a": str, "model_b": str}),
        right.astype({"model_a": str, "model_b": str}),
    )
    assert jb.read_battles(path, "judges").judges == ("claude", "gpt")
    assert jb.read_battles(
        ppr_like / "human.json", "aligned", judges={"gpt": ppr_like / "gpt.json"}
    ).judges == ("gpt",)


def test_a_battle_only_humans_labelled_stays_for_the_human_board(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "battle_id": [1, 1, 2, 3],
            "model_a": ["x", "x", "y", "x"],
            "model_b": ["y", "y", "z", "z"],
            "judge": ["human", "gpt", "human", "gpt"],
            "judge_label": [1.0, 0.0, 0.5, 1.0],
        }
    )
    b = jb.read_judge_table(frame)
    assert b.judges == ("gpt",)
    wide = b.judge_labels()
    assert wide.index.tolist() == [1, 3, 2]
    np.testing.assert_array_equal(wide["gpt"], [0.0, 1.0, np.nan])
    human = b.human_battles()
    assert human.column("battle_id").tolist() == [1, 2]
    assert b.report.missing["battles no judge labelled (kept with no judge)"] == 1
    assert b.report.missing["judge rows of battles with no human row"] == 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("missing_id", r"column 'num': battle 14 \(record 4 of human\.json\) is not in gpt\.json"),
        ("extra_id", r"battle 99 \(record 5 of gpt\.json\) is not in human\.json"),
        ("other_models", r"battle 12: gpt\.json \(record 2\) has 'm3' vs 'm4' but human\.json"),
        ("swapped", r"battle 11: gpt\.json \(record 1\) has 'm3' vs 'm2' but human\.json"),
        ("repeat", r"gpt\.json, record 4.*repeats the battle 13 of record 3"),
        ("unknown", r"gpt\.json, record 1, column 'winner': unknown label \(got 'model_c'\)"),
    ],
)
def test_misaligned_files_name_both_files_and_the_id(
    ppr_like: Path, edit: str, message: str
) -> None:
    battles, winners = list(BATTLES), list(GPT)
    if edit == "missing_id":
        battles, winners = battles[:4], winners[:4]
    elif edit == "extra_id":
        battles, winners = [*battles, (99, "q9", "m1", "m2")], [*winners, "tie"]
    elif edit == "other_models":
        battles[2] = (12, "q3", "m3", "m4")
    elif edit == "swapped":
        battles[1] = (11, "q2", "m3", "m2")
    elif edit == "repeat":
        battles[4] = (13, "q5", "m2", "m1")
    elif edit == "unknown":
        winners[1] = "model_c"
    _write(ppr_like / "gpt.json", winners, battles=battles)
    with pytest.raises(DataError, match=message):
        jb.read_aligned(ppr_like / "human.json", {"gpt": ppr_like / "gpt.json"})


def test_an_unknown_winner_can_be_removed_and_is_counted(ppr_like: Path) -> None:
    winners = list(GPT)
    winners[1] = "model_c"
    _write(ppr_like / "gpt.json", winners)
    b = jb.read_aligned(ppr_like / "human.json", {"gpt": ppr_like / "gpt.json"}, on_invalid="drop")
    # the verdict alone is removed: the battle keeps its row and its human label
    assert len(b) == 5 and b.report.n_dropped == 0
    assert b.report.missing["unreadable verdict of gpt, removed (on_invalid='drop')"] == 1
    assert np.isnan(b.judge_labels().loc[11, "gpt"])
    assert b.battle_frame().set_index("battle_id").loc[11, "human_bothbad"]


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("model_b", "m9", r"row 1, column 'model_b': differs between the rows of one battle_id"),
        ("human_label", 0.0, r"row 1, column 'human_label': differs between the rows"),
        ("judge", "gpt", r"row 1, column 'battle_id': a battle judged twice by one judge"),
        ("human_bothbad", True, r"row 1, column 'human_bothbad': 'tie \(bothbad\)' where"),
    ],
)
def test_a_battles_rows_must_agree(column: str, value: object, message: str) -> None:
    frame = pd.DataFrame(
        {
            "battle_id": [7, 7, 8],
            "model_a": ["x", "x", "y"],
            "model_b": ["y", "y", "x"],
            "judge": ["gpt", "claude", "gpt"],
            "judge_label": [1.0, 0.0, 0.5],
            "human_label": [1.0, 1.0, 0.5],
            "human_bothbad": [False, False, True],
        }
    )
    frame.loc[1, column] = value
    with pytest.raises(DataError, match=message):
        jb.Battles(frame)
    dropped = jb.Battles(frame, on_invalid="drop")
    assert len(dropped) == 2 and dropped.report.n_dropped == 1


def test_a_table_without_battle_ids_is_one_row_per_battle() -> None:
    b = jb.Battles({"model_a": ["x", "y"], "model_b": ["y", "z"], "human_label": [1.0, np.nan]})
    with pytest.raises(DataError, match="battle_frame\\(\\) needs a 'battle_id' column"):
        b.battle_frame()
    assert str(b) == "Battles(2 battles, 3 models, 0 judges, labels=['human_label'])"
    assert len(b.human_battles()) == 1
