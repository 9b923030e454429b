"""Davidson ties in the MAP fit, the bootstrap, the sandwich, and the LOO that chooses."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.optimize import approx_fprime

import judgebayes as jb
from judgebayes.core.bootstrap import pair_incidence
from judgebayes.core.davidson import (
    davidson_objective,
    davidson_probabilities,
    solve_davidson,
    solve_davidson_columns,
    tie_counts,
)
from judgebayes.core.ties import loo_davidson, loo_half
from judgebayes.simulate import davidson_probs


def _expected_stats(theta: np.ndarray, nu: float, n: float = 1000.0) -> jb.PairStats:
    """Every pair with n battles split exactly into its expected wins, ties and losses."""
    m = len(theta)
    i, j = np.triu_indices(m, 1)
    win, tie, loss = davidson_probs(theta[i] - theta[j], nu)
    a = np.tile(i, 3)
    b = np.tile(j, 3)
    target = np.repeat([1.0, 0.5, 0.0], len(i))
    weights = n * np.concatenate([win, tie, loss])
    return jb.PairStats.from_battles(a, b, target, tuple(map(str, range(m))), weights=weights)


def test_davidson_mle_recovers_the_truth_from_expected_counts() -> None:
    """At the expected counts the score equations hold at the truth: the MLE is θ, ν."""
    theta = np.array([-0.9, -0.2, 0.1, 0.4, 0.6])
    stats = _expected_stats(theta - theta.mean(), nu=0.7)
    fit = jb.fit_bt(stats, lam=0.0, ties="davidson")
    np.testing.assert_allclose(fit.theta, theta - theta.mean(), atol=1e-7)
    assert fit.tie_nu == pytest.approx(0.7, rel=1e-7)
    half = jb.fit_bt(stats, lam=0.0)  # ties ½ shrinks the gaps
    assert np.ptp(half.theta) < 0.9 * np.ptp(fit.theta)


def test_davidson_gradient_and_hessian_match_finite_differences() -> None:
    sim = jb.simulate_bt(5, 600, tie_nu=0.6, seed=3)
    stats = sim.battles.pair_stats()
    ties = tie_counts(stats)
    x0 = np.r_[np.random.default_rng(0).normal(0, 0.5, 5), -0.3]

    def value(x: np.ndarray) -> float:
        return davidson_objective(x[:5], x[5], stats, ties, 0.05)[0]

    def grad(x: np.ndarray) -> np.ndarray:
        return davidson_objective(x[:5], x[5], stats, ties, 0.05)[1]

    _, g, h = davidson_objective(x0[:5], x0[5], stats, ties, 0.05)
    np.testing.assert_allclose(g, approx_fprime(x0, value, 1e-7), rtol=1e-5, atol=1e-4)
    numeric = np.array([approx_fprime(x0, lambda x, k=k: grad(x)[k], 1e-7) for k in range(6)])
    np.testing.assert_allclose(h, numeric, rtol=1e-5, atol=1e-4)


def test_no_ties_is_bradley_terry_and_soft_targets_are_refused() -> None:
    sim = jb.simulate_bt(6, 2000, seed=1)
    davidson = jb.fit_bt(sim.battles, ties="davidson")
    np.testing.assert_array_equal(davidson.theta, jb.fit_bt(sim.battles).theta)
    assert davidson.tie_nu == 0 and not davidson.davidson
    soft = np.random.default_rng(0).uniform(0, 1, len(sim.battles))
    with pytest.raises(jb.DataError, match="hard labels"):
        jb.fit_bt(sim.battles, target=soft, ties="davidson")


def test_batched_davidson_refits_equal_one_by_one_refits() -> None:
    sim = jb.simulate_bt(6, 3000, tie_nu=0.8, seed=2)
    stats = sim.battles.pair_stats()
    fit = jb.fit_bt(stats, ties="davidson")
    rng = np.random.default_rng(1)
    counts = rng.poisson(stats.cell_count, size=(4, len(stats.cell_count)))
    n, y = stats.pair_sums(counts)
    t = tie_counts(stats, counts)
    inc = pair_incidence(stats)
    theta, kappa, _ = solve_davidson_columns(
        stats, 0.01, fit.theta, fit.kappa, np.arange(6), n.T, y.T, t.T, inc=inc, tol=1e-10
    )
    for r in range(4):
        th, ka, _ = solve_davidson(stats, 0.01, {}, t[r], n[r], y[r])
        np.testing.assert_allclose(theta[r], th, atol=1e-7)
        assert kappa[r] == pytest.approx(ka, abs=1e-7)


def test_davidson_bootstrap_and_sandwich_agree_and_recover() -> None:
    """Bootstrap SEs (2,000 replicates: MC error ≈ 1.6%) agree with the sandwich's within
    10%, and the Davidson Elo lies within 4 SEs of the generating Elo for every model,
    where ties ½ shrinks the spread of the ratings."""
    sim = jb.simulate_bt(8, 12_000, tie_nu=1.0, elo_sd=120, seed=4)
    boot = jb.bootstrap_bt(sim.battles, ties="davidson", lam=0.0, n_boot=2000, progress=False)
    sand = jb.sandwich_bt(sim.battles, ties="davidson", lam=0.0)
    np.testing.assert_allclose(boot.se, sand.se, rtol=0.1)
    truth = sim.elo.reindex(boot.models).to_numpy()
    assert np.all(np.abs(boot.elo - truth) < 4 * boot.se)
    half = jb.fit_bt(sim.battles, lam=0.0)
    assert np.ptp(half.elo) < 0.85 * np.ptp(boot.elo)
    assert "Davidson (ν = " in str(boot)


def _exact_loo(stats: jb.PairStats, cell: int, ties: str, lam: float) -> float:
    """Log predictive density of one battle of ``cell`` by an exact refit without it."""
    counts = stats.cell_count.copy()
    counts[cell] -= 1
    n, y = stats.pair_sums(counts)
    fewer = replace(stats, n=n, y=y, cell_count=counts)
    fit = jb.fit_bt(fewer, lam=lam, ties=ties)
    d = fit.theta[stats.i[stats.cell_pair[cell]]] - fit.theta[stats.j[stats.cell_pair[cell]]]
    kappa = 0.0 if ties == "half" else fit.kappa
    a, b, c = davidson_probabilities(np.array([d]), kappa)
    t = stats.cell_target[cell]
    return float(np.log(a if t == 1 else b if t == 0 else c)[0])


def test_one_step_loo_equals_exact_refits() -> None:
    """The infinitesimal-jackknife LOO of a cell agrees with refitting without one of its
    battles: the one-step error is second order in the battle's influence, and is below
    2% of that influence (the change of the battle's log density between the full fit and
    the exact refit; 0.5% measured) for every cell checked."""
    sim = jb.simulate_bt(5, 2000, tie_nu=0.6, seed=6)
    stats = sim.battles.pair_stats()
    t = stats.cell_target
    for ties, loo in (
        ("half", loo_half(stats, 0.01)),
        ("davidson", loo_davidson(stats, 0.01)[0]),
    ):
        fit = jb.fit_bt(stats, lam=0.01, ties=ties)
        d = (fit.theta[stats.i] - fit.theta[stats.j])[stats.cell_pair]
        a, b, c = davidson_probabilities(d, 0.0 if ties == "half" else fit.kappa)
        full = np.log(np.where(t == 1, a, np.where(t == 0, b, c)))
        for cell in range(0, len(stats.cell_pair), 3):
            exact = _exact_loo(stats, cell, ties, 0.01)
            assert abs(loo[cell] - exact) < 0.02 * abs(exact - full[cell]), (ties, cell)


def test_loo_prefers_davidson_on_davidson_data() -> None:
    sim = jb.simulate_bt(8, 6000, tie_nu=0.5, elo_sd=150, seed=8)
    result = jb.compare_ties(sim.battles)
    assert result.preferred == "davidson" and result.decisive
    assert result.tie_nu == pytest.approx(0.5, rel=0.15)
    assert "LOO prefers davidson" in repr(result)
    clustered = jb.compare_ties(jb.simulate_prompts(6, 500, tie_nu=0.5, seed=1).battles)
    assert clustered.cluster == "prompt_id"
    with pytest.raises(jb.DataError, match="no battle is a tie"):
        jb.compare_ties(jb.simulate_bt(5, 500, seed=1).battles)
