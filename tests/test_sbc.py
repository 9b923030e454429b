"""Simulation-based calibration of the NumPyro Bradley–Terry models and their NUTS fits.

Design. Five models, every one of the 10 pairs observed (the pair counts of a
400-battle ``simulate_bt`` draw, 29–51 battles per pair), prior σ = 1 (λ = 0.5,
an Elo spread of ~170; seed 000's λ = 0.01 would give σ ≈ 7, i.e. prior Elo gaps of
thousands and all-win pairs in most simulations, a test of the prior tails rather
than of the inference). 50 simulations, each refitted by one NUTS chain of 200
draws after 200 warm-up iterations, thinned by 2: 100 draws, ranks 0..100.

Tolerance. Each parameter's 50 ranks are tested twice (Säilynoja et al. 2022 and
Talts et al. 2018): their ECDF at 50 rank values against a simultaneous band, and a
chi-square test on 10 bins (5 expected per bin); a parameter is flagged when either
rejects at α / (2k), family-wise α = 0.01 over the k checked parameters and the two
tests (Bonferroni; k = 5 or 6, so level 0.001 or 0.00083 per test). In 4,000
simulated uniform rank sets a parameter was flagged at 0.15 % (the χ² alone at
level 0.002 is liberal, 0.28 %), so a correct sampler fails this file's checks in
under 1 % of seeds. The power for gross errors, per parameter: a posterior half as
wide as it should be is flagged in 91 % of seeds, twice as wide in 70 % (the ECDF
band alone: 49 %; this is what the χ² adds), biased by half a posterior SD in 84 %;
at least one of five parameters essentially always for the first. Two negative
controls show that the check can fail: the real posterior draws shrunk to half
(or stretched to twice) their spread, and an end-to-end refit of a model that counts
every battle four times (posterior SD about halved).

Everything is seeded, so the outcome is deterministic; the whole file takes about 60 s
of CPU on 2 loaded cores, most of it tracing and compiling (one batched NUTS per model
and layout, which a later ``sbc`` call of the same layout reuses; the calibration
spec's alone is ~20 s).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
import pytest
from scipy import stats

import judgebayes as jb
from judgebayes.bayes.bt_models import (
    SoftBinomial,
    bt_data,
    bt_model,
    davidson_data,
    davidson_model,
)
from judgebayes.bayes.sbc import SBCResult, rank_statistics, sbc

N_SIMS = 50
# jax.monitoring's events of tracing a function to a jaxpr and of XLA compiling it
JAXPR_TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
SETTINGS = {
    "n_sims": N_SIMS,
    "draws": 200,
    "warmup": 200,
    "thin": 2,
    "n_bins": 10,
    "alpha": 0.01,
    "progress": False,
}


@pytest.fixture(scope="module")
def stats_5() -> jb.PairStats:
    stats = jb.simulate_bt(5, 400, tie_nu=0.5, seed=1).battles.pair_stats("human_label")
    assert stats.n_pairs == 10
    return stats


@pytest.fixture(scope="module")
def bt_template(stats_5: jb.PairStats) -> dict:
    return bt_data(stats_5, lam=0.5)


@pytest.fixture(scope="module")
def bt_sbc(bt_template: dict) -> SBCResult:
    # Its tests come first and together: pytest-xdist's work stealing moves the tail of a
    # worker's queue to the other worker, and a split among them computes this SBC
    # (about 10 s of CPU, mostly compiling) in both.
    return sbc(bt_model, bt_template, seed=0, **SETTINGS)


def test_bt_model_is_calibrated(bt_sbc: SBCResult) -> None:
    assert bt_sbc.parameters == tuple(f"theta[{k}]" for k in range(5))
    assert bt_sbc.ranks.shape == (N_SIMS, 5) and bt_sbc.n_post == 100
    assert bt_sbc.ranks.min() >= 0 and bt_sbc.ranks.max() <= 100
    assert int(bt_sbc.n_divergent.sum()) == 0
    assert bt_sbc.passed, str(bt_sbc)
    # The generating θ are zero-sum draws, as the prior says.
    np.testing.assert_allclose(bt_sbc.prior.sum(axis=1), 0.0, atol=1e-5)


def test_sbc_is_deterministic(bt_sbc: SBCResult, bt_template: dict) -> None:
    """Same seed, same simulations and fits; the first batch does not depend on n_sims."""
    again = sbc(bt_model, bt_template, seed=0, **{**SETTINGS, "n_sims": 10})
    np.testing.assert_array_equal(again.prior, bt_sbc.prior[:10])
    np.testing.assert_array_equal(again.ranks, bt_sbc.ranks[:10])


def test_a_second_call_of_the_same_layout_traces_and_compiles_nothing(
    bt_sbc: SBCResult, bt_template: dict
) -> None:
    """The vmapped NUTS and the model's sites are cached by shapes, not data: another design
    of the same shapes (battle counts doubled) reuses them, and its data are really used;
    the op-by-op simulations compile nothing new either."""
    events = []

    def listener(event: str, duration: float, **kwargs) -> None:
        if event in (JAXPR_TRACE_EVENT, BACKEND_COMPILE_EVENT):
            events.append((event, kwargs.get("fun_name")))

    doubled = {**bt_template, "n": 2 * bt_template["n"]}
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        again = sbc(bt_model, doubled, seed=0, **{**SETTINGS, "n_sims": 10})
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    assert events == []
    # The prior does not involve the counts; the posteriors, given twice the battles, do.
    np.testing.assert_array_equal(again.prior, bt_sbc.prior[:10])
    spread = again.posterior.std(axis=1).mean() / bt_sbc.posterior[:10].std(axis=1).mean()
    assert 0.6 < spread < 0.8  # 1/sqrt(2) as the likelihood dominates a sigma = 1 prior


def test_negative_control_misscaled_posterior(bt_sbc: SBCResult) -> None:
    """The real draws shrunk to half their spread (an overconfident posterior) are flagged."""
    centre = bt_sbc.posterior.mean(axis=1, keepdims=True)
    narrow = centre + 0.5 * (bt_sbc.posterior - centre)
    bad = SBCResult.from_draws(bt_sbc.parameters, bt_sbc.prior, narrow)
    assert not bad.passed
    assert len(bad.flagged) >= 3, str(bad)
    frame = bad.to_frame()
    assert np.all(frame["rank_sd"] > 1 / np.sqrt(12))  # ∪-shaped: too many extreme ranks
    # Twice the spread (an underconfident posterior): ∩-shaped ranks, also flagged.
    wide = SBCResult.from_draws(
        bt_sbc.parameters, bt_sbc.prior, centre + 2.0 * (bt_sbc.posterior - centre)
    )
    assert not wide.passed, str(wide)
    assert np.all(wide.to_frame()["rank_sd"] < 1 / np.sqrt(12))


def test_result_reports_and_plots(bt_sbc: SBCResult) -> None:
    frame = bt_sbc.to_frame()
    assert list(frame.columns) == [
        "parameter",
        "ecdf_pvalue",
        "chi2",
        "chi2_pvalue",
        "flagged",
        "rank_mean",
        "rank_sd",
    ]
    assert not frame["flagged"].any()
    assert "50 simulations" in str(bt_sbc) and "ranks look uniform" in str(bt_sbc)
    fig = bt_sbc.plot().flat[0].figure  # plot() returns the panels, as everywhere
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 5
    with pytest.raises(AttributeError):
        bt_sbc.alpha = 0.5  # type: ignore[misc]


def test_davidson_model_is_calibrated(stats_5: jb.PairStats) -> None:
    result = sbc(davidson_model, davidson_data(stats_5, lam=0.5), seed=1, **SETTINGS)
    assert result.parameters[-1] == "log_nu" and len(result.parameters) == 6
    assert int(result.n_divergent.sum()) == 0
    assert result.passed, str(result)


def overcounted_bt_model(
    i: jnp.ndarray,
    j: jnp.ndarray,
    n: jnp.ndarray,
    n_models: int,
    prior_sd: float = 1.0,
    y: jnp.ndarray | None = None,
) -> None:
    """A buggy fit: generates like ``bt_model`` but counts every observed battle 4 times."""
    theta = numpyro.sample("theta", dist.ZeroSumNormal(prior_sd, event_shape=(n_models,)))
    likelihood = SoftBinomial(n, theta[i] - theta[j])
    with numpyro.plate("pair", len(n)):
        numpyro.sample("y", likelihood, obs=y)
    if y is not None:
        numpyro.factor("overcount", 3.0 * likelihood.log_prob(y).sum())


def test_negative_control_overcounted_likelihood(bt_template: dict) -> None:
    """End to end: a model whose fit counts each battle four times fails SBC."""
    result = sbc(overcounted_bt_model, bt_template, seed=2, **SETTINGS)
    assert not result.passed, str(result)
    assert np.all(result.to_frame()["rank_sd"] > 1 / np.sqrt(12))


def test_statistics_layer_on_an_exact_posterior() -> None:
    """Normal–normal conjugacy: exact posterior draws pass; too narrow or biased ones fail."""
    rng = np.random.default_rng(0)
    n_sims, n_post = 200, 99
    mu = rng.normal(0.0, 1.0, (n_sims, 3))
    x = rng.normal(mu, 1.0)  # one observation per parameter; posterior N(x/2, 1/2)
    exact = x[:, None, :] / 2 + np.sqrt(0.5) * rng.normal(size=(n_sims, n_post, 3))
    good = SBCResult.from_draws(["a", "b", "c"], mu, exact)
    assert good.passed, str(good)
    biased = SBCResult.from_draws(["a", "b", "c"], mu, exact + 0.5)
    assert biased.flagged == ("a", "b", "c")
    assert np.all(biased.to_frame()["rank_mean"] < 0.4)
    # With n_post + 1 divisible by n_bins the statistic is scipy's chi-square test.
    counts = np.stack([np.bincount(good.ranks[:, k] // 10, minlength=10) for k in range(3)])
    expected = stats.chisquare(counts, axis=1)
    np.testing.assert_allclose(good.chi2, expected.statistic)
    np.testing.assert_allclose(good.chi2_pvalues, expected.pvalue)


def test_ecdf_test_is_exact_and_rejects_when_its_band_is_left() -> None:
    """The ECDF layer on given ranks: exact p-values, and the band exit is the test.

    150 parameters with uniform ranks (their p-values must be uniform: a check of the
    exact p-value independent of its code) and 150 with ranks pulled towards the
    bottom (p-values spread around the per-test level 0.8 / 600 ≈ 0.0013).
    """
    rng = np.random.default_rng(3)
    n_sims, n_post, k = 50, 99, 150
    uniform = rng.integers(0, n_post + 1, size=(n_sims, k))
    skewed = np.minimum(uniform, rng.integers(0, n_post + 1, size=(n_sims, k)) + 12)
    ranks = np.hstack([uniform, skewed])
    grid = np.broadcast_to(np.arange(n_post, dtype=float)[None, :, None], (n_sims, n_post, 2 * k))
    result = SBCResult.from_draws([f"u{i}" for i in range(2 * k)], ranks - 0.5, grid, alpha=0.8)
    np.testing.assert_array_equal(result.ranks, ranks)
    assert len(result.eval_ranks) == 49  # min(n_sims, n_post + 1) = 50 points, top one left out
    p_null = result.ecdf_pvalues[:k]
    for level in (0.1, 0.3, 0.5):
        assert abs(np.mean(p_null < level) - level) < 4 * np.sqrt(level * (1 - level) / k)
    # Leaving ArviZ's simultaneous band (optimised level) is p < threshold, up to that
    # optimisation's precision in the level.
    near = np.abs(result.ecdf_pvalues - result.threshold) < 2e-4
    assert 10 <= result.ecdf_outside.sum() <= 2 * k - 10
    np.testing.assert_array_equal(
        result.ecdf_outside[~near], (result.ecdf_pvalues < result.threshold)[~near]
    )
    assert set(result.flagged) >= {
        p for p, o in zip(result.parameters, result.ecdf_outside, strict=True) if o
    }


def test_rank_statistics_counts_draws_below() -> None:
    prior = np.array([[0.5, 10.0], [-1.0, 0.0]])
    post = np.array(
        [[[0.0, 1.0], [1.0, 2.0], [0.4, 20.0]], [[-2.0, -1.0], [0.0, 1.0], [-3.0, 2.0]]]
    )
    np.testing.assert_array_equal(rank_statistics(prior, post), [[2, 2], [2, 1]])
    with pytest.raises(ValueError, match="n_sims"):
        rank_statistics(prior, post[:, :, :1])


def test_bad_arguments_are_rejected(bt_template: dict) -> None:
    with pytest.raises(ValueError, match="unknown parameter"):
        sbc(bt_model, bt_template, params=["beta"], n_sims=2, progress=False)
    with pytest.raises(ValueError, match="observed sites"):
        sbc(bt_model, {k: v for k, v in bt_template.items() if k != "y"}, n_sims=2, progress=False)
    with pytest.raises(ValueError, match="n_bins"):
        SBCResult.from_draws(["a"], np.zeros((3, 1)), np.zeros((3, 4, 1)), n_bins=10)
    with pytest.raises(ValueError, match="n_eval"):
        SBCResult.from_draws(["a"], np.zeros((3, 1)), np.zeros((3, 4, 1)), n_bins=2, n_eval=1)


# ------------------------------------------------ models whose data are concrete arrays
def grouped_means_model(group: np.ndarray, y: np.ndarray | None = None) -> None:
    """y ~ Normal(μ_group, 1), μ ~ Normal(0, 1): the number of groups is read from the
    *concrete* design array with NumPy, so the model cannot take ``group`` as a tracer."""
    n_groups = int(np.max(np.asarray(group))) + 1
    mu = numpyro.sample("mu", dist.Normal(0.0, 1.0).expand([n_groups]).to_event(1))
    with numpyro.plate("obs", len(group)):
        numpyro.sample("y", dist.Normal(mu[group], 1.0), obs=y)


def _tracks_the_truth(result: SBCResult, columns: slice = slice(None)) -> np.ndarray:
    """Correlation of each parameter's generating value with its posterior mean.

    Were the refits run on the template's data instead of each simulated data set, the
    posterior means would not move with the generating values (correlation ≈ 0)."""
    prior, mean = result.prior[:, columns], result.posterior.mean(axis=1)[:, columns]
    return np.array([np.corrcoef(prior[:, k], mean[:, k])[0, 1] for k in range(prior.shape[1])])


def test_sbc_binds_design_arrays_the_model_needs_concrete() -> None:
    """Before the fix, such a model failed (the observed site was bound twice).

    Conjugate: with 4 observations per group the posterior of μ_g is Normal(4ȳ/5, 1/5),
    so the generating μ explains 80 % of the posterior mean's variance (correlation
    √0.8 ≈ 0.89; > 0.75 with 40 simulations); the observed template is a *list*."""
    data = {"group": np.repeat(np.arange(3), 4), "y": [0.0] * 12}
    result = sbc(grouped_means_model, data, seed=0, **{**SETTINGS, "n_sims": 40})
    assert result.parameters == ("mu[0]", "mu[1]", "mu[2]")
    assert result.ranks.min() >= 0 and result.ranks.max() <= result.n_post == 100
    assert np.all(_tracks_the_truth(result) > 0.75)
    assert result.passed, str(result)


def test_sbc_of_a_calibration_spec_with_concrete_data() -> None:
    """``sbc(jb.models.calibration(...))``: a ModelSpec whose data are NumPy arrays.

    The shared design on 2 models × (20 calibration + 40 test items), one judge run each:
    every simulation replaces both observed arrays (human labels, judge verdicts) by
    simulated ones, which the posterior means follow (θ_m: correlation > 0.8 over 30
    simulations; on the template's data alone they could not), and the ranks (100 draws
    per refit, unthinned: 4 well-identified parameters mix fast) pass the uniformity tests
    at family-wise α = 0.01 (Bonferroni over 4 parameters × 2 tests)."""
    items = jb.calibration.simulate_items(
        [0.7, 0.5], 0.8, 0.85, n_cal=20, n_test=40, runs=1, seed=3
    ).items
    spec = jb.models.calibration(items, "shared")
    assert isinstance(spec.data["judge_label"], np.ndarray)
    result = sbc(
        spec,
        seed=4,
        **{**SETTINGS, "n_sims": 30, "draws": 100, "warmup": 150, "thin": 1, "batch_size": 15},
    )
    assert result.parameters == ("theta[0]", "theta[1]", "a[0]", "log_dor[0]")
    assert result.ranks.min() >= 0 and result.ranks.max() <= result.n_post
    assert np.all(_tracks_the_truth(result, slice(0, 2)) > 0.8)
    assert result.passed, str(result)
