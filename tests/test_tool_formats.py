"""Readers of what judge tools write: Arena-Hard judgments, single grades, AlpacaEval.

Fixtures are written here from each tool's own code and documentation:

* Arena-Hard (github.com/lmarena/arena-hard-auto): v0.1 records as ``gen_judgment.py``
  writes them at commit 0489bf384abd010906014dec7b903f7c438eabba (``{question_id, model,
  judge, games}``; game 1 shows the baseline as A, game 2 swaps the answers: ``if game %
  2 == 1: answer, baseline = baseline, answer``), v2.0 records as ``gen_judgment.py``
  writes them at commit 196f6b826783b3da7310e361a805fa36f0be83f3 (``{uid, category,
  judge, model, baseline, games}``, round 1 baseline as A, round 2 the answer as A).
  ``show_result.py`` at 196f6b8 (``load_judgments``) turns a record into the model's
  scores ``label_to_score[games[1].score] + [1 - s for s in
  label_to_score[games[0].score]]``, a strong verdict counted ``weight = 3`` times, and
  drops a record whose game or score is null; its win rate of a model is the mean.
* Single grades: arena-bench-v1's ``model_judgment/<model>.jsonl`` at arena-hard-auto
  commit 4a705dd6963f777aba2ae79259e3013934e6e012 (``{question_id, model, user_prompt,
  judgment, score}``, score null where ``judge.py`` found no rating) and MT-Bench's
  ``judge: [model, prompt]`` with ``turn``.
* AlpacaEval (github.com/tatsu-lab/alpaca_eval at commit
  cd543a149df89434d8a54582c0151c0b945c3d20): README "Interpreting annotations"
  (``instruction, generator_1, output_1, generator_2, output_2, annotator,
  preference``); ``src/alpaca_eval/metrics/helpers.py`` reads 0 and 1.5 as draws and
  the win rate of ``generator_2`` as mean(preference − 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes import datasets
from judgebayes.anchors import read_verdicts, verdict_format
from judgebayes.errors import DataError

BASE = "gpt-4-0314"
# question -> model -> (game 1 score, game 2 score); None = a null score
JUDGMENTS = {
    "q1": {"m1": ("A>B", "A>>B"), "m2": ("B>A", "A=B")},
    "q2": {"m1": ("B>>A", "B<A"), "m2": ("A=B", None)},
    "q3": {"m1": ("A<<B", "B>A"), "m2": ("B=A", "A<B")},
}
# show_result.py's label_to_score (commit 196f6b8), weight 3: the model's points
LABEL_TO_SCORE = {
    "A>B": [1],
    "A>>B": [1] * 3,
    "A=B": [0.5],
    "A<<B": [0] * 3,
    "A<B": [0],
    "B>A": [0],
    "B>>A": [0] * 3,
    "B=A": [0.5],
    "B<<A": [1] * 3,
    "B<A": [1],
}


def _write_v01(folder: Path, judge: str = "gpt-4-1106-preview") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for model in ("m1", "m2"):
        lines = []
        for q, by_model in JUDGMENTS.items():
            s1, s2 = by_model[model]
            games = [
                {"user_prompt": "...", "judgment": "...", "score": s1},
                {"user_prompt": "...", "judgment": "...", "score": s2},
            ]
            lines.append(
                json.dumps({"question_id": q, "model": model, "judge": judge, "games": games})
            )
        (folder / f"{model}.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def _upstream_win_rate(model: str) -> float:
    """The model's win rate by show_result.py's rule, from the fixture's scores."""
    points = []
    for by_model in JUDGMENTS.values():
        s1, s2 = by_model[model]
        if s1 is None or s2 is None:  # upstream drops the whole record
            continue
        points += LABEL_TO_SCORE[s2] + [1 - s for s in LABEL_TO_SCORE[s1]]
    return float(np.mean(points))


