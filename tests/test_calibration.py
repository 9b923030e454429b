"""Seed 001: naive, Rogan–Gladen, PPI++, J / ΔJ diagnostics, paired bootstrap, sweeps.

Reference values: closed forms of the paper (Eq. 1, Appendices A–C), the
``ppi-python`` package (``ppi_mean_pointestimate`` / ``ppi_mean_ci``) on the same
data, and seeded Monte Carlo with tolerances of a few Monte Carlo standard errors.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from judgebayes.calibration import (
    Calibration,
    JudgedItems,
    calibrate,
    judge_rates,
    naive_estimate,
    ppi_mean,
    read_judged_items,
    rg_shared_difference,
    rogan_gladen,
    shared_calibration_bias,
)
from judgebayes.calibration.sweep import (
    pair_cell_probs,
    paper_table6,
    simulate_items,
    simulate_sweep,
)
from judgebayes.cli import main
from judgebayes.errors import DataError

ppi_py = pytest.importorskip("ppi_py")


def _exact_items(theta: float = 0.7, q0: float = 0.7, q1: float = 0.8) -> pd.DataFrame:
    """One model whose calibration and test sets hold exactly the population rates."""
    m1, m0, n = 100, 100, 1000
    p = theta * q1 + (1 - theta) * (1 - q0)
    cal_h = (
        [1] * round(q1 * m1)
        + [0] * (m1 - round(q1 * m1))
        + [0] * round(q0 * m0)
        + [1] * (m0 - round(q0 * m0))
    )
    cal_y = [1] * m1 + [0] * m0
    test_h = [1] * round(p * n) + [0] * (n - round(p * n))
    rows = [
        {"model": "M", "item_id": f"c{i}", "judge_label": h, "human_label": y}
        for i, (h, y) in enumerate(zip(cal_h, cal_y, strict=True))
    ]
    rows += [{"model": "M", "item_id": f"t{i}", "judge_label": h} for i, h in enumerate(test_h)]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def sim():
    return simulate_items(
        [0.70, 0.75], [0.65, 0.75], [0.70, 0.80], n_cal=400, n_test=800, corr=0.5, seed=11
    )


@pytest.fixture(scope="module")
def fitted(sim) -> Calibration:
    return calibrate(sim.items, baseline="A", n_boot=2000, n_splits=5, seed=3, progress=False)


# ------------------------------------------------------------------ closed forms
def test_rogan_gladen_on_population_rates_returns_theta_exactly() -> None:
    items = JudgedItems(_exact_items(theta=0.7, q0=0.7, q1=0.8))
    est = rogan_gladen(items.test("M"), *items.calibration("M"))
    assert est.raw == pytest.approx(0.7, abs=1e-12)
    rates = judge_rates(*items.calibration("M"))
    assert (rates.q0, rates.q1, rates.j) == pytest.approx((0.7, 0.8, 0.5), abs=1e-12)
    # Eq. 1: the naive estimator recovers p = θ q1 + (1 − θ)(1 − q0), not θ.
    assert naive_estimate(items.test("M")).estimate == pytest.approx(0.65, abs=1e-12)
    res = calibrate(items, n_boot=200, progress=False)
    assert res.plugin["rg_2x"][0] == pytest.approx(0.7, abs=1e-12)
    assert res.plugin["rg"][0] == pytest.approx(0.7, abs=1e-12)


def test_appendix_c_bias_of_shared_calibration() -> None:
    # The paper's numbers (Mistral Large, math): ≈ −0.054.
    assert shared_calibration_bias(0.738, -0.119, -0.060, 0.519) == pytest.approx(-0.054, abs=5e-4)
    # Exact on population rates: RG of A with B's (q0, q1) minus θ_A, and the last line
    # of Appendix C, θ_A Δq1/J_B − (1 − θ_A) Δq0/J_B.
    rng = np.random.default_rng(0)
    for _ in range(20):
        theta, q0a, q1a, q0b, q1b = rng.uniform([0.1, 0.55, 0.55, 0.55, 0.55], 0.95)
        p_a = theta * q1a + (1 - theta) * (1 - q0a)
        jb = q0b + q1b - 1
        exact = (p_a + q0b - 1) / jb - theta
        bias = shared_calibration_bias(theta, (q0a + q1a - 1) - jb, q0a - q0b, jb)
        assert bias == pytest.approx(exact, abs=1e-12)
        assert bias == pytest.approx(
            (theta * (q1a - q1b) - (1 - theta) * (q0a - q0b)) / jb, abs=1e-12
        )


def test_shared_calibration_ppi_with_lambda_one_over_j_is_rg(sim) -> None:
    # Appendix A.2: PPI++ with another model's calibration and λ = 1/Ĵ is exactly RG.
    y, h = sim.items.calibration("B")
    test_a = sim.items.test("A")
    j = judge_rates(y, h).j
    assert ppi_mean(test_a, y, h, lam=1 / j).estimate == pytest.approx(
        rogan_gladen(test_a, y, h).raw, abs=1e-12
    )


def test_ppi_lambda_matches_appendix_a_approximation() -> None:
    # λ* = Cov(Y, Ẑ)/[(1 + n/N) Var(Ẑ)] with Cov = θ(1 − θ)J and Var = p(1 − p) (Appendix A
    # states the N ≫ n limit θ(1 − θ)J/[p(1 − p)]).
    theta, q0, q1 = 0.6, 0.75, 0.85
    s = simulate_items([theta], q0, q1, n_cal=40_000, n_test=80_000, seed=2)
    est = ppi_mean(s.items.test("A"), *s.items.calibration("A"))
    j, p = q0 + q1 - 1, theta * q1 + (1 - theta) * (1 - q0)
    assert est.lam == pytest.approx(theta * (1 - theta) * j / (1.5 * p * (1 - p)), abs=0.01)


# ------------------------------------------------------------ reference package
@pytest.mark.parametrize("runs", [1, 3])
def test_ppi_mean_matches_ppi_python(runs: int) -> None:
    s = simulate_items([0.72], 0.6, 0.85, n_cal=300, n_test=700, runs=runs, seed=runs)
    y, h = s.items.calibration("A")
    test = s.items.test("A")
    ours = ppi_mean(test, y, h, alpha=0.1)
    assert ours.estimate == pytest.approx(
        float(ppi_py.ppi_mean_pointestimate(y, h, test)[0]), abs=1e-12
    )
    lo, hi = ppi_py.ppi_mean_ci(y, h, test, alpha=0.1)
    assert ours.ci == pytest.approx((float(lo[0]), float(hi[0])), abs=1e-12)
    fixed = ppi_mean(test, y, h, lam=0.4)
    assert fixed.estimate == pytest.approx(
        float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, h, test, lam=0.4))), abs=1e-12
    )


def test_calibrate_plugin_equals_single_model_estimators(sim, fitted) -> None:
    for k, m in enumerate(fitted.models):
        y, h = sim.items.calibration(m)
        test = sim.items.test(m)
        assert fitted.plugin["ppi_2x"][k] == pytest.approx(ppi_mean(test, y, h).estimate, abs=1e-12)
        assert fitted.plugin["rg_2x"][k] == pytest.approx(
            rogan_gladen(test, y, h).estimate, abs=1e-12
        )
        assert fitted.plugin["naive"][k] == pytest.approx(test.mean(), abs=1e-12)
        ya, ha = sim.items.calibration("A")
        assert fitted.plugin["rg"][k] == pytest.approx(
            rogan_gladen(test, ya, ha).estimate, abs=1e-12
        )


# --------------------------------------------------------- delta method vs boot
def test_appendix_b_se_equals_the_numerical_delta_method_and_the_bootstrap(sim, fitted) -> None:
    ya, ha = sim.items.calibration("A")
    closed = rg_shared_difference(sim.items.test("B"), sim.items.test("A"), ya, ha)
    comp = fitted.compare("B", "A")
    assert comp["rg"].plugin == pytest.approx(closed.estimate, abs=1e-12)
    assert comp["rg"].se_delta == pytest.approx(closed.se, rel=1e-6)
    # Bootstrap SE (2,000 replicates: MC relative error ≈ 1.6%) agrees within 10%.
    for name in ("naive", "rg", "rg_2x", "ppi_2x"):
        assert comp[name].se == pytest.approx(comp[name].se_delta, rel=0.10), name


def test_single_model_delta_ses_match_closed_forms(sim, fitted) -> None:
    for k, m in enumerate(fitted.models):
        y, h = sim.items.calibration(m)
        test = sim.items.test(m)
        rg = rogan_gladen(test, y, h)  # Greiner / Lang–Reiczigel formula
        assert np.sqrt(fitted.delta_cov["rg_2x"][k, k]) == pytest.approx(rg.se, rel=1e-6)
        rates = judge_rates(y, h)
        assert np.sqrt(fitted.delta_cov["J"][k, k]) == pytest.approx(rates.se_j, rel=1e-6)
        # PPI++: delta method with λ estimated vs ppi_py's fixed-λ formula.
        ppi = ppi_mean(test, y, h)
        assert np.sqrt(fitted.delta_cov["ppi"][k, k]) == pytest.approx(ppi.se, rel=0.03)


def test_bootstrap_keeps_test_items_paired() -> None:
    s = simulate_items([0.7, 0.75], 0.95, 0.95, n_cal=300, n_test=800, corr=0.8, seed=2)
    res = calibrate(s.items, n_boot=2000, n_splits=1, seed=0, progress=False)
    a, b = s.items.test("B"), s.items.test("A")
    paired = np.sqrt(np.var(a - b) / a.size)
    independent = np.sqrt((np.var(a) + np.var(b)) / a.size)
    naive = res.compare("B", "A")["naive"]
    assert naive.se_delta == pytest.approx(paired, rel=1e-6)
    assert naive.se == pytest.approx(paired, rel=0.08)  # MC rel. error of the SE ≈ 1.6%
    assert paired < 0.8 * independent  # correlated models: pairing matters


def test_bootstrap_is_seeded_and_uses_medians(sim, fitted) -> None:
    again = calibrate(sim.items, baseline="A", n_boot=2000, n_splits=5, seed=3, progress=False)
    np.testing.assert_array_equal(again.replicates["ppi_1x"], fitted.replicates["ppi_1x"])
    other = calibrate(sim.items, baseline="A", n_boot=2000, n_splits=5, seed=4, progress=False)
    assert not np.array_equal(other.replicates["rg"], fitted.replicates["rg"])
    e = fitted.estimate("B", "ppi_2x")
    assert e.estimate == pytest.approx(np.median(fitted.replicates["ppi_2x"][:, 1]))
    assert fitted.replicates["ppi_1x"].shape == (5 * 2000, 2)
    # 1× uses half the labels: wider than 2×.
    assert np.ptp(fitted.estimate("B", "ppi_1x").ci) > 1.2 * np.ptp(e.ci)


def test_comparison_and_diagnostics_tables(sim, fitted) -> None:
    comp = fitted.compare("B", "A")
    frame = comp.to_frame()
    assert list(frame["method"][:5]) == ["naive", "rg", "rg_2x", "ppi_1x", "ppi_2x"]
    dj = comp.delta_j
    jd = fitted.diagnostics().set_index("model")
    assert dj.plugin == pytest.approx(fitted.plugin["J"][1] - fitted.plugin["J"][0])
    assert jd.loc["A", "J_lo"] < jd.loc["A", "J"] < jd.loc["A", "J_hi"]
    text = str(fitted)
    assert "PPI++ 2×" in text and "J[B] - J[A]" in text
    # Every cell is printed to three decimals.
    assert f"{fitted.estimate('A', 'q0').estimate:.3f}" in text


def test_calibration_displays_as_one_line_and_an_html_table(fitted) -> None:
    text = repr(fitted)
    assert text.startswith("<Calibration:") and "\n" not in text and len(text) < 300
    assert "<table" in fitted._repr_html_()


# ------------------------------------------------------------------- errors
def _frame() -> pd.DataFrame:
    """One model, 8 calibration items (4 positive), 12 test items."""
    rows = [
        {
            "model": "A",
            "item_id": i,
            "judge_label": i % 2,
            "human_label": (i // 2) % 2 if i < 8 else np.nan,
        }
        for i in range(20)
    ]
    return pd.DataFrame(rows)


def test_label_outside_01_names_row_and_column() -> None:
    frame = _frame()
    frame.loc[5, "judge_label"] = 2
    with pytest.raises(DataError, match=r"row 5, column 'judge_label'.*outside") as err:
        JudgedItems(frame)
    assert err.value.row == 5 and err.value.column == "judge_label"
    frame = _frame()
    frame["human_label"] = frame["human_label"].astype(object)
    frame.loc[3, "human_label"] = "maybe"
    with pytest.raises(DataError, match="human_label"):
        JudgedItems(frame)
    # Other spellings can be mapped.
    yes = _frame().assign(judge_label=lambda f: np.where(f["judge_label"] == 1, "Yes", "No"))
    assert JudgedItems(yes, labels={"yes": 1, "no": 0}).frame["judge_label"].sum() == 10


def test_structural_errors() -> None:
    with pytest.raises(DataError, match="missing column"):
        JudgedItems(_frame().drop(columns="item_id"))
    dup = pd.concat([_frame(), _frame().iloc[[3]]], ignore_index=True)
    with pytest.raises(DataError, match=r"duplicate.*run"):
        JudgedItems(dup)
    runs = pd.concat([_frame().assign(run=0), _frame().assign(run=1)], ignore_index=True)
    runs.loc[20 + 1, "human_label"] = 1 - runs.loc[1, "human_label"]
    with pytest.raises(DataError, match="differs between runs"):
        JudgedItems(runs)
    with pytest.raises(DataError, match="unknown split"):
        JudgedItems(_frame().assign(split="train"))


def test_runs_are_collapsed_to_item_means() -> None:
    rows = [
        {"model": "A", "item_id": 0, "run": r, "judge_label": v} for r, v in enumerate([1, 0, 1])
    ]
    rows += [
        {"model": "A", "item_id": 1, "judge_label": 0, "human_label": 1},
        {"model": "A", "item_id": 2, "judge_label": 1, "human_label": 0},
    ]
    frame = JudgedItems(pd.DataFrame(rows)).frame.set_index("item_id")
    assert frame.loc[0, "judge_label"] == pytest.approx(2 / 3)
    assert (frame.loc[0, "judge_pos"], frame.loc[0, "n_runs"]) == (2, 3)
    assert frame.loc[0, "split"] == "test" and frame.loc[1, "split"] == "calibration"


def test_calibration_without_positives_or_negatives_is_an_error() -> None:
    frame = _frame()
    frame.loc[frame["human_label"].notna(), "human_label"] = 1
    with pytest.raises(DataError, match=r"all positive.*q̂0"):
        calibrate(frame, n_boot=100, progress=False)
    with pytest.raises(DataError, match="0 negatives"):
        judge_rates([1, 1, 1], [1, 0, 1])
    with pytest.raises(DataError, match="no item has a human label"):
        calibrate(_frame().assign(human_label=np.nan), n_boot=100, progress=False)
    with pytest.raises(DataError, match="unknown baseline"):
        calibrate(_frame(), baseline="Z", n_boot=100, progress=False)


def test_j_at_or_below_zero_makes_rg_undefined_not_nonsense() -> None:
    s = simulate_items([0.7], 0.4, 0.4, n_cal=400, n_test=400, seed=5)  # J = −0.2
    y, h = s.items.calibration("A")
    with pytest.raises(DataError, match=r"Ĵ .* ≤ 0.*undefined"):
        rogan_gladen(s.items.test("A"), y, h)
    res = calibrate(s.items, n_boot=300, progress=False)
    assert np.isnan(res.estimate("A", "rg_2x").estimate)
    assert np.isfinite(res.estimate("A", "ppi_2x").estimate)  # PPI++ degrades gracefully
    assert "undefined" in str(res)
    assert any("≤ 0" in f for f in res.report().flags)


def test_rg_clipping_is_reported() -> None:
    items = JudgedItems(_exact_items(theta=0.7, q0=0.7, q1=0.8))
    frame = items.frame
    frame.loc[frame["split"] == "test", "judge_label"] = 1.0  # p̂ = 1 → raw RG = 1.4
    est = rogan_gladen(frame.loc[frame["split"] == "test", "judge_label"], *items.calibration("M"))
    assert est.raw == pytest.approx(1.4) and est.estimate == 1.0 and est.clipped
    assert "clipped from 1.400" in str(est)


def test_challenger_without_labels_gets_naive_and_shared_rg_only() -> None:
    s = simulate_items(
        [0.7, 0.75, 0.6],
        [0.8, 0.8, 0.7],
        [0.85, 0.85, 0.8],
        models=["inc", "chal", "other"],
        labelled=["inc", "other"],
        seed=0,
    )
    res = calibrate(s.items, n_boot=300, progress=False)
    assert res.baseline == "inc"  # most calibration labels (tie broken by order)
    assert np.isfinite(res.estimate("chal", "rg").estimate)
    for name in ("rg_2x", "ppi_1x", "ppi_2x", "J"):
        assert np.isnan(res.estimate("chal", name).estimate), name
    comp = res.compare("chal", "inc")
    assert np.isfinite(comp["rg"].estimate) and np.isnan(comp["ppi_2x"].estimate)
    assert [c.a for c in res.comparisons()] == ["chal", "other"]


# ------------------------------------------------------------------- report
def test_report_follows_the_checklist_and_flags_trouble() -> None:
    bad = simulate_items(
        [0.75, 0.72], [0.35, 0.55], [0.75, 0.97], n_cal=300, n_test=600, seed=1
    )  # biology-like: J_A ≈ 0.1, ΔJ ≈ −0.42
    rep = calibrate(bad.items, n_boot=1000, progress=False).report()
    assert len(rep.checklist) == 7 and not rep.ok
    text = " ".join(rep.flags)
    assert "low judge quality" in text and "excludes 0" in text
    good = simulate_items([0.7, 0.72], 0.85, 0.9, n_cal=300, n_test=600, seed=1)
    rep = calibrate(good.items, n_boot=1000, progress=False).report()
    assert rep.ok, rep.flags
    assert rep.to_dict()["checklist"][5]["title"].startswith("ΔJ")


def test_report_flags_opposite_error_rate_shifts_that_delta_j_cannot_see() -> None:
    """q0 = (0.85, 0.60), q1 = (0.60, 0.85): J = 0.45 for both models (ΔJ = 0) but the
    judge leans towards "correct" on B. Appendix C: RG of B with A's calibration is biased
    by [θ Δq1 − (1 − θ) Δq0]/J_A = [0.7 × 0.25 + 0.3 × 0.25]/0.45 = +0.56 (clipped at 1).
    With 400 calibration items per model the Δq̂ have SE ≈ 0.05, so their intervals
    exclude 0 by about 5 SE; ΔĴ's SE ≈ 0.07 keeps 0 inside it (|ΔĴ| ≈ 0)."""
    s = simulate_items([0.7, 0.7], [0.85, 0.60], [0.60, 0.85], n_cal=400, n_test=800, seed=3)
    res = calibrate(s.items, baseline="A", n_boot=1000, progress=False)
    comp = res.compare("B", "A")
    assert comp.delta_j.ci[0] < 0 < comp.delta_j.ci[1]
    rep = res.report()
    shifted = [f for f in rep.flags if "error rates differ" in f]
    assert len(shifted) == 1 and shifted[0].startswith("B vs A: Δq̂0")
    assert "Δq̂1" in shifted[0] and "Appendix C" in shifted[0]
    assert comp["rg"].estimate - (s.truth.loc[1, "theta_test"] - s.truth.loc[0, "theta_test"]) > 0.2
    # no such flag when the error rates do not move (the good case above)
    good = simulate_items([0.7, 0.72], 0.85, 0.9, n_cal=300, n_test=600, seed=1)
    assert not any(
        "error rates differ" in f
        for f in calibrate(good.items, n_boot=1000, progress=False).report().flags
    )


