"""The verbs read what judge tools write: several judges beside the humans (`elo`), the
prevalence layout (`calibrate`), Arena-Hard judgments and single grades (`anchors`).

The real files are read from ../shared/data (the data README says where each comes
from); small fixtures follow the layouts cited in tests/test_aligned.py and
tests/test_tool_formats.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes import datasets
from judgebayes.calibration import ITEM_FORMATS
from judgebayes.cli import main
from judgebayes.cli.calibrate import ITEM_FORMAT_NAMES

PPR = Path(os.environ["JUDGEBAYES_DATA"]) / "ppr"


def _run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_elo_prints_the_human_board_beside_each_judges(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    judges = {"gpt4": "gpt-4-0125-preview", "claude": "claude-3-opus-20240229"}
    argv = ["elo", str(PPR / "human.json"), "--n-boot", "20", "--no-progress"]
    for name, file in judges.items():
        argv += ["--judge", f"{name}={PPR / file}.json"]
    code, out, err = _run([*argv, "--out", str(tmp_path)], capsys)
    assert code == 0, err
    assert out.splitlines()[0].startswith("format: aligned (--format auto")
    assert "26,919 battles, 2 judge(s): the human board (26,919 battles" in out
    # the boards are the library's, fitted with the same seed
    boards = pd.read_csv(tmp_path / "boards.csv")
    battles = jb.read_aligned(PPR / "human.json", {k: f"{PPR / v}.json" for k, v in judges.items()})
    expected = {
        "human": jb.bootstrap_bt(
            battles.human_battles(), target="human_label", n_boot=20, progress=False
        ),
        **{
            j: jb.bootstrap_bt(
                battles.for_judge(j), target="judge_label", n_boot=20, progress=False
            )
            for j in judges
        },
    }
    for name, board in expected.items():
        mine = boards[boards["board"] == name].set_index("model")["elo"]
        theirs = board.to_frame().set_index("model")["elo"]
        np.testing.assert_allclose(mine.loc[theirs.index], theirs, rtol=0, atol=1e-9)
    table = pd.read_csv(tmp_path / "judges.csv").set_index("judge")
    human = expected["human"].to_frame().set_index("model")["elo"]
    for judge in judges:
        elo = expected[judge].to_frame().set_index("model")["elo"].loc[human.index]
        assert table.loc[judge, "kendall_tau"] == pytest.approx(
            stats.kendalltau(human, elo).statistic
        )
        assert table.loc[judge, "mae_elo"] == pytest.approx((elo - human).abs().mean())
    # agreement on battles neither side calls a tie: the data README's 0.83 and 0.72
    assert table["agreement_non_ties"].round(2).to_dict() == {"claude": 0.72, "gpt4": 0.83}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["format"] == "aligned" and summary["n_human_labels"] == 26_919


def _long_table(path: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    models = ["a", "b", "c", "d"]
    for k in range(120):
        a, b = rng.choice(models, 2, replace=False)
        for judge in ("human", "j1", "j2"):
            if judge == "human" and k % 3 == 0:
                continue  # humans labelled two battles in three
            rows.append(
                {
                    "battle_id": k,
                    "model_a": a,
                    "model_b": b,
                    "judge": judge,
                    "winner": rng.choice(["model_a", "model_b", "tie"]),
                }
            )
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_elo_on_a_judge_table_and_one_judge_picked(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = _long_table(tmp_path / "votes.csv")
    code, out, err = _run(["elo", str(path), "--n-boot", "20", "--no-progress"], capsys)
    assert code == 0, err
    assert out.startswith("format: judges (--format auto")
    assert "120 battles, 2 judge(s): the human board (80 battles" in out
    code, out, err = _run(
        ["elo", str(path), "--judge", "j1", "--n-boot", "20", "--no-progress"], capsys
    )
    assert code == 0, err
    assert "human board" not in out
    code, out, err = _run(["elo", str(path), "--judge", "j1", "--judge", "j2"], capsys)
    assert code == 2 and err.count("\n") == 1 and "--judge NAME picks one judge, got 2" in err


def test_elo_with_misaligned_judge_files_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    human = [{"num": k, "model_a": "a", "model_b": "b", "winner": "model_a"} for k in range(3)]
    judge = [{**r, "num": r["num"] + 1} for r in human]
    (tmp_path / "human.json").write_text("\n".join(map(json.dumps, human)))
    (tmp_path / "j.json").write_text("\n".join(map(json.dumps, judge)))
    code, _, err = _run(
        ["elo", str(tmp_path / "human.json"), "--judge", f"j={tmp_path / 'j.json'}"], capsys
    )
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "battle 0 (record 0 of human.json) is not in j.json" in err


def test_calibrate_reads_the_debias_judge_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    folder = Path(os.environ["JUDGEBAYES_DATA"]) / "debias_judge"
    argv = ["calibrate", str(folder), "--n-boot", "100", "--no-progress", "--out", str(tmp_path)]
    code, out, err = _run(argv, capsys)
    assert code == 2 and "2 judges' picks (gpt-4o-mini, gpt-5.2); pick one" in err
    code, out, err = _run([*argv, "--judge", "gpt-4o-mini"], capsys)
    assert code == 0, err
    assert out.startswith("format: prevalence (--format auto")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["rows"]["dropped"] == {"judge_pick null (no verdict)": 1}
    assert sorted(summary["models"]) == sorted(datasets.DEBIAS_OPPONENTS)
    # the true θ on the test items is the humans' preference rate there
    items = datasets.load_debias_judge("gpt-4o-mini")
    estimates = pd.read_csv(tmp_path / "estimates.csv")
    assert set(estimates["model"]) == set(items.models)


def test_calibrate_on_a_file_that_is_no_inspect_log(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "run.eval"
    path.write_bytes(b"PK\x03\x04 not a zip")
    code, out, err = _run(["calibrate", str(path), "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1 and "run.eval: " in err
    assert out.startswith("format: inspect")
    assert ITEM_FORMAT_NAMES == ITEM_FORMATS


def test_anchors_read_arena_hard_judgments_and_single_grades(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    folder = tmp_path / "model_judgment" / "gpt-4-1106-preview"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(1)
    scores = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    for model in ("m1", "m2", "m3"):
        lines = [
            json.dumps(
                {
                    "question_id": f"q{k}",
                    "model": model,
                    "judge": "gpt-4-1106-preview",
                    "games": [{"score": rng.choice(scores)}, {"score": rng.choice(scores)}],
                }
            )
            for k in range(30)
        ]
        (folder / f"{model}.jsonl").write_text("\n".join(lines))
    code, out, err = _run(["anchors", str(folder)], capsys)
    assert code == 2 and "does not name the baseline model" in err
    code, out, err = _run(["anchors", str(folder), "--baseline", "gpt-4-0314"], capsys)
    assert code == 0, err
    assert out.startswith("format: arena-hard (--format auto")
    assert "180 verdicts, 4 models, 30 prompts (anchor layout: 1 anchor(s))" in out
    grades = Path(os.environ["JUDGEBAYES_DATA"]) / "arena_bench_v1" / "model_judgment"
    code, out, err = _run(["anchors", str(grades), "--out", str(tmp_path / "a")], capsys)
    assert code == 0, err
    assert out.startswith("format: grades") and "15 models, 300 prompts (full matrix" in out
    assert len(pd.read_csv(tmp_path / "a" / "anchors.csv")) == 15


def test_consistency_and_consensus_read_arena_hard_judges(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    root = tmp_path / "model_judgment"
    rng = np.random.default_rng(2)
    scores = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    for judge in ("j1", "j2", "j3"):
        (root / judge).mkdir(parents=True)
        for model in ("m1", "m2", "m3"):
            lines = [
                json.dumps(
                    {
                        "uid": f"q{k}",
                        "model": model,
                        "judge": judge,
                        "baseline": "base",
                        "games": [{"score": rng.choice(scores)}, {"score": rng.choice(scores)}],
                    }
                )
                for k in range(20)
            ]
            (root / judge / f"{model}.jsonl").write_text("\n".join(lines))
    code, out, err = _run(["consistency", str(root)], capsys)
    assert code == 0, err
    assert out.startswith("format: arena-hard (--format auto")
    for judge in ("j1", "j2", "j3"):
        assert judge in out
    code, out, err = _run(["consensus", str(root), "--no-bayes", "--no-progress"], capsys)
    assert code == 0, err
    assert out.startswith("format: arena-hard (--format auto")
