"""Rank-sets: simultaneous rank intervals from draws, tiers, coverage of the true ranking."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import judgebayes as jb
from conftest import SHARED_DATA
from judgebayes.core.ranksets import point_ranks, rank_sets, tiers

PPR = SHARED_DATA.parent / "peers" / "prediction-powered-ranking"


def test_two_models_critical_value_is_the_normal_quantile() -> None:
    """With two models the max-|t| statistic is one |t|: c = z_{1−α/2}. 40,000 normal
    draws estimate the 0.95 quantile of |Z| with an SE of about 0.012; 0.04 is > 3 SEs."""
    noise = np.random.default_rng(0).normal([0.0, 0.0], [1.0, 2.0], size=(40_000, 2))
    sets = rank_sets(noise + np.array([0.0, 4.0]), estimate=np.array([0.0, 4.0]), alpha=0.05)
    assert sets.critical_value == pytest.approx(stats.norm.ppf(0.975), abs=0.04)
    # gap 4 / se √5 = 1.79 < 1.96: not told apart; gap 5 / √5 = 2.24 > 1.96: told apart
    assert list(sets.rank_lo) == [1, 1] and list(sets.rank_hi) == [2, 2]
    apart = rank_sets(noise + np.array([0.0, 5.0]), estimate=np.array([0.0, 5.0]), alpha=0.05)
    assert list(apart.rank_lo) == [2, 1] and list(apart.rank_hi) == [2, 1]
    assert list(apart.tier) == [2, 1]


def test_tiers_are_chains_of_overlapping_intervals() -> None:
    lo = np.array([1, 1, 2, 5, 5, 7])
    hi = np.array([2, 3, 4, 6, 7, 8])
    assert list(tiers(lo, hi)) == [1, 1, 1, 2, 2, 2]
    assert list(tiers(np.array([3, 1, 2]), np.array([3, 1, 2]))) == [3, 1, 2]


def test_point_ranks_and_containment() -> None:
    assert list(point_ranks(np.array([3.0, 1.0, 3.0, 2.0]))) == [1, 4, 1, 3]
    draws = np.random.default_rng(1).normal(size=(500, 3)) + np.array([0.0, 10.0, 20.0])
    sets = rank_sets(draws, models=["a", "b", "c"])
    assert sets.covers(pd.Series({"a": 0.0, "b": 10.0, "c": 20.0}))
    assert not sets.covers(pd.Series({"a": 30.0, "b": 10.0, "c": 20.0}))
    assert list(sets.to_frame()["model"]) == ["c", "b", "a"]


@pytest.mark.skipif(not PPR.exists(), reason="PPR's code is not beside the repository")
def test_rank_sets_lie_inside_prediction_powered_rankings_own() -> None:
    """PPR's find_ranksets (its code, run as written) uses √χ²_k(1 − α) where the max-|t|
    construction uses its own, smaller, critical value on the same covariance: every one of
    our rank-sets lies inside PPR's, and is strictly narrower for some model."""
    sys.path.insert(0, str(PPR))
    try:
        from src.ranksets import find_ranksets
    finally:
        sys.path.remove(str(PPR))
    rng = np.random.default_rng(3)
    mean = np.linspace(0.0, 1.5, 12)
    draws = rng.multivariate_normal(mean, 0.04 * np.eye(12) + 0.01, size=4000)
    ours = rank_sets(draws, estimate=mean, alpha=0.1)
    theirs = np.array(find_ranksets(12, mean, np.cov(draws, rowvar=False), 0.1))
    assert np.all(ours.rank_lo >= theirs[:, 0]) and np.all(ours.rank_hi <= theirs[:, 1])
    assert ours.size.sum() < (theirs[:, 1] - theirs[:, 0] + 1).sum()


def test_joint_posterior_rank_sets_hold_their_draws() -> None:
    """By construction at least 1 − α of the draws have every rank inside the sets, and a
    larger α gives sets no wider."""
    draws = np.random.default_rng(2).normal(np.linspace(0, 2, 8), 0.4, size=(4000, 8))
    wide = rank_sets(draws, alpha=0.05, method="joint")
    narrow = rank_sets(draws, alpha=0.3, method="joint")
    ranks = point_ranks(draws)
    inside = np.all((ranks >= wide.rank_lo) & (ranks <= wide.rank_hi), axis=1)
    assert inside.mean() >= 0.95
    assert np.all(narrow.size <= wide.size) and narrow.size.sum() < wide.size.sum()


def test_bad_draws_raise() -> None:
    with pytest.raises(ValueError, match="shape"):
        rank_sets(np.zeros(5))
    with pytest.raises(ValueError, match="method"):
        rank_sets(np.zeros((5, 2)), method="chi2")  # type: ignore[arg-type]


def test_board_has_rank_columns_and_plots_them() -> None:
    import matplotlib

    matplotlib.use("Agg")
    board = jb.bootstrap_bt(jb.simulate_bt(8, 3000, seed=1).battles, n_boot=200, progress=False)
    frame = board.to_frame()
    assert list(frame.columns)[-3:] == ["rank_lo", "rank_hi", "tier"]
    assert (frame["rank_lo"] <= np.arange(1, 9)).all() and (
        frame["rank_hi"] >= np.arange(1, 9)
    ).all()
    assert frame["tier"].is_monotonic_increasing
    ax = board.plot()
    texts = [t.get_text() for t in ax.texts]
    assert "ranks" in texts and len(texts) == 9


@pytest.mark.slow
@pytest.mark.parametrize("clustered", [False, True])
def test_rank_sets_cover_the_true_ranking(clustered: bool) -> None:
    """Simultaneous 90% rank-sets from the bootstrap hold the whole true ranking in at
    least 90% of 200 simulated arenas (8 models). Each arena is one Bernoulli trial of the
    event "every model's true rank is inside": the Monte Carlo SE of the rate at 0.90 is
    √(0.9·0.1/200) = 0.021, so the one-sided tolerance 0.064 is three SEs. The max-|t|
    construction is conservative (coverage of the ranking ≥ coverage of the differences),
    so the rate is checked from below only; the sets must also be informative (mean size
    below half the models). Clustered: prompts judged six times with prompt effects,
    resampled by prompt."""
    covered, size = [], []
    for rep in range(200):
        if clustered:
            sim = jb.simulate_prompts(8, 1000, prompt_sd=1.0, elo_sd=150, seed=20_000 + rep)
        else:
            sim = jb.simulate_bt(8, 2500, elo_sd=150, tie_nu=0.3, seed=20_000 + rep)
        board = jb.bootstrap_bt(
            sim.battles, lam=0.0, n_boot=200, alpha=0.1, seed=rep, progress=False
        )
        covered.append(board.rank_sets.covers(sim.elo))  # ties do not change the order
        size.append(board.rank_sets.size.mean())
    assert np.mean(covered) >= 0.90 - 0.064, np.mean(covered)
    assert np.mean(size) < 4, np.mean(size)
