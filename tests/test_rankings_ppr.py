"""Prediction-Powered Ranking (Chatzi et al. 2024) written here equals its authors' code.

The reference is the code itself (``../shared/peers/prediction-powered-ranking``, run
unchanged): one draw of its protocol (its ``config.json`` models, its balancing and its
split into D_n and D_N) is computed by its functions and by ours on the same battles.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from conftest import SHARED_DATA
from judgebayes import DataError
from judgebayes.rankings import (
    RankingData,
    ellipsoid_rank_sets,
    human_win_rates,
    judge_win_rates,
    ppr_lambda,
    ppr_win_rates,
    prediction_powered_ranking,
)

PEER = SHARED_DATA.parent / "peers" / "prediction-powered-ranking"
PPR_DATA = SHARED_DATA / "ppr"
JUDGE_FILES = {
    "gpt-4-0125-preview": "gpt-4-0125-preview.json",
    "claude-3-opus": "claude-3-opus-20240229.json",
    "gpt-3.5-turbo": "gpt-3.5-turbo.json",
}
LABEL = {"model_a": 1.0, "model_b": 0.0}  # anything else ("tie", "tie (bothbad)"): ½


@pytest.fixture(scope="module")
def peer():
    """PPR's modules, imported as its README says (its folder on sys.path)."""
    sys.path.insert(0, str(PEER))
    try:
        from src import data_process, estimate, ranksets
    finally:
        sys.path.remove(str(PEER))
    return data_process, estimate, ranksets


@pytest.fixture(scope="module")
def files(peer):
    data_process = peer[0]
    human = data_process.input_json(str(PPR_DATA / "human.json"))
    judges = {j: data_process.input_json(str(PPR_DATA / f)) for j, f in JUDGE_FILES.items()}
    models = json.loads((PEER / "scripts" / "config.json").read_text())["models"]
    return human, judges, models


def _label(record: dict) -> float:
    return LABEL.get(record["winner"], 0.5)


def _draw(peer, files, judge: str, seed: int, n: int):
    """One draw of PPR's protocol (``run_experiment``'s steps), by its functions."""
    data_process = peer[0]
    human, judges, models = files
    h_common, j_common = data_process.get_common_instances(seed, human, judges[judge], models)
    h_common = data_process.filter_data(seed, h_common, models)
    j_common = data_process.filter_data(seed, j_common, models)
    small_h = data_process.filter_data(seed, h_common, models, n=n)
    small_j = data_process.filter_data(seed, j_common, models, n=n)
    big_j = data_process.get_big_dataset_llm(j_common, small_j)
    dn = data_process.summarize_dataset(models, small_j, small_h)
    dN = data_process.summarize_dataset(models, big_j)
    ours = RankingData.from_arrays(
        [r["model_a"] for r in small_j + big_j],
        [r["model_b"] for r in small_j + big_j],
        [_label(r) for r in small_h] + [np.nan] * len(big_j),
        {judge: [_label(r) for r in small_j + big_j]},
        models=models,
    )
    return dn, dN, ours