def test_arena_hard_games_are_battles_oriented_as_shown(tmp_path: Path) -> None:
    folder = _write_v01(tmp_path / "model_judgment" / "gpt-4-1106-preview")
    with pytest.raises(DataError, match=r"m1\.jsonl does not name the baseline model"):
        jb.read_arena_hard(folder)
    b = jb.read_arena_hard(folder, baseline=BASE)
    f = b.frame
    assert len(b) == 12 and b.judges == ("gpt-4-1106-preview",)
    game1, game2 = f[f["game"] == 1], f[f["game"] == 2]
    assert (game1["model_a"] == BASE).all() and (game2["model_b"] == BASE).all()
    assert set(f["position"]) == {"a"}
    one = f.set_index("battle_id")
    assert one.loc["q2|m1|1", "verdict"] == -2 and one.loc["q2|m1|1", "judge_label"] == 0.0
    assert one.loc["q2|m1|2", "verdict"] == 1  # B<A: A (m1, shown first) slightly better
    assert one.loc["q3|m1|1", "verdict"] == -2  # A<<B mirrored
    assert np.isnan(one.loc["q2|m2|2", "judge_label"])
    assert b.report.missing == {"null game or score (no verdict)": 1}
    # the model's win rate over the baseline, strong verdicts three times, equals
    # show_result.py's on the records it keeps (both games scored)
    for model in ("m1", "m2"):
        rows = f[(f["model_a"] == model) | (f["model_b"] == model)]
        scored = rows.groupby("prompt_id")["verdict"].transform(lambda v: v.notna().all())
        rows = rows[scored.to_numpy(dtype=bool)]
        won = np.where(rows["model_a"] == model, rows["judge_label"], 1 - rows["judge_label"])
        weight = np.where(rows["verdict"].abs() == 2, 3, 1)
        assert np.average(won, weights=weight) == pytest.approx(_upstream_win_rate(model))


def test_arena_hard_v2_records_and_several_judges(tmp_path: Path) -> None:
    root = tmp_path / "model_judgment"
    for judge, flip in (("gpt-4.1", False), ("gemini-2.5", True)):
        (root / judge).mkdir(parents=True)
        records = []
        for q, by_model in JUDGMENTS.items():
            s1, s2 = by_model["m1"]
            if flip:
                s1, s2 = s2, s1
            records.append(
                {
                    "uid": q,
                    "category": "hard_prompt",
                    "judge": judge,
                    "model": "m1",
                    "baseline": "o3-mini-2025-01-31",
                    "games": [{"score": s1, "judgment": {}, "prompt": []}, {"score": s2}],
                }
            )
        (root / judge / "m1.jsonl").write_text("\n".join(map(json.dumps, records)))
    b = jb.read_arena_hard(root)
    assert b.judges == ("gemini-2.5", "gpt-4.1") and len(b) == 12
    wide = b.judge_labels()
    assert wide.shape == (6, 2)  # the rows of one game share its battle id across judges
    assert wide.loc["q1|m1|1", "gpt-4.1"] == 1.0 and wide.loc["q1|m1|1", "gemini-2.5"] == 1.0
    assert set(b.frame["model_a"]) == {"o3-mini-2025-01-31", "m1"}
    assert jb.read_arena_hard(root, judge="gpt-4.1").judges == ("gpt-4.1",)
    table = read_verdicts(root, format="arena-hard", judge="gpt-4.1")
    assert len(table) == 6 and table.n_debiased == 3 and table.judges == ("gpt-4.1",)
    assert verdict_format(root) == "arena-hard"


def test_arena_hard_bad_verdict_names_file_and_record(tmp_path: Path) -> None:
    folder = _write_v01(tmp_path / "j")
    text = (folder / "m2.jsonl").read_text().replace('"B=A"', '"A>=B"')
    (folder / "m2.jsonl").write_text(text)
    with pytest.raises(DataError, match=r"m2\.jsonl, record 2, column 'games': unknown verdict"):
        jb.read_arena_hard(folder, baseline=BASE)


def test_arena_hard_verdict_table_keeps_margins_and_counts_nulls(tmp_path: Path) -> None:
    folder = _write_v01(tmp_path / "j")
    table = read_verdicts(folder / "m2.jsonl", baseline=BASE)  # auto: records with games
    assert len(table) == 5 and table.report.dropped == {"no verdict (null game or score)": 1}
    assert sorted(table.verdict.tolist()) == [-1, -1, 0, 0, 0]
    assert table.n_debiased == 2  # q1 and q3 judged in both orders


