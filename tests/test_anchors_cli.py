"""`judgebayes anchors`: the Table-2 power table and the per-anchor report."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from scipy.stats import kendalltau

from judgebayes.anchors import simulate_verdicts
from judgebayes.cli import main


@pytest.fixture(scope="module")
def verdict_file(tmp_path_factory) -> tuple:
    sim = simulate_verdicts(6, 25, seed=3, orders="both")
    path = tmp_path_factory.mktemp("anchors") / "verdicts.csv"
    frame = sim.table().to_frame()
    frame["verdict"] = frame["verdict"].map({2: "A>>B", 1: "A>B", 0: "A=B", -1: "B>A", -2: "B>>A"})
    frame.to_csv(path, index=False)
    return sim, path


def test_power_prints_table2(capsys) -> None:
    assert main(["anchors", "power"]) == 0
    out = capsys.readouterr().out
    for number in ("617", "153", "67", "37", "23", "1,012", "1,372", "251"):
        assert number in out
    assert main(["anchors", "power", "--ties", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "1,234" in out and "1,372" not in out  # 617 / 0.5


def test_file_report_and_outputs(verdict_file, tmp_path, capsys) -> None:
    sim, path = verdict_file
    out_dir = tmp_path / "out"
    assert main(["anchors", str(path), "--out", str(out_dir), "--n-boot", "50"]) == 0
    text = capsys.readouterr().out
    assert "375 (prompt, pair)s judged in both orders were averaged" in text
    assert "full matrix: 6 anchor(s)" in text
    frame = pd.read_csv(out_dir / "anchors.csv")
    assert sorted(frame["anchor"]) == list(sim.models)
    assert frame["informativeness"].between(0, 1).all()
    assert (frame["informativeness_lo"] <= frame["informativeness"]).all()
    assert (frame["n_total_5pct"] >= 617).all()
    assert frame["tau_quadratic"].notna().all() and "tau_human" not in frame
    row = frame.iloc[0]
    assert f"{row['informativeness']:.3f} [{row['informativeness_lo']:.3f}" in text
    assert f"{row['tau_quadratic']:.3f}" in text
    summary = json.loads((out_dir / "summary.json").read_text())  # strict JSON
    assert summary["n_models"] == 6 and summary["full_matrix"] and summary["n_base"] == 617
    assert len(pd.read_csv(out_dir / "rankings.csv")) == 6 * 6  # each anchor ranks all six


def test_anchor_based_file_has_one_anchor(verdict_file, tmp_path, capsys) -> None:
    sim, _ = verdict_file
    path = tmp_path / "anchored.json"
    sim.table(anchor="m2").to_frame().to_json(path, orient="records")
    out_dir = tmp_path / "out"
    assert main(["anchors", str(path), "--out", str(out_dir), "--no-progress"]) == 0
    frame = pd.read_csv(out_dir / "anchors.csv")
    assert frame["anchor"].tolist() == ["m2"]
    assert "tau_quadratic" not in frame  # no quadratic ranking to compare with
    assert "anchor layout: 1 anchor(s)" in capsys.readouterr().out


@pytest.fixture(scope="module")
def layout_files(tmp_path_factory) -> tuple:
    """Three anchors × twelve targets, anchors never judged against each other (AlpacaEval-
    or Arena-Hard-style), with human scores (the true θ) for all but one target."""
    sim = simulate_verdicts(15, 80, seed=21)
    anchors = ["m02", "m07", "m12"]
    frame = sim.table().to_frame().astype(str)
    a_in, b_in = frame["model_a"].isin(anchors), frame["model_b"].isin(anchors)
    folder = tmp_path_factory.mktemp("layout")
    path = folder / "judgments.csv"
    frame[a_in ^ b_in].to_csv(path, index=False)
    human = pd.DataFrame({"model": sim.models, "elo": 1000 + 100 * sim.theta})
    human = human[human["model"] != "m05"]
    human.to_csv(folder / "human.csv", index=False)
    return sim, anchors, path, folder / "human.csv"


def test_the_anchor_layout_is_first_class(layout_files, tmp_path) -> None:
    sim, anchors, path, human = layout_files
    out_dir = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "judgebayes.cli", "anchors", str(path), "--human", str(human),
         "--out", str(out_dir), "--n-boot", "200", "--no-progress"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert run.returncode == 0 and run.stderr == "", run.stderr  # no numpy warning leaks
    text = run.stdout
    assert "anchor layout: 3 anchor(s)" in text
    assert "human scores for 14 of 15 models (none for m05: left out of τ)" in text
    frame = pd.read_csv(out_dir / "anchors.csv").set_index("anchor")
    assert list(frame.index) == anchors
    assert (frame["n_targets"] == 12).all()
    assert "tau_quadratic" not in frame  # no full matrix
    for col in ("informativeness", "tau_human", "tau_human_margin"):
        assert (frame[f"{col}_lo"] <= frame[col]).all() and (frame[col] <= frame[f"{col}_hi"]).all()
    # τ with the humans is Kendall's τ of the printed ranking (win rate, ties half)
    truth = dict(zip(sim.models, sim.theta, strict=True))
    ranks = pd.read_csv(out_dir / "rankings.csv")
    for anchor in anchors:
        r = ranks[(ranks["anchor"] == anchor) & (ranks["model"] != "m05")]
        assert len(r) == 12  # eleven scored targets and the anchor itself
        tau = kendalltau(r["win_rate"], r["model"].map(truth)).statistic
        assert frame.loc[anchor, "tau_human"] == pytest.approx(tau)
    # the printed wide ranking: every target's win rate against each anchor
    t = ranks[(ranks["anchor"] == "m07") & (ranks["model"] == "m00")]["win_rate"].iloc[0]
    assert f"{t:.3f}" in text and "rankings (win rate against each anchor, ties half)" in text
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["anchors"] == anchors and not summary["full_matrix"]
    assert summary["human_models"] == [m for m in sim.models if m != "m05"]


def test_named_anchors_override_detection(layout_files, capsys) -> None:
    path = layout_files[2]
    args = ["anchors", str(path), "--anchors", "m07", "--n-boot", "20", "--no-progress"]
    assert main(args) == 0
    assert "anchor layout: 1 anchor(s)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (
            "prompt_id,model_a,model_b,verdict\np,x,y,A>B\np,x,z,maybe\n",
            "bad.csv, row 1, column 'verdict': not a verdict",
        ),
        ("prompt_id,model_a,model_b,verdict,judge\np,x,y,1,j1\np,x,z,1,j2\n", "pick one"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, content, message) -> None:
    path = tmp_path / "bad.csv"
    if content is not None:
        path.write_text(content)
    assert main(["anchors", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and err.count("\n") == 0 and "Traceback" not in err


def test_bad_input_in_a_real_process(tmp_path) -> None:
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("model,score\nx,1\n")
    run = subprocess.run(
        [sys.executable, "-m", "judgebayes.cli", "anchors", str(wrong)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "missing column 'prompt_id'" in run.stderr
    usage = subprocess.run(
        [sys.executable, "-m", "judgebayes.cli", "anchors", "power", "--ties", "1.5"],
        capture_output=True,
        text=True,
    )
    assert usage.returncode == 2 and "expected a tie rate in [0, 1)" in usage.stderr


def test_single_grades_on_the_five_point_scale(tmp_path, capsys) -> None:
    """Grades of four models on three prompts; --clear-gap 3 makes a gap of 3+ a clear win."""
    grades = {"a": [9, 9, 8], "b": [8, 5, 8], "c": [2, 6, 7], "d": [5, 5, 1]}
    folder = tmp_path / "model_judgment"
    folder.mkdir()
    for model, scores in grades.items():
        lines = [
            json.dumps({"question_id": f"q{i}", "model": model, "score": s})
            for i, s in enumerate(scores)
        ]
        (folder / f"{model}.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    argv = ["anchors", str(folder), "--format", "grades", "--clear-gap", "3"]
    assert (
        main([*argv, "--anchors", "b", "--n-boot", "20", "--no-progress", "--out", str(out)]) == 0
    )
    capsys.readouterr()
    ranks = pd.read_csv(out / "rankings.csv").set_index("model")
    # margins over b: a +1, +2, 0 -> 1; c -2, +1, -1 -> -2/3; d -2, 0, -2 -> -4/3
    assert ranks.loc["a", "margin"] == pytest.approx(1.0)
    assert ranks.loc["c", "margin"] == pytest.approx(-2 / 3)
    assert ranks.loc["d", "margin"] == pytest.approx(-4 / 3)
    assert ranks.loc["a", "win_rate"] == pytest.approx(5 / 6)  # win, win, tie
