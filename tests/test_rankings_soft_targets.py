"""Verdict-class soft targets: the calibration table, the BT fit on it, its sandwich SE.

* the table is the class means of the human outcomes (with m pseudo-battles at the mean);
* a perfect judge (identity confusion, no shrinkage) turns every judge-only battle into its
  human outcome, so the fit equals Bradley–Terry on every battle's human label;
* the two-step sandwich SE matches the estimator's sampling SD on the simulator;
* with a noisy judge the soft targets shrink every matchup towards the mean, so the Elo
  spread is attenuated: the known bias of the estimator, measured here rather than hidden.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from conftest import PPR_MODELS
from judgebayes.rankings import simulate_judged_battles, soft_target_bt, verdict_calibration

NOISY = {"j": [[0.75, 0.10, 0.15], [0.45, 0.20, 0.35], [0.30, 0.10, 0.60]]}


def test_table_is_the_class_means() -> None:
    sim = simulate_judged_battles(5, 2000, 300, judges=NOISY, seed=4)
    frame = sim.data.to_frame()
    lab = frame[frame["human"].notna()]
    means = lab.groupby("j")["human"].agg(["mean", "count", "sum"])
    table = verdict_calibration(sim.data, "j", prior_count=0.0).set_index("j")
    code = {"A": 1.0, "tie": 0.5, "B": 0.0}
    for verdict, row in table.iterrows():
        assert row["p_a"] == pytest.approx(means.loc[code[verdict], "mean"], rel=1e-12)
        assert row["n_labelled"] == means.loc[code[verdict], "count"]
    shrunk = verdict_calibration(sim.data, "j", prior_count=2.0).set_index("j")
    ybar = lab["human"].mean()
    s, c = means.loc[1.0, "sum"], means.loc[1.0, "count"]
    assert shrunk.loc["A", "p_a"] == pytest.approx((s + 2 * ybar) / (c + 2), rel=1e-12)
    assert table["n_labelled"].sum() + table["n_judge_only"].sum() == 2000


def test_perfect_judge_gives_bt_on_every_human_label() -> None:
    sim = simulate_judged_battles(6, 3000, 200, judges={"oracle": np.eye(3)}, seed=8)
    est = soft_target_bt(sim.data, "oracle", prior_count=0.0)
    names = np.asarray(sim.data.models)
    full = jb.fit_bt(
        jb.Battles(
            pd.DataFrame(
                {
                    "model_a": names[sim.data.a],
                    "model_b": names[sim.data.b],
                    "human_label": sim.human_full,
                }
            )
        ),
        target="human_label",
        lam=0.01,
    )
    np.testing.assert_allclose(est.elo, full.elo - full.elo.mean() + 1500, atol=1e-6)


@pytest.mark.slow
def test_sandwich_se_matches_the_sampling_sd_and_elo_is_attenuated() -> None:
    """100 data sets from one truth (6 models, 3,000 battles, 300 labelled, noisy judge).

    The SD of an SD estimate from 100 replications is ≈ SD/√(2·99) = 7% of it; per model
    |mean SE / SD − 1| < 0.25 allows 3.5 such errors (six models). Attenuation: the
    regression slope of the mean estimate on the truth θ* is below 0.8 (it is ≈ 0.3 here;
    unbiased estimation would give 1).
    """
    est, se = [], []
    for rep in range(100):
        sim = simulate_judged_battles(
            6, 3000, 300, judges=NOISY, nu=0.6, seed=200 + rep, truth_seed=5
        )
        fit = soft_target_bt(sim.data, "j")
        est.append(fit.elo)
        se.append(fit.se)
    est, se = np.array(est), np.array(se)
    ratio = se.mean(axis=0) / est.std(axis=0, ddof=1)
    assert np.all(np.abs(ratio - 1) < 0.25), ratio
    truth = sim.bt_elo - 1500
    slope = np.polyfit(truth, est.mean(axis=0) - 1500, 1)[0]
    assert slope < 0.8, slope


@pytest.mark.slow
def test_on_ppr_the_se_is_right_and_the_error_is_bias() -> None:
    """PPR's 14,947 battles among its 12 models, gpt-4-0125-preview's verdicts on all, 500
    random human labels, 30 draws. The sandwich SE is the spread of the estimate over label
    draws (mean SE / SD over draws within 0.6–1.6: the SD of 30 draws has relative MC error
    1/√58 = 13%, and the label draws hold the judge's verdicts fixed, so the SD is the
    conditional one and may sit below the SE), yet the estimate's distance to the
    Bradley–Terry Elo of all 26,919 human labels is many SEs (RMSE > 3 SE for most models):
    the soft targets estimate an attenuated, judge-coloured Elo, so their intervals are
    not intervals for the human one — a bias, not a too-small SE."""
    from judgebayes.rankings import RankingData

    battles = jb.datasets.load_ppr()
    full = RankingData.from_battles(battles).restrict(PPR_MODELS)
    ref = jb.fit_bt(battles.human_battles(), target="human_label")
    truth = np.array([ref.elo[ref.models.index(m)] for m in full.models])
    truth -= truth.mean()
    judge = next(j for j in full.judges if j.startswith("gpt-4"))
    rng = np.random.default_rng(0)
    est, se = [], []
    for _ in range(30):
        keep = np.zeros(full.n_battles, dtype=bool)
        keep[rng.choice(full.n_battles, 500, replace=False)] = True
        fit = soft_target_bt(full.hide_human(keep), judge)
        est.append(fit.elo - fit.elo.mean())
        se.append(fit.se)
    est, se = np.array(est), np.array(se)
    ratio = se.mean() / est.std(axis=0, ddof=1).mean()
    assert 0.6 < ratio < 1.6, ratio
    rmse = np.sqrt(((est - truth) ** 2).mean(axis=0))
    assert np.mean(rmse > 3 * se.mean(axis=0)) > 0.5, rmse / se.mean(axis=0)
