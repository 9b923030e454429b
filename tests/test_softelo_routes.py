"""The fast held-out route against the route it replaced, and the solvers under it.

``held_out_elo`` (per-pair sums built once, Newton fits) must give the numbers of
``held_out_elo_reference`` (``tests/_softelo_reference.py``: the previous route, pair
statistics per fold, SciPy Newton-CG, ``bootstrap_bt``) within the optimisers'
tolerances. Tolerances: SciPy's Newton-CG stops
at a mean step of 1e-10 (θ), within ~1e-6 Elo of the optimum here; the chord iteration
of ``bootstrap_bt`` stops at a step of 1e-6 (θ), "within ~1e-7 of its exact MAP (2e-5
Elo)"; Brent's β stops at xatol 1e-8. Hence 1e-5 Elo on the ratings, 1e-4 Elo on the
bootstrap SEs (which also see each replicate's stopping error) and 1e-7 on β.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq
from scipy.special import expit

import judgebayes as jb
from _softelo_reference import held_out_elo_reference
from judgebayes.core import bootstrap
from judgebayes.core.bootstrap import CellResampler, _PoissonCounts
from judgebayes.core.bt import newton_map, solve_map, solve_one, theta_to_elo
from judgebayes.softelo.held_out import held_out_elo
from judgebayes.softelo.temperature import beta_mle, beta_mle_counts, score_counts


@pytest.fixture(scope="module")
def battles() -> jb.Battles:
    """14 models; a third of the human labels hidden, and all of model-03's."""
    frame = jb.simulate_arena(14, 3000, seed=11).battles.frame.copy()
    rng = np.random.default_rng(0)
    hide = rng.random(len(frame)) < 0.3
    hide |= (frame["model_a"] == "model-03") | (frame["model_b"] == "model-03")
    frame.loc[hide, "human_label"] = np.nan
    return jb.Battles(frame)


def assert_same_table(fast: pd.DataFrame, ref: pd.DataFrame) -> None:
    assert list(fast.columns) == list(ref.columns)
    assert list(fast["model"]) == list(ref["model"])
    np.testing.assert_array_equal(fast["n_battles"], ref["n_battles"])
    np.testing.assert_allclose(fast["beta"], ref["beta"], atol=1e-7)
    for column in fast.columns:
        if column.startswith(("elo_", "residual_")):
            np.testing.assert_allclose(fast[column], ref[column], atol=1e-5, err_msg=column)
        elif column.startswith("se_"):
            np.testing.assert_allclose(fast[column], ref[column], atol=1e-4, err_msg=column)


def test_fast_route_matches_the_reference_route(battles: jb.Battles) -> None:
    # 60 replicates: two chunks of the bootstrap's streams (50 + 10)
    kwargs = {
        "methods": ("hard", "soft", "smooth_0.75"),
        "n_boot": 60,
        "seed": 4,
        "progress": False,
    }
    fast = held_out_elo(battles, **kwargs).table
    ref = held_out_elo_reference(battles, **kwargs).table
    assert_same_table(fast, ref)
    assert fast.loc[fast["model"] == "model-03", "elo_human"].item() == pytest.approx(1500)
    assert (fast["se_soft"] > 0).all()
    again = held_out_elo(battles, **kwargs).table
    pd.testing.assert_frame_equal(fast, again)  # same seed, same numbers


@pytest.mark.parametrize(
    "options",
    [
        {"beta": "pooled"},
        {"beta": 0.45},
        {"beta_ties": "half", "models": ["model-00", "model-09"]},
        {"lam": 0.5, "methods": ("soft",)},
    ],
)
def test_fast_route_matches_the_reference_in_every_mode(battles: jb.Battles, options: dict) -> None:
    kwargs = {"n_boot": 5, "seed": 1, "progress": False, **options}
    assert_same_table(
        held_out_elo(battles, **kwargs).table, held_out_elo_reference(battles, **kwargs).table
    )


def test_plain_mle_keeps_the_reference_route(battles: jb.Battles) -> None:
    kwargs = {"lam": 0.0, "n_boot": 0, "models": ["model-01", "model-05"], "progress": False}
    pd.testing.assert_frame_equal(
        held_out_elo(battles, **kwargs).table, held_out_elo_reference(battles, **kwargs).table
    )


def test_one_bootstrap_replicate_is_refused(battles: jb.Battles) -> None:
    with pytest.raises(ValueError, match="at least 2"):
        held_out_elo(battles, n_boot=1, progress=False)


