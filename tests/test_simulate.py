"""Simulators: determinism and the ranges seed 000 reports."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb


def test_same_seed_same_arena_different_seed_different_arena() -> None:
    one = jb.simulate_arena(12, 2000, seed=4)
    two = jb.simulate_arena(12, 2000, seed=4)
    pd.testing.assert_frame_equal(one.battles.frame, two.battles.frame)
    pd.testing.assert_frame_equal(one.truth, two.truth)
    three = jb.simulate_arena(12, 2000, seed=5)
    assert not one.battles.frame["score_diff"].equals(three.battles.frame["score_diff"])


def test_default_arena_matches_seed_000_ranges() -> None:
    """Mean |s| in 1.3–2.1, calibration slope β* ≈ 0.5 (seed 000: β* 0.36–0.60)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import log_expit

    sim = jb.simulate_arena(seed=0)
    f = sim.battles.frame
    assert 1.3 <= f["score_diff"].abs().mean() <= 2.1
    assert len(sim.battles.models) == 55 and len(f) == 25_000
    decisive = f[f["human_label"] != 0.5]
    s, y = decisive["score_diff"].to_numpy(), decisive["human_label"].to_numpy()

    def nll(beta: float) -> float:
        return -np.sum(y * log_expit(beta * s) + (1 - y) * log_expit(-beta * s))

    beta = minimize_scalar(nll, bounds=(0.01, 5), method="bounded").x
    # The judge sees z through rounding noise, which attenuates β* slightly.
    assert 0.40 < beta < 0.52


def test_human_labels_identify_the_truth_and_judge_labels_stretch_it() -> None:
    sim = jb.simulate_arena(seed=1)
    human = jb.fit_bt(sim.battles, target="human_label")
    judge = jb.fit_bt(sim.battles, target="judge_label")
    truth = sim.elo.reindex(human.models).to_numpy()
    assert np.abs(human.elo - truth).mean() < 12  # bootstrap SE ≈ 12 Elo per model
    stretch = np.polyfit(truth, judge.elo, 1)[0]
    assert stretch > 1.5  # hard judge labels are more decisive than humans


def test_biases_show_up_where_they_should() -> None:
    base = jb.simulate_arena(20, 6000, seed=2)
    biased = jb.simulate_arena(
        20, 6000, seed=2, length_bias=1.5, self_bias=2.0, judge_model="model-03"
    )
    f0, f1 = base.battles.frame, biased.battles.frame
    longer_a = f1["len_a"] > f1["len_b"]
    assert (f1["score_diff"] - f0["score_diff"])[longer_a].mean() > 0.3
    own = f1["model_a"] == "model-03"
    assert (f1["score_diff"] - f0["score_diff"])[own].mean() > 1.5
    np.testing.assert_array_equal(f0["human_label"], f1["human_label"])  # humans unaffected


def test_bt_simulator_tie_rate_matches_davidson() -> None:
    sim = jb.simulate_bt(2, 40_000, theta=np.array([0.0, 0.0]), tie_nu=1.0, seed=0)
    tie_rate = (sim.battles.column("human_label") == 0.5).mean()
    assert tie_rate == pytest.approx(1 / 3, abs=0.01)  # ν / (2 + ν) at d = 0; SE 0.0024


def test_misspecified_humans_tie_like_the_arena_and_keep_the_truth_identified() -> None:
    """Human-label Hard-Elo converges to `truth.elo` under the misspecified story too.

    10 models, 60k battles: each model's bootstrap z-score (estimate − truth) / SE is
    standard normal when the population Elo is right, so max |z| over 10 models stays
    below 3.3 (two-sided, family-wise ≈ 1 %), and the mean z² is ≈ 1 ± 0.45 (sd of a
    χ²₁₀/10 is 0.45; the bound 2.5 is ≈ 3.3 sd).
    """
    sim = jb.simulate_arena(n_models=10, n_battles=60_000, human_model="misspecified", seed=1)
    board = jb.bootstrap_bt(sim.battles, target="human_label", n_boot=100, seed=0, progress=False)
    z = (board.elo - sim.elo.loc[list(board.models)].to_numpy()) / board.se
    assert np.max(np.abs(z)) < 3.3 and np.mean(z**2) < 2.5
    default = jb.simulate_arena(human_model="misspecified", seed=0)
    assert 0.32 < default.params["human_tie_rate"] < 0.40  # real arena data: ≈ 0.36


def test_misspecified_humans_break_the_soft_elo_calibration_model() -> None:
    """σ(β s) fits the logistic story almost perfectly and the misspecified one worse."""
    ece = {
        hm: jb.fit_temperature(jb.simulate_arena(human_model=hm, seed=0).battles, warn=False).ece
        for hm in ("logistic", "misspecified")
    }
    assert ece["logistic"] < 0.015 < 0.02 < ece["misspecified"]
    with pytest.raises(ValueError, match="human_model"):
        jb.simulate_arena(n_models=3, n_battles=10, human_model="probit")  # type: ignore[arg-type]
