"""Soft-Elo (seed 000): scores, temperature, held-out protocol, conformal intervals."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import judgebayes as jb
from judgebayes.cli import main
from judgebayes.softelo import (
    ConformalPool,
    LowSignalWarning,
    budget_curve,
    combine_orders,
    conformal_comparison,
    fit_temperature,
    held_out_elo,
)
from judgebayes.softelo import diagnostics as dg


@pytest.fixture(scope="module")
def arena() -> jb.SimulatedArena:
    return jb.simulate_arena(30, 9000, seed=4)


@pytest.fixture(scope="module")
def held(arena: jb.SimulatedArena) -> jb.softelo.HeldOutElo:
    return held_out_elo(
        arena.battles, methods=("hard", "soft", "smooth_1"), n_boot=20, progress=False
    )


def test_combine_orders_by_hand() -> None:
    calls = pd.DataFrame(
        {
            "prompt_id": [1, 1, 2, 2, 3],
            "model_a": ["x", "y", "x", "y", "y"],  # the response shown first
            "model_b": ["y", "x", "y", "x", "x"],
            "score_a:help": [8, 6, 7, 7, 9],
            "score_b:help": [5, 7, 6, 6, 3],
            "score_a:fact": [7, 6, 6, 8, 8],
            "score_b:fact": [6, 8, 6, 6, 8],
            "human_label": [1, 0, np.nan, np.nan, 0],
        }
    )
    b = combine_orders(calls).frame.set_index("prompt_id")
    # prompt 1: x-first gives x−y = (3 + 1)/2 = 2; y-first gives y−x = (−1 − 2)/2 = −1.5 → x−y 1.5
    assert b.loc[1, "score_diff"] == pytest.approx((2 + 1.5) / 2)
    assert b.loc[1, "judge_label"] == 1.0 and b.loc[1, "human_label"] == 1.0
    # prompt 2: x-first 0.5, y-first (1 + 2)/2 = 1.5 → x−y −1.5: the sign flips → tie
    assert b.loc[2, "judge_label"] == 0.5
    assert b.loc[2, "s_a_first"] == 0.5 and b.loc[2, "s_b_first"] == -1.5
    # prompt 3: one order only (y first): x−y = −(6 + 0)/2 = −3 → y wins; human 0 (y beat x)
    assert b.loc[3, "score_diff"] == -3 and b.loc[3, "judge_label"] == 0.0
    # human_label 0 on the y-first call: the first-shown y lost, so x won.
    assert np.isnan(b.loc[3, "s_a_first"]) and b.loc[3, "human_label"] == 1.0
    bad = calls.copy()
    bad.loc[3, "score_b:fact"] = np.nan
    with pytest.raises(jb.DataError, match="missing criterion score") as err:
        combine_orders(bad)
    assert err.value.row == 3 and err.value.column == "score_b:fact"
    with pytest.raises(jb.DataError, match="missing criterion column"):
        combine_orders(calls, criteria=["help", "fact", "clarity"])


def test_temperature_mle_matches_logistic_regression_and_covers_truth() -> None:
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    s = rng.normal(0, 2, 4000)
    y = (rng.random(4000) < expit(0.45 * s)).astype(float)
    battles = jb.Battles(
        pd.DataFrame({"model_a": "a", "model_b": "b", "score_diff": s, "human_label": y})
    )
    temp = fit_temperature(battles)
    ref = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-10).fit(s[:, None], y)
    assert temp.beta == pytest.approx(ref.coef_[0, 0], abs=1e-5)
    assert temp.ci[0] < 0.45 < temp.ci[1]
    assert temp.ece < 0.03  # well specified: only sampling noise (~0.01) in the bins
    assert not temp.low_signal
    # Counting ties as ½ pulls β down (Appendix C's sensitivity variant).
    y_ties = np.where(rng.random(4000) < 0.3, 0.5, y)
    tied = jb.Battles(
        pd.DataFrame({"model_a": "a", "model_b": "b", "score_diff": s, "human_label": y_ties})
    )
    assert fit_temperature(tied, ties="half").beta < fit_temperature(tied).beta


def test_temperature_reads_as_one_line_and_an_html_table(arena: jb.SimulatedArena) -> None:
    temp = fit_temperature(arena.battles, warn=False)
    text = repr(temp)
    assert text.startswith("<Temperature:") and "\n" not in text and len(text) < 300
    assert "<table" in temp._repr_html_()


def test_low_signal_is_flagged() -> None:
    rng = np.random.default_rng(1)
    s = rng.normal(0, 2, 3000)
    y = (rng.random(3000) < 0.5).astype(float)  # humans ignore the judge's scores
    battles = jb.Battles(
        pd.DataFrame({"model_a": "a", "model_b": "b", "score_diff": s, "human_label": y})
    )
    with pytest.warns(LowSignalWarning, match="low score signal"):
        temp = fit_temperature(battles)
    assert temp.low_signal and abs(temp.beta) < 0.1


def test_soft_elo_fixes_the_scale_and_keeps_the_ranking(held: jb.softelo.HeldOutElo) -> None:
    summary = held.summary().set_index("method")
    assert summary.loc["soft", "mae"] < 0.5 * summary.loc["hard", "mae"]
    assert abs(summary.loc["soft", "delta_rho"]) < 0.05
    assert 0.4 < held.table["beta"].mean() < 0.55
    # Hard-Elo residuals ramp with strength (Fig. 2); Soft-Elo's ramp is much flatter.
    q = held.residual_by_quartile()
    assert q.loc["Q4", "hard"] - q.loc["Q1", "hard"] > 3 * (
        q.loc["Q4", "soft"] - q.loc["Q1", "soft"]
    )
    # Label smoothing with c = 1 is exactly Hard-Elo (Appendix H.1).
    np.testing.assert_allclose(held.table["elo_smooth_1"], held.table["elo_hard"], atol=1e-8)


def test_held_out_protocol_matches_the_two_steps_by_hand(
    arena: jb.SimulatedArena, held: jb.softelo.HeldOutElo
) -> None:
    m = "model-07"
    without = arena.battles.without(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.JudgeBayesWarning)
        anchors = jb.fit_bt(without, target="judge_label")
    fixed = dict(zip(anchors.models, anchors.elo, strict=True))
    mine = jb.fit_bt(arena.battles.involving(m), target="judge_label", fixed=fixed)
    row = held.table.set_index("model").loc[m]
    # Algorithm 1 fits the anchors over all 30 names; m has no anchor battles, so the
    # penalty sets θ_m = 0 and the 29 anchors sum to zero exactly as in fit_bt.
    assert row["elo_hard"] == pytest.approx(mine[m], abs=1e-4)


def test_conformal_comparison_is_paired_and_soft_is_narrower(held: jb.softelo.HeldOutElo) -> None:
    comp = conformal_comparison(held, alpha=0.1, n_splits=20, seed=3)
    t = comp.table.set_index("method")
    assert t.loc["soft", "median_width"] < 0.6 * t.loc["hard", "median_width"]
    # 15 test models × 20 splits: mean coverage has SD ≈ 0.04 around ≥ 0.9 → ≥ 0.8.
    assert (t["coverage"] >= 0.8).all()
    hard, soft = comp.evaluations["hard"], comp.evaluations["soft"]
    assert hard.n_calibration == soft.n_calibration == 15


def test_new_model_interval_from_a_stored_pool(
    arena: jb.SimulatedArena, held: jb.softelo.HeldOutElo
) -> None:
    pool = ConformalPool.from_held_out(held, method="soft", alpha=0.1)
    row = held.table.iloc[0]
    interval = pool.interval(row["elo_soft"], row["se_soft"])
    assert interval.finite and interval.width[0] > 0
    # End to end: a "new" model's battles against fixed anchors.
    m = row["model"]
    without = arena.battles.without(m)
    beta = float(held.table["beta"].mean())
    soft = expit(beta * without.column("score_diff"))
    anchors = jb.fit_bt(without, target=soft)
    out = pool.predict(
        arena.battles.involving(m),
        m,
        dict(zip(anchors.models, anchors.elo, strict=True)),
        beta=beta,
    )
    assert out.lower[0] < out.estimate[0] < out.upper[0]


def test_budget_curve_soft_beats_hard_at_small_budgets() -> None:
    sim = jb.simulate_arena(20, 4000, seed=6)
    curve = budget_curve(sim.battles, budgets=(10, 50), n_rep=2, progress=False)
    small = curve[curve["budget"] == 10]
    assert (small["mae_soft"] < small["mae_hard"]).all()
    assert len(curve) == 4 and set(curve["n_battles"]) == {200, 1000}


def test_bias_probes_detect_simulated_biases() -> None:
    plain = jb.simulate_arena(20, 6000, seed=2)
    biased = jb.simulate_arena(20, 6000, seed=2, position_bias=1.0, length_bias=2.0)
    assert dg.position_bias_rates(plain.battles)["p_first_picked"] == pytest.approx(0.5, abs=0.03)
    pb = dg.position_bias_rates(biased.battles)
    assert pb["p_first_picked"] > 0.6 and pb["first_advantage"] == pytest.approx(1.0, abs=0.1)
    # Verdicts on near-tied scores: a judge whose verdict favours the longer answer 70%
    # of the time, and one that does not care.
    rng = np.random.default_rng(5)
    n = 2000
    len_a, len_b = rng.integers(100, 900, n), rng.integers(100, 900, n)
    longer_a = len_a > len_b
    fair = rng.random(n) < 0.5
    keen = np.where(rng.random(n) < 0.7, longer_a, ~longer_a)
    base = {
        "model_a": "a",
        "model_b": "b",
        "score_diff": rng.uniform(-0.3, 0.3, n),
        "len_a": len_a,
        "len_b": len_b,
    }
    keen_rate = dg.verbosity_bias(
        jb.Battles(pd.DataFrame({**base, "judge_label": keen.astype(float)}))
    )
    fair_rate = dg.verbosity_bias(
        jb.Battles(pd.DataFrame({**base, "judge_label": fair.astype(float)}))
    )
    assert keen_rate["ci_lo"] > 0.65 - 0.02 and keen_rate["p_prefers_longer"] < 0.75
    assert fair_rate["ci_lo"] < 0.5 < fair_rate["ci_hi"]


def test_kappa_and_reliability_against_references() -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(0)
    a = rng.choice([0.0, 0.5, 1.0], 500)
    b = np.where(rng.random(500) < 0.6, a, rng.choice([0.0, 0.5, 1.0], 500))
    assert dg.cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a.astype(str), b.astype(str)))
    table, ece = dg.reliability(
        np.array([0.6] * 10 + [0.9] * 10), np.array([1] * 6 + [0] * 4 + [1] * 8 + [0] * 2), n_bins=2
    )
    assert ece == pytest.approx(0.5 * 0.0 + 0.5 * 0.1)
    assert table["n"].tolist() == [10, 10]


def test_cli_softelo_on_an_annotation_csv(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    sim = jb.simulate_arena(14, 2500, seed=9)
    f = sim.battles.frame
    csv = pd.DataFrame(
        {
            "model_a": f["model_a"],
            "model_b": f["model_b"],
            "human_pref": 1 - f["human_label"],
            "judge_pref": 1 - f["judge_label"],
            "scores_a": [json.dumps({"overall": v}) for v in f["score_a"]],
            "scores_b": [json.dumps({"overall": v}) for v in f["score_b"]],
        }
    )
    path = tmp_path / "ann.csv"
    csv.to_csv(path, index=False)
    out = tmp_path / "out"
    assert (
        main(
            [
                "softelo",
                str(path),
                "--format",
                "softelo",
                "--n-boot",
                "10",
                "--splits",
                "3",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "beta* = 0." in printed and "soft" in printed and "coverage" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert {r["method"] for r in summary["summary"]} == {"hard", "soft"}
    assert len(pd.read_csv(out / "held_out.csv")) == 14


def test_one_call_pipeline_summarises_and_plots(arena: jb.SimulatedArena) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from judgebayes.softelo import run_softelo

    result = run_softelo(arena.battles, n_boot=10, n_splits=3, progress=False)
    table = result.summary()
    assert list(table["method"]) == ["hard", "soft"]
    assert {"mae", "spearman", "delta_rho", "coverage", "median_width"} <= set(table.columns)
    axes = result.plot()
    assert axes.size == 4
    assert "β*" in str(result)
