"""Prediction-powered Bradley–Terry (PPI++ for the BT M-estimator).

* equal to ppi_py's PPI++ logistic regression (Angelopoulos et al. 2023, the authors'
  package) where BT is a logistic regression: hard labels, features e_a − e_b without the
  last model; same point estimate, same standard errors, same λ̂ formula;
* unbiased for the human BT estimand θ* and covering on the simulator, with a judge whose
  errors depend on the model (where the judge alone is biased);
* with two judges, the useless one gets λ ≈ 0 and the tuned λ does not lose to a grid.
"""

from __future__ import annotations

import numpy as np
import pytest
from ppi_py import ppi_logistic_ci, ppi_logistic_pointestimate
from ppi_py.ppi import _calc_lam_glm
from scipy.stats import norm

from judgebayes import DataError
from judgebayes.core.bt import ELO_SCALE
from judgebayes.rankings import RankingData, ppi_bt, ppi_bt_lambda, simulate_judged_battles
from judgebayes.rankings.design import BattleDesign

NO_TIES = {"j": [[0.8, 0.0, 0.2], [0.5, 0.0, 0.5], [0.25, 0.0, 0.75]]}


def _features(data: RankingData, mask: np.ndarray) -> np.ndarray:
    """x = e_a − e_b without the last model's column (its θ fixed at 0)."""
    x = np.zeros((int(mask.sum()), data.n_models))
    rows = np.arange(len(x))
    x[rows, data.a[mask]] = 1.0
    x[rows, data.b[mask]] = -1.0
    return x[:, :-1]


def test_equals_ppi_py_logistic_regression_on_hard_labels() -> None:
    sim = simulate_judged_battles(6, 3000, 300, judges=NO_TIES, nu=0.0, seed=3)
    data = sim.data
    lab = data.labelled
    y, yhat = data.human[lab], data.verdict("j")
    args = (_features(data, lab), y, yhat[lab], _features(data, ~lab), yhat[~lab])
    est = ppi_bt(data, "j", lam=0.4, penalty=0.0)
    theta = (est.elo - 1500) / ELO_SCALE
    point = ppi_logistic_pointestimate(*args, lam=0.4)
    np.testing.assert_allclose(theta[:-1] - theta[-1], point, atol=1e-7)
    lo, hi = ppi_logistic_ci(*args, lam=0.4, alpha=0.1)
    cov = est.cov / ELO_SCALE**2
    se_diff = np.sqrt(np.diag(cov)[:-1] + cov[-1, -1] - 2 * cov[:-1, -1])
    np.testing.assert_allclose(se_diff, (hi - lo) / 2 / norm.ppf(0.95), rtol=1e-6)

    # λ̂: ppi_py's formula applied to the sum-to-zero gradients and H⁺ at θ̂(λ = 1)
    theta = (ppi_bt(data, "j", lam=1.0).elo - 1500) / ELO_SCALE
    design = BattleDesign(data.models, data.a, data.b)
    x, p = design.x, design.probs(theta)
    g_y = (p - np.nan_to_num(data.human))[:, None] * x
    g_hat = (p - yhat)[:, None] * x
    h_inv = design.hessian_pinv(theta)
    expected = _calc_lam_glm(g_y[lab], g_hat[lab], g_hat[~lab], h_inv, clip=True)
    assert ppi_bt_lambda(data, "j")[0] == pytest.approx(expected, rel=1e-10)
    assert 0 < expected < 1


