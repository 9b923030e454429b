"""Soft-Elo conformal intervals with few models: split vs jackknife+ (seed 000, Section 5.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.conformal import loo_conformal
from judgebayes.softelo import conformal_comparison, held_out_elo, run_softelo


@pytest.fixture(scope="module")
def few() -> jb.softelo.HeldOutElo:
    sim = jb.simulate_arena(14, 2500, seed=9)
    return held_out_elo(sim.battles, n_boot=10, progress=False)


def test_split_is_unbounded_with_14_models_and_says_why(few: jb.softelo.HeldOutElo) -> None:
    comp = conformal_comparison(few, alpha=0.1, n_splits=3, seed=0)
    assert comp.conformal == "split"
    assert np.isinf(comp.table["median_width"]).all()
    assert (comp.table["coverage"] == 1.0).all()  # trivially: an unbounded interval covers
    # 7 calibration models; 90% needs the ⌈0.9·8⌉ = 8-th smallest score.
    assert comp.note is not None and "8-th smallest" in comp.note and "there were 7" in comp.note
    text = str(comp)
    assert "note:" in text and "unbounded" in text and "jackknife+" in text
    assert "UNBOUNDED" in repr(comp) and "\n" not in repr(comp)
    assert set(comp.to_frame()["conformal"]) == {"split"}


def test_jackknife_plus_is_finite_with_14_models(few: jb.softelo.HeldOutElo) -> None:
    comp = conformal_comparison(few, alpha=0.1, method="jackknife+")
    t = comp.table.set_index("method")
    assert comp.conformal == "jackknife+" and set(t["conformal"]) == {"jackknife+"}
    assert np.isfinite(t["median_width"]).all() and comp.note is None
    assert t.loc["soft", "median_width"] < t.loc["hard", "median_width"]
    # It is loo_conformal on the held-out table, model by model.
    ref = loo_conformal(
        few.table["elo_human"], few.table["elo_soft"], few.table["se_soft"], alpha=0.1
    )
    assert t.loc["soft", "median_width"] == pytest.approx(np.median(ref.intervals.width))
    assert t.loc["soft", "coverage"] == pytest.approx(13 / 14)  # the rank identity k / n
    assert np.isnan(t.loc["soft", "width_min"])  # no splits, no range
    assert "jackknife+ over 14 models" in repr(comp) and "jackknife+" in str(comp)
    with pytest.raises(ValueError, match="method must be one of"):
        conformal_comparison(few, method="cv+")


def test_run_softelo_carries_the_conformal_method() -> None:
    sim = jb.simulate_arena(14, 2500, seed=9)
    result = run_softelo(sim.battles, n_boot=10, conformal="jackknife+", progress=False)
    summary = result.summary()
    assert set(summary["conformal"]) == {"jackknife+"}
    assert np.isfinite(summary["median_width"]).all()
    assert "jackknife+" in repr(result) and "jackknife+" in str(result)
    split = run_softelo(sim.battles, n_boot=10, n_splits=2, progress=False)
    assert "note:" in str(split) and "UNBOUNDED" in repr(split)


def test_loo_coverage_by_simulation_is_k_over_n() -> None:
    """Exchangeable normalised scores: ε_i = SE_i·z_i with known, unequal SE_i.

    q̂_{−i} is the ⌈(1−α)n⌉-th smallest of the other n − 1 scores, so item i is
    covered iff its rank among all n scores is ≤ k = ⌈(1−α)n⌉ = 13 (n = 14, α = 0.1):
    P(covered) = k / n = 13/14 for every item (marginal coverage ≥ 1 − α).

    * Per replication exactly k of the n items are covered (a rank identity, no
      Monte-Carlo error).
    * Item 0 over R = 4,000 independent replications is Bernoulli(13/14): the
      Monte-Carlo SE of its coverage is √(p(1 − p)/R) = √(13/14 · 1/14 / 4000) = 0.0041.
    """
    rng = np.random.default_rng(2024)
    n, reps, alpha = 14, 4000, 0.1
    k = math.ceil((1 - alpha) * n)
    p = k / n
    first = np.empty(reps)
    for r in range(reps):
        se = rng.uniform(5, 50, n)
        truth = rng.normal(0, 100, n)
        estimate = truth + se * rng.standard_normal(n)
        ev = loo_conformal(truth, estimate, se, alpha=alpha)
        assert ev.coverage_per_split.sum() == k
        first[r] = ev.coverage_per_split[0]
    mc_se = math.sqrt(p * (1 - p) / reps)
    assert mc_se == pytest.approx(0.0041, abs=1e-4)
    assert abs(first.mean() - p) < 3 * mc_se
    assert first.mean() >= 1 - alpha - 3 * mc_se


def test_width_decomposition_plot(few: jb.softelo.HeldOutElo) -> None:
    import matplotlib

    matplotlib.use("Agg")
    comp = conformal_comparison(few, alpha=0.1, method="jackknife+")
    ax = comp.plot(kind="widths")
    assert ax.get_xlabel().startswith("conformal quantile")
    assert len(ax.lines) >= 2
    with pytest.raises(ValueError, match="pass held"):
        comp.plot()
    assert comp.plot(few).get_xlabel().startswith("models")
