"""The hand-written derivatives of the Bradley–Terry likelihood (``bayes.bt_models``).

:func:`~judgebayes.bayes.bt_models.soft_binomial_logpdf` carries a ``jax.custom_jvp``
and :func:`~judgebayes.bayes.bt_models.pair_difference` forms θ_i − θ_j so that its
transpose is cheap (from all M × M differences, or from one gather of both ends);
both must give the values and derivatives of the plain formulas of
seed 000, Eq. 1 (``y·log σ(d) + (n − y)·log σ(−d)`` with ``d = θ_i − θ_j``) as JAX's
autodiff of those formulas gives them, to float64 rounding, at the edges too (y = 0,
y = n, d = 0, |d| up to 700).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree
from jax.test_util import check_grads
from numpyro.infer.util import potential_energy

import judgebayes as jb
from judgebayes.bayes.bt_models import (
    DENSE_PAIRS_RATIO,
    SoftBinomial,
    bt_data,
    bt_model,
    pair_difference,
    soft_binomial_logpdf,
)


def plain_logpdf(y: jax.Array, n: jax.Array, d: jax.Array) -> jax.Array:
    """Seed 000, Eq. 1 as written, differentiated by JAX's own rules."""
    return y * jax.nn.log_sigmoid(d) + (n - y) * jax.nn.log_sigmoid(-d)


@pytest.fixture(autouse=True)
def x64() -> None:
    with jax.enable_x64(True):
        yield


@pytest.fixture
def edges() -> tuple[jax.Array, jax.Array, jax.Array]:
    """Random pairs plus the edge cases: y = 0, y = n, n = 0, d = 0, large |d|."""
    rng = np.random.default_rng(0)
    n = rng.uniform(0.5, 40.0, 200)
    y = n * rng.uniform(0.0, 1.0, 200)
    d = rng.normal(0.0, 3.0, 200)
    n_edge = np.array([5.0, 5.0, 7.0, 7.0, 3.0, 3.0, 2.5, 0.0, 9.0, 9.0, 1.0, 1.0])
    y_edge = np.array([0.0, 5.0, 0.0, 7.0, 1.5, 0.0, 2.5, 0.0, 4.0, 4.0, 0.0, 1.0])
    d_edge = np.array([0.0, 0.0, 40.0, -40.0, 700.0, -700.0, 35.0, 3.0, 1e-12, -1e-12, -60.0, 60.0])
    return (
        jnp.asarray(np.r_[y, y_edge]),
        jnp.asarray(np.r_[n, n_edge]),
        jnp.asarray(np.r_[d, d_edge]),
    )


def test_value_is_eq1(edges: tuple) -> None:
    y, n, d = edges
    np.testing.assert_allclose(
        soft_binomial_logpdf(y, n, d), plain_logpdf(y, n, d), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("argnum", [0, 1, 2])
def test_first_derivatives_equal_autodiff_of_eq1(edges: tuple, argnum: int) -> None:
    # ∂/∂y = d, ∂/∂n = log σ(−d), ∂/∂d = y − n·σ(d): each against JAX's autodiff of the
    # plain formula, elementwise (a weighted sum has the elementwise derivatives).
    weights = jnp.linspace(0.5, 1.5, edges[0].size)

    def total(f: object) -> object:
        return lambda *a: jnp.sum(weights * f(*a))

    ours = jax.grad(total(soft_binomial_logpdf), argnums=argnum)(*edges)
    ref = jax.grad(total(plain_logpdf), argnums=argnum)(*edges)
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)
    # the same through forward mode
    tangent = jnp.zeros(3).at[argnum].set(1.0)
    args = list(edges)
    _, jvp = jax.jvp(
        lambda t: soft_binomial_logpdf(*(a + t[k] for k, a in enumerate(args))),
        (jnp.zeros(3),),
        (tangent,),
    )
    np.testing.assert_allclose(jvp, ref / weights, rtol=1e-10, atol=1e-10)