@pytest.mark.parametrize("judge", list(JUDGE_FILES))
def test_ppr_equals_its_code_on_a_draw(peer, files, judge) -> None:
    _, estimate, ranksets = peer
    k = len(files[2])
    dn, dN, data = _draw(peer, files, judge, seed=8_190_512, n=500)
    assert data.labelled.sum() == 462 and data.n_battles <= 6336  # 7·66 labelled, ≤ 96·66 in all

    lam_ref = estimate.lhat_opt(k, dn, dN)
    assert ppr_lambda(data, judge) == pytest.approx(lam_ref, rel=1e-12, abs=1e-15)
    theta_ref, sigma_ref = estimate.estimate(k, dn, dN, lhat=lam_ref)
    ours = ppr_win_rates(data, judge)
    np.testing.assert_allclose(ours.estimate, theta_ref.ravel(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours.cov, sigma_ref, rtol=1e-10, atol=1e-18)
    for alpha in (0.05, 0.1, 0.2):
        ref = np.array(ranksets.find_ranksets(k, theta_ref, sigma_ref, alpha))
        lo, hi = ellipsoid_rank_sets(ours.estimate, ours.cov, alpha)
        np.testing.assert_array_equal(lo, ref[:, 0])
        np.testing.assert_array_equal(hi, ref[:, 1])

    # human only (its sample_avg on D_n's human labels) and the judge alone
    theta_h, sigma_h = estimate.sample_avg(k, dn, "human")
    human = human_win_rates(data)
    np.testing.assert_allclose(human.estimate, theta_h.ravel(), rtol=1e-12)
    np.testing.assert_allclose(human.cov, sigma_h, rtol=1e-10, atol=1e-18)
    theta_j, sigma_j = estimate.sample_avg(k, dN)
    alone = judge_win_rates(data.subset(~data.labelled), judge)
    np.testing.assert_allclose(alone.estimate, theta_j.ravel(), rtol=1e-12)
    np.testing.assert_allclose(alone.cov, sigma_j, rtol=1e-10, atol=1e-18)

    # a fixed λ, as its estimate(lhat=...) takes it
    theta_1, sigma_1 = estimate.estimate(k, dn, dN, lhat=1.0)
    plain = ppr_win_rates(data, judge, lam=1.0)
    np.testing.assert_allclose(plain.estimate, theta_1.ravel(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(plain.cov, sigma_1, rtol=1e-10, atol=1e-18)

    board = prediction_powered_ranking(data, judge, alpha=0.1)
    ref = np.array(ranksets.find_ranksets(k, theta_ref, sigma_ref, 0.1))
    np.testing.assert_array_equal(np.column_stack([board.rank_lo, board.rank_hi]), ref)
    assert board.rank_sets.method == "ellipsoid" and board.tier.min() == 1
    assert board.details["lambda"] == pytest.approx(lam_ref, rel=1e-12, abs=1e-15)


def test_ppr_covariance_scale_is_two_over_k_squared_of_the_sampling_variance() -> None:
    """The module docstring's claim about PPR's Σ̂ (it divides by n, not by n_m).

    Balanced design, k = 6 models, 20 battles per pair (n = 300, n_m = 100), win rates
    fixed by a BT model; 400 simulated data sets. The sampling SD of θ̂_m is estimated by
    the SD over data sets; (k/2)·√Σ̂_mm must match it. With 400 replications the SD's
    relative MC error is ≈ 1/√(2·399) = 3.5%; averaged over 6 models (correlated) we
    allow 10% (≈ 3 MC SEs of one model's SD).
    """
    rng = np.random.default_rng(7)
    k, per_pair, reps = 6, 20, 400
    theta = np.linspace(-1, 1, k)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    a = np.repeat([p[0] for p in pairs], per_pair)
    b = np.repeat([p[1] for p in pairs], per_pair)
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    names = [f"m{i}" for i in range(k)]
    est, scaled = [], []
    for _ in range(reps):
        y = (rng.random(len(a)) < p).astype(float)
        rates = human_win_rates(RankingData.from_arrays(np.take(names, a), np.take(names, b), y))
        est.append(rates.estimate)
        scaled.append(rates.se * k / 2)
    ratio = np.mean(scaled, axis=0) / np.std(est, axis=0, ddof=1)
    assert np.all(np.abs(ratio - 1) < 0.1), ratio


def test_ppr_input_errors() -> None:
    data = RankingData.from_arrays(
        ["a", "b", "c", "a"], ["b", "c", "a", "c"], [1, np.nan, np.nan, np.nan], {"j": [1, 0, 1, 1]}
    )
    with pytest.raises(DataError, match="no battle in the human-labelled battles"):
        ppr_win_rates(data, "j")
    with pytest.raises(DataError, match="unknown judge"):
        ppr_win_rates(data, "k")
    with pytest.raises(DataError, match="not a battle outcome"):
        RankingData.from_arrays(["a"], ["b"], [0.3])
    with pytest.raises(DataError, match="battles itself"):
        RankingData.from_arrays(["a"], ["a"], [1])
    with pytest.raises(ValueError, match="alpha"):
        ellipsoid_rank_sets(np.zeros(3), np.eye(3), 1.5)


def test_ppr_code_rank_sets_undercover_the_true_ranking(peer) -> None:
    """PPR's own code (``src/estimate.py``'s ``sample_avg``, ``src/ranksets.py``'s
    ``find_ranksets``, unchanged) on simulated human labels with known win rates.

    ``sample_avg`` averages model m's wins over the n_m battles m took part in (its lines
    39–43) but divides the covariance by the square of all n battles (line 50:
    ``Sigma = A Aᵀ / n²``); the sampling covariance of those averages is Σ_i r_im r_im' /
    (n_m n_m'). With k = 12 models, n_m ≈ 2n/k = n/6, so its Σ̂ is ≈ 1/36 of it.

    Design, the paper's sampling model: 12 models with BT strengths evenly spaced on
    [−1.5, 1.5]; n = 660 battles, each a pair drawn uniformly from the 66 (order random),
    no ties; the true win rate of m is its mean win probability over its 11 opponents.
    400 simulated data sets: (1) √Σ̂_mm·n/n_m from PPR's code matches the Monte Carlo SD of
    θ̂_m (relative MC error of an SD from 400 draws ≈ 1/√798 = 3.5%; 12% allowed for each
    model) and n/n_m averages k/2 = 6; (2) its rank-sets at α = 0.1 hold every model's true
    rank in far fewer than 90% of the data sets — with 400 draws a 90% coverage has MC SE
    √(0.9·0.1/400) = 0.015, so a coverage below 0.9 − 4·0.015 = 0.84 is a real shortfall —
    while the same rank-set code given the covariance divided by n_m n_m' covers at ≥ 0.84.
    """
    _, estimate, ranksets = peer
    rng = np.random.default_rng(11)
    k, n, reps, alpha = 12, 660, 400, 0.1
    strength = np.linspace(-1.5, 1.5, k)
    pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)])
    win = 1 / (1 + np.exp(-(strength[:, None] - strength[None, :])))
    true_rate = (win.sum(axis=1) - 0.5) / (k - 1)
    true_rank = k - np.argsort(np.argsort(true_rate))  # 1 = best
    est, sd_fixed, scale, covered, covered_fixed = [], [], [], 0, 0
    for _ in range(reps):
        pick = pairs[rng.integers(len(pairs), size=n)]
        swap = rng.random(n) < 0.5
        a, b = np.where(swap, pick[:, 1], pick[:, 0]), np.where(swap, pick[:, 0], pick[:, 1])
        y = (rng.random(n) < win[a, b]).astype(float)[:, None]
        m1 = np.zeros((k, n))
        m1[a, np.arange(n)] = 1.0
        m2 = np.zeros((k, n))
        m2[b, np.arange(n)] = 1.0
        n_m = (m1 + m2).sum(axis=1)
        dn = {"model_a_matrix": m1, "model_b_matrix": m2}
        dn |= {"winner1_human": y, "winner2_human": 1.0 - y}
        dn |= {"winner1_predicted": y, "winner2_predicted": 1.0 - y}  # read, then unused
        theta, sigma = estimate.sample_avg(k, dn, "human")
        theta = theta[:, 0]
        fixed = sigma * n**2 / np.outer(n_m, n_m)
        est.append(theta)
        sd_fixed.append(np.sqrt(np.diag(fixed)))
        scale.append(n / n_m)
        for cov, name in ((sigma, "code"), (fixed, "fixed")):
            sets = np.array(ranksets.find_ranksets(k, theta, cov, alpha))
            hit = bool(np.all((sets[:, 0] <= true_rank) & (true_rank <= sets[:, 1])))
            if name == "code":
                covered += hit
            else:
                covered_fixed += hit
    ratio = np.mean(sd_fixed, axis=0) / np.std(est, axis=0, ddof=1)
    print(
        f"PPR code: MC SD / its √Σ̂ {np.mean(scale):.2f}; corrected SD / MC SD "
        f"{ratio.min():.3f}–{ratio.max():.3f}; coverage of the true ranking "
        f"{covered / reps:.3f}, corrected {covered_fixed / reps:.3f}"
    )
    assert np.all(np.abs(ratio - 1) < 0.12), ratio
    assert np.mean(scale) == pytest.approx(k / 2, rel=0.02)
    assert covered / reps < 0.84, covered / reps
    assert covered_fixed / reps >= 0.84, covered_fixed / reps