@pytest.mark.slow
def test_unbiased_and_covering_where_the_judge_alone_is_biased() -> None:
    """200 simulated data sets from one truth: 6 models, 3,000 battles, 300 labelled, ties
    (ν = 0.6), one judge with per-model favouritism (SD 0.5) and position bias.

    Bias: per model, |mean(Elo − Elo*)| < 3.5 Monte Carlo SEs (SD/√200; 3.5 for the six
    models, a Bonferroni bound at 0.3% each). Coverage of the 90% intervals, pooled over
    the 1,200 (model, data set) pairs: within 3 SEs of 0.90; the pairs are correlated
    within a data set, so the SE is taken from the 200 per-data-set coverage shares
    (SD/√200) rather than from the binomial. The judge alone (λ = 1 with no labels
    rectifying it is the judge's own BT fit) misses θ* by far more.
    """
    judge = {"j": [[0.75, 0.10, 0.15], [0.45, 0.20, 0.35], [0.30, 0.10, 0.60]]}
    errors, cover, judge_errors, lams = [], [], [], []
    z = norm.ppf(0.95)
    for rep in range(200):
        sim = simulate_judged_battles(
            6, 3000, 300, judges=judge, favouritism_sd=0.5, nu=0.6, seed=100 + rep, truth_seed=5
        )
        est = ppi_bt(sim.data, "j")
        err = est.elo - sim.bt_elo
        errors.append(err)
        cover.append(np.mean(np.abs(err) <= z * est.se))
        lams.append(est.lam[0])
        alone = RankingData.from_arrays(
            np.take(sim.data.models, sim.data.a),
            np.take(sim.data.models, sim.data.b),
            sim.data.verdict("j"),
            models=sim.data.models,
        )
        judge_errors.append(ppi_bt(alone, []).elo - sim.bt_elo)
    errors, judge_errors = np.array(errors), np.array(judge_errors)
    se = errors.std(axis=0, ddof=1) / np.sqrt(len(errors))
    assert np.all(np.abs(errors.mean(axis=0)) < 3.5 * se), (errors.mean(axis=0), se)
    cover = np.array(cover)
    assert abs(cover.mean() - 0.90) < 3 * cover.std(ddof=1) / np.sqrt(len(cover)), cover.mean()
    assert np.abs(judge_errors.mean(axis=0)).max() > 10 * se.max()
    assert 0.05 < np.mean(lams) < 1.0


def test_two_judges_weights() -> None:
    """A judge that guesses at random gets λ ≈ 0; the tuned λ beats a grid on tr Σ̂."""
    good = [[0.85, 0.05, 0.10], [0.30, 0.40, 0.30], [0.10, 0.05, 0.85]]
    noise = [[1 / 3] * 3] * 3
    sim = simulate_judged_battles(
        6, 4000, 400, judges={"good": good, "noise": noise}, nu=0.6, seed=11
    )
    tuned = ppi_bt(sim.data, ["good", "noise"])
    assert tuned.lam[1] < 0.05 < tuned.lam[0]
    trace = np.trace(tuned.cov)
    for lam in [(0.0, 0.0), (0.3, 0.0), (0.6, 0.0), (0.9, 0.0), (0.5, 0.5), (0.3, 0.3)]:
        assert trace <= 1.01 * np.trace(ppi_bt(sim.data, ["good", "noise"], lam=lam).cov)
    human = ppi_bt(sim.data, [])
    assert human.method == "human_bt" and human.n_judged == 0
    assert np.trace(human.cov) > 1.2 * trace


def test_input_errors() -> None:
    sim = simulate_judged_battles(4, 200, 20, seed=1)
    with pytest.raises(ValueError, match="weights"):
        ppi_bt(sim.data, ["good", "biased"], lam=(0.8, 0.5))
    with pytest.raises(DataError, match="unknown judge"):
        ppi_bt(sim.data, "nobody")
    split = RankingData.from_arrays(["a", "c"], ["b", "d"], [1.0, 0.0])
    with pytest.raises(DataError, match="disconnected"):
        ppi_bt(split, [])


@pytest.mark.slow
def test_rank_sets_cover_the_true_ranking() -> None:
    """100 data sets from one truth (8 models, 4,000 battles, 400 labelled, both default
    judges): the 90% rank-sets hold every model's true rank (by θ*) in ≥ 90% of them, up to
    Monte Carlo error: 0.90 − 3·√(0.9·0.1/100) = 0.81 (the max-|t| construction is
    conservative for ranks, so it is usually well above)."""
    covered = []
    for rep in range(100):
        sim = simulate_judged_battles(8, 4000, 400, nu=0.6, seed=400 + rep, truth_seed=6)
        board = ppi_bt(sim.data).ranking(0.1, n_draws=2000, seed=rep)
        covered.append(board.rank_sets.covers(sim.bt_target))
    assert np.mean(covered) >= 0.81, np.mean(covered)
