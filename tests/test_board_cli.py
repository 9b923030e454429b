"""`judgebayes elo` board options and `judgebayes compare`, the release gate."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.cli import main


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six models, 800 prompts × 6 games, ties; model-4 > model-5 > model-0 > ... (truth)."""
    sim = jb.simulate_prompts(6, 800, prompt_sd=0.8, tie_nu=0.5, elo_sd=150, seed=2)
    path = tmp_path_factory.mktemp("games") / "games.csv"
    sim.battles.frame.to_csv(path, index=False)
    return path


def _args(games: Path, *more: str) -> list[str]:
    return [str(games), "--format", "csv", "--pool-judges", "--no-progress", *more]


def test_compare_exit_codes_gate_a_release(games: Path, capsys: pytest.CaptureFixture) -> None:
    # model-5 is 97 Elo above model-0 in truth (SE of the difference ≈ 14)
    assert main(["compare", *_args(games, "model-5", "model-0", "--n-boot", "300")]) == 0
    assert "model-5 ahead at 95%" in capsys.readouterr().out
    assert main(["compare", *_args(games, "model-0", "model-5", "--method", "sandwich")]) == 1
    # a region of practical equivalence wider than the gap: not ahead
    assert main(["compare", *_args(games, "model-5", "model-0", "--rope", "300")]) == 1
    assert main(["compare", *_args(games, "model-5", "nobody")]) == 2
    assert "unknown model 'nobody'" in capsys.readouterr().err
    assert main(["compare", str(games.with_name("missing.csv")), "--format", "csv", "a", "b"]) == 2


def test_compare_rejects_a_negative_rope(games: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["compare", *_args(games, "model-5", "model-0", "--rope", "-1")])
    assert stop.value.code == 2


def test_compare_all_pairs_and_out(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "cmp"
    code = main(
        [
            "compare",
            *_args(games, "model-4", "model-5", "--method", "sandwich", "--ties", "davidson"),
            "--all-pairs",
            "bh",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "15 pairs" in printed and "(bh)" in printed
    row = pd.read_csv(out / "comparison.csv").iloc[0]
    assert row["model_a"] == "model-4" and row["ahead"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tie_nu"] > 0 and summary["comparison"]["ahead"] is True


def test_elo_sandwich_davidson_baseline(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "elo"
    code = main(
        [
            "elo",
            *_args(games, "--method", "sandwich", "--ties", "davidson"),
            "--baseline",
            "model-0",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "Davidson (ν = " in printed and "cluster-robust" in printed
    assert "LOO prefers davidson ties" in printed and "score vs model-0" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["method"] == "sandwich" and summary["ties_loo"]["preferred"] == "davidson"
    assert summary["design_effect"] > 1 and summary["rank_sets"]["n_tiers"] >= 3
    baseline = pd.read_csv(out / "baseline.csv").set_index("model")
    assert baseline.loc["model-0", "score"] == 50
    board = pd.read_csv(out / "leaderboard.csv")
    assert {"rank_lo", "rank_hi", "tier"} <= set(board.columns)
