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
import jax.numpy as jnp
import numpy as np
import numpyro.distributions as dist
import pytest
from numpyro.infer.util import log_density
from scipy.special import gammaln

import judgebayes as jb
from conftest import PPR_MODELS
from judgebayes.core.pairs import PairStats
from judgebayes.rankings import RankingData, simulate_judged_battles
from judgebayes.rankings.decisive_rows import (
    BetterThanChanceTransform,
    DecisiveRows,
    better_than_chance,
)
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
    """The model's log joint, less the log prior and the multinomial coefficients of its
    count sites, equals the battles' log-likelihood summed one battle at a time over the
    latent outcome (judges missing on some battles, a battle no judge judged, shared and
    by model), in float64 to 1e-9."""
    data = RankingData.from_arrays(
        ["a", "b", "c", "a", "b", "a", "a", "c"],
        ["b", "c", "a", "c", "a", "b", "b", "b"],
        [1.0, np.nan, 0.5, np.nan, 0.0, np.nan, np.nan, 0.5],
        {
            "j1": [1.0, 0.0, 0.5, 1.0, np.nan, 1.0, 1.0, np.nan],
            "j2": [0.5, 0.0, 1.0, np.nan, 0.0, 1.0, 1.0, np.nan],
        },
    )
    rng = np.random.default_rng(0)
    theta = np.array([0.4, -0.1, -0.3])
    nu = 0.7
    with jax.enable_x64(True):
        decisive = np.asarray(DecisiveRows().sample(jax.random.PRNGKey(4), (2,)))
    tie_row = rng.dirichlet(np.ones(3), size=2)
    conf = np.stack([decisive[:, 0], tie_row, decisive[:, 1]], axis=1)
    delta = rng.normal(0, 0.4, size=(2, 3))
    delta -= delta.mean(axis=1, keepdims=True)
    tau = np.array([0.4, 0.4])
    for by_model in (False, True):
        kwargs = latent_outcome_data(data, by_model=by_model)
        assert len(kwargs["patterns"]) == 4  # both, j1 alone, j2 alone, neither
        params = {"theta": theta, "log_nu": np.log(nu), "decisive": decisive, "tie_row": tie_row}
        if by_model:
            params.update({"tau": tau, "z": delta / tau[:, None]})
        with jax.enable_x64(True):  # float64, so the comparison can be to 1e-9
            value, _ = log_density(latent_outcome_model, (), kwargs, params)
            value = float(value) - _prior_only(params, by_model) - _coefficients(kwargs)
        # brute force, battle by battle
        code = {1.0: 0, 0.5: 1, 0.0: 2}
        total = 0.0
        for i in range(data.n_battles):
            a, b = data.a[i], data.b[i]
            p_a, p_t, p_b = davidson_probs(theta[a] - theta[b], nu)
            like = np.array([p_a, p_t, p_b])
            for j in range(2):
                v = data.verdicts[i, j]
                if np.isnan(v):
                    continue
                shift = delta[j, a] - delta[j, b] if by_model else 0.0
                like *= verdict_probs(conf[j], np.array(shift))[:, code[v]]
            h = data.human[i]
            total += np.log(like[code[h]] if not np.isnan(h) else like.sum())
        assert value == pytest.approx(total, rel=1e-9)


def _prior_only(params: dict, by_model: bool) -> float:
    """log prior of the parameters (the model's sample sites other than the data)."""
    lp = dist.ZeroSumNormal(2.0, event_shape=(3,)).log_prob(params["theta"])
    lp += dist.Normal(0.0, 2.0).log_prob(params["log_nu"])
    lp += DecisiveRows().log_prob(params["decisive"]).sum()
    lp += dist.Dirichlet(np.array([1.0, 3.0, 1.0])).log_prob(params["tie_row"]).sum()
    if by_model:
        lp += dist.HalfNormal(0.5).log_prob(params["tau"]).sum()
        lp += dist.ZeroSumNormal(1.0, event_shape=(3,)).log_prob(params["z"]).sum()
    return float(lp)


def _coefficients(kwargs: dict) -> float:
    """Σ log multinomial coefficients log(n! / Π y!) of the two count sites."""
    total = 0.0
    for n, y in (
        (kwargs["n_labelled"], kwargs["labelled_counts"]),
        (kwargs["n_unlabelled"], kwargs["unlabelled_counts"]),
    ):
        total += gammaln(n + 1.0).sum() - gammaln(y + 1.0).sum()
    return float(total)


def test_identification_better_than_chance() -> None:
    """The confusion rows A and B are a bijective image of R⁴ (round trip, log-Jacobian against
    a numerical determinant), every draw of the prior satisfies the restriction, and the
    mirror image of a judge (rows A and B swapped) does not."""
    transform = BetterThanChanceTransform()
    with jax.enable_x64(True):
        x = jax.random.normal(jax.random.PRNGKey(0), (50, 4))
        rows = transform(x)
        assert bool(better_than_chance(rows).all())
        np.testing.assert_allclose(transform.inv(rows), x, atol=1e-6)
        np.testing.assert_allclose(transform(jnp.zeros(4)), [[0.6, 0.2, 0.2], [0.2, 0.2, 0.6]])

        def coordinates(v: jax.Array) -> jax.Array:
            r = transform(v)
            return jnp.stack([r[0, 0], r[0, 1], r[1, 0], r[1, 1]])

        for v in x[:5]:
            jac = np.asarray(jax.jacfwd(coordinates)(v))
            _, log_det = np.linalg.slogdet(jac)
            # LU's log-determinant is accurate to about 4·cond(J)·eps (4 = the size)
            tol = 4 * np.linalg.cond(jac) * np.finfo(np.float64).eps + 1e-12
            assert float(transform.log_abs_det_jacobian(v, transform(v))) == pytest.approx(
                log_det, abs=tol
            )
        prior = DecisiveRows().sample(jax.random.PRNGKey(1), (4000,))
        assert bool(better_than_chance(prior).all())
        assert not bool(better_than_chance(rows[:, ::-1]).any())  # the mirror judges


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


