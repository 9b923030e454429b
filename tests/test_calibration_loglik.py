"""The per-item log-likelihoods of :func:`fit_calibration` equal those of the previous route.

:func:`~judgebayes.calibration.posterior.fit_calibration` now takes the cells'
log-likelihoods that ``fit`` computed and indexes them to rows and items
(``_item_loglik``, ``_paired_loglik``); the previous route recomputed them from the
draws with NumPyro's ``log_likelihood`` (``item_loglik_reference``,
``paired_loglik_reference`` of ``tests/_calibration_fixtures.py``). NUTS is replaced
here by draws spread over the support (what is compared is the bookkeeping after
sampling, not the sampler): uniform(−1, 1) points on the unconstrained space (half
NUTS's start range: the hierarchical design's odds ratio exp(μ + τ·ℓ) stays below ~50,
so float32 cancellation in the judge likelihood y·logit − k·softplus(logit) stays at the
1e-6 level, whereas at ±2 logits reach 10^4 and the two routes' roundings differ by
2^−10 there), mapped to the constrained parameters and deterministic sites by the
compiled model's own transform (what ``fit`` applies to NUTS draws). Both routes see the
*same* draws of each design, so the file compiles one small transform per design and the
log-likelihood kernels, not a ``Predictive`` scan over each model's prior samplers
(twice as many, ~4× the time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jax
import numpy as np
import pytest

import judgebayes.calibration.posterior as posterior
from _calibration_fixtures import item_loglik_reference, paired_loglik_reference
from judgebayes.bayes.engine.model import CompiledModel
from judgebayes.bayes.inference import _to_idata
from judgebayes.calibration.sweep import simulate_items

CHAINS, DRAWS = 2, 40
_CONSTRAIN: dict[int, Callable] = {}


def _stand_in_fit(
    model: Callable,
    data: Mapping[str, Any],
    coords: Mapping | None = None,
    dims: Mapping | None = None,
    *,
    seed: int = 0,
    **_: Any,
) -> Any:
    """``fit`` with draws spread over the support in place of NUTS: the same
    InferenceData bookkeeping. The same (model, data, seed) gives the same draws."""
    compiled, arrays = CompiledModel.of(model, data)
    keys = iter(jax.random.split(jax.random.PRNGKey(seed), len(compiled.z_template)))
    z = {
        k: jax.random.uniform(next(keys), (CHAINS * DRAWS, *s.shape), s.dtype, -1.0, 1.0)
        for k, s in compiled.z_template.items()
    }
    if id(compiled) not in _CONSTRAIN:  # one compile per layout, not per call
        _CONSTRAIN[id(compiled)] = jax.jit(
            jax.vmap(lambda zz, a: compiled.postprocess_gen(**a)(zz), (0, None))
        )
    draws = _CONSTRAIN[id(compiled)](z, arrays)
    draws = {k: np.asarray(v).reshape(CHAINS, DRAWS, *np.shape(v)[1:]) for k, v in draws.items()}
    return _to_idata(model, data, draws, coords, dims, "nuts")


@pytest.fixture(scope="module")
def items() -> Any:
    # Three models, one without labels, three judge runs per test item: cells of
    # several run counts and items whose rows fall in different sets of cells.
    return simulate_items(
        [0.6, 0.7, 0.8],
        q0=[0.8, 0.7, 0.9],
        q1=[0.85, 0.75, 0.8],
        n_cal=60,
        n_test=120,
        runs=3,
        labelled=["A", "B"],
        seed=3,
    ).items


@pytest.fixture(scope="module")
def both(items: Any) -> tuple:
    designs = ["shared", "model_specific", "hierarchical", "paired"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(posterior, "fit", _stand_in_fit)
        new = posterior.fit_calibration(items, designs=designs, progress=False)
        mp.setattr(posterior, "_item_loglik", item_loglik_reference)
        mp.setattr(posterior, "_paired_loglik", paired_loglik_reference)
        old = posterior.fit_calibration(items, designs=designs, progress=False)
    return new, old


def test_item_loglik_equals_reference(both: tuple) -> None:
    new, old = both
    for design in new.fits:
        a, b = new.fits[design], old.fits[design]
        assert set(a.log_likelihood.data_vars) == set(b.log_likelihood.data_vars), design
        # Row designs: float32 cell values, summed in float64. fit's kernel is compiled
        # with XLA's classic CPU emitters on data this small (bayes.engine.xla
        # .compiler_options), NumPyro's op-by-op log_likelihood with the default ones:
        # their exp/log differ in the last bits (up to 7e-7 relative measured, ~6
        # float32 ulps). Paired: fit's vmapped kernel and NumPyro's per-draw map also
        # round the pattern mixture differently (both within ~1e-5 of the float64
        # value). So float32 tolerance for both.
        tol = {"atol": 1e-5, "rtol": 4e-6} if design != "paired" else {"atol": 1e-4, "rtol": 1e-5}
        for k in b.log_likelihood.data_vars:
            x, y = a.log_likelihood[k], b.log_likelihood[k]
            assert x.dims == y.dims and x.dtype == y.dtype, (design, k)
            np.testing.assert_allclose(x.values, y.values, **tol, err_msg=f"{design} {k}")
            assert np.isfinite(x.values).all(), (design, k)
        for k in b.observed_data.data_vars:
            np.testing.assert_array_equal(a.observed_data[k], b.observed_data[k])
        np.testing.assert_array_equal(a.log_likelihood["item_id"], b.log_likelihood["item_id"])
    # One value per item in both: what LOO compares across designs.
    n_items = new.fits["shared"].log_likelihood.sizes["item_id"]
    assert n_items == 180 and new.fits["paired"].log_likelihood.sizes["item_id"] == n_items


def test_sets_of_cells_dense_and_sparse(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    n_items, n_cells = 500, 9
    item_of_row = np.repeat(np.arange(n_items), rng.integers(1, 4, n_items))
    cell = rng.integers(0, n_cells, item_of_row.size)
    values = rng.standard_normal((7, n_cells)).astype(np.float32)
    direct = np.zeros((7, n_items))
    np.add.at(direct.T, item_of_row, values[:, cell].T.astype(float))
    sets, of_item = posterior._question_of_cells(cell, item_of_row, n_items, n_cells)
    assert sets.shape[1] < n_items
    np.testing.assert_allclose(np.asarray(values @ sets)[:, of_item], direct, atol=1e-12)
    monkeypatch.setattr(posterior, "_DENSE_SETS", 0)
    sets, of_item = posterior._question_of_cells(cell, item_of_row, n_items, n_cells)
    assert sets.shape[1] == n_items
    np.testing.assert_allclose(np.asarray(values @ sets)[:, of_item], direct, atol=1e-12)