def _grades(tmp_path: Path) -> Path:
    rows = [  # question, model, score; null = no rating found, -1 = MT-Bench's unparsed
        ("p1", "a", 8),
        ("p1", "b", 6),
        ("p1", "c", 8),
        ("p2", "a", 3),
        ("p2", "b", None),
        ("p2", "c", 9),
        ("p3", "a", -1),
        ("p3", "b", 5),
        ("p3", "c", 5),
    ]
    folder = tmp_path / "model_judgment"
    folder.mkdir()
    for model in "abc":
        lines = [
            json.dumps(
                {"question_id": q, "model": m, "user_prompt": "...", "judgment": "...", "score": s}
            )
            for q, m, s in rows
            if m == model
        ]
        (folder / f"{model}.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_single_grades_become_every_graded_pair_per_prompt(tmp_path: Path) -> None:
    b = jb.read_grades(_grades(tmp_path), judge="gpt-4")
    f = b.frame.set_index(["prompt_id", "model_a", "model_b"])
    assert len(b) == 5  # p1: 3 pairs; p2: a-c; p3: b-c
    assert f.loc[("p1", "a", "b"), "judge_label"] == 1.0
    assert f.loc[("p1", "a", "c"), "judge_label"] == 0.5
    assert f.loc[("p2", "a", "c"), "judge_label"] == 0.0
    assert f.loc[("p2", "a", "c"), "score_diff"] == -6.0  # Soft-Elo's s
    assert f.loc[("p3", "b", "c"), "judge_label"] == 0.5
    assert b.report.missing == {
        "grade missing or −1 (not parsed)": 2,
        "pairs left out: one of the two grades missing": 4,
    }
    table = read_verdicts(tmp_path / "model_judgment")  # auto: question_id, model, score
    assert sorted(table.verdict.tolist()) == [-1, -1, 0, 0, 1]


def test_mt_bench_judge_lists_and_turns(tmp_path: Path) -> None:
    records = [
        {"question_id": 81, "model": m, "judge": ["gpt-4", "single-v1"], "score": s, "turn": t}
        for m, s, t in (("x", 9, 1), ("y", 4, 1), ("x", 2, 2), ("y", 7, 2))
    ]
    path = tmp_path / "gpt-4_single.jsonl"
    path.write_text("\n".join(map(json.dumps, records)))
    b = jb.read_grades(path)
    assert b.judges == ("gpt-4",)
    assert b.frame.set_index("prompt_id")["judge_label"].to_dict() == {
        "81/turn1": 1.0,
        "81/turn2": 0.0,
    }
    records.append(dict(records[0]))
    path.write_text("\n".join(map(json.dumps, records)))
    with pytest.raises(DataError, match=r"gpt-4_single\.jsonl, record 4, column 'model'"):
        jb.read_grades(path)


def test_alpaca_eval_annotations_keep_the_soft_preference(tmp_path: Path) -> None:
    records = [
        {"instruction": "i1", "generator_1": "gpt4_turbo", "generator_2": "m", "preference": 1.0},
        {"instruction": "i2", "generator_1": "gpt4_turbo", "generator_2": "m", "preference": 2.0},
        {"instruction": "i3", "generator_1": "gpt4_turbo", "generator_2": "m", "preference": 1.5},
        {"instruction": "i4", "generator_1": "gpt4_turbo", "generator_2": "m", "preference": 0},
        {"instruction": "i5", "generator_1": "gpt4_turbo", "generator_2": "m", "preference": 1.83},
        {"instruction": "i6", "generator_1": "gpt4_turbo", "generator_2": "m", "preference": None},
        {"instruction": "i1", "generator_1": "m", "generator_2": "gpt4_turbo", "preference": 2.0},
    ]
    for r in records:
        r |= {"output_1": "...", "output_2": "...", "annotator": "weighted_alpaca_eval_gpt4_turbo"}
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(records, indent=2))
    b = jb.read_alpaca_eval(path)
    assert b.judges == ("weighted_alpaca_eval_gpt4_turbo",) and len(b) == 7
    np.testing.assert_allclose(
        b.column("judge_label"), [1.0, 0.0, 0.5, 0.5, 0.0, np.nan, 0.0], equal_nan=True
    )
    # upstream's win rate of generator_2 over the first six rows: mean(preference - 1),
    # 0 read as 1.5, the null one not counted
    upstream = np.mean([0.0, 1.0, 0.5, 0.5, 0.83])
    ours = 1 - b.frame["judge_prob"].iloc[:6].dropna()
    assert ours.mean() == pytest.approx(upstream)
    assert b.report.missing == {"null preference (not annotated)": 1}
    records[2]["preference"] = 2.5
    path.write_text(json.dumps(records))
    with pytest.raises(DataError, match=r"annotations\.json, record 2, column 'preference'"):
        jb.read_alpaca_eval(path)


