"""`judgebayes calibrate FILE --bayes`: the Bayesian designs beside the frequentist table.

One NUTS run per default design (shared, model_specific, hierarchical, paired), 1 chain ×
200 draws: what is checked is the plumbing (tables, files, names), not the statistics
(tests/test_calibration_bayes.py, tests/test_calibration_paired.py). The file holds the
items that tests/test_calibration_bayes.py recovers θ and J from
(``_calibration_fixtures.recovery_items``): the same weighted cells, so in a process that
has run either, the four designs' NUTS and log-likelihood kernels are compiled once
(compiling, not sampling, is what the Bayesian fits of this test cost).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from _calibration_fixtures import recovery_items
from judgebayes.calibration.sweep import simulate_items
from judgebayes.cli import main

DEFAULT = ["shared", "model_specific", "hierarchical", "paired"]


@pytest.fixture(scope="module")
def items_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("items") / "items.csv"
    recovery_items().rows.to_csv(path, index=False)
    return path


def test_bayes_prints_designs_and_loo_and_writes_csvs(
    items_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "out"
    assert (
        main(
            [
                "calibrate",
                str(items_csv),
                "--baseline",
                "A",
                "--n-boot",
                "200",
                "--n-splits",
                "2",
                "--bayes",
                "--chains",
                "1",
                "--draws",
                "200",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "PPI++ 2×" in printed  # the frequentist table is still there
    assert "Bayesian calibration designs" in printed and "PSIS-LOO" in printed
    delta_line = next(
        line for line in printed.splitlines() if line.startswith("theta[B] - theta[A]")
    )
    assert delta_line.count(" [") == len(DEFAULT)  # one interval per design
    assert "bayes_designs.csv" in printed and "loo.csv" in printed

    table = pd.read_csv(out / "bayes_designs.csv")
    assert list(table.columns) == ["design", "quantity", "estimate", "lo", "hi"]
    assert list(dict.fromkeys(table["design"])) == DEFAULT
    comparisons = pd.read_csv(out / "comparisons.csv")
    for q in ("theta[B] - theta[A]", "J[B] - J[A]"):
        assert q in set(comparisons["quantity"])  # named as the frequentist comparisons
        assert (table["quantity"] == q).sum() == len(DEFAULT)
    for q in ("theta[A]", "theta[B]", "q0[A]", "q1[B]", "J[A]"):
        assert (table["quantity"] == q).sum() == len(DEFAULT)
    assert (table["lo"] <= table["estimate"]).all() and (table["estimate"] <= table["hi"]).all()
    paired = table.set_index(["design", "quantity"]).loc[("paired", "theta[B] - theta[A]")]
    ppi = comparisons.set_index(["method", "quantity"]).loc[("ppi_2x", "theta[B] - theta[A]")]
    assert abs(paired["estimate"] - ppi["estimate"]) < 0.05  # same data, same target

    loo = pd.read_csv(out / "loo.csv")
    assert set(loo["design"]) == set(DEFAULT) and len(loo) == len(DEFAULT)
    assert {"rank", "elpd_loo", "p_loo", "elpd_diff", "dse", "weight"} <= set(loo.columns)
    assert sorted(loo["rank"]) == [0, 1, 2, 3] and loo["weight"].sum() == pytest.approx(1)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["bayes"]["method"] == "nuts" and summary["bayes"]["draws"] == 200


def test_without_bayes_no_bayesian_files(
    items_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "out"
    assert (
        main(
            [
                "calibrate",
                str(items_csv),
                "--n-boot",
                "100",
                "--n-splits",
                "1",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "Bayesian" not in capsys.readouterr().out
    assert not (out / "bayes_designs.csv").exists() and not (out / "loo.csv").exists()


def test_bad_file_with_bayes_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    sim = simulate_items([0.7, 0.7], 0.8, 0.8, n_cal=20, n_test=20, seed=0)
    rows = sim.rows.copy()
    rows.loc[5, "human_label"] = 2.0
    path = tmp_path / "bad.csv"
    rows.to_csv(path, index=False)
    assert main(["calibrate", str(path), "--bayes", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "row 5" in err and "human_label" in err


def test_paired_design_with_too_many_models_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    sim = simulate_items([0.7] * 7, 0.8, 0.8, n_cal=30, n_test=30, seed=0)
    path = tmp_path / "seven.csv"
    sim.rows.to_csv(path, index=False)
    assert (
        main(
            [
                "calibrate",
                str(path),
                "--n-boot",
                "100",
                "--n-splits",
                "1",
                "--bayes",
                "--designs",
                "paired",
                "--no-progress",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "at most 6 models" in err


@pytest.mark.parametrize(
    "argv", [["--draws", "10"], ["--chains", "0"], ["--designs", "pairs"], ["--method", "advi"]]
)
def test_bad_bayes_options_are_usage_errors(
    argv: list[str], items_csv: Path, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["calibrate", str(items_csv), "--bayes", *argv])
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err
