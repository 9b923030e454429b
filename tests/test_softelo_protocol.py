"""Seed-000 protocol variants: the temperature of Algorithm 1 (per fold, pooled, fixed;
ties excluded or as ½), the residual-vs-strength r (Fig. 2a) and the agreement-by-|s|
table (Fig. 3a)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import pearsonr

import judgebayes as jb
from judgebayes.softelo import agreement_by_abs_s, fit_temperature, held_out_elo
from judgebayes.softelo.temperature import beta_mle


@pytest.fixture(scope="module")
def arena() -> jb.SimulatedArena:
    return jb.simulate_arena(14, 3000, seed=11)


def test_pooled_beta_is_the_all_model_fit(arena: jb.SimulatedArena) -> None:
    per_fold = held_out_elo(arena.battles, n_boot=0, progress=False)
    pooled = held_out_elo(arena.battles, n_boot=0, beta="pooled", progress=False)
    assert pooled.beta_mode == "pooled" and "pooled β" in str(pooled)
    # One MLE of Eq. 6 on every human non-tie: fit_temperature's β.
    np.testing.assert_allclose(pooled.table["beta"], fit_temperature(arena.battles).beta, atol=1e-6)
    # Per-fold fits stay close to it (paper: 0.0026 on average, at most 0.016) and so
    # does the MAE (paper: 0.09 Elo on average).
    assert np.abs(per_fold.table["beta"] - pooled.table["beta"]).max() < 0.05
    mae = {
        h.beta_mode: h.summary().set_index("method").loc["soft", "mae"] for h in (per_fold, pooled)
    }
    assert abs(mae["per_fold"] - mae["pooled"]) < 3


def test_fixed_beta_matches_the_two_steps_by_hand(arena: jb.SimulatedArena) -> None:
    held = held_out_elo(
        arena.battles, methods=("soft",), n_boot=0, beta=0.45, models=["model-03"], progress=False
    )
    assert held.beta_mode == "fixed" and held.table["beta"].tolist() == [0.45]
    m = "model-03"
    without = arena.battles.without(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.JudgeBayesWarning)
        anchors = jb.fit_bt(without, target=expit(0.45 * without.column("score_diff")))
    mine = arena.battles.involving(m)
    fit = jb.fit_bt(
        mine,
        target=expit(0.45 * mine.column("score_diff")),
        fixed=dict(zip(anchors.models, anchors.elo, strict=True)),
    )
    assert held.table["elo_soft"].iloc[0] == pytest.approx(fit[m], abs=1e-4)


def test_ties_as_half_shrink_beta(arena: jb.SimulatedArena) -> None:
    exclude = held_out_elo(arena.battles, n_boot=0, models=["model-00", "model-07"], progress=False)
    half = held_out_elo(
        arena.battles, n_boot=0, models=["model-00", "model-07"], beta_ties="half", progress=False
    )
    # By hand: β_m of Eq. 6 on the anchor battles' human labels with ties as ½.
    f = arena.battles.frame
    rest = (f["model_a"] != "model-00") & (f["model_b"] != "model-00")
    y = f.loc[rest, "human_label"].to_numpy(float)
    assert half.table["beta"].iloc[0] == pytest.approx(
        beta_mle(f.loc[rest, "score_diff"].to_numpy(float), y), abs=1e-6
    )
    ratio = half.table["beta"] / exclude.table["beta"]
    assert (ratio < 1).all()  # paper's corpus: β_all / β_non-tie ≈ 0.56
    assert half.beta_ties == "half" and "ties as ½" in str(half)
    pooled_half = held_out_elo(
        arena.battles,
        methods=("soft",),
        n_boot=0,
        beta="pooled",
        beta_ties="half",
        models=["model-00"],
        progress=False,
    )
    assert pooled_half.table["beta"].iloc[0] == pytest.approx(
        fit_temperature(arena.battles, ties="half", warn=False).beta, abs=1e-6
    )
    with pytest.raises(ValueError, match="beta must be"):
        held_out_elo(arena.battles, beta="median", progress=False)
    with pytest.raises(ValueError, match="beta_ties"):
        held_out_elo(arena.battles, beta_ties="drop", progress=False)


def test_residual_strength_correlation(arena: jb.SimulatedArena) -> None:
    held = held_out_elo(arena.battles, n_boot=0, progress=False)
    summary = held.summary().set_index("method")
    t = held.table
    for m in ("hard", "soft"):
        r = pearsonr(t[f"elo_{m}"] - t["elo_human"], t["elo_human"]).statistic
        assert summary.loc[m, "r_strength"] == pytest.approx(r)
    # Fig. 2a: Hard-Elo's residual ramps with strength (paper: +0.49 to +0.90).
    assert summary.loc["hard", "r_strength"] > 0.5
    assert summary.loc["soft", "r_strength"] < summary.loc["hard", "r_strength"]


def test_agreement_by_abs_s_by_hand() -> None:
    abs_s = np.array([0.1, 0.2, 0.5, 0.6, 1.0, 1.5, 2.0, 3.0])
    agree = np.array([1, 0, 0, 1, 1, 1, 1, 1], float)
    table, r = agreement_by_abs_s(abs_s, agree, n_bins=4)
    assert table["agreement"].tolist() == [0.5, 0.5, 1.0, 1.0]
    assert table["abs_s_mean"].tolist() == pytest.approx([0.15, 0.55, 1.25, 2.5])
    assert table["se"].tolist() == pytest.approx([0.5 / np.sqrt(2)] * 2 + [0.0] * 2)
    assert table[["abs_s_lo", "abs_s_hi"]].iloc[1].tolist() == [0.5, 0.6]
    assert r == pytest.approx(pearsonr([0.15, 0.55, 1.25, 2.5], [0.5, 0.5, 1, 1]).statistic)


def test_temperature_returns_the_agreement_table(arena: jb.SimulatedArena) -> None:
    import matplotlib

    matplotlib.use("Agg")
    temp = fit_temperature(arena.battles)
    t = temp.agreement
    assert len(t) == 10 and t["n"].sum() > 1000
    assert t["abs_s_mean"].is_monotonic_increasing
    # Agreement rises with |s| (Fig. 3a) and r matches the table.
    assert t["agreement"].iloc[-1] > t["agreement"].iloc[0] + 0.2
    assert temp.agreement_r == pytest.approx(pearsonr(t["abs_s_mean"], t["agreement"]).statistic)
    f = arena.battles.frame
    s, y, j = (f[c].to_numpy(float) for c in ("score_diff", "human_label", "judge_label"))
    keep = np.isin(j, [0, 1]) & np.isin(y, [0, 1]) & (s != 0)
    ref, _ = agreement_by_abs_s(np.abs(s[keep]), (j[keep] == y[keep]).astype(float))
    pd.testing.assert_frame_equal(t, ref)
    assert temp.plot(kind="agreement").get_ylabel().startswith("P(judge")
