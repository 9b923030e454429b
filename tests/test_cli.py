"""The command line: tables, --out files, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from judgebayes.cli import main


def test_demo_writes_leaderboard_summary_and_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "demo"
    assert (
        main(
            [
                "demo",
                "--models",
                "12",
                "--battles",
                "3000",
                "--n-boot",
                "100",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "true_elo" in printed and "model-" in printed
    board = pd.read_csv(out / "leaderboard.csv")
    assert list(board.columns) == [
        "model",
        "elo",
        "elo_lo",
        "elo_hi",
        "se",
        "n_battles",
        "rank_lo",
        "rank_hi",
        "tier",
    ]
    assert len(board) == 12
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_boot"] == 100 and summary["target"] == "judge_label"
    assert (out / "forest.png").stat().st_size > 10_000
    # the calibrated Soft-Elo board beside it, with both boards' coverage of the truth
    assert "soft_covers" in printed and "coverage of the true Elo" in printed
    soft = pd.read_csv(out / "leaderboard_soft.csv")
    assert list(soft.columns) == list(board.columns) and len(soft) == 12
    assert soft[["elo_lo", "elo_hi"]].notna().all().all()
    assert (soft["elo_lo"] < soft["elo"]).all() and (soft["elo"] < soft["elo_hi"]).all()
    coverage = summary["coverage_of_truth"]
    assert set(coverage) == {"hard", "soft"} and coverage["soft"] > coverage["hard"]
    assert summary["soft"]["conformal"] == "jackknife+" and summary["human_labels"] == 2500
    assert 0.3 < summary["soft"]["beta"] < 0.8
    assert summary["mean_abs_error"]["soft"] < summary["mean_abs_error"]["hard"]


def test_demo_refuses_more_human_labels_than_battles(capsys: pytest.CaptureFixture) -> None:
    assert main(["demo", "--battles", "100", "--human-labels", "200", "--out", "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--human-labels" in err


def test_elo_on_consistency_data_needs_a_judge(
    consistency_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["elo", str(consistency_dir), "--format", "consistency", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--judge" in err
    out = tmp_path / "o"
    assert (
        main(
            [
                "elo",
                str(consistency_dir),
                "--format",
                "consistency",
                "--judge",
                "claude-3-opus-20240229",
                "--n-boot",
                "50",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert "7 disconnected components" in captured.out + captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["graph"]["components"]) == 7
    assert len(pd.read_csv(out / "leaderboard.csv")) == 35


def test_bad_files_exit_nonzero_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("left,right,verdict\na,b,A\nb,c,maybe\n")
    code = main(
        [
            "elo",
            str(bad),
            "--format",
            "csv",
            "--map",
            "left=model_a",
            "right=model_b",
            "verdict=judge_label",
            "--label",
            "A=1",
            "B=0",
            "tie=0.5",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "row 1" in err and "judge_label" in err
    assert main(["elo", str(tmp_path / "missing.json"), "--format", "arena"]) == 2
    assert "no such file" in capsys.readouterr().err


SOFTELO_CSV = Path(__file__).resolve().parents[2] / "shared/data/softelo/sample_annotations.csv"


def test_softelo_on_real_battles_split_is_unbounded_jackknife_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """14 real models: 7 calibration models cannot give a 90% split quantile (rank 8 of 7),
    so split conformal is unbounded and says so; jackknife+ calibrates each model on the 13
    others (rank ⌈0.9·14⌉ = 13 of 13), finite, and covers 13/14 models by construction."""
    widths = {}
    for design in ("split", "jackknife+"):
        out = tmp_path / design
        assert (
            main(
                [
                    "softelo",
                    str(SOFTELO_CSV),
                    "--format",
                    "softelo",
                    "--no-progress",
                    "--conformal",
                    design,
                    "--out",
                    str(out),
                ]
            )
            == 0
        )
        printed = capsys.readouterr().out
        text = (out / "summary.json").read_text()
        assert "Infinity" not in text and "NaN" not in text
        info = json.loads(text)
        assert info["conformal"] == design
        assert info["temperature"]["beta"] == pytest.approx(0.652, abs=0.001)
        widths[design] = {r["method"]: r["median_width"] for r in info["summary"]}
        if design == "split":
            assert "unbounded" in printed and info["conformal_note"]
        else:
            assert info["conformal_note"] is None
            assert [r["coverage"] for r in info["summary"]] == pytest.approx([13 / 14] * 2)
    assert widths["split"] == {"hard": None, "soft": None}
    assert 0 < widths["jackknife+"]["soft"] < widths["jackknife+"]["hard"]
