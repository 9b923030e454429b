"""The Bayesian engine: one log density, three fitting routes, the same answers."""

from __future__ import annotations

import warnings

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.infer import Predictive
from scipy.special import expit

import judgebayes as jb
from judgebayes.bayes.bt_models import bt_data, bt_model, davidson_data, davidson_model
from judgebayes.bayes.inference import fit, map_estimate
from judgebayes.bayes.predictive import posterior_predictive, predictive_statistic


@pytest.fixture(scope="module")
def small() -> tuple[jb.PairStats, dict, dict]:
    stats = jb.simulate_bt(7, 1400, tie_nu=0.5, seed=21).battles.pair_stats("human_label")
    coords = {"model": list(stats.models)}
    dims = {"theta": ["model"], "elo": ["model"]}
    return stats, coords, dims


@pytest.fixture(scope="module")
def nuts(small: tuple) -> az.InferenceData:
    stats, coords, dims = small
    return fit(
        bt_model,
        bt_data(stats),
        chains=2,
        draws=1000,
        warmup=500,
        seed=1,
        coords=coords,
        dims=dims,
        progress=False,
    )


@pytest.fixture(scope="module")
def laplace(small: tuple) -> az.InferenceData:
    stats, coords, dims = small
    return fit(bt_model, bt_data(stats), method="map", draws=2000, seed=1, coords=coords, dims=dims)


@pytest.mark.parametrize("lam", [0.01, 0.5])
def test_map_equals_penalised_mle_of_eq1_hard_labels(small: tuple, lam: float) -> None:
    stats, coords, dims = small
    idata = fit(bt_model, bt_data(stats, lam=lam), method="map", draws=10, coords=coords, dims=dims)
    np.testing.assert_allclose(
        map_estimate(idata)["elo"].values, jb.fit_bt(stats, lam=lam).elo, atol=1e-3
    )


def test_map_equals_penalised_mle_of_eq1_soft_targets() -> None:
    # 7 models, all 21 pairs: the layout of ``small``, so the MAP kernels compile once.
    sim = jb.simulate_arena(7, 1500, seed=3)
    soft = expit(0.5 * sim.battles.column("score_diff"))
    stats = sim.battles.pair_stats(soft)
    idata = fit(bt_model, bt_data(stats), method="map", draws=10)
    np.testing.assert_allclose(map_estimate(idata)["elo"].values, jb.fit_bt(stats).elo, atol=1e-3)


def test_nuts_agrees_with_laplace_and_map(
    small: tuple, nuts: az.InferenceData, laplace: az.InferenceData
) -> None:
    stats, _, _ = small
    assert set(nuts.groups()) >= {"posterior", "log_likelihood", "observed_data", "sample_stats"}
    assert list(nuts.posterior["elo"].coords["model"].values) == list(stats.models)
    mean = nuts.posterior["elo"].mean(("chain", "draw")).values
    sd = nuts.posterior["elo"].std(("chain", "draw")).values
    mcse = az.mcse(nuts, var_names=["elo"])["elo"].values
    mode = jb.fit_bt(stats).elo
    # Posterior mean vs mode: the posterior is near-Gaussian at ~200 battles per model;
    # allow 4 MCSE plus 2% of an SD for the skew.
    assert np.all(np.abs(mean - mode) < 4 * mcse + 0.02 * sd)
    lap_sd = laplace.posterior["elo"].std(("chain", "draw")).values
    np.testing.assert_allclose(sd, lap_sd, rtol=0.12)  # SD of an SD from ~1000 ESS: ~3%
    assert float(az.rhat(nuts, var_names=["elo"])["elo"].max()) < 1.02


def test_advi_mean_is_close_to_the_mode(small: tuple) -> None:
    stats, coords, dims = small
    idata = fit(
        bt_model,
        bt_data(stats),
        method="advi",
        draws=1000,
        seed=2,
        coords=coords,
        dims=dims,
        progress=False,
        advi_steps=4000,
    )
    mean = idata.posterior["elo"].mean(("chain", "draw")).values
    assert np.abs(mean - jb.fit_bt(stats).elo).max() < 8  # posterior SD ≈ 25 Elo


