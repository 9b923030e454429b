"""`jb.models`: every builder binds its model to data with coords/dims that `jb.fit` uses."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

import judgebayes as jb


@pytest.fixture(scope="module")
def arena() -> jb.SimulatedArena:
    return jb.simulate_arena(n_models=8, n_battles=2000, seed=3)


def test_bt_spec_fits_in_one_call_with_model_names(arena: jb.SimulatedArena) -> None:
    spec = jb.models.bt(arena.battles, target="judge_label")
    assert isinstance(spec, jb.ModelSpec)
    idata = jb.fit(spec, method="map", draws=10)
    names = list(idata.posterior["elo"].coords["model"].values)
    assert names == list(arena.battles.models)
    # the MAP path optimises Eq. 1, the same objective as fit_bt
    ref = jb.fit_bt(arena.battles, target="judge_label")
    got = idata.map["elo"].sel(model=list(ref.models)).values
    np.testing.assert_allclose(got, ref.elo, atol=1e-3)
    # the unpacked form is the same call
    again = jb.fit(*spec, method="map", draws=10)
    np.testing.assert_allclose(again.map["elo"].values, idata.map["elo"].values)


def test_soft_bt_spec_uses_the_fitted_temperature(arena: jb.SimulatedArena) -> None:
    beta = jb.fit_temperature(arena.battles, warn=False).beta
    spec = jb.models.soft_bt(arena.battles)
    target = expit(beta * np.asarray(arena.battles.column("score_diff"), dtype=float))
    direct = jb.models.bt(arena.battles, target)
    np.testing.assert_allclose(np.asarray(spec.data["y"]), np.asarray(direct.data["y"]))
    with pytest.raises(TypeError, match="Battles or PairStats"):
        jb.models.bt(arena.battles.frame)


def test_temperature_spec_mode_is_the_mle(arena: jb.SimulatedArena) -> None:
    """With thousands of labels the HalfNormal(2) prior moves the mode by < 1%."""
    idata = jb.fit(jb.models.temperature(arena.battles), method="map", draws=10)
    mle = jb.fit_temperature(arena.battles, warn=False).beta
    assert float(idata.map["beta"]) == pytest.approx(mle, rel=0.01)


def test_other_builders_name_their_dimensions() -> None:
    sim = jb.simulate_judges(n_models=5, n_judges=3, n_battles=600, seed=1)
    spec = jb.models.multi_judge(sim.battles)
    assert spec.coords["judge"] == list(sim.battles.judges)
    assert spec.dims["psi"] == ["judge"]
    dav = jb.models.davidson(jb.simulate_bt(5, 400, tie_nu=0.5, seed=2).battles)
    assert dav.data["counts"].shape[1] == 3 and dav.dims["elo"] == ["model"]
    items = jb.calibration.simulate_items([0.7, 0.6], 0.8, 0.9, seed=0).items
    cal = jb.models.calibration(items, design="shared")
    assert cal.dims["log_dor"] == ["group"] and cal.coords["model"]
    with pytest.raises(ValueError, match="unknown design"):
        jb.models.calibration(items, design="nope")
