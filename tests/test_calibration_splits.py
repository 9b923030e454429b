"""Battles as judged items, random calibration splits, and the split study (seed 001).

``JudgedItems.from_battles`` against hand-counted labels; ``calibration_split`` against
its sizes and its inclusion probabilities; ``split_study`` against ``calibrate`` run by
hand on the same split, and its coverage against the nominal level on simulated items
whose judge satisfies the paper's measurement model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.calibration import JudgedItems, SplitStudy, calibrate, split_study
from judgebayes.errors import DataError


def _battles() -> jb.Battles:
    """Four battles judged by two judges; human: A wins, B wins, tie, unlabelled."""
    rows = []
    human = [1.0, 0.0, 0.5, np.nan]
    verdicts = {"j1": [1.0, 1.0, 0.0, 0.5], "j2": [0.0, np.nan, 0.5, 1.0]}
    pairs = [("x", "y"), ("y", "z"), ("x", "z"), ("x", "y")]
    for judge, labels in verdicts.items():
        for k, ((a, b), h, v) in enumerate(zip(pairs, human, labels, strict=True)):
            rows.append(
                {
                    "battle_id": k,
                    "model_a": a,
                    "model_b": b,
                    "judge": judge,
                    "judge_label": v,
                    "human_label": h,
                }
            )
    return jb.Battles(pd.DataFrame(rows))


def test_from_battles_gives_each_side_its_win_label() -> None:
    items = JudgedItems.from_battles(_battles(), "j1")
    f = items.frame.set_index(["item_id", "model"])
    # battle 0: human says A (x) won, judge says A won
    assert f.loc[(0, "x"), ["human_label", "judge_label"]].tolist() == [1.0, 1.0]
    assert f.loc[(0, "y"), ["human_label", "judge_label"]].tolist() == [0.0, 0.0]
    # battle 1: human says B (z) won, judge says A (y) won
    assert f.loc[(1, "y"), ["human_label", "judge_label"]].tolist() == [0.0, 1.0]
    assert f.loc[(1, "z"), ["human_label", "judge_label"]].tolist() == [1.0, 0.0]
    # battle 2: a human tie is no win for either side (ties="loss")
    assert f.loc[(2, "x"), "human_label"] == 0.0 and f.loc[(2, "z"), "human_label"] == 0.0
    assert f.loc[(2, "z"), "judge_label"] == 1.0
    # battle 3: no human label -> test items of both sides; a judge tie is no win
    assert f.loc[(3, "x"), "split"] == "test" and np.isnan(f.loc[(3, "x"), "human_label"])
    assert f.loc[(3, "x"), "judge_label"] == 0.0 and f.loc[(3, "y"), "judge_label"] == 0.0
    assert len(items) == 8 and items.report.n_input == 8 and items.report.n_dropped == 0


def test_from_battles_counts_what_it_leaves_out() -> None:
    b = _battles()
    j2 = JudgedItems.from_battles(b, "j2")
    assert dict(j2.report.dropped) == {"no verdict from the judge": 2}
    assert len(j2) == 6 and j2.report.n_input == 8
    drop = JudgedItems.from_battles(b, "j1", ties="drop")
    # battle 2 (human tie) and battle 3 (judge tie) are left out, two items each
    assert dict(drop.report.dropped) == {
        "human tie (ties='drop')": 2,
        "judge tie (ties='drop')": 2,
    }
    assert sorted(drop.frame["item_id"].unique()) == [0, 1]
    field = JudgedItems.from_battles(b, "j1", models=["x", "y"])
    assert dict(field.report.dropped) == {"outside the field (models=)": 4}
    assert set(field.models) == {"x", "y"}


def test_from_battles_bad_input() -> None:
    b = _battles()
    with pytest.raises(DataError, match="name one"):
        JudgedItems.from_battles(b)
    with pytest.raises(DataError, match="unknown model"):
        JudgedItems.from_battles(b, "j1", models=["x", "w"])
    with pytest.raises(DataError, match="unknown judge"):
        JudgedItems.from_battles(b, "j3")
    with pytest.raises(ValueError, match="ties"):
        JudgedItems.from_battles(b, "j1", ties="half")


def _labelled_items(
    theta: tuple[float, ...], q0: tuple[float, ...], q1: tuple[float, ...], n: int, seed: int
) -> JudgedItems:
    """Every item human-labelled, one model per item (ids disjoint across models)."""
    rng = np.random.default_rng(seed)
    frames = []
    for m, (t, a, b) in enumerate(zip(theta, q0, q1, strict=True)):
        z = rng.random(n) < t
        h = rng.random(n) < np.where(z, b, 1 - a)
        frames.append(
            pd.DataFrame(
                {
                    "model": f"m{m}",
                    "item_id": [f"m{m}-{i}" for i in range(n)],
                    "judge_label": h.astype(int),
                    "human_label": z.astype(int),
                }
            )
        )
    return JudgedItems(pd.concat(frames, ignore_index=True))


def test_calibration_split_sizes_and_truth() -> None:
    items = _labelled_items((0.3, 0.6), (0.8, 0.8), (0.7, 0.7), n=276, seed=1)
    s = items.calibration_split(0.1, seed=3, per_model=True)
    # round(0.1 × 276) = 28 per model, as in the debias-llm-as-a-judge vignette
    assert s.summary()["n_cal"].tolist() == [28, 28]
    # the hidden labels stay the truth: the all-human θ does not change
    pd.testing.assert_series_equal(s.human_accuracy(), items.human_accuracy())
    test = s.frame[s.frame["split"] == "test"]
    assert np.allclose(s.true_test_accuracy(), test.groupby("model")["human_label"].mean())
    # the same seed, the same split; counts and pooled draws
    assert s.frame.equals(items.calibration_split(0.1, seed=3, per_model=True).frame)
    assert not s.frame.equals(items.calibration_split(0.1, seed=4, per_model=True).frame)
    assert items.calibration_split(50, seed=0).summary()["n_cal"].sum() == 50
    for bad in (0.0, 1.0, 1.5, True, 0, 10_000):
        with pytest.raises(ValueError, match=r"size|calibration set"):
            items.calibration_split(bad)


def test_calibration_split_draws_every_item_with_equal_probability() -> None:
    """Each of n = 20 candidates is drawn with probability k/n = 0.25: over 200 seeds its
    count is Binomial(200, 0.25), sd 6.1; all 20 counts within 4 sd of 50 fails with
    probability < 20 × 6.3e-5 ≈ 0.0013."""
    items = JudgedItems(
        pd.DataFrame(
            {"model": "m", "item_id": range(20), "judge_label": 1, "human_label": [0, 1] * 10}
        )
    )
    counts = np.zeros(20)
    for seed in range(200):
        f = items.calibration_split(5, seed=seed).frame
        counts[f.loc[f["split"] == "calibration", "item_id"].to_numpy(int)] += 1
    assert np.abs(counts - 50).max() < 4 * np.sqrt(200 * 0.25 * 0.75)


def test_calibration_split_labels_both_sides_of_a_battle() -> None:
    items = JudgedItems.from_battles(_battles(), "j1")
    s = items.calibration_split(2, seed=0)
    f = s.frame
    cal_ids = set(f.loc[f["split"] == "calibration", "item_id"])
    assert len(cal_ids) == 2
    # a drawn battle calibrates both of its models; the unlabelled battle is never drawn
    assert (f.loc[f["item_id"].isin(cal_ids), "split"] == "calibration").all()
    assert 3 not in cal_ids
    with pytest.raises(DataError, match="belongs to 2 models"):
        items.calibration_split(2, per_model=True)


def test_split_study_rows_are_calibrate_on_the_same_split() -> None:
    items = _labelled_items((0.3, 0.6), (0.8, 0.7), (0.7, 0.8), n=300, seed=2)
    study = split_study(
        items, sizes=(0.25,), n_splits=3, per_model=True, n_boot=200, progress=False
    )
    assert isinstance(study, SplitStudy)
    row = study.frame[study.frame["split"] == 1]
    seed = int(row["seed"].iloc[0])
    cal = calibrate(
        items.calibration_split(0.25, seed=seed, per_model=True),
        baseline=study.settings["baseline"],
        n_boot=200,
        n_splits=1,
        seed=seed,
        progress=False,
    )
    for name in ("naive", "rg", "ppi_2x"):
        e = cal.estimate("m0", name)
        r = row[(row["quantity"] == "theta[m0]") & (row["estimator"] == name)].iloc[0]
        assert (r["estimate"], r["lo"], r["hi"]) == (e.estimate, *e.ci)
    d = cal.compare("m1", "m0")["ppi_2x"]
    r = row[(row["quantity"] == "theta[m1] - theta[m0]") & (row["estimator"] == "ppi_2x")]
    assert (r["estimate"].iloc[0], r["lo"].iloc[0], r["hi"].iloc[0]) == (d.estimate, *d.ci)
    theta = items.human_accuracy()
    assert study.truth["theta[m1] - theta[m0]"] == pytest.approx(theta["m1"] - theta["m0"])
    s = study.summary()
    one = s[(s["quantity"] == "theta[m0]") & (s["estimator"] == "naive")].iloc[0]
    assert one["n_splits"] == 3 and 0 <= one["coverage"] <= 1
    assert one["coverage_mcse"] == pytest.approx(
        np.sqrt(one["coverage"] * (1 - one["coverage"]) / 3)
    )


def test_split_study_coverage_on_a_good_judge() -> None:
    """J = 0.6 for both models, ΔJ = 0: PPI++ 2× and RG (shared) intervals are valid, and
    the finite population makes them conservative for the all-human θ (Section 4.3's
    bootstrap targets the super-population). Over 100 splits the coverage MCSE at 0.95 is
    0.022: a one-sided check at 0.95 − 3 × 0.022 fails by chance with probability
    < 0.002 if the intervals are valid. The naive estimator is biased by
    (1 − q0) − θ(1 − J) = 0.2 − 0.3 × 0.4 = +0.08 for θ = 0.3, about four of its interval
    half-widths (≈ 0.02 on 450 test items): its coverage is near 0."""
    items = _labelled_items((0.3, 0.5), (0.8, 0.8), (0.8, 0.8), n=600, seed=5)
    study = split_study(
        items, sizes=(0.25,), n_splits=100, per_model=True, n_boot=300, seed=1, progress=False
    )
    s = study.summary().set_index(["quantity", "estimator"])
    for q in ("theta[m0]", "theta[m1]"):
        for name in ("ppi_2x", "rg", "rg_2x"):
            assert s.loc[(q, name), "coverage"] >= 0.95 - 3 * 0.022, (q, name)
    assert s.loc[("theta[m0]", "naive"), "coverage"] < 0.05
    assert s.loc[("theta[m0]", "naive"), "bias"] == pytest.approx(0.08, abs=0.03)
    rates = study.flag_rates().set_index(["what", "quantity"])
    assert rates.loc[("J", "J[m0]"), "rate"] == 0.0  # Ĵ ≈ 0.6, never below 0.3
