"""The ordered-logistic verdict model (beyond seed 004): likelihood, MAP, NUTS recovery."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import numpyro.distributions as dist
import pytest
from numpyro.infer.util import potential_energy, unconstrain_fn
from scipy.stats import binom
from threadpoolctl import threadpool_limits

import judgebayes as jb
from judgebayes.anchors import (
    StableOrderedLogistic,
    adaptive_design,
    expected_information,
    ordered_logistic_spec,
    simulate_verdicts,
    theta_gaps,
)


def test_stable_log_probability_equals_numpyro_and_stays_finite() -> None:
    eta = jnp.array([-40.0, -3.0, 0.0, 1.5, 6.0, 80.0])
    cut = jnp.array([-2.5, -0.7, 0.7, 2.5])
    # Each log-probability jitted once (as NUTS and MAP run it): op by op, the five levels
    # compiled ~45 tiny kernels (1.1 s CPU against 0.2 s); the values are the same.
    stable = jax.jit(lambda v: StableOrderedLogistic(eta, cut).log_prob(v))
    numpyro_lp = jax.jit(lambda v: dist.OrderedLogistic(eta, cut).log_prob(v))
    underflow = 0
    for level in range(5):
        value = np.full(eta.shape, level, dtype=np.int32)
        ours = np.asarray(stable(value))
        theirs = np.asarray(numpyro_lp(value))
        assert np.all(np.isfinite(ours))
        ok = theirs > -15  # where float32 differences of probabilities are accurate
        np.testing.assert_allclose(ours[ok], theirs[ok], rtol=1e-4, atol=1e-5)
        underflow += int((~np.isfinite(theirs)).sum())
    assert underflow > 0  # far in the tail NumPyro's difference of sigmoids gives log 0


@pytest.fixture(autouse=True)
def one_blas_thread():
    """SciPy's L-BFGS (jb.fit's MAP) with multithreaded OpenBLAS beside JAX's threads ran
    28x slower on a busy 2-core machine (11.3 s against 0.4 s for 675 iterations)."""
    with threadpool_limits(1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def anchored():
    sim = simulate_verdicts(10, 80, seed=7)
    anchor = sim.anchor_at("median")
    return sim, anchor, sim.table(anchor=anchor)


def test_builder_names_every_dimension(anchored) -> None:
    sim, anchor, table = anchored
    spec = ordered_logistic_spec(table)
    assert spec.coords["model"] == list(sim.models)
    assert len(spec.coords["answer"]) == 80  # the anchor's answers: each judged 9 times
    assert all(a.endswith(f"|{anchor}") for a in spec.coords["answer"])
    assert spec.data["n_prompts"] == 80 and spec.data["n_levels"] == 5
    assert spec.data["position_bias"]  # random presentation order: both orders occur
    plain = ordered_logistic_spec(table, answer_effects=False, difficulty=False, levels=3)
    assert plain.data["n_answers"] == 0 and int(plain.data["verdict"].max()) == 2


def _stationary(spec, mode, sites) -> tuple[float, float, list[float]]:
    """Largest |gradient| of NumPyro's own potential (the negative log joint on the
    unconstrained space) at ``mode``, the potential there, and at 5 random nearby points.

    Two jitted functions (unconstrain; value and gradient), called on NumPy arrays: op-by-op
    JAX in float64 compiled ~50 tiny kernels here (11 s of a 33 s test on a loaded machine).
    """
    with jax.enable_x64(True):
        data = {
            k: (jnp.asarray(v) if isinstance(v, jax.Array) else v) for k, v in spec.data.items()
        }
        params = {k: np.asarray(mode[k].values, dtype=np.float64) for k in sites}
        u0 = jax.tree.map(
            np.asarray, jax.jit(lambda p: unconstrain_fn(spec.model, (), data, p))(params)
        )

        value_and_grad = jax.jit(
            jax.value_and_grad(lambda u: potential_energy(spec.model, (), data, u))
        )
        value, grad = value_and_grad(u0)
        rng = np.random.default_rng(0)
        near = [
            float(
                value_and_grad(jax.tree.map(lambda x: x + 0.05 * rng.standard_normal(x.shape), u0))[
                    0
                ]
            )
            for _ in range(5)
        ]
        # |gradient| on the host: jnp.abs(...).max() per site compiled two kernels each
        return (
            max(float(np.abs(np.asarray(g)).max()) for g in jax.tree.leaves(grad)),
            float(value),
            near,
        )


def test_map_is_the_mode_of_the_same_density(anchored) -> None:
    """The MAP of jb.fit (answer effects, difficulty and position bias included) is a
    stationary point and a local minimum of NumPyro's potential of the same model and data.

    On the NUTS test's data (10 models × 80 prompts): the layout of the anchors notebook's
    MAP fit, so the suite's shared compilation cache serves its MAP kernels (value and
    gradient, Hessian, constrain: ~4.5 of this fit's ~7 s of CPU, compiling the same as
    the former 6 × 30 layout's when nothing is cached)."""
    _, _, table = anchored
    spec = ordered_logistic_spec(table)
    assert spec.data["position_bias"] and spec.data["n_answers"] == 80
    mode = jb.map_estimate(jb.fit(spec, method="map", draws=50))  # the notebook's draws too
    sites = (
        "theta",
        "sigma_answer",
        "answer_z",
        "sigma_difficulty",
        "difficulty_z",
        "log_gap",
        "gamma",
    )
    grad, base, near = _stationary(spec, mode, sites)
    assert grad < 1e-2
    assert min(near) > base