def test_map_recovers_confusion_matrices() -> None:
    """8 models, 8,000 battles, 800 labelled, a good and a position-biased judge (no
    favouritism). MAP from the origin (both judges at the prior's mean rows) finds the mode of
    the truth, not its mirror: every confusion entry is within 4 posterior SDs of the truth
    (48 entries; a 4-SD miss has probability 6e-5 each under a calibrated posterior) and
    within 0.05, and every Elo within 4 SDs."""
    sim = simulate_judged_battles(8, 8000, 800, nu=0.6, seed=5)
    fit = fit_latent_outcome(sim.data, method="map", draws=2000, progress=False)
    post = fit.posterior["confusion"][0]
    mean, sd = post.mean(axis=0), post.std(axis=0)
    truth = np.stack([sim.confusion[j] for j in fit.judges])
    assert np.all(np.abs(mean - truth) < 4 * sd), np.abs(mean - truth) / sd
    assert np.abs(mean - truth).max() < 0.05
    err = fit.elo - sim.bt_elo
    assert np.all(np.abs(err) < 4 * fit.elo_draws.std(axis=0)), err


@pytest.mark.slow
def test_nuts_chains_agree_and_equal_map() -> None:
    """The data of :func:`test_map_recovers_confusion_matrices`, NUTS with 4 chains of 1,000
    draws: R-hat < 1.01 for every sampled parameter, no chain in the mirror mode (each chain's
    mean θ in the truth's order: correlation > 0.9), every confusion entry within 4 posterior
    SDs of the truth, and the same Elo as MAP (within 3) with the same SDs (within 25%)."""
    sim = simulate_judged_battles(8, 8000, 800, nu=0.6, seed=5)
    fit = fit_latent_outcome(sim.data, method="map", draws=2000, progress=False)
    nuts = fit_latent_outcome(
        sim.data, method="nuts", chains=4, draws=1000, warmup=500, progress=False
    )
    _assert_converged_and_oriented(nuts, sim.theta)
    post = nuts.posterior["confusion"].reshape(-1, *nuts.posterior["confusion"].shape[2:])
    truth = np.stack([sim.confusion[j] for j in nuts.judges])
    assert np.all(np.abs(post.mean(axis=0) - truth) < 4 * post.std(axis=0))
    np.testing.assert_allclose(nuts.elo, fit.elo, atol=3.0)
    np.testing.assert_allclose(nuts.elo_draws.std(axis=0), fit.elo_draws.std(axis=0), rtol=0.25)


def _assert_converged_and_oriented(fit, theta: np.ndarray) -> None:
    """R-hat < 1.01 for every sampled parameter, and every chain in the order of ``theta``."""
    post = fit.posterior
    sampled = [post[k].reshape(*post[k].shape[:2], -1) for k in ("theta", "log_nu", "confusion")]
    rhat, _ = jb.bayes.rank_rhat_and_bulk_ess(np.concatenate(sampled, axis=2))
    assert np.nanmax(rhat) < 1.01, np.nanmax(rhat)
    for chain in post["theta"]:
        assert np.corrcoef(chain.mean(axis=0), theta)[0, 1] > 0.9


@pytest.mark.slow
def test_nuts_on_ppr_data_has_one_mode() -> None:
    """The PPR data (12 models, 14,947 battles judged by three judges), 500 random human
    labels: the model without the better-than-chance restriction put one of two NUTS chains
    in the mirror mode here (R-hat 1.83). Four chains now agree (R-hat < 1.01) and all rank
    the models as the 26,919 human labels do (correlation with their BT strengths > 0.9)."""
    battles = jb.datasets.load_ppr()
    full = RankingData.from_battles(battles).restrict(PPR_MODELS)
    reference = jb.fit_bt(battles.human_battles(), target="human_label")
    theta = np.array([reference.elo[reference.models.index(m)] for m in full.models])
    keep = np.zeros(full.n_battles, dtype=bool)
    keep[np.random.default_rng(0).choice(full.n_battles, 500, replace=False)] = True
    data = full.hide_human(keep)
    fit = fit_latent_outcome(data, method="nuts", chains=4, draws=500, warmup=500, progress=False)
    _assert_converged_and_oriented(fit, theta)


def test_favouritism_by_model() -> None:
    """Judges that favour some models (SD 0.6 on the logit scale): the by-model variant
    recovers δ (correlation > 0.8) and its Elo error is smaller than the shared model's,
    whose confusion cannot absorb a model-specific bias."""
    sim = simulate_judged_battles(8, 10000, 1000, nu=0.6, favouritism_sd=0.6, seed=9)
    shared = fit_latent_outcome(sim.data, method="map", progress=False)
    by_model = fit_latent_outcome(sim.data, by_model=True, method="map", progress=False)
    delta = by_model.point["delta"]
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
    data = latent_outcome_data(sim.data)
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