def test_loo_and_posterior_predictive_check(small: tuple, nuts: az.InferenceData) -> None:
    stats, _, _ = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # ArviZ's Pareto-k notice, asserted below
        loo = az.loo(nuts)
    # Pairs aggregate ~70 battles each, so single pairs are influential; k < 1 still
    # gives a usable importance-sampling estimate.
    assert np.isfinite(loo.elpd_loo) and bool((loo.pareto_k < 1.0).all())
    data = bt_data(stats)
    n = np.asarray(data["n"])
    check = predictive_statistic(
        posterior_predictive(bt_model, data, nuts, seed=0), lambda y: y / n
    )
    reps = check.posterior_predictive["statistic"].values.reshape(-1, stats.n_pairs)
    lo, hi = np.quantile(reps, [0.005, 0.995], axis=0)
    observed = check.observed_data["statistic"].values
    inside = (lo <= observed) & (observed <= hi)
    # The model is the data's story (ties aside): nearly every pair's win rate is inside
    # its 99% predictive interval.
    assert inside.mean() >= 0.9


def test_posterior_predictive_draws_what_numpyro_draws(
    small: tuple, nuts: az.InferenceData
) -> None:
    """``posterior_predictive`` runs one compiled program (``bayes.engine.predict``)
    instead of NumPyro's ``Predictive`` op by op: the same replicates from the same
    posterior draws and key, and the observed data as they were given."""
    stats, _, _ = small
    data = bt_data(stats)
    out = posterior_predictive(bt_model, data, nuts, seed=3)
    post = nuts.posterior
    samples = {k: jnp.asarray(post[k].values.reshape(-1, *post[k].shape[2:])) for k in ("theta",)}
    free = {k: v for k, v in data.items() if k != "y"}
    ref = Predictive(bt_model, posterior_samples=samples, return_sites=["y"], parallel=True)(
        jax.random.PRNGKey(3), **free, y=None
    )["y"]
    replicated = out.posterior_predictive["y"].values
    assert replicated.shape == (2, 1000, stats.n_pairs)
    np.testing.assert_array_equal(replicated.reshape(-1, stats.n_pairs), np.asarray(ref))
    np.testing.assert_array_equal(out.observed_data["y"].values, np.asarray(data["y"]))
    assert replicated.std(axis=(0, 1)).min() > 0


def test_davidson_model_recovers_the_tie_parameter() -> None:
    sim = jb.simulate_bt(6, 6000, tie_nu=0.8, seed=5)
    idata = fit(
        davidson_model,
        davidson_data(sim.battles.pair_stats("human_label")),
        method="map",
        draws=200,
    )
    nu = float(map_estimate(idata)["nu"])
    sd = float(idata.posterior["nu"].std())
    assert abs(nu - 0.8) < 3 * sd and sd < 0.05


def test_unknown_method_is_refused(small: tuple) -> None:
    with pytest.raises(ValueError, match="method"):
        fit(bt_model, bt_data(small[0]), method="gibbs")  # type: ignore[arg-type]


def test_posterior_predictive_group_feeds_arviz(small: tuple, laplace: az.InferenceData) -> None:
    import matplotlib

    matplotlib.use("Agg")

    stats, _, _ = small
    data = bt_data(stats)
    pp = posterior_predictive(bt_model, data, laplace, seed=0)
    reps = pp.posterior_predictive["y"].values
    assert reps.shape == (1, 2000, stats.n_pairs)
    # Observed pair totals (ties as ½) lie within 3.5 predictive SDs of the replicates
    # (21 pairs: a false alarm has probability < 1%).
    z = (stats.y - reps.mean(axis=(0, 1))) / reps.std(axis=(0, 1))
    assert np.all(np.abs(z) < 3.5)
    assert az.plot_ppc(pp, kind="scatter") is not None