def test_padded_map_is_the_mode_of_the_unpadded_density() -> None:
    """Rows masked out by padding do not enter the density (the design's layout)."""
    sim = simulate_verdicts(6, 30, seed=4)
    table = sim.table(prompts=2)  # 2 prompts × 15 pairs = 30 verdicts
    options = {"answer_effects": False, "difficulty": False, "position_bias": False}
    padded = ordered_logistic_spec(table, pad_to=40, models=sim.models, **options)
    assert int(padded.data["mask"].sum()) == 30
    mode = jb.map_estimate(jb.fit(padded, method="map", draws=10))
    grad, base, near = _stationary(
        ordered_logistic_spec(table, **options), mode, ("theta", "log_gap")
    )
    assert grad < 1e-3 and min(near) > base


def test_nuts_intervals_cover_the_true_gaps(anchored) -> None:
    """Recovery on data from the model's own story (simulate_verdicts).

    Tolerance: if the 90 % intervals are calibrated, the number of the 9 true gaps
    θ_j − θ_anchor they cover is about Binomial(9, 0.9), and P(X ≤ 5) = 0.8 %; we require
    at least 6 (seeded, so the test is deterministic; the bound says how unlucky a
    calibrated posterior would have to be to fail it).
    """
    sim, anchor, table = anchored
    assert binom.cdf(5, 9, 0.9) < 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.SamplerWarning)  # short chains: ESS warnings
        # 2 × 500 draws: the 1 % / 99 % quantiles of σ_difficulty below rest on 10 draws
        # each (with 2 × 250, on 5, and the chunked NUTS driver's draws put the upper one
        # at 1.41 against the realised 1.43; with 500, 1.50). The truth sits in the upper
        # tail either way (posterior median 1.10): noted in the session note.
        idata = jb.fit(
            ordered_logistic_spec(table), chains=2, draws=500, warmup=500, seed=1, progress=False
        )
    gaps = theta_gaps(idata, anchor, level=0.9, truth=dict(zip(sim.models, sim.theta, strict=True)))
    assert len(gaps) == 9
    assert gaps["covered"].sum() >= 6
    assert np.corrcoef(gaps["mean"], gaps["truth"])[0, 1] > 0.95
    sd = idata.posterior["sigma_difficulty"].values.ravel()
    lo, hi = np.quantile(sd, [0.01, 0.99])
    assert lo < sim.difficulty.std() < hi


def test_expected_information_is_zero_without_uncertainty() -> None:
    theta = np.tile([1.0, 0.0, -2.0], (50, 1))
    cut = np.tile([-2.0, -0.5, 0.5, 2.0], (50, 1))
    a, b = np.array([0, 0, 1]), np.array([1, 2, 2])
    np.testing.assert_allclose(expected_information(theta, cut, a, b), 0.0, atol=1e-12)
    rng = np.random.default_rng(0)
    noisy = theta + rng.normal(0.0, 1.0, theta.shape)
    gain = expected_information(noisy, cut, a, b)
    assert np.all(gain > 0)


def test_designs_spend_equal_budgets() -> None:
    sim = simulate_verdicts(6, 30, seed=4)
    design = adaptive_design(sim, budget=40, batch=20, draws=30, progress=False)
    frame = design.to_frame()
    assert frame.index.tolist() == [20, 40]
    assert design.pairs_judged["anchor"] == 5  # every target against the one anchor
    assert design.pairs_judged["adaptive"] > 5
