"""The Laplace Hessian of ``fit(..., method="map")``: central differences of the compiled
gradient (:func:`judgebayes.bayes.engine.laplace.central_hessian`) against ``jax.hessian``.

Tolerance. With step h_j = ε^{1/3} s_j (s_j = max(1, |x_j|), ε = 2.2e-16) the error of
entry (i, j) is at most about ε^{2/3} (s_j² |∂_j³ g_i| / 6 + G_i / s_j): Taylor
truncation plus the rounding error ε G_i of the two computed gradients divided by the
step (G_i: the size of the terms summed into g_i = ∂_i U). Each test bounds the first
term with the fourth derivative ∂_j² H_ij, measured by second differences of the
autodiff Hessian, and the second with G_i ≤ 10 · max(1, max |H|): the potentials here
sum Binomial-type terms whose gradient terms are at most about 4 times their curvature
terms, so the factor 10 leaves room (the largest error measured is 0.36 of its bound,
on the calibration design). ε^{2/3} = 3.7e-11, so the tolerance is ~4e-10 of the
Hessian's scale: a step 100 times too large exceeds it 60–600 fold; the symmetry is
checked exactly. The anchors model (173 dimensions, 4 s more of CPU for its autodiff
Hessian, so not here) measured 2.1e-5 on an entry of 512, which its fourth derivative,
3.4e6, predicts as truncation error to three digits.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree

import judgebayes as jb
from judgebayes.bayes.bt_models import bt_data, bt_model
from judgebayes.bayes.engine import laplace
from judgebayes.bayes.engine.laplace import central_hessian, lbfgs_mode
from judgebayes.bayes.engine.model import CompiledModel
from judgebayes.bayes.spec import ModelSpec

EPS = np.finfo(np.float64).eps


def _bt_spec() -> ModelSpec:
    stats = jb.simulate_bt(5, 400, tie_nu=0.5, seed=1).battles.pair_stats("human_label")
    return ModelSpec(bt_model, bt_data(stats, lam=0.5), {}, {})


def _calibration_spec() -> ModelSpec:
    items = jb.calibration.simulate_items(
        [0.7, 0.5], 0.8, 0.85, n_cal=20, n_test=40, runs=1, seed=3
    ).items
    return jb.models.calibration(items, "shared")


def _autodiff_hessian(compiled: CompiledModel):
    """``jax.hessian`` of the same flat potential ``flat_potential`` differentiates."""
    _, unravel = ravel_pytree(
        jax.tree.map(lambda x: jnp.zeros(x.shape, dtype=jnp.float64), compiled.z_template)
    )
    return jax.jit(jax.hessian(lambda x, a: compiled.potential_gen(**a)(unravel(x))))


@pytest.fixture(scope="module", params=["bt", "calibration"])
def at_mode(request) -> dict:
    spec = {"bt": _bt_spec, "calibration": _calibration_spec}[request.param]()
    with jax.enable_x64(True):
        compiled, arrays = CompiledModel.of(spec.model, spec.data)
        flat0, value_and_grad, _ = compiled.flat_potential()
        mode = lbfgs_mode(value_and_grad, flat0, arrays).x
        autodiff = _autodiff_hessian(compiled)
        # a point away from the mode too: the third derivatives are not small there
        away = mode + np.random.default_rng(0).uniform(-0.5, 0.5, mode.size)
        out = {"spec": spec, "autodiff": autodiff, "points": {}}
        for name, x in (("mode", mode), ("away", away)):
            exact = np.asarray(autodiff(jnp.asarray(x), arrays))
            s = np.maximum(1.0, np.abs(x))
            delta = 1e-3 * s
            fourth = np.empty_like(exact)  # column j: ∂_j² H[:, j] by second differences
            for j in range(x.size):
                e = np.zeros_like(x)
                e[j] = delta[j]
                plus = np.asarray(autodiff(jnp.asarray(x + e), arrays))
                minus = np.asarray(autodiff(jnp.asarray(x - e), arrays))
                fourth[:, j] = (plus[:, j] - 2 * exact[:, j] + minus[:, j]) / delta[j] ** 2
            scale = max(1.0, np.abs(exact).max())
            bound = EPS ** (2 / 3) * (
                s[None, :] ** 2 * np.abs(fourth) / 6 + 10 * scale / s[None, :]
            )
            bound = np.maximum(bound, bound.T)  # symmetrised: either estimate's bound
            out["points"][name] = {
                "x": x,
                "exact": exact,
                "bound": bound,
                "central": central_hessian(value_and_grad, jnp.asarray(x), arrays),
                "direct": central_hessian(value_and_grad, x, arrays),
            }
    return out


def test_central_hessian_matches_autodiff_within_its_error_bound(at_mode: dict) -> None:
    for name, point in at_mode["points"].items():
        central, exact, bound = point["central"], point["exact"], point["bound"]
        assert central.shape == exact.shape == (point["x"].size,) * 2
        np.testing.assert_array_equal(central, central.T)
        np.testing.assert_array_equal(central, point["direct"])  # a JAX or a NumPy point
        error = np.abs(central - exact)
        assert np.all(error <= bound), (name, float((error / bound).max()))
        # the bound itself is tight enough to mean something: ~1e-9 of the scale
        assert bound.max() < 1e-8 * max(1.0, np.abs(exact).max()), name


def test_laplace_covariance_is_unchanged(at_mode: dict) -> None:
    """The Laplace covariance H⁻¹ at the mode: to first order δ(H⁻¹) = −H⁻¹ δH H⁻¹, so
    each variance moves by at most ‖H⁻¹‖₂² ‖δH‖₂; both are measured here."""
    point = at_mode["points"]["mode"]
    exact, central = point["exact"], point["central"]
    cov, cov_fd = np.linalg.inv(exact), np.linalg.inv(central)
    norm_inv = np.linalg.norm(cov, 2)
    allowed = 2 * norm_inv**2 * np.linalg.norm(central - exact, 2)
    assert np.all(np.abs(np.diag(cov_fd) - np.diag(cov)) <= allowed)
    sd, sd_fd = np.sqrt(np.diag(cov)), np.sqrt(np.diag(cov_fd))
    np.testing.assert_allclose(sd_fd, sd, rtol=1e-7)


def test_map_fit_draws_are_those_of_the_autodiff_hessian(
    at_mode: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: ``fit(method="map")`` with the autodiff Hessian swapped back in gives
    the same mode (bit for bit: L-BFGS does not use the Hessian) and Laplace draws whose
    SDs agree to 1e-7 (same normal deviates; the Cholesky factors differ by ~1e-10)."""
    spec = at_mode["spec"]
    central = jb.fit(spec, method="map", draws=500, seed=1)

    def with_autodiff(value_and_grad: object, x: object, arrays: dict) -> np.ndarray:
        return np.asarray(at_mode["autodiff"](x, arrays))  # compiled above

    monkeypatch.setattr(laplace, "central_hessian", with_autodiff)
    autodiff = jb.fit(spec, method="map", draws=500, seed=1)
    for name in central.posterior.data_vars:
        np.testing.assert_array_equal(central["map"][name].values, autodiff["map"][name].values)
        np.testing.assert_allclose(
            central.posterior[name].std("draw").values,
            autodiff.posterior[name].std("draw").values,
            rtol=1e-7,
            atol=1e-12,
        )
