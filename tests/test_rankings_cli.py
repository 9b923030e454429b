"""`judgebayes rank`: the board, its CSV and summary, judges in their own files, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judgebayes.cli import main
from judgebayes.rankings import simulate_judged_battles

WINNER = {1.0: "model_a", 0.5: "tie", 0.0: "model_b"}


def _ppr_layout(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A simulated data set written as the PPR files: human.json (null winner where
    unlabelled) and one JSON-lines file per judge, joined by ``num``."""
    sim = simulate_judged_battles(6, 1500, 300, seed=3)
    data = sim.data
    names = np.asarray(data.models)
    base = [
        {"num": k, "question_id": f"q{k}", "model_a": names[a], "model_b": names[b]}
        for k, (a, b) in enumerate(zip(data.a, data.b, strict=True))
    ]

    def write(path: Path, labels: np.ndarray) -> Path:
        lines = [
            json.dumps({**r, "winner": None if np.isnan(y) else WINNER[float(y)]})
            for r, y in zip(base, labels, strict=True)
        ]
        path.write_text("\n".join(lines) + "\n")
        return path

    human = write(tmp_path / "human.json", data.human)
    judges = {j: write(tmp_path / f"{j}.json", data.verdict(j)) for j in data.judges}
    return human, judges


def test_rank_writes_the_board_and_what_each_judge_brought(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    human, judges = _ppr_layout(tmp_path)
    out = tmp_path / "out"
    argv = ["rank", str(human), "--out", str(out), "--no-progress"]
    for name, path in judges.items():
        argv += ["--judge", f"{name}={path}"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "ppi_bt" in text and "judge biased:" in text and "names position A in" in text
    board = pd.read_csv(out / "leaderboard.csv")
    assert list(board.columns) == ["model", "elo", "elo_lo", "elo_hi", "rank_lo", "rank_hi", "tier"]
    assert len(board) == 6 and (board["rank_lo"] <= board["rank_hi"]).all()
    assert (board["elo_lo"] < board["elo"]).all() and (board["elo"] < board["elo_hi"]).all()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_labelled"] == 300 and summary["n_judge_only"] == 1200
    assert set(summary["judges"]) == {"good", "biased"}
    # the position-biased judge names A far more often than the humans and gets less weight
    assert summary["judges"]["biased"]["says_a"] > summary["judges"]["biased"]["human_says_a"]
    assert summary["judges"]["biased"]["lambda"] < summary["judges"]["good"]["lambda"]
    assert (out / "forest.png").stat().st_size > 0

    # PPR ranks win rates with one judge
    assert main(["rank", str(human), "--judge", f"good={judges['good']}", "--method", "ppr",
                 "--out", str(out)]) == 0  # fmt: skip
    assert list(pd.read_csv(out / "leaderboard.csv").columns)[:4] == [
        "model",
        "win_rate",
        "win_rate_lo",
        "win_rate_hi",
    ]


def test_rank_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    human, judges = _ppr_layout(tmp_path)
    argv = ["rank", str(human), "--method", "ppr"]
    for name, path in judges.items():
        argv += ["--judge", f"{name}={path}"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "PPR uses one judge" in err
    assert main(["rank", str(human), "--judge", f"good={tmp_path / 'nope.json'}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.json" in err
    # humans only, but no judge: every method but "human" needs verdicts
    assert main(["rank", str(human), "--format", "aligned", "--method", "latent"]) == 2
    assert "needs judge verdicts" in capsys.readouterr().err


def test_ranking_data_from_battles() -> None:
    """The PPR data through jb.datasets.load_ppr, and a battle shown in the other order."""
    import judgebayes as jb
    from judgebayes.rankings import RankingData

    data = RankingData.from_battles(jb.datasets.load_ppr())
    assert data.n_battles == 26_919 and data.n_models == 20 and len(data.judges) == 3
    assert np.mean(data.verdict("gpt-3.5-turbo") == 1.0) == pytest.approx(0.86, abs=0.005)
    assert data.labelled.all()
    swapped = RankingData.from_battles(
        jb.Battles(
            {
                "battle_id": [0, 0, 1, 1],
                "model_a": ["x", "x", "x", "x"],
                "model_b": ["y", "y", "y", "y"],
                "position": ["b", "b", "a", "a"],
                "judge": ["j", "k", "j", "k"],
                "judge_label": [1.0, 0.5, 1.0, 0.0],
                "human_label": [0.0, 0.0, np.nan, np.nan],
            }
        )
    )
    # battle 0 was shown y first: y is position A and every label turns round
    assert [swapped.models[i] for i in swapped.a] == ["y", "x"]
    np.testing.assert_array_equal(swapped.verdicts, [[0.0, 0.5], [1.0, 0.0]])
    np.testing.assert_array_equal(swapped.human, [1.0, np.nan])