def test_unlabelled_challenger_makes_shared_calibration_unverifiable() -> None:
    # J_inc = 0.5 (q0 = q1 = 0.75), J_chal = 0.8 (q0 = q1 = 0.9): a ΔJ of 0.3 that the data
    # cannot show, because the challenger has no human labels (Section 7, item 3).
    s = simulate_items(
        [0.7, 0.75],
        [0.75, 0.9],
        [0.75, 0.9],
        models=["inc", "chal"],
        labelled=["inc"],
        n_cal=300,
        n_test=600,
        seed=0,
    )
    assert s.truth["J"].to_list() == pytest.approx([0.5, 0.8])
    res = calibrate(s.items, n_boot=1000, progress=False)
    assert res.unlabelled == ("chal",)
    comp = res.compare("chal", "inc")
    rg = comp["rg"]
    assert np.isfinite(rg.estimate) and not rg.verified and not comp.verified
    assert "chal has no calibration labels" in rg.note and "ΔĴ[chal − inc]" in rg.note
    assert np.isnan(comp.delta_j.estimate) and comp.delta_j.verified
    # Appendix C: the unseen ΔJ biases shared RG by (θ ΔJ − Δq0)/J = 0.15; it is confidently
    # wrong, which is why it must be marked.
    truth = s.truth.set_index("model")["theta_test"]
    assert rg.ci[0] > truth["chal"] - truth["inc"]
    frame = comp.to_frame().set_index("method")
    assert not frame.loc["rg", "verified"] and frame.loc["naive", "verified"]
    assert frame.loc["rg", "note"].startswith("UNVERIFIED")
    assert "UNVERIFIED" in str(comp) and "(unverified)" in repr(comp)
    per_model = res.to_frame().set_index(["model", "method"])
    assert not per_model.loc[("chal", "rg"), "verified"]
    assert per_model.loc[("inc", "rg"), "verified"]
    assert "‡ unverified: chal" in str(res)
    rep = res.report()
    assert not rep.ok
    flags = [f for f in rep.flags if "unverifiable" in f]
    assert len(flags) == 1 and flags[0].startswith("chal vs inc")
    assert "cannot be a default" in flags[0]
    text = str(rep)
    assert "WARNING: chal vs inc: shared calibration is unverifiable" in text
    assert "not estimable" in dict(rep.checklist)["ΔJ for comparisons"]
    assert rep.to_dict()["flags"] == list(rep.flags)
    # A model outside the reported comparisons is still named.
    three = simulate_items(
        [0.7, 0.75, 0.6],
        0.85,
        0.9,
        models=["inc", "chal", "other"],
        labelled=["inc", "other"],
        n_cal=200,
        n_test=400,
        seed=1,
    )
    rep = calibrate(three.items, n_boot=300, progress=False).report("other", "inc")
    assert any(f.startswith("chal has no calibration labels") for f in rep.flags)


