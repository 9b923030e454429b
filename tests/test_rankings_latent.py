"""The Bayesian latent-outcome model (Dawid–Skene for pairwise comparisons).

* its log-likelihood equals a brute-force sum over the latent human outcome;
* the Bradley–Terry-equivalent strengths equal the simulator's θ* (solved independently);
* fitted to simulated battles it recovers the judges' confusion matrices (by position) and,
  by model, their favouritism; NUTS and MAP agree;
* simulation-based calibration (the package's ``jb.sbc``) finds uniform ranks.
"""

from __future__ import annotations

import warnings

import jax
import numpy as np
import numpyro.distributions as dist
import pytest
from numpyro.infer.util import log_density

import judgebayes as jb
from judgebayes.core.pairs import PairStats
from judgebayes.rankings import RankingData, simulate_judged_battles
from judgebayes.rankings.latent import (
    bt_equivalent_theta,
    fit_latent_outcome,
    latent_outcome_data,
    latent_outcome_model,
)
from judgebayes.rankings.simulate import verdict_probs
from judgebayes.simulate import davidson_probs

pytestmark = pytest.mark.filterwarnings("ignore::judgebayes.bayes.SamplerWarning")


def test_log_likelihood_is_the_sum_over_the_latent_outcome() -> None:
    data = RankingData.from_arrays(
        ["a", "b", "c", "a", "b", "a", "a"],
        ["b", "c", "a", "c", "a", "b", "b"],
        [1.0, np.nan, 0.5, np.nan, 0.0, np.nan, np.nan],
        {
            "j1": [1.0, 0.0, 0.5, 1.0, np.nan, 1.0, 1.0],
            "j2": [0.5, 0.0, 1.0, np.nan, 0.0, 1.0, 1.0],
        },
    )
    rng = np.random.default_rng(0)
    theta = np.array([0.4, -0.1, -0.3])
    nu = 0.7
    conf = rng.dirichlet(np.ones(3), size=(2, 3))
    delta = rng.normal(0, 0.4, size=(2, 3))
    delta -= delta.mean(axis=1, keepdims=True)
    tau = np.array([0.4, 0.4])
    for by_model in (False, True):
        kwargs = latent_outcome_data(data, by_model=by_model)
        params = {"theta": theta, "log_nu": np.log(nu), "confusion": conf}
        if by_model:
            params.update({"tau": tau, "z": delta / tau[:, None]})
        with jax.enable_x64(True):  # float64, so the comparison can be to 1e-9
            value, _ = log_density(latent_outcome_model, (), kwargs, params)
            value = float(value) - _prior_only(params, by_model)
        # brute force, battle by battle
        code = {1.0: 0, 0.5: 1, 0.0: 2}
        total = 0.0
        for i in range(data.n_battles):
            a, b = data.a[i], data.b[i]
            p_a, p_t, p_b = davidson_probs(theta[a] - theta[b], nu)
            pi = np.array([p_a, p_t, p_b])
            like = pi.copy()
            for j in range(2):
                v = data.verdicts[i, j]
                if np.isnan(v):
                    continue
                shift = delta[j, a] - delta[j, b] if by_model else 0.0
                like *= verdict_probs(conf[j], np.array(shift))[:, code[v]]
            h = data.human[i]
            total += np.log(like[code[h]] if not np.isnan(h) else like.sum())
        # the model's log joint less the log prior of the parameters
        assert value == pytest.approx(total, rel=1e-9)


def _prior_only(params: dict, by_model: bool) -> float:
    """log prior of the parameters (the model's sample sites other than the data)."""
    lp = dist.ZeroSumNormal(2.0, event_shape=(3,)).log_prob(params["theta"])
    lp += dist.Normal(0.0, 2.0).log_prob(params["log_nu"])
    conc = np.broadcast_to(1.0 + 2.0 * np.eye(3), (2, 3, 3))
    lp += dist.Dirichlet(conc).log_prob(params["confusion"]).sum()
    if by_model:
        lp += dist.HalfNormal(0.5).log_prob(params["tau"]).sum()
        lp += dist.ZeroSumNormal(1.0, event_shape=(3,)).log_prob(params["z"]).sum()
    return float(lp)


