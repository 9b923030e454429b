"""The leaderboard's Bayesian variants (jb.models.bt with prompt effects, style features or
categories), fitted by jb.fit on the same densities as the frequentist boards."""

from __future__ import annotations

import numpy as np
import pytest

import judgebayes as jb


def test_style_density_mode_is_style_bt() -> None:
    """jb.fit(method="map") on jb.models.bt(..., features=) finds the mode style_bt finds
    (same likelihood, priors θ ~ ZeroSumNormal(1/√(2λ)), β ~ Normal(0, 1/√(2λ_β)))."""
    sim = jb.simulate_prompts(6, 600, style_bias=3.0, verbosity_sd=0.5, seed=1)
    board = jb.style_bt(sim.battles, method="sandwich", cluster=None)
    spec = jb.models.bt(sim.battles, reference=board.reference)
    mode = jb.map_estimate(jb.fit(spec, method="map", progress=False))
    np.testing.assert_allclose(mode["elo"].values, board.elo, atol=1e-3)
    np.testing.assert_allclose(mode["beta"].values, board.beta, atol=1e-6)
    assert list(mode["beta"].coords["feature"].values) == ["length"]


def test_builder_refuses_mixed_options() -> None:
    sim = jb.simulate_prompts(4, 50, seed=0)
    with pytest.raises(ValueError, match="choose one"):
        jb.models.bt(sim.battles, prompt_effects=True, by="category")
    with pytest.raises(TypeError, match="need the battles"):
        jb.models.bt(sim.battles.pair_stats(), prompt_effects=True)


@pytest.mark.slow
def test_prompt_effects_recover_the_prompt_spread_and_widen_intervals() -> None:
    """Prompts judged six times with σ_u = 1: the prompt effect ε = u_i − u_j has sd
    √2 ≈ 1.41, inside σ_prompt's 95% posterior interval; every model's conditional
    strength is within 3 posterior SDs of its generating θ; and the posterior SDs are
    wider than plain Bradley–Terry's, which treats the six games as independent."""
    sim = jb.simulate_prompts(6, 300, prompt_sd=1.0, seed=1, elo_sd=150)
    fit = jb.fit(
        jb.models.bt(sim.battles, prompt_effects=True),
        chains=2,
        draws=500,
        warmup=500,
        progress=False,
        seed=1,
    )
    sigma = fit.posterior["sigma_prompt"].values.ravel()
    lo, hi = np.quantile(sigma, [0.025, 0.975])
    assert lo < np.sqrt(2) < hi
    theta = fit.posterior["theta"]
    truth = sim.truth.set_index("model").reindex(theta["model"].values)["theta"].to_numpy()
    mean, sd = theta.mean(("chain", "draw")).values, theta.std(("chain", "draw")).values
    assert np.all(np.abs(mean - truth) < 3 * sd)
    plain = jb.fit(jb.models.bt(sim.battles), chains=2, draws=500, warmup=500, progress=False)
    assert np.all(sd > plain.posterior["theta"].std(("chain", "draw")).values)


@pytest.mark.slow
def test_category_model_agrees_with_the_hierarchical_map() -> None:
    """NUTS on the category density against category_bt (the same density, τ by empirical
    Bayes): every category Elo within two posterior SDs of the MAP board, and τ's 95%
    posterior interval holds the simulated σ_c = 0.4."""
    sim = jb.simulate_prompts(6, 1200, n_categories=3, category_sd=0.4, seed=2)
    fit = jb.fit(
        jb.models.bt(sim.battles, by="category"),
        chains=2,
        draws=500,
        warmup=500,
        progress=False,
        seed=2,
    )
    tau = fit.posterior["tau"].values.ravel()
    lo, hi = np.quantile(tau, [0.025, 0.975])
    assert lo < 0.4 < hi
    board = jb.category_bt(sim.battles, cluster=None)
    elo = fit.posterior["elo_category"]
    for c in board.categories:
        mean = elo.sel(category=c).mean(("chain", "draw")).to_series()
        sd = elo.sel(category=c).std(("chain", "draw")).to_series()
        map_elo = board.board(c).set_index("model")["elo"].reindex(mean.index)
        assert np.all(np.abs(mean - map_elo) < 2 * sd), c