def test_labelled_models_with_small_delta_j_stay_verified() -> None:
    s = simulate_items([0.7, 0.72], [0.75, 0.76], [0.75, 0.76], n_cal=300, n_test=600, seed=2)
    res = calibrate(s.items, n_boot=1000, progress=False)
    comp = res.compare("B", "A")
    assert comp.verified and comp["rg"].verified and comp["rg"].note == ""
    assert comp.to_frame()["verified"].all() and res.unlabelled == ()
    rep = res.report()
    assert rep.ok, rep.flags
    assert "‡" not in str(res) and "UNVERIFIED" not in str(res)


def test_rg_interval_is_conditional_on_j_positive() -> None:
    # J_A = q0 + q1 − 1 = 0.05 on 60 calibration items: Ĵ* ≤ 0 in a good share of replicates.
    s = simulate_items([0.6, 0.65], [0.525, 0.9], [0.525, 0.9], n_cal=60, n_test=300, seed=3)
    res = calibrate(s.items, baseline="A", n_boot=1000, progress=False)
    assert res.plugin["J"][0] > 0  # defined on the full data
    e = res.estimate("A", "rg_2x")
    j_pos = res.replicates["J"][:, 0] > 0
    assert 0 < e.n_undefined == (~j_pos).sum() < e.n_boot
    assert e.conditional_on_j_positive
    assert e.estimate == pytest.approx(np.median(res.replicates["rg_2x"][j_pos, 0]))
    frac = f"{e.n_undefined / e.n_boot:.1%}"
    assert f"conditional on Ĵ* > 0 ({frac}" in str(e)
    assert not res.estimate("B", "rg_2x").conditional_on_j_positive
    assert res.estimate("B", "rg").conditional_on_j_positive  # borrows A's calibration
    assert not res.estimate("A", "ppi_2x").conditional_on_j_positive
    frame = res.to_frame().set_index(["model", "method"])
    assert frame.loc[("A", "rg_2x"), "conditional_on_J_positive"]
    assert "conditional on Ĵ* > 0" in frame.loc[("A", "rg_2x"), "note"]
    assert not frame.loc[("A", "ppi_2x"), "conditional_on_J_positive"]
    assert not frame.loc[("B", "rg_2x"), "conditional_on_J_positive"]
    comp = res.compare("B", "A").to_frame().set_index("method")
    assert comp.loc["rg_2x", "conditional_on_J_positive"]
    assert not comp.loc["naive", "conditional_on_J_positive"]
    text = str(res)
    assert "0.000, 1.000]†" in text and "† interval conditional on Ĵ* > 0" in text
    assert f"RG 2× for A in {frac}" in text
    assert "[interval conditional on Ĵ* > 0" in str(res.compare("B", "A"))
    rep = res.report()
    flag = [f for f in rep.flags if f.startswith("RG 2× for A")]
    assert len(flag) == 1 and frac in flag[0] and "conditional on Ĵ* > 0" in flag[0]
    ci_text = dict(rep.checklist)["Confidence intervals and their randomness"]
    assert "conditional on Ĵ* > 0" in ci_text and frac in ci_text


