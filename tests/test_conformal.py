"""Split conformal (seed 000, Section 3.3, Eqs. 2–4): quantile rank, infinite case, coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgebayes.conformal import (
    conformal_quantile,
    conformal_rank,
    evaluate_split_conformal,
    loo_conformal,
    nonconformity_scores,
    split_conformal,
)
from judgebayes.errors import DataError


def test_rank_is_ceil_of_one_minus_alpha_times_n_plus_one() -> None:
    assert conformal_rank(19, 0.1) == 18  # ⌈0.9·20⌉
    assert conformal_rank(11, 0.1) == 11  # ⌈10.8⌉
    assert conformal_rank(4, 0.2) == 4  # (1−0.2)·5 = 4 exactly: no float round-up to 5
    assert conformal_rank(9, 0.1) == 9
    assert conformal_rank(8, 0.1) == 9  # > n: infinite


def test_quantile_is_the_kth_smallest_score_hand_case() -> None:
    scores = np.array([0.5, 3.0, 1.0, 2.0, 4.0, 0.1, 2.5, 1.5, 0.7, 3.5])  # n = 10
    # alpha = 0.2: k = ⌈0.8·11⌉ = 9 -> 9th smallest = 3.5
    assert conformal_quantile(scores, 0.2) == 3.5
    # alpha = 0.5: k = ⌈5.5⌉ = 6 -> sorted [0.1 .5 .7 1 1.5 2 ...] -> 2.0
    assert conformal_quantile(scores, 0.5) == 2.0


def test_too_small_calibration_set_is_infinite_or_an_error_never_clipped() -> None:
    scores = np.arange(1.0, 9.0)  # n = 8, alpha = 0.1 needs k = ⌈8.1⌉ = 9 > 8
    assert math.isinf(conformal_quantile(scores, 0.1))
    with pytest.raises(DataError, match="at least 9 calibration"):
        conformal_quantile(scores, 0.1, on_infinite="raise")
    iv = split_conformal([100.0, 200.0], calib_y=np.zeros(8), calib_estimate=scores, alpha=0.1)
    assert not iv.finite
    assert np.all(np.isneginf(iv.lower)) and np.all(np.isposinf(iv.upper))
    assert iv.covers(np.array([1e9, -1e9])).all()
    assert "too small" in str(iv)
    # one more calibration item makes it finite and equal to the largest score
    assert conformal_quantile(np.arange(1.0, 10.0), 0.1) == 9.0


def test_normalised_scores_and_interval_follow_eqs_2_to_4() -> None:
    y = np.array([1000.0, 1100.0, 1200.0, 1300.0])
    est = np.array([1010.0, 1080.0, 1230.0, 1300.0])
    se = np.array([5.0, 10.0, 15.0, 20.0])
    np.testing.assert_allclose(nonconformity_scores(y, est, se), [2.0, 2.0, 2.0, 0.0])
    np.testing.assert_allclose(nonconformity_scores(y, est), [10.0, 20.0, 30.0, 0.0])
    # alpha = 0.2, n = 4: k = 4 -> q̂ = 2; new item ŷ = 1500, SE = 7 -> [1486, 1514]
    iv = split_conformal([1500.0], calib_y=y, calib_estimate=est, se=[7.0], calib_se=se, alpha=0.2)
    assert iv.score == "normalized" and iv.q_hat[0] == 2.0
    np.testing.assert_allclose([iv.lower[0], iv.upper[0]], [1486.0, 1514.0])
    assert iv.to_frame().columns.tolist() == ["estimate", "lower", "upper", "width", "se", "q_hat"]


def test_bad_inputs_raise_data_errors() -> None:
    with pytest.raises(DataError, match="se must be positive"):
        nonconformity_scores([1.0, 2.0], [1.0, 2.0], [1.0, 0.0])
    with pytest.raises(DataError, match="missing or infinite"):
        nonconformity_scores([1.0, np.nan], [1.0, 2.0])
    with pytest.raises(DataError, match="both the new and the calibration"):
        split_conformal([1.0], calib_y=[1.0, 2.0], calib_estimate=[1.0, 2.0], se=[1.0])
    with pytest.raises(DataError, match="alpha"):
        conformal_rank(10, 1.5)


def test_split_coverage_on_exchangeable_data_is_within_the_guarantee() -> None:
    """Marginal coverage of split conformal lies in [1−α, k/(n+1)] (continuous scores).

    4000 independent data sets, each with n = 19 calibration and 25 test items,
    heavy-tailed heteroscedastic errors. The mean coverage has expectation
    k/(n+1) = 18/20 = 0.90 with α = 0.1; its Monte Carlo SE is
    sqrt(Var(conditional coverage) + p(1−p)/25)/sqrt(4000), with conditional
    coverage ~ Beta(18, 3) (variance 0.0039): SE ≈ 0.0012. Tolerance 0.006 = 5 SE.
    """
    rng = np.random.default_rng(2024)
    reps, n_cal, n_test, alpha = 4000, 19, 25, 0.1
    cover = np.empty(reps)
    for r in range(reps):
        se = rng.uniform(5, 40, n_cal + n_test)
        y = rng.normal(1200, 80, n_cal + n_test)
        est = y + se * rng.standard_t(4, n_cal + n_test)
        iv = split_conformal(
            est[n_cal:],
            calib_y=y[:n_cal],
            calib_estimate=est[:n_cal],
            se=se[n_cal:],
            calib_se=se[:n_cal],
            alpha=alpha,
        )
        cover[r] = iv.covers(y[n_cal:]).mean()
    assert abs(cover.mean() - 18 / 20) < 0.006


def test_normalised_scores_adapt_to_the_local_scale_absolute_ones_do_not() -> None:
    """With errors ∝ SE, |ε|/SE gives the same coverage for small- and large-SE items;
    |ε| over-covers small-SE items and under-covers large-SE ones (seed 000, Eq. 3)."""
    rng = np.random.default_rng(7)
    n = 20_000
    se = np.where(rng.random(n) < 0.5, 5.0, 50.0)
    y = rng.normal(size=n)
    est = y + se * rng.normal(size=n)
    cal, test = slice(0, n // 2), slice(n // 2, n)
    norm = split_conformal(est[test], y[cal], est[cal], se=se[test], calib_se=se[cal])
    absolute = split_conformal(est[test], y[cal], est[cal])
    big = se[test] == 50.0
    cov_norm = norm.covers(y[test])
    cov_abs = absolute.covers(y[test])
    # MC SE of each group's coverage ≈ sqrt(.09/5000) ≈ 0.004
    assert abs(cov_norm[big].mean() - 0.9) < 0.02 and abs(cov_norm[~big].mean() - 0.9) < 0.02
    assert cov_abs[~big].mean() > 0.99 and cov_abs[big].mean() < 0.85


def test_evaluate_split_conformal_reports_mean_coverage_and_median_width() -> None:
    rng = np.random.default_rng(3)
    n = 55
    y = rng.normal(1200, 100, n)
    se = rng.uniform(10, 30, n)
    est = y + se * rng.normal(size=n)
    ev = evaluate_split_conformal(y, est, se, alpha=0.1, n_calibration=27, n_splits=200, seed=1)
    assert ev.n_calibration == 27 and ev.n_test == 28 and ev.n_splits == 200
    # every split: coverage is the fraction of test scores <= that split's q̂
    assert np.all((ev.coverage_per_split >= 0) & (ev.coverage_per_split <= 1))
    assert ev.guaranteed == (0.9, 26 / 28)
    # 200 dependent splits of one data set: a loose check of the mean
    assert 0.8 < ev.coverage < 1.0
    # median width = median over test items of 2·q̂·SE
    q = ev.q_hat_per_split
    assert np.all(ev.median_width_per_split > 2 * q * se.min() - 1e-9)
    again = evaluate_split_conformal(y, est, se, alpha=0.1, n_calibration=27, n_splits=200, seed=1)
    np.testing.assert_array_equal(again.coverage_per_split, ev.coverage_per_split)
    assert "200 random calibration/test splits" in str(ev)
    tiny = evaluate_split_conformal(y, est, se, alpha=0.1, n_calibration=5, n_splits=3)
    assert np.isinf(tiny.median_width) and tiny.coverage == 1.0
    with pytest.raises(DataError, match="at least 9 calibration"):
        evaluate_split_conformal(y, est, se, alpha=0.1, n_calibration=5, on_infinite="raise")


def test_loo_conformal_matches_brute_force_and_covers() -> None:
    rng = np.random.default_rng(11)
    n = 40
    y = rng.normal(size=n)
    est = y + rng.normal(size=n)
    est[5] = est[6] = y[5] + 0.3  # tie scores on purpose
    y[6] = y[5]
    ev = loo_conformal(y, est, alpha=0.1)
    scores = np.abs(est - y)
    for i in range(n):
        q = conformal_quantile(np.delete(scores, i), 0.1)
        assert ev.q_hat_per_split[i] == q
    assert ev.intervals is not None and ev.intervals.n_calibration == n - 1
    # exchangeable scores: the fraction covered is k/n of the LOO ranks (deterministic)
    assert ev.coverage == np.mean(scores <= ev.q_hat_per_split)
    assert ev.coverage >= 0.9 - 1e-12
    with pytest.raises(DataError, match="too few"):
        loo_conformal(y[:5], est[:5], alpha=0.1, on_infinite="raise")
    assert np.isinf(loo_conformal(y[:5], est[:5], alpha=0.1).median_width)
