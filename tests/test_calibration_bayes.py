"""Bayesian latent-class calibration designs: likelihood, recovery, LOO, PPC, sweep behaviour.

NUTS runs are small (2 chains × 500 draws for the recovery fit, one joint run of 20
replications per sweep point and design); their cost is mostly compiling the kernels,
which the recovery fit shares with tests/test_calibrate_bayes_cli.py and
tests/test_calibration_paired.py (the same cell layouts: tests/_calibration_fixtures.py).
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.infer import Predictive
from scipy.special import logit

from _calibration_fixtures import log_joint, recovery_items
from judgebayes.calibration.bayes_sweep import sweep_bayes
from judgebayes.calibration.designs import (
    DESIGNS,
    JudgeMixture,
    hierarchical_calibration_model,
    specific_calibration_model,
)
from judgebayes.calibration.posterior import fit_calibration
from judgebayes.calibration.rows import calibration_data, row_cells
from judgebayes.calibration.sweep import simulate_items
from judgebayes.errors import DataError


def _hsroc(q0: float, q1: float) -> tuple[float, float]:
    """(a, log d) with logit q1 = a + d/2 and logit q0 = d/2 − a."""
    d = logit(q1) + logit(q0)
    return (logit(q1) - logit(q0)) / 2, np.log(d)


# ------------------------------------------------------------------ likelihood
def test_judge_mixture_is_eq_1_and_normalised() -> None:
    theta, q0, q1 = 0.6, 0.7, 0.8
    mix = JudgeMixture(jnp.log(theta), jnp.log1p(-theta), logit(q1), logit(1 - q0), 1)
    p = theta * q1 + (1 - theta) * (1 - q0)  # Eq. 1
    assert float(jnp.exp(mix.log_prob(1))) == pytest.approx(p, rel=1e-5)
    k = 3
    mix3 = JudgeMixture(jnp.log(theta), jnp.log1p(-theta), logit(q1), logit(1 - q0), k)
    total = sum(float(jnp.exp(mix3.log_prob(y))) for y in range(k + 1))
    assert total == pytest.approx(1.0, rel=1e-5)
    # An observed Z picks one component.
    known = JudgeMixture(0.0, -1e30, logit(q1), logit(1 - q0), 1)
    assert float(jnp.exp(known.log_prob(1))) == pytest.approx(q1, rel=1e-5)


def test_weighted_cells_have_the_item_likelihood() -> None:
    sim = simulate_items([0.7, 0.6], [0.7, 0.8], [0.8, 0.75], n_cal=150, n_test=300, runs=2, seed=0)
    data = calibration_data(sim.items)
    cells, cell = row_cells(data.data)
    assert len(cells["model_idx"]) < len(data.data["model_idx"]) / 10
    np.testing.assert_array_equal(np.bincount(cell), cells["weight"])
    np.testing.assert_array_equal(cells["model_idx"][cell], data.data["model_idx"])
    params = {
        "theta": jnp.array([0.65, 0.62]),
        "a": jnp.array([0.1, -0.2]),
        "log_dor": jnp.array([0.5, 0.9]),
    }
    with jax.enable_x64(True):
        items = log_joint(specific_calibration_model, data.data, params)
        weighted = log_joint(specific_calibration_model, cells, params)
    assert weighted == pytest.approx(items, rel=1e-9)


def test_model_generates_the_papers_story() -> None:
    a, log_dor = _hsroc(0.7, 0.8)
    n_cal, n = 5000, 20_000
    data = {
        "model_idx": np.zeros(n, np.int32),
        "n_runs": np.ones(n, np.int32),
        "n_cal": n_cal,
        "n_models": 1,
    }
    draw = Predictive(
        specific_calibration_model,
        posterior_samples={
            "theta": jnp.array([[0.6]]),
            "a": jnp.array([[a]]),
            "log_dor": jnp.array([[log_dor]]),
        },
    )(jax.random.PRNGKey(0), **data)
    z, y = np.asarray(draw["human_label"][0]), np.asarray(draw["judge_label"][0])
    assert z.mean() == pytest.approx(0.6, abs=0.02)
    assert y[:n_cal][z == 1].mean() == pytest.approx(0.8, abs=0.02)  # q1
    assert 1 - y[:n_cal][z == 0].mean() == pytest.approx(0.7, abs=0.03)  # q0
    assert y[n_cal:].mean() == pytest.approx(0.6 * 0.8 + 0.4 * 0.3, abs=0.015)  # Eq. 1


def test_every_prior_draw_has_j_positive() -> None:
    # The labels are passed as data, so Predictive draws the parameters from the prior
    # (it conditions on nothing) without simulating labels, and vectorised
    # (parallel=True): the same J draws as a compiled scan that also simulates the
    # labels, in less than half the time.
    data = {
        "model_idx": np.array([0, 1, 2, 0], np.int32),
        "n_runs": np.ones(4, np.int32),
        "n_cal": 2,
        "n_models": 3,
        "human_label": np.array([0, 1], np.int32),
        "judge_label": np.array([0, 1, 1, 0], np.int32),
    }
    for design, fn in DESIGNS.items():
        if design.startswith("paired"):  # item-level data: tests/test_calibration_paired.py
            continue
        draws = Predictive(fn, num_samples=4000, parallel=True)(jax.random.PRNGKey(1), **data)
        assert draws["J"].shape == (4000, 3) and float(draws["J"].min()) > 0, design
        if fn is hierarchical_calibration_model:
            assert draws["tau_a"].shape == (4000, 1) and draws["a"].shape == (4000, 3)


def test_calibration_data_needs_labels() -> None:
    sim = simulate_items([0.7], 0.8, 0.8, n_cal=0, n_test=50, seed=0)
    with pytest.raises(DataError, match="human label"):
        calibration_data(sim.items)


# -------------------------------------------------------------------- recovery
@pytest.fixture(scope="module")
def fitted() -> tuple:
    # J_A = 0.70, J_B = 0.35 (ΔJ as in the biology case): _calibration_fixtures.recovery_items.
    sim = recovery_items()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bc = fit_calibration(sim.items, chains=2, draws=500, warmup=500, seed=0, progress=False)
    return sim, bc


def test_designs_recover_theta_and_j(fitted: tuple) -> None:
    sim, bc = fitted
    truth = sim.truth.set_index("model")
    table = bc.summary("A", "B").set_index(["design", "quantity"])
    for m in ("A", "B"):
        for design in ("model_specific", "hierarchical", "paired"):
            row = table.loc[(design, f"theta[{m}]")]
            assert row["lo"] < truth.loc[m, "theta"] < row["hi"], (design, m)
            row = table.loc[(design, f"J[{m}]")]
            assert row["lo"] < truth.loc[m, "J"] < row["hi"], (design, m)
    shared = bc.fits["shared"].posterior
    np.testing.assert_allclose(shared["q0"].sel(model="A"), shared["q0"].sel(model="B"))
    dj = bc.difference("A", "B", design="model_specific", quantity="J")
    assert dj.ci[0] > 0  # J_A = 0.70 vs J_B = 0.35
    dt = bc.difference("A", "B", design="hierarchical")
    assert dt.ci[0] < -0.05 < dt.ci[1] and 0 < dt.prob_positive < 0.5
    assert set(bc.fits) == {"shared", "model_specific", "hierarchical", "paired"}
    for design in bc.fits:
        assert float(bc.fits[design].posterior["J"].min()) > 0


def test_item_log_likelihood_for_loo(fitted: tuple) -> None:
    sim, bc = fitted
    ll = bc.fits["hierarchical"].log_likelihood
    assert ll["item"].sizes["row"] == len(sim.items)
    n_cal = bc.data.n_cal
    np.testing.assert_allclose(
        ll["item"].values[..., :n_cal],
        ll["judge_label"].values[..., :n_cal] + ll["human_label"].values,
    )
    np.testing.assert_array_equal(
        ll["item"].values[..., n_cal:], ll["judge_label"].values[..., n_cal:]
    )
    # LOO's unit is the question: both models' rows of an item summed.
    q = ll["question"]
    assert q.sizes["item_id"] == sim.items.frame["item_id"].nunique()
    rows = bc.data.item_ids == q["item_id"].values[7]
    np.testing.assert_allclose(q.values[..., 7], ll["item"].values[..., rows].sum(-1), rtol=1e-5)
    np.testing.assert_allclose(q.values.sum(-1), ll["item"].values.sum(-1), rtol=1e-5)


def test_loo_prefers_calibration_that_can_differ(fitted: tuple) -> None:
    _, bc = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo = bc.loo()
    assert set(loo.index) == {"shared", "model_specific", "hierarchical", "paired"}
    # q0 differs by 0.3 between the models: the shared design fits worst, clearly.
    assert loo.index[-1] == "shared"
    assert loo.loc["shared", "elpd_diff"] > 2 * loo.loc["shared", "dse"]
    # The models' correctness is correlated on the same items (simulate_items' latent
    # correlation 0.5): the paired design, which models it, is ahead by ≈ 3 SE.
    assert loo.index[0] == "paired"
    assert loo.loc["model_specific", "elpd_diff"] > 2 * loo.loc["model_specific", "dse"]
    assert "PSIS-LOO" in str(bc)


def test_posterior_predictive_check_exposes_the_shared_design(fitted: tuple) -> None:
    sim, bc = fitted
    shared, specific = bc.ppc("shared"), bc.ppc("model_specific")
    assert len(specific) == 6 and set(specific["statistic"].str[:4]) == {"test", "cali"}
    assert specific["p_value"].min() > 0.05
    assert shared["p_value"].min() < 0.05
    paired = bc.ppc("paired")  # item-level replicates mapped back to the models' rows
    assert len(paired) == 6 and paired["p_value"].min() > 0.05
    np.testing.assert_allclose(paired["observed"], specific["observed"])
    obs = specific.set_index(["model", "statistic"]).loc[("A", "test positive rate"), "observed"]
    assert obs == pytest.approx(sim.items.test("A").mean())


# ----------------------------------------------------------------------- sweep
def test_hierarchical_keeps_coverage_where_shared_fails() -> None:
    """20 replications per point in one joint NUTS run each: a coverage of 0.95 has a
    binomial SD of 0.05, so ≥ 0.8 for the sound designs and ≤ 0.8 for shared at ΔJ = 0.3
    (whose bias is ≈ 0.04 ≈ 1.4 posterior SDs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sweep = sweep_bayes(
            delta_j_values=(0.0, 0.3),
            n_reps=20,
            chains=1,
            draws=300,
            warmup=300,
            seed=0,
            progress=False,
            designs=("shared", "model_specific", "hierarchical"),
        )
    f = sweep.to_frame().set_index(["x", "estimator"])
    assert f.loc[(0.3, "bayes_shared"), "coverage"] <= 0.8
    assert f.loc[(0.3, "bayes_shared"), "bias"] > 0.02
    for x in (0.0, 0.3):
        assert f.loc[(x, "bayes_hierarchical"), "coverage"] >= 0.8
        assert f.loc[(x, "bayes_model_specific"), "coverage"] >= 0.8
    # Same replications for every design: partial pooling is no wider than no pooling
    # beyond Monte Carlo error (the width ratio over seeds 0-3: 1.023, 0.961, 0.980,
    # 0.988; sd 0.026, so 1.08 is 3 sd above 1).
    assert (
        f.loc[(0.0, "bayes_hierarchical"), "width"]
        <= 1.08 * f.loc[(0.0, "bayes_model_specific"), "width"]
    )
    assert f.loc[(0.0, "bayes_shared"), "width"] < f.loc[(0.0, "bayes_model_specific"), "width"]