def test_auto_detection_names_the_format_or_every_reason(tmp_path: Path) -> None:
    folder = _write_v01(tmp_path / "ah")
    assert jb.core.battle_format(folder / "m1.jsonl") == "arena-hard"
    assert jb.core.battle_format(_grades(tmp_path)) == "grades"
    alpaca = tmp_path / "annotations.json"
    alpaca.write_text(
        json.dumps([{"instruction": "i", "generator_1": "a", "generator_2": "b", "preference": 1}])
    )
    assert jb.core.battle_format(alpaca) == "alpaca-eval"
    arena = tmp_path / "arena.jsonl"
    arena.write_text(json.dumps({"model_a": "a", "model_b": "b", "winner": "tie"}) + "\n")
    assert jb.core.battle_format(arena) == "arena"
    assert len(jb.read_battles(arena)) == 1  # format="auto" is the default
    table = tmp_path / "t.csv"
    pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "judge_label": [1]}).to_csv(table)
    assert jb.core.battle_format(table) == "csv"
    odd = tmp_path / "odd.csv"
    pd.DataFrame({"left": ["a"], "right": ["b"]}).to_csv(odd, index=False)
    with pytest.raises(DataError) as err:
        jb.read_battles(odd)
    text = str(err.value)
    assert "odd.csv: cannot tell its format from its columns (left, right)" in text
    for fmt in ("arena-hard (no games", "arena (no model_a, model_b, winner)", "csv (no"):
        assert fmt in text
    assert "\n" not in text


def test_arena_bench_v1_grades_with_the_human_elo_mapped() -> None:
    """arena-bench-v1 (arena-hard-auto 4a705dd): 15 models x 300 prompts, null grades
    counted; benchmarks.csv (alpaca_eval cd543a1) gives 11 of them a Feb 2, 2024 Elo."""
    bench = datasets.load_arena_bench_v1()
    battles, human = bench.battles, bench.human_elo
    assert len(battles.models) == 15 and len(bench.verdicts.prompts) == 300
    assert bench.verdicts.is_quadratic() and len(bench.verdicts) == len(battles)
    # 15 x 300 grades, 39 null: 300 x 105 pairs less those with a missing grade
    assert battles.report.missing["grade missing or −1 (not parsed)"] == 39
    assert len(battles) == 300 * 105 - 534
    assert set(human["model"]) == set(battles.models) == set(datasets.ARENA_BENCH_NAMES)
    elo = human.set_index("model")
    assert elo["arena_elo_feb2024"].notna().sum() == 11
    assert elo.loc["gpt-4-0314", "arena_elo_feb2024"] == 1185
    assert elo.loc["mistralai/Mistral-7B-Instruct-v0.1", "arena_elo_feb2024"] == 1002
    assert np.isnan(elo.loc["gpt-4-1106-preview", "arena_elo_feb2024"])
    assert elo.loc["gpt-4-1106-preview", "arena_elo_apr2024"] == 1254
    assert elo.loc["palm-2-chat-bison-001", "match"] == "not in the table"