def test_vectorised_convergence_checks_match_arviz() -> None:
    from judgebayes.bayes.inference import rank_rhat_and_bulk_ess

    rng = np.random.default_rng(5)
    # AR(1) chains (ρ from 0 to 0.9) and, for the last three parameters, chains that
    # disagree in location or scale: ESS from ~0.1 to ~1 per draw, R-hat up to ~1.3.
    chains, n, k = 4, 501, 12
    rho = np.linspace(0.0, 0.9, k)
    x = np.empty((chains, n, k))
    x[:, 0] = rng.normal(size=(chains, k))
    for t in range(1, n):
        x[:, t] = rho * x[:, t - 1] + np.sqrt(1 - rho**2) * rng.normal(size=(chains, k))
    x[:, :, -3] += np.arange(chains)[:, None] * 0.5
    x[:, :, -2] *= np.arange(1, chains + 1)[:, None]
    x[:, :, -1] = np.exp(x[:, :, -1])  # skewed: ranks make it no different
    # antithetic (ρ = −0.7): NumPyro's raw ESS is negative here, ArviZ's is capped
    anti = np.empty((chains, n))
    anti[:, 0] = rng.normal(size=chains)
    for t in range(1, n):
        anti[:, t] = -0.7 * anti[:, t - 1] + np.sqrt(1 - 0.49) * rng.normal(size=chains)
    x = np.concatenate([x, anti[:, :, None]], axis=2)
    rhat, ess = rank_rhat_and_bulk_ess(x)
    data = az.convert_to_dataset(x)
    np.testing.assert_allclose(rhat, az.rhat(data)["x"].values, rtol=1e-10)
    np.testing.assert_allclose(ess, az.ess(data, method="bulk")["x"].values, rtol=0.03)
    assert rhat[-4] > 1.1 and rhat[0] < 1.01


def test_convergence_checks_on_tiny_and_constant_draws() -> None:
    from judgebayes.bayes.inference import rank_rhat_and_bulk_ess

    x = np.random.default_rng(6).normal(size=(4, 4, 2))
    x[:, :, 1] = 3.0  # a constant parameter
    rhat, ess = rank_rhat_and_bulk_ess(x)
    assert np.isnan(rhat[1]) and np.isnan(ess[1])
    # 4 chains x 4 draws, split into 8 x 2: S = 16 draws; NumPyro alone gives -11.5
    assert 0 < ess[0] <= 16 * np.log10(16)
    assert ess[0] == pytest.approx(float(az.ess(az.convert_to_dataset(x[:, :, :1]))["x"][0]))


def _normal_2d(scale: np.ndarray) -> None:
    import numpyro
    import numpyro.distributions as dist

    numpyro.sample("x", dist.Normal(0.0, scale))


def test_chunked_nuts_mixes_on_a_gaussian() -> None:
    # Run lengths that are not whole chunks (CHUNK = 250): 230 warm-up, 470 draws.
    from judgebayes.bayes.inference import SamplerWarning, rank_rhat_and_bulk_ess

    scale = np.array([1.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplerWarning)  # no R-hat, ESS or divergence warning
        idata = fit(
            _normal_2d, {"scale": scale}, chains=4, draws=470, warmup=230, seed=3, progress=False
        )
    x = idata.posterior["x"].values
    assert x.shape == (4, 470, 2)
    rhat, ess = rank_rhat_and_bulk_ess(x)
    assert rhat.max() < 1.01 and ess.min() > 1000
    np.testing.assert_allclose(x.std(axis=(0, 1)), scale, rtol=0.1)
    np.testing.assert_allclose(x.mean(axis=(0, 1)), 0.0, atol=0.1 * scale.max())
    assert int(idata.sample_stats["diverging"].sum()) == 0