# ---------------------------------------------------------------- simulation
def test_cell_probabilities_follow_eq_1() -> None:
    theta, q0, q1 = (0.6, 0.8), (0.7, 0.9), (0.75, 0.85)
    pcal, ptest = pair_cell_probs(theta, q0, q1, corr=0.4)
    c = pcal.reshape(2, 2, 2, 2)
    assert c[1].sum() == pytest.approx(theta[0]) and c[:, :, 1].sum() == pytest.approx(theta[1])
    p = [t * b + (1 - t) * (1 - a) for t, a, b in zip(theta, q0, q1, strict=True)]
    assert ptest.reshape(2, 2)[1].sum() == pytest.approx(p[0])
    assert ptest.reshape(2, 2)[:, 1].sum() == pytest.approx(p[1])
    assert c[1, :, 1].sum() > theta[0] * theta[1]  # positive correlation


def test_paper_table6_reproduces_table_1_j() -> None:
    t = paper_table6().set_index(["subject", "judge", "model"])["J"]
    assert t["math", "Mistral Large", "Gemma 3 12B"] == pytest.approx(0.397, abs=0.002)
    assert t["math", "Mistral Large", "Qwen 2.5 7B"] == pytest.approx(0.516, abs=0.002)
    assert t["biology", "Mistral Large", "Gemma 3 12B"] == pytest.approx(0.094, abs=0.002)
    assert t["biology", "Gemma 4 31B", "Qwen 2.5 7B"] == pytest.approx(0.528, abs=0.002)