def test_bt_equivalent_strengths() -> None:
    sim = simulate_judged_battles(7, 3000, 100, nu=0.8, seed=2)
    stats = PairStats.from_battles(
        sim.data.a, sim.data.b, np.zeros(sim.data.n_battles), sim.data.models
    )
    np.testing.assert_allclose(
        bt_equivalent_theta(sim.theta, sim.nu, stats), sim.bt_target, atol=1e-7
    )
    # without ties Davidson is Bradley–Terry
    np.testing.assert_allclose(bt_equivalent_theta(sim.theta, 0.0, stats), sim.theta, atol=1e-9)
    # ties counted ½ shrink the scale
    assert np.ptp(sim.bt_target) < np.ptp(sim.theta)


def test_recovers_confusion_matrices_and_map_equals_nuts() -> None:
    """8 models, 8,000 battles, 800 labelled, a good and a position-biased judge (no
    favouritism). Every confusion entry is within 4 posterior SDs of the truth (48 entries;
    a 4-SD miss has probability 6e-5 each under a calibrated posterior) and within 0.05."""
    sim = simulate_judged_battles(8, 8000, 800, nu=0.6, seed=5)
    fit = fit_latent_outcome(sim.data, method="map", draws=2000, progress=False)
    post = fit.idata.posterior["confusion"]
    mean = post.mean(("chain", "draw")).values
    sd = post.std(("chain", "draw")).values
    truth = np.stack([sim.confusion[j] for j in fit.judges])
    assert np.all(np.abs(mean - truth) < 4 * sd), np.abs(mean - truth) / sd
    assert np.abs(mean - truth).max() < 0.05
    err = fit.elo - sim.bt_elo
    assert np.all(np.abs(err) < 4 * fit.elo_draws.std(axis=0)), err
    nuts = fit_latent_outcome(
        sim.data, method="nuts", chains=1, draws=400, warmup=400, progress=False
    )
    np.testing.assert_allclose(nuts.elo, fit.elo, atol=3.0)
    np.testing.assert_allclose(nuts.elo_draws.std(axis=0), fit.elo_draws.std(axis=0), rtol=0.25)


def test_favouritism_by_model() -> None:
    """Judges that favour some models (SD 0.6 on the logit scale): the by-model variant
    recovers δ (correlation > 0.8) and its Elo error is smaller than the shared model's,
    whose confusion cannot absorb a model-specific bias."""
    sim = simulate_judged_battles(8, 10000, 1000, nu=0.6, favouritism_sd=0.6, seed=9)
    shared = fit_latent_outcome(sim.data, method="map", progress=False)
    by_model = fit_latent_outcome(sim.data, by_model=True, method="map", progress=False)
    delta = by_model.idata.map["delta"].values
    truth = sim.favouritism - sim.favouritism.mean(axis=1, keepdims=True)
    for j in range(len(truth)):
        assert np.corrcoef(delta[j], truth[j])[0, 1] > 0.8
    mae_shared = np.abs(shared.elo - sim.bt_elo).mean()
    mae_by_model = np.abs(by_model.elo - sim.bt_elo).mean()
    assert mae_by_model < 0.5 * mae_shared, (mae_by_model, mae_shared)


@pytest.mark.slow
def test_simulation_based_calibration() -> None:
    """jb.sbc on 4 models, 150 battles (50 labelled), one judge: 40 simulations."""
    sim = simulate_judged_battles(4, 150, 50, judges={"j": np.full((3, 3), 1 / 3)}, seed=1)
    data = latent_outcome_data(sim.data, merge=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = jb.sbc(
            latent_outcome_model,
            data,
            n_sims=40,
            draws=200,
            warmup=200,
            params=["theta", "log_nu", "confusion"],
            seed=3,
            progress=False,
        )
    assert not result.to_frame()["flagged"].any(), result
