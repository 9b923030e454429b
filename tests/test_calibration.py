"""Judge misclassification (seed 001): estimators against closed forms and ppi-python."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.calibration import (
    JudgedItems,
    calibrate,
    judge_rates,
    naive_estimate,
    ppi_mean,
    rogan_gladen,
    shared_calibration_bias,
)
from judgebayes.calibration_sweep import simulate_items, simulate_sweep


def exact_calibration(q0: float, q1: float, n_pos: int = 500, n_neg: int = 500
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Calibration labels whose judge rates are exactly q0 and q1."""
    human = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    judge = np.r_[np.ones(round(q1 * n_pos)), np.zeros(n_pos - round(q1 * n_pos)),
                  np.zeros(round(q0 * n_neg)), np.ones(n_neg - round(q0 * n_neg))]
    return human, judge


def test_rogan_gladen_inverts_eq1_exactly() -> None:
    """With p = θJ + 1 − q0 (Eq. 1) at the exact rates, θ_RG = (p + q0 − 1)/J = θ."""
    q0, q1, theta = 0.8, 0.9, 0.6
    human, judge_cal = exact_calibration(q0, q1)
    p = theta * (q0 + q1 - 1) + 1 - q0  # 0.62
    test = np.r_[np.ones(620), np.zeros(380)]
    assert p == pytest.approx(0.62)
    est = rogan_gladen(test, human, judge_cal)
    assert est.estimate == pytest.approx(theta, abs=1e-12)
    assert not est.clipped
    rates = judge_rates(human, judge_cal)
    assert (rates.q0, rates.q1, rates.j) == pytest.approx((q0, q1, 0.7))
    assert naive_estimate(test).estimate == pytest.approx(0.62)


def test_rogan_gladen_clipping_is_reported() -> None:
    human, judge_cal = exact_calibration(0.8, 0.9)
    test = np.r_[np.ones(95), np.zeros(5)]  # p = 0.95 > q1: θ_RG = 1.071 → clipped to 1
    est = rogan_gladen(test, human, judge_cal)
    assert est.estimate == 1.0 and est.clipped and est.raw == pytest.approx(0.75 / 0.7)


def test_undefined_cases_are_errors_not_numbers() -> None:
    human, judge_cal = exact_calibration(0.4, 0.5)  # J = -0.1
    with pytest.raises(jb.DataError, match="≤ 0"):
        rogan_gladen(np.ones(10), human, judge_cal)
    with pytest.raises(jb.DataError):
        judge_rates(np.ones(20), np.ones(20))  # no negatives: q0 undefined
    with pytest.raises(jb.DataError):
        naive_estimate(np.array([0, 1, 2]))
    frame = pd.DataFrame({"model": ["a", "a"], "item_id": [1, 2], "judge_label": [1, 3]})
    with pytest.raises(jb.DataError) as err:
        JudgedItems(frame)
    assert err.value.column == "judge_label"


def test_shared_calibration_bias_of_appendix_c() -> None:
    assert shared_calibration_bias(0.738, -0.119, -0.060, 0.519) == pytest.approx(-0.054,
                                                                                abs=5e-4)


@pytest.mark.parametrize("lam", [None, 0.5])
def test_ppi_matches_the_reference_package(lam: float | None) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(3)
    y = (rng.random(300) < 0.7).astype(float)
    yhat = np.where(rng.random(300) < 0.85, y, 1 - y)
    z = (rng.random(2000) < 0.7).astype(float)
    unl = np.where(rng.random(2000) < 0.85, z, 1 - z)
    ours = ppi_mean(unl, y, yhat, lam=lam, alpha=0.1)
    ref_point = ppi_py.ppi_mean_pointestimate(y, yhat, unl, lam=lam)
    ref_ci = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=0.1, lam=lam)
    assert ours.estimate == pytest.approx(float(np.ravel(ref_point)[0]), abs=1e-10)
    assert ours.ci == pytest.approx((float(np.ravel(ref_ci[0])[0]),
                                     float(np.ravel(ref_ci[1])[0])), abs=1e-8)


