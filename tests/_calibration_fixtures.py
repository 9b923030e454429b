"""Data and helpers shared by the calibration test files (not a test module).

Compiling a NUTS kernel costs far more than sampling with it on these small cell
layouts, and the engine (:mod:`judgebayes.bayes.engine`) keeps the kernels of a
model and data layout for the whole process. So the files fit the *same* items where
they can: :func:`recovery_items` (two models, one judge run, 400 + 800 items) is what
``tests/test_calibration_bayes.py`` recovers θ and J from and what
``tests/test_calibrate_bayes_cli.py`` writes to its CSV; its weighted cells (12 for the
row designs, 20 for the paired one) are also those of ``tests/test_calibration_paired.py``'s
MAP-vs-NUTS items. Whichever of these tests runs first in a (pytest-xdist worker)
process compiles the four designs' kernels; the others reuse them.

:func:`item_loglik_reference` and :func:`paired_loglik_reference` are the route
``fit_calibration`` took before it indexed the cells' log-likelihoods that ``fit``
computed: the cells' log-likelihoods recomputed from the draws by NumPyro, indexed to
rows, summed per question by a sparse rows × items product.
``tests/test_calibration_loglik.py`` compares the two; ``bench/calibration_fit_speed.py``
times them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import arviz as az
import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse
from numpyro.infer import log_likelihood
from numpyro.infer.util import log_density

from judgebayes.calibration.designs import DESIGNS, CalibrationData
from judgebayes.calibration.paired import PairedData
from judgebayes.calibration.posterior import _paired_dataset, _row_dataset
from judgebayes.calibration.sweep import SimulatedItems, simulate_items


@cache
def recovery_items() -> SimulatedItems:
    """J_A = 0.70, J_B = 0.35 (ΔJ as in the biology case), 400 calibration and 800 test
    items, latent correlation 0.5. Seed 6: a calibration sample whose q̂ lie within 1 SE
    of the truth (seed 4 draws q̂1[A] 2 SE low, which a 95% interval may rightly miss)."""
    return simulate_items(
        [0.7, 0.75], q0=[0.85, 0.55], q1=[0.85, 0.8], n_cal=400, n_test=800, seed=6
    )


def log_joint(model: Callable, data: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """NumPyro's ``log_density`` of ``model(**data)`` at ``params``, as one compiled
    function (run op by op it compiles a kernel per operation and shape: ~10× the time)."""
    return float(jax.jit(lambda p: log_density(model, (), dict(data), p)[0])(dict(params)))


def pointwise_loglik(
    model: Callable, samples: Mapping[str, Any], data: Mapping[str, Any]
) -> dict[str, Any]:
    """NumPyro's ``log_likelihood`` of every observed site, as one compiled function."""
    return jax.jit(lambda s: log_likelihood(model, s, **data))(dict(samples))


def site_loglik(
    design: str, idata: az.InferenceData, cells: Mapping[str, Any]
) -> tuple[dict[str, np.ndarray], tuple[int, int]]:
    """Log-likelihood of every cell at every posterior draw, per observed site, by
    NumPyro's ``log_likelihood`` on the posterior draws; and the (chain, draw) shape."""
    post = idata.posterior
    shape = (post.sizes["chain"], post.sizes["draw"])
    samples = {
        k: jnp.asarray(post[k].values.reshape(-1, *post[k].shape[2:])) for k in post.data_vars
    }
    free = {k: v for k, v in cells.items() if k != "weight"}
    return (
        {k: np.asarray(v) for k, v in log_likelihood(DESIGNS[design], samples, **free).items()},
        shape,
    )


def item_loglik_reference(
    idata: az.InferenceData,
    design: str,
    cells: Mapping[str, Any],
    cell: np.ndarray,
    data: CalibrationData,
    pdata: PairedData,
) -> az.InferenceData:
    """``fit_calibration``'s per-row and per-question log-likelihoods of a row design, by
    the previous route (see the module docstring); same signature as ``_item_loglik``."""
    ll, shape = site_loglik(design, idata, cells)
    judge = ll["judge_label"][:, cell].reshape(*shape, -1)
    human = ll["human_label"][:, cell[: data.n_cal]].reshape(*shape, -1)
    item = judge.copy()
    item[..., : data.n_cal] += human
    q = pdata.item_of_row
    to_question = scipy.sparse.csr_matrix(
        (np.ones(len(q)), (np.arange(len(q)), q)), shape=(len(q), len(pdata.item_ids))
    )
    question = np.asarray(item.reshape(-1, item.shape[-1]) @ to_question).reshape(*shape, -1)
    return _row_dataset(idata, judge, human, item, question, data, pdata)


def paired_loglik_reference(
    idata: az.InferenceData,
    design: str,
    cells: Mapping[str, Any],
    cell: np.ndarray,
    pdata: PairedData,
) -> az.InferenceData:
    """The per-question log-likelihoods of a paired design by the previous route; same
    signature as ``_paired_loglik``."""
    ll, shape = site_loglik(design, idata, cells)
    judge = ll["judge_label"][:, cell].reshape(*shape, -1)
    human = ll["human_label"][:, cell].reshape(*shape, -1)
    return _paired_dataset(idata, judge, human, judge + human, pdata)