@pytest.fixture(scope="module")
def sweep():
    return simulate_sweep(
        j_a_values=(0.2,), delta_j_values=(0.0, 0.3), n_reps=200, n_boot=400, seed=1, progress=False
    )


def _row(sweep, kind: str, x: float, name: str) -> pd.Series:
    f = sweep.frame
    return f[(f["sweep"] == kind) & np.isclose(f["x"], x) & (f["estimator"] == name)].iloc[0]


def test_sweep_naive_is_biased_as_eq_1_predicts(sweep) -> None:
    r = _row(sweep, "delta_J", 0.0, "naive")
    # ΔJ = 0: E[Δp̂] − δ = −(1 − J_A) δ = −0.035.
    assert r["bias"] == pytest.approx(-0.035, abs=4 * r["bias_mcse"] + 0.002)
    assert r["coverage"] < 0.85


def test_sweep_shared_rg_is_worse_than_naive_at_large_delta_j(sweep) -> None:
    rg, naive = _row(sweep, "delta_J", 0.3, "rg"), _row(sweep, "delta_J", 0.3, "naive")
    assert rg["bias"] > 0.1 > naive["bias"] > 0  # Appendix C: 0.25 before clipping
    assert rg["coverage"] < naive["coverage"] - 3 * rg["coverage_mcse"]
    assert rg["coverage"] < 0.7


