"""`judgebayes anchors`: the Table-2 power table and the per-anchor report."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

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
    assert main(["anchors", str(path), "--out", str(out_dir)]) == 0
    text = capsys.readouterr().out
    assert "375 (prompt, pair)s judged in both orders were averaged" in text
    frame = pd.read_csv(out_dir / "anchors.csv")
    assert list(frame.columns) == ["anchor", "informativeness", "tau_quadratic", "n_total_5pct"]
    assert sorted(frame["anchor"]) == list(sim.models)
    assert frame["informativeness"].between(0, 1).all()
    assert (frame["n_total_5pct"] >= 617).all()
    row = frame.iloc[0]
    assert f"{row['informativeness']:.3f}" in text and f"{row['tau_quadratic']:.3f}" in text
    summary = json.loads((out_dir / "summary.json").read_text())  # strict JSON
    assert summary["n_models"] == 6 and summary["quadratic"] and summary["n_base"] == 617


def test_anchor_based_file_has_one_usable_anchor(verdict_file, tmp_path, capsys) -> None:
    sim, _ = verdict_file
    path = tmp_path / "anchored.json"
    sim.table(anchor="m2").to_frame().to_json(path, orient="records")
    out_dir = tmp_path / "out"
    assert main(["anchors", str(path), "--out", str(out_dir)]) == 0
    frame = pd.read_csv(out_dir / "anchors.csv")
    assert frame["anchor"].tolist() == ["m2"]
    assert frame["tau_quadratic"].isna().all()  # no quadratic ranking to compare with
    assert "anchor-based" in capsys.readouterr().out


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