def test_newton_map_is_the_scipy_optimum() -> None:
    stats = jb.simulate_bt(20, 4000, tie_nu=0.5, seed=3).battles.pair_stats("human_label")
    ref, _ = solve_map(stats, 0.01, {})
    theta, n_iter = newton_map(stats, 0.01, np.arange(20), stats.n, stats.y, np.zeros(20))
    np.testing.assert_allclose(theta, ref, atol=1e-7)
    assert n_iter < 15
    # anchors held: only the free models move
    fixed = np.full(20, 0.3)
    held, _ = newton_map(stats, 0.01, np.arange(5), stats.n, stats.y, fixed)
    np.testing.assert_array_equal(held[5:], 0.3)
    ref_held, _ = solve_map(stats, 0.01, {k: 0.3 for k in range(5, 20)})
    np.testing.assert_allclose(held, ref_held, atol=1e-7)
    with pytest.raises(ValueError, match="lam > 0"):
        newton_map(stats, 0.0, np.arange(20), stats.n, stats.y, np.zeros(20))


def test_solve_one_finds_the_root_even_from_far_and_near_separation() -> None:
    rng = np.random.default_rng(2)
    opponents = rng.normal(0, 1, 12)
    n = rng.integers(1, 40, (12, 7)).astype(float)
    wins = rng.random((12, 7)) * n
    wins[:, 0] = n[:, 0]  # wins every battle: only the penalty holds θ
    wins[:, 1] = 0.0
    theta, _ = solve_one(opponents, n, wins, 0.01, theta0=np.full(7, 50.0))

    def grad(t: float, r: int) -> float:
        return float(np.sum(wins[:, r] - n[:, r] * expit(t - opponents)) - 0.02 * t)

    for r in range(7):
        assert theta[r] == pytest.approx(brentq(grad, -1e4, 1e4, args=(r,), xtol=1e-14), abs=1e-9)
    single, _ = solve_one(opponents, n[:, 2], wins[:, 2], 0.01)
    assert np.ndim(single) == 0 and single == pytest.approx(theta[2], abs=1e-12)
    empty, _ = solve_one(np.zeros(0), np.zeros((0, 3)), np.zeros((0, 3)), 0.01)
    np.testing.assert_array_equal(empty, 0.0)


def test_within_model_replicates_are_those_of_bootstrap_bt() -> None:
    b = jb.simulate_bt(8, 1500, tie_nu=0.5, seed=5).battles
    stats = b.pair_stats("human_label")
    k = 2
    anchors = jb.fit_bt(stats).theta
    fixed = {stats.models[j]: float(theta_to_elo(anchors[j])) for j in range(8) if j != k}
    boot = jb.bootstrap_bt(
        stats, within=stats.models[k], fixed=fixed, n_boot=70, seed=9, progress=False
    )
    mask = stats.involving(k)
    n, y = CellResampler(stats, mask, n_boot=70, seed=9).all_pair_sums()
    own = np.flatnonzero((stats.i == k) | (stats.j == k))
    k_is_i = (stats.i[own] == k)[:, None]
    opponents = np.where(stats.i[own] == k, stats.j[own], stats.i[own])
    theta, _ = solve_one(
        anchors[opponents], n[own], np.where(k_is_i, y[own], n[own] - y[own]), 0.01
    )
    np.testing.assert_allclose(theta_to_elo(theta), boot.replicates[:, k], atol=1e-4)


def test_poisson_tables_draw_the_same_whatever_is_cached() -> None:
    lam = np.array([1.0, 3.0, 3.0, 17.0, 250.0, 999.0, 4.0, 1500.5])
    bootstrap._POISSON_ROWS.clear()
    cold = _PoissonCounts(lam).draw(np.random.default_rng(1), 400)
    _PoissonCounts(np.array([2.0, 5.0, 700.0]))  # other rows, built at other widths
    warm = _PoissonCounts(lam).draw(np.random.default_rng(1), 400)
    np.testing.assert_array_equal(cold, warm)
    assert np.all(cold >= 0) and abs(cold[4].mean() - 250) < 5


def test_beta_on_grouped_scores_is_beta_on_battles() -> None:
    rng = np.random.default_rng(3)
    s = rng.integers(-12, 13, 5000) / 6.0
    y = (rng.random(5000) < expit(0.6 * s)).astype(float)
    values, n, wins = score_counts(s, y)
    assert len(values) == len(np.unique(s)) and n.sum() == 5000 and wins.sum() == y.sum()
    assert beta_mle_counts(values, n, wins) == pytest.approx(beta_mle(s, y), abs=1e-7)
