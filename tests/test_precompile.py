"""Kernels compiled ahead of a fit (``CompiledModel.precompile``): same code, same draws.

``fit_calibration`` traces every design's NUTS and log-likelihood kernels first and
lets XLA compile them side by side in background threads; ``fit`` then waits for them
instead of compiling. These tests check that a precompiled kernel gives the draws and
log-likelihoods of one compiled on first use, that ``fit_calibration`` hands every
design to the compile pool before sampling (and only for NUTS), and that a failure in
the background is reported by the fit, not lost.
"""

from __future__ import annotations

import functools
from concurrent.futures import Future
from typing import Any

import numpy as np
import pytest

import judgebayes.calibration.posterior as posterior
from judgebayes.bayes.compiled import CompiledModel
from judgebayes.bayes.inference import fit
from judgebayes.calibration.designs import DESIGNS, _cells, calibration_data
from judgebayes.calibration.sweep import simulate_items

pytestmark = pytest.mark.filterwarnings("ignore::judgebayes.bayes.inference.SamplerWarning")
NUTS = {"chains": 2, "draws": 150, "warmup": 150, "seed": 3, "progress": False}


@pytest.fixture(scope="module")
def items() -> Any:
    return simulate_items(
        [0.6, 0.8], q0=[0.8, 0.7], q1=[0.85, 0.75], n_cal=40, n_test=80, seed=5
    ).items


def test_a_precompiled_kernel_gives_the_same_fit(items: Any) -> None:
    cells, _ = _cells(calibration_data(items).data)
    model = DESIGNS["model_specific"]
    lazy = fit(model, cells, **NUTS)  # compiled on first use
    compiled, arrays = CompiledModel.of(model, cells)
    compiled._kernels.clear()  # as in a new process
    compiled.precompile(arrays)
    pending = dict(compiled._kernels)
    assert {k[0] for k in pending} == {"nuts", "loglik"}
    assert all(isinstance(v, Future) for v in pending.values())
    ahead = fit(model, cells, **NUTS)
    # fit waited for the background kernels and kept them; it compiled nothing else
    assert set(compiled._kernels) >= set(pending)
    assert not any(isinstance(v, Future) for v in compiled._kernels.values())
    for group in ("posterior", "sample_stats", "log_likelihood"):
        for k in lazy[group].data_vars:
            np.testing.assert_array_equal(
                ahead[group][k].values, lazy[group][k].values, err_msg=f"{group} {k}"
            )


def test_fit_calibration_compiles_every_design_before_sampling(
    items: Any, monkeypatch: Any
) -> None:
    class Stop(Exception):
        pass

    handed: list = []

    def record(jobs: Any) -> None:
        handed.extend(jobs)
        raise Stop

    monkeypatch.setattr(posterior, "_compile_ahead", record)
    designs = ["shared", "hierarchical", "paired"]
    with pytest.raises(Stop):  # stops before the first fit
        posterior.fit_calibration(items, designs=designs, progress=False)
    assert [model for model, _ in handed] == [DESIGNS[d] for d in designs]
    # the row designs get the cells of (model, item) rows, the paired one its own
    assert "weight" in handed[0][1] and handed[0][1] is handed[1][1]
    assert handed[2][1] is not handed[0][1]
    handed.clear()
    posterior.fit_calibration(items, designs=["shared"], method="map", draws=20, progress=False)
    assert handed == []  # MAP compiles no NUTS kernel
    # fit wrapped (a timer, as bench/calibration_fit_speed.py does) still compiles ahead;
    # a stand-in for fit (tests that replace NUTS by prior draws) compiles nothing
    monkeypatch.setattr(posterior, "fit", functools.wraps(fit)(lambda *a, **k: fit(*a, **k)))
    with pytest.raises(Stop):
        posterior.fit_calibration(items, designs=["shared"], progress=False)
    assert len(handed) == 1

    class Sampled(Exception):
        pass

    def stand_in(*args: Any, **kwargs: Any) -> None:
        raise Sampled

    monkeypatch.setattr(posterior, "fit", stand_in)
    with pytest.raises(Sampled):
        posterior.fit_calibration(items, designs=["shared"], progress=False)
    assert len(handed) == 1  # nothing more handed to the compile pool


def test_a_model_that_cannot_be_precompiled_is_left_to_fit() -> None:
    def broken(x: Any) -> None:
        raise ValueError("this model says what is wrong")

    posterior._compile_ahead([(broken, {"x": np.zeros(3)})])  # no error here
    with pytest.raises(ValueError, match="says what is wrong"):
        fit(broken, {"x": np.zeros(3)}, chains=1, draws=5, warmup=5, progress=False)


def test_a_failed_background_compile_is_raised_then_retried() -> None:
    compiled = CompiledModel(lambda: None, {}, lambda **a: None, lambda **a: None)
    failed: Future = Future()
    failed.set_exception(RuntimeError("XLA ran out of memory"))
    compiled._kernels[("nuts", 1)] = failed
    with pytest.raises(RuntimeError, match="out of memory"):
        compiled._kernel(("nuts", 1), lambda: "built here")
    assert compiled._kernel(("nuts", 1), lambda: "built here") == "built here"