def test_sweep_ppi_is_near_nominal(sweep) -> None:
    # 200 replications: coverage MC se ≈ 0.015; allow 3 se below 0.95.
    for kind, x in (("J_A", 0.2), ("delta_J", 0.0), ("delta_J", 0.3)):
        for name in ("ppi_1x", "ppi_2x"):
            r = _row(sweep, kind, x, name)
            assert r["coverage"] >= 0.95 - 3 * 0.0154, (kind, x, name)
            assert abs(r["bias"]) < 4 * r["bias_mcse"] + 0.003, (kind, x, name)
    assert _row(sweep, "delta_J", 0.0, "rg")["coverage"] >= 0.95 - 3 * 0.0154


def test_sweep_plot_draws_figure_1(sweep) -> None:
    import matplotlib

    matplotlib.use("Agg")
    axes = sweep.plot()
    assert axes.shape == (2, 2)
    assert len(axes[0, 1].lines) >= 5
    assert "coverage" in str(sweep) or "bias" in str(sweep)


# ---------------------------------------------------------------------- CLI
def test_cli_calibrate_prints_and_writes(tmp_path, sim, capsys) -> None:
    path = tmp_path / "items.csv"
    sim.rows.to_csv(path, index=False)
    out = tmp_path / "out"
    assert (
        main(
            [
                "calibrate",
                str(path),
                "--baseline",
                "A",
                "--n-boot",
                "300",
                "--n-splits",
                "2",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "PPI++ 2×" in text and "J[B] - J[A]" in text and "1. Estimand" in text
    est = pd.read_csv(out / "estimates.csv")
    assert set(est["method"]) >= {"naive", "rg", "rg_2x", "ppi_1x", "ppi_2x", "J"}
    assert {"q0", "q1", "J"} <= set(pd.read_csv(out / "diagnostics.csv").columns)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["baseline"] == "A" and len(summary["report"]["checklist"]) == 7
    assert read_judged_items(path).models == ("A", "B")


def test_cli_calibrate_bad_input_exits_2(tmp_path, capsys) -> None:
    frame = _frame()
    frame.loc[7, "judge_label"] = 3
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    assert main(["calibrate", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "row 7" in err and "judge_label" in err and err.count("\n") == 0
