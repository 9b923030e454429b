"""Bradley–Terry MAP (seed 000, Eq. 1) against references, closed forms and invariances."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import logit

import judgebayes as jb


@pytest.fixture(scope="module")
def arena() -> jb.SimulatedArena:
    return jb.simulate_bt(12, 4000, tie_nu=0.6, seed=11)


def sklearn_elo(battles: jb.Battles, target: str, lam: float) -> np.ndarray:
    """Chatbot-Arena-style logistic regression: ±1 design rows, a tie as two half rows."""
    from sklearn.linear_model import LogisticRegression

    a, b = battles.codes()
    y = battles.column(target)
    m = len(battles.models)
    rows = np.zeros((len(a), m))
    rows[np.arange(len(a)), a] = 1.0
    rows[np.arange(len(a)), b] = -1.0
    tie = y == 0.5
    x = np.vstack([rows[~tie], rows[tie], rows[tie]])
    yy = np.concatenate([y[~tie], np.ones(tie.sum()), np.zeros(tie.sum())])
    w = np.concatenate([np.ones((~tie).sum()), np.full(2 * tie.sum(), 0.5)])
    # sklearn minimises ½‖w‖² + C Σ loss  ⇔  Σ loss + λ‖w‖² with C = 1 / (2λ).
    model = LogisticRegression(C=1 / (2 * lam), fit_intercept=False, tol=1e-12, max_iter=10_000)
    model.fit(x, yy, sample_weight=w)
    return np.asarray(jb.theta_to_elo(model.coef_[0]))


@pytest.mark.parametrize("lam", [0.01, 1.0])
def test_matches_logistic_regression_reference(arena: jb.SimulatedArena, lam: float) -> None:
    fit = jb.fit_bt(arena.battles, target="human_label", lam=lam)
    ref = sklearn_elo(arena.battles, "human_label", lam)
    diff = (fit.elo - fit.elo.mean()) - (ref - ref.mean())
    assert np.abs(diff).max() < 0.05


def test_two_models_closed_form() -> None:
    # x beats y 7 times, loses 2, ties 1: MLE d = logit(7.5 / 10).
    f = pd.DataFrame(
        {"model_a": ["x"] * 10, "model_b": ["y"] * 10, "judge_label": [1.0] * 7 + [0.0] * 2 + [0.5]}
    )
    fit = jb.fit_bt(jb.Battles(f), lam=0.0)
    assert fit.theta[0] - fit.theta[1] == pytest.approx(logit(0.75), abs=1e-8)
    assert fit.elo.mean() == pytest.approx(1500.0)
    # With the penalty the stationarity condition 7.5 - 10σ(2t) = 2λt holds (θ = ±t).
    lam = 0.5
    t = jb.fit_bt(jb.Battles(f), lam=lam).theta[0]
    assert 7.5 - 10 / (1 + np.exp(-2 * t)) == pytest.approx(2 * lam * t, abs=1e-8)


def test_penalised_fit_is_centred_at_1500(arena: jb.SimulatedArena) -> None:
    fit = jb.fit_bt(arena.battles, target="human_label")
    assert fit.elo.mean() == pytest.approx(1500.0, abs=1e-6)


def test_recovers_simulated_strengths(arena: jb.SimulatedArena) -> None:
    sim = jb.simulate_bt(12, 60_000, seed=5)  # no ties: the fitted model is the true model
    fit = jb.fit_bt(sim.battles, target="human_label")
    truth = sim.truth["elo"].to_numpy()
    assert np.abs(fit.elo - truth).max() < 15  # SE ≈ 5 Elo per model at 10k battles each


def test_anchored_fit_reproduces_the_joint_fit(arena: jb.SimulatedArena) -> None:
    fit = jb.fit_bt(arena.battles, target="human_label")
    held = fit.models[3]
    anchors = {m: e for m, e in zip(fit.models, fit.elo, strict=True) if m != held}
    alone = jb.fit_bt(arena.battles.involving(held), target="human_label", fixed=anchors)
    assert alone[held] == pytest.approx(fit[held], abs=1e-6)
    assert set(alone.fixed) == set(anchors)
    for m in anchors:
        assert alone[m] == pytest.approx(anchors[m])


def test_orientation_and_duplication_invariance(arena: jb.SimulatedArena) -> None:
    f = arena.battles.frame
    swapped = f.rename(columns={"model_a": "model_b", "model_b": "model_a"})
    swapped["human_label"] = 1 - swapped["human_label"]
    fit = jb.fit_bt(arena.battles, target="human_label", lam=0.0)
    fit_swapped = jb.fit_bt(jb.Battles(swapped), target="human_label", lam=0.0)
    np.testing.assert_allclose(fit.elo, fit_swapped.elo, atol=1e-6)
    doubled = jb.fit_bt(jb.Battles(pd.concat([f, f])), target="human_label", lam=0.0)
    np.testing.assert_allclose(fit.elo, doubled.elo, atol=1e-6)
    weighted = jb.fit_bt(arena.battles, target="human_label", lam=0.0, weights=np.full(len(f), 2.0))
    np.testing.assert_allclose(fit.elo, weighted.elo, atol=1e-6)


def test_consistency_data_has_seven_components_of_five(consistency_battles) -> None:
    judge = consistency_battles.for_judge("gpt-4o-mini-2024-07-18")
    with pytest.warns(jb.DisconnectedGraphWarning, match="7 disconnected components"):
        fit = jb.fit_bt(judge)
    assert len(fit.graph.components) == 7
    assert all(len(c) == 5 for c in fit.graph.components)
    frame = fit.to_frame()
    assert frame["component"].nunique() == 7
    # Each component is centred on its own by the penalty.
    np.testing.assert_allclose(frame.groupby("component")["elo"].mean(), 1500.0, atol=1e-6)
    with pytest.raises(jb.DataError, match="disconnected"):
        jb.fit_bt(judge, on_disconnected="raise")
    with pytest.raises(jb.DataError, match="lam > 0"):
        jb.fit_bt(judge, lam=0.0)


def test_all_win_model_is_reported_and_mle_refused() -> None:
    f = pd.DataFrame(
        {
            "model_a": ["x", "x", "y", "z"],
            "model_b": ["y", "z", "z", "y"],
            "judge_label": [1.0, 1.0, 1.0, 1.0],
        }
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = jb.fit_bt(jb.Battles(f))
    assert fit.graph.all_wins == ("x",)
    assert any("won every battle" in str(w.message) for w in caught)
    with pytest.raises(jb.DataError, match="does not exist"):
        jb.fit_bt(jb.Battles(f), lam=0.0)