@pytest.fixture(scope="module")
def two_models() -> tuple:
    sim = simulate_items([0.7, 0.75], q0=[0.8, 0.7], q1=[0.85, 0.8], n_cal=600, n_test=1200,
                         seed=1)
    return sim, calibrate(sim.items, n_boot=2000, progress=False, seed=0)


def test_bootstrap_se_agrees_with_the_delta_method(two_models: tuple) -> None:
    """Appendix B's delta-method SE of Δθ vs the paired bootstrap SE (2,000 replicates:
    the SD of an SD estimate is ~1.6%; first-order delta methods are good to ~10% here)."""
    _, cal = two_models
    comp = cal.compare("A", "B").to_frame().set_index("method")
    for name in ("naive", "rg", "rg_2x", "ppi_2x"):
        row = comp.loc[name]
        assert row["se"] == pytest.approx(row["se_delta"], rel=0.15), name
    # Shared RG (A's calibration reused) misses the true Δθ = −0.05 that the
    # model-specific estimators find (ΔJ ≠ 0: Appendix C's bias).
    assert comp.loc["ppi_2x", "hi"] < 0 and comp.loc["rg", "lo"] < 0 < comp.loc["rg", "hi"]


def test_estimates_cover_the_simulated_truth(two_models: tuple) -> None:
    sim, cal = two_models
    frame = cal.to_frame().set_index(["model", "method"])
    truth = sim.truth.set_index("model")
    for model in ("A", "B"):
        for method in ("rg_2x", "ppi_2x"):
            row = frame.loc[(model, method)]
            assert row["lo"] < truth.loc[model, "theta"] < row["hi"], (model, method)
    # The naive estimate targets p of Eq. 1, not θ.
    p_a = 0.7 * 0.65 + 0.2
    assert frame.loc[("A", "naive"), "estimate"] == pytest.approx(p_a, abs=0.04)


def test_report_follows_the_checklist_and_flags_low_j() -> None:
    sim = simulate_items([0.6, 0.65], q0=[0.56, 0.75], q1=[0.56, 0.75], seed=2)  # J 0.12, 0.5
    cal = calibrate(sim.items, n_boot=1000, progress=False)
    text = str(cal.report())
    assert text.count("\n") >= 6 and "7." in text
    assert "J" in text and ("low" in text.lower() or "weak" in text.lower())


def test_sweep_reproduces_the_qualitative_result_of_figure_1() -> None:
    """200 replications per point: coverage MCSE ≤ 0.035, bias MCSE reported per row."""
    sweep = simulate_sweep(j_a_values=(), delta_j_values=(0.0, 0.3), n_reps=200, n_boot=400,
                           seed=0, progress=False)
    f = sweep.to_frame().set_index(["x", "estimator"])
    assert abs(f.loc[(0.3, "naive"), "bias"]) > 4 * f.loc[(0.3, "naive"), "bias_mcse"]
    assert f.loc[(0.3, "rg"), "coverage"] < 0.8  # shared RG undercovers at ΔJ = 0.3
    assert f.loc[(0.3, "rg"), "coverage"] < f.loc[(0.3, "naive"), "coverage"] + 0.05
    for x in (0.0, 0.3):
        assert f.loc[(x, "ppi_2x"), "coverage"] > 0.95 - 3 * 0.016


def test_cli_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import json

    from judgebayes.cli import main

    sim = simulate_items([0.7, 0.75], q0=[0.8, 0.7], q1=[0.85, 0.8], seed=1)
    path = tmp_path / "items.csv"
    sim.items.frame.drop(columns=["judge_pos", "n_runs"]).to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["calibrate", str(path), "--n-boot", "300", "--no-progress",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "PPI++ 2×" in printed and "q0" in printed and "J[B] - J[A]" in printed
    assert json.loads((out / "summary.json").read_text())["models"] == ["A", "B"]
    bad = tmp_path / "bad.csv"
    bad.write_text("model,item_id,judge_label\na,1,1\na,2,7\n")
    assert main(["calibrate", str(bad)]) == 2
    assert "judge_label" in capsys.readouterr().err
