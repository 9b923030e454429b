"""Bayesian latent-class calibration designs: recovery, LOO comparison, sweep behaviour."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from judgebayes.bayes.calibration_model import fit_calibration, sweep_bayes
from judgebayes.calibration_sweep import simulate_items


@pytest.fixture(scope="module")
def fitted() -> tuple:
    sim = simulate_items([0.7, 0.75], q0=[0.85, 0.65], q1=[0.85, 0.8], n_cal=400, n_test=800,
                         seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bc = fit_calibration(sim.items, chains=2, draws=500, warmup=500, seed=0,
                             progress=False)
    return sim, bc


def test_designs_recover_theta_and_j(fitted: tuple) -> None:
    sim, bc = fitted
    truth = sim.truth.set_index("model")
    table = bc.summary("A", "B").set_index(["design", "quantity"])
    for m in ("A", "B"):
        for design in ("model_specific", "hierarchical"):
            row = table.loc[(design, f"theta[{m}]")]
            assert row["lo"] < truth.loc[m, "theta"] < row["hi"], (design, m)
    shared = bc.fits["shared"].posterior
    np.testing.assert_allclose(shared["q0"].sel(model="A"), shared["q0"].sel(model="B"))
    specific = bc.fits["model_specific"].posterior
    dj = (specific["J"].sel(model="A") - specific["J"].sel(model="B")).values
    assert np.quantile(dj, 0.025) > 0  # J_A = 0.70 vs J_B = 0.45


def test_loo_prefers_calibration_that_can_differ(fitted: tuple) -> None:
    _, bc = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo = bc.loo()
    assert set(loo.index) == {"shared", "model_specific", "hierarchical"}
    # q0 differs by 0.2 between the models: the shared design fits worst.
    assert loo.index[-1] == "shared"


def test_hierarchical_keeps_coverage_where_shared_fails() -> None:
    """20 replications per point in one joint NUTS run each: a coverage of 0.95 has a
    binomial SD of 0.05, so ≥ 0.8 for the sound designs and ≤ 0.8 for shared at ΔJ = 0.3."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sweep = sweep_bayes(delta_j_values=(0.0, 0.3), n_reps=20, chains=1, draws=300,
                            warmup=300, seed=0, progress=False)
    f = sweep.to_frame().set_index(["x", "estimator"])
    assert f.loc[(0.3, "bayes_shared"), "coverage"] <= 0.8
    for x in (0.0, 0.3):
        assert f.loc[(x, "bayes_hierarchical"), "coverage"] >= 0.8
        assert f.loc[(x, "bayes_model_specific"), "coverage"] >= 0.8