def test_closed_forms_of_the_derivatives(edges: tuple) -> None:
    y, n, d = edges
    gy, gn, gd = jax.grad(lambda *a: jnp.sum(soft_binomial_logpdf(*a)), argnums=(0, 1, 2))(y, n, d)
    np.testing.assert_allclose(gy, d, rtol=1e-14)
    np.testing.assert_allclose(gn, jax.nn.log_sigmoid(-d), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(gd, y - n * jax.nn.sigmoid(d), rtol=1e-10, atol=1e-10)


def test_second_derivatives_and_finite_differences(edges: tuple) -> None:
    y, n, d = (a[:40] for a in edges)  # moderate |d|: finite differences are meaningful
    # jitted: JAX's transformations of a jitted function compile once per signature,
    # where op by op every operation of every derivative compiles on its own
    check_grads(
        jax.jit(soft_binomial_logpdf),
        (y, n, d),
        order=2,
        modes=["fwd", "rev"],
        atol=1e-6,
        rtol=1e-6,
    )
    hess = jax.jit(jax.hessian(lambda d: jnp.sum(soft_binomial_logpdf(y, n, d))))(d)
    ref = jax.jit(jax.hessian(lambda d: jnp.sum(plain_logpdf(y, n, d))))(d)
    np.testing.assert_allclose(hess, ref, rtol=1e-10, atol=1e-10)
    # −n·σ(d)σ(−d) on the diagonal
    np.testing.assert_allclose(
        jnp.diag(hess), -n * jax.nn.sigmoid(d) * jax.nn.sigmoid(-d), rtol=1e-10
    )


def test_soft_binomial_broadcasts_draws_over_pairs() -> None:
    rng = np.random.default_rng(1)
    n = jnp.asarray(rng.uniform(1, 10, 6))
    logits = jnp.asarray(rng.normal(size=6))
    values = n * jnp.asarray(rng.uniform(size=(4, 6)))
    lp = SoftBinomial(n, logits).log_prob(values)
    assert lp.shape == (4, 6)
    np.testing.assert_allclose(lp, plain_logpdf(values, n, logits), rtol=1e-12)


@pytest.mark.parametrize(("n_models", "n_pairs"), [(9, 50), (40, 50)])
def test_pair_difference_and_its_gradient(n_models: int, n_pairs: int) -> None:
    # 9 models, 50 pairs: the dense form (81 <= 4 x 50); 40 models: the gathered ends.
    # Pairs repeat, run in both orientations and use negative (Python-style) indices.
    dense = n_models**2 <= DENSE_PAIRS_RATIO * n_pairs
    assert dense == (n_models == 9)
    rng = np.random.default_rng(2)
    theta = jnp.asarray(rng.normal(size=n_models))
    i = jnp.asarray(rng.integers(-n_models, n_models, n_pairs))
    j = jnp.asarray(rng.integers(0, n_models, n_pairs))
    np.testing.assert_array_equal(pair_difference(theta, i, j), theta[i] - theta[j])
    cot = jnp.asarray(rng.normal(size=n_pairs))
    ours = jax.vjp(lambda t: pair_difference(t, i, j), theta)[1](cot)[0]
    ref = jax.vjp(lambda t: t[i] - t[j], theta)[1](cot)[0]
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)
    tangent = jnp.asarray(rng.normal(size=n_models))
    np.testing.assert_allclose(
        jax.jvp(lambda t: pair_difference(t, i, j), (theta,), (tangent,))[1],
        tangent[i] - tangent[j],
        rtol=1e-12,
        atol=1e-12,
    )
    # batched θ (draws × models), as the pointwise log-likelihood vmaps it
    thetas = jnp.asarray(rng.normal(size=(3, n_models)))
    np.testing.assert_array_equal(
        jax.vmap(lambda t: pair_difference(t, i, j))(thetas), thetas[:, i] - thetas[:, j]
    )
    np.testing.assert_array_equal(pair_difference(thetas, i, j), thetas[:, i] - thetas[:, j])


def _plain_bt_model(
    i: jax.Array, j: jax.Array, n: jax.Array, n_models: int, prior_sd: float, y: jax.Array
) -> None:
    """:func:`bt_model` with θ_i − θ_j by indexing and Eq. 1 by log-sigmoids."""
    import numpyro
    import numpyro.distributions as dist

    theta = numpyro.sample("theta", dist.ZeroSumNormal(prior_sd, event_shape=(n_models,)))
    with numpyro.plate("pair", len(n)):
        numpyro.factor("y", plain_logpdf(y, n, theta[i] - theta[j]))


@pytest.mark.parametrize(("n_models", "n_battles"), [(12, 3000), (40, 150)])
def test_bt_potential_value_gradient_and_hessian_equal_the_plain_model(
    n_models: int, n_battles: int
) -> None:
    # 12 models, all 66 pairs: pair_difference's dense form; 40 models, fewer than 150
    # pairs: its gathered form
    stats = jb.simulate_bt(n_models, n_battles, seed=3).battles.pair_stats("human_label")
    assert (stats.n_models**2 <= DENSE_PAIRS_RATIO * stats.n_pairs) == (n_models == 12)
    data = bt_data(stats, lam=0.05)
    rng = np.random.default_rng(3)
    x = jnp.asarray(rng.uniform(-2, 2, stats.n_models - 1))

    def derivatives(model: object) -> object:
        # value, gradient and Hessian of the potential as one compiled program per
        # model (op by op, each of the hundreds of operations compiled on its own)
        def potential(v: jax.Array) -> jax.Array:
            return potential_energy(model, (), data, {"theta": v})

        return jax.jit(lambda v: (*jax.value_and_grad(potential)(v), jax.hessian(potential)(v)))

    ours_at, ref_at = derivatives(bt_model), derivatives(_plain_bt_model)
    for point in (x, 4.0 * x):  # the second has |d| up to ~30
        ours, ref = ours_at(point), ref_at(point)
        np.testing.assert_allclose(ours[0], ref[0], rtol=1e-12)
        np.testing.assert_allclose(ours[1], ref[1], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(ours[2], ref[2], rtol=1e-10, atol=1e-10)
    assert ravel_pytree(ours[1])[0].shape == (stats.n_models - 1,)
