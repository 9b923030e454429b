"""Verdict-class soft targets in the Soft-Elo protocol, and the n-label study.

* the class table is the class means of the human labels, computed here with pandas
  (m = 1 pseudo-battle at the labelled mean), in the order the responses were shown: a
  battle shown the other way round (``position = "b"``) gives the same table and Elo;
* the held-out ``verdict`` Elo of a model is the two steps of Algorithm 1 by hand with
  ``jb.fit_bt`` on the targets of a table fitted without the model's battles;
* a judge that always agrees with the humans reproduces the human held-out Elo;
* ``calibrate_on`` calibrates on n labels and leaves the human reference untouched;
* :func:`label_budget`'s Monte Carlo SE is the SD over draws / √draws;
* ``kendall_tau`` is SciPy's τ-b to the last bit.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

import judgebayes as jb
from _softelo_reference import held_out_elo_reference
from judgebayes._stats import kendall_tau
from judgebayes.cli import main
from judgebayes.softelo import (
    ConformalPool,
    calibrate_verdicts,
    held_out_elo,
    keep_labels,
    label_budget,
    run_softelo,
)

CODE = {1.0: "A", 0.5: "tie", 0.0: "B"}


@pytest.fixture(scope="module")
def arena() -> jb.Battles:
    """A simulated arena with ``model_a`` shown first everywhere (no position column)."""
    return jb.Battles(jb.simulate_arena(12, 2500, seed=21).battles.frame.drop(columns="position"))


def _table_by_hand(frame: pd.DataFrame, prior: float = 1.0) -> pd.Series:
    """(Σ y + m·ȳ) / (n_c + m) per verdict class, shown-first orientation, ties ½."""
    flip = frame.get("position", pd.Series("a", index=frame.index)).eq("b")
    judge = np.where(flip, 1 - frame["judge_label"], frame["judge_label"])
    human = np.where(flip, 1 - frame["human_label"], frame["human_label"])
    work = pd.DataFrame({"verdict": pd.Series(judge).map(CODE), "y": human}).dropna()
    ybar = work["y"].mean()
    g = work.groupby("verdict")["y"]
    return (g.sum() + prior * ybar) / (g.count() + prior)


def test_table_is_the_class_means(arena: jb.Battles) -> None:
    table = calibrate_verdicts(arena).to_frame().set_index("verdict")
    by_hand = _table_by_hand(arena.frame)
    for verdict in ("A", "tie", "B"):
        assert table.loc[verdict, "p_a"] == pytest.approx(by_hand[verdict], rel=1e-12)
    assert table["n_labelled"].sum() == len(arena)
    # ties excluded: the mean over the human non-ties only
    excl = calibrate_verdicts(arena, ties="exclude").to_frame().set_index("verdict")
    f = arena.frame
    by_hand = _table_by_hand(f[f["human_label"] != 0.5])
    assert excl.loc["A", "p_a"] == pytest.approx(by_hand["A"], rel=1e-12)


def _swap_presentation(battles: jb.Battles, every: int = 3) -> jb.Battles:
    """Every ``every``-th battle written the other way round, its position ``b``."""
    f = battles.frame[["model_a", "model_b", "judge_label", "human_label"]]
    f = f.astype({"model_a": str, "model_b": str})
    f["position"] = "a"
    sw = np.arange(len(f)) % every == 0
    f.loc[sw, ["model_a", "model_b"]] = f.loc[sw, ["model_b", "model_a"]].to_numpy()
    for col in ("judge_label", "human_label"):
        f.loc[sw, col] = 1 - f.loc[sw, col]
    f.loc[sw, "position"] = "b"
    return jb.Battles(f)


def test_position_is_the_order_shown(arena: jb.Battles) -> None:
    """Rewriting battles as (model_b, model_a) with position ``b`` changes nothing: the
    class is the verdict as the judge saw it, P(A beats B) is flipped back."""
    swapped = _swap_presentation(arena)
    a = calibrate_verdicts(arena).to_frame()
    b = calibrate_verdicts(swapped).to_frame()
    pd.testing.assert_frame_equal(a, b)
    kw = {"methods": ("verdict",), "n_boot": 0, "progress": False}
    ha, hb = held_out_elo(arena, **kw).table, held_out_elo(swapped, **kw).table
    np.testing.assert_allclose(hb["elo_verdict"], ha["elo_verdict"], atol=1e-6)
    # position ignored, the swapped battles' classes are wrong: a different table
    ignored = jb.Battles(swapped.frame.drop(columns="position"))
    assert not np.allclose(calibrate_verdicts(ignored).p, a["p_a"])


def test_held_out_verdict_elo_is_algorithm_1_by_hand(arena: jb.Battles) -> None:
    m = "model-04"
    held = held_out_elo(arena, methods=("verdict",), n_boot=0, models=[m], progress=False)
    row = held.table.iloc[0]
    f = arena.frame
    mine = (f["model_a"] == m) | (f["model_b"] == m)
    table = _table_by_hand(f[~mine])
    assert [row["p_A"], row["p_tie"], row["p_B"]] == pytest.approx(
        [table["A"], table["tie"], table["B"]], rel=1e-12
    )
    assert row["n_calibration"] == int((~mine).sum())
    target = f["judge_label"].map({1.0: table["A"], 0.5: table["tie"], 0.0: table["B"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jb.JudgeBayesWarning)
        anchors = jb.fit_bt(arena.without(m), target=target[~mine].to_numpy())
    fit = jb.fit_bt(
        arena.involving(m),
        target=target[mine].to_numpy(),
        fixed=dict(zip(anchors.models, anchors.elo, strict=True)),
    )
    assert row["elo_verdict"] == pytest.approx(fit[m], abs=1e-4)
    # the reference route (SciPy per fold) gives the same numbers
    ref = held_out_elo_reference(arena, methods=("verdict",), n_boot=0, models=[m], progress=False)
    assert ref.table["elo_verdict"].iloc[0] == pytest.approx(row["elo_verdict"], abs=1e-3)


def test_a_judge_that_agrees_with_the_humans_gives_the_human_elo(arena: jb.Battles) -> None:
    """Judge = human on every battle: the class means are 1, ½, 0 up to the one
    pseudo-battle at the mean (≈ 1/800 here), so the soft targets are the human labels."""
    f = arena.frame
    f["judge_label"] = f["human_label"]
    held = held_out_elo(jb.Battles(f), methods=("verdict",), n_boot=0, progress=False)
    t = held.table
    assert (t["p_A"] > 0.998).all() and (t["p_B"] < 0.002).all()
    assert np.abs(t["elo_verdict"] - t["elo_human"]).max() < 1.0


def test_calibrate_on_n_labels_keeps_the_human_reference(arena: jb.Battles) -> None:
    n = 300
    sub = keep_labels(arena, n, seed=5)
    assert int(sub.frame["calibration_label"].notna().sum()) == n
    kept = sub.frame["calibration_label"].notna()
    assert (sub.frame.loc[kept, "calibration_label"] == sub.frame.loc[kept, "human_label"]).all()
    held = held_out_elo(
        sub, methods=("hard", "verdict"), n_boot=0, calibrate_on="calibration_label", progress=False
    )
    full = held_out_elo(arena, methods=("hard",), n_boot=0, progress=False)
    np.testing.assert_allclose(held.table["elo_human"], full.table["elo_human"], atol=1e-9)
    np.testing.assert_allclose(held.table["elo_hard"], full.table["elo_hard"], atol=1e-9)
    f = sub.frame
    for model, n_cal in zip(held.table["model"], held.table["n_calibration"], strict=True):
        mine = (f["model_a"] == model) | (f["model_b"] == model)
        assert n_cal == int((kept & ~mine).sum())
    with pytest.raises(jb.DataError, match="cannot keep"):
        keep_labels(arena, len(arena) + 1)
    with pytest.raises(jb.DataError, match="already has"):
        keep_labels(sub, 10)


def test_label_budget_rows_and_monte_carlo_se(arena: jb.Battles) -> None:
    study = label_budget(
        arena, sizes=(100, 400), n_draws=3, n_boot=5, n_splits=4, seed=1, progress=False
    )
    d = study.draws
    assert len(d) == 2 * 3 * 2 and set(d["method"]) == {"hard", "verdict"}
    hard = d[d["method"] == "hard"]
    assert hard["mae"].nunique() == 1  # Hard-Elo reads no human label
    verdict = d[(d["method"] == "verdict") & (d["n_labels"] == 100)]
    s = study.summary().set_index(["n_labels", "method"]).loc[(100, "verdict")]
    assert s["mae"] == pytest.approx(verdict["mae"].mean(), rel=1e-12)
    assert s["mae_mcse"] == pytest.approx(verdict["mae"].std(ddof=1) / np.sqrt(3), rel=1e-12)
    assert s["n_draws"] == 3
    assert d[["split_coverage", "split_width", "jackknife_width"]].notna().all().all()
    assert "n=100 verdict MAE" in repr(study)
    import matplotlib

    matplotlib.use("Agg")
    ax = study.plot(metric="split_width")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["100", "400"]
    with pytest.raises(jb.DataError, match="cannot draw"):
        label_budget(arena, sizes=(10**6,), n_draws=2, progress=False)


def test_verdict_pool_predicts_the_held_out_elo(arena: jb.Battles) -> None:
    """A new model's verdict-pool interval is centred on its held-out Elo: the same table
    (without its battles), the same anchors, the same one-model fit."""
    m = "model-07"
    held = held_out_elo(arena, methods=("verdict",), n_boot=5, progress=False)
    others = arena.without(m)
    calibration = calibrate_verdicts(others)
    target = others.frame["judge_label"].map(dict(zip([1.0, 0.5, 0.0], calibration.p, strict=True)))
    anchors = jb.fit_bt(others, target=target.to_numpy())
    pool = ConformalPool.from_held_out(held, method="verdict", exclude=[m])
    interval = pool.predict(
        arena.involving(m),
        m,
        dict(zip(anchors.models, anchors.elo, strict=True)),
        calibration=calibration,
    )
    elo = held.table.set_index("model").loc[m, "elo_verdict"]
    assert float(np.ravel(interval.estimate)[0]) == pytest.approx(elo, abs=1e-3)
    with pytest.raises(ValueError, match="verdict-class calibration"):
        pool.predict(arena.involving(m), m, dict(zip(anchors.models, anchors.elo, strict=True)))


def test_run_softelo_without_scores(arena: jb.Battles) -> None:
    verdict_only = jb.Battles(arena.frame.drop(columns=["score_diff", "score_a", "score_b"]))
    result = run_softelo(
        verdict_only,
        methods=("hard", "verdict"),
        n_boot=5,
        conformal="jackknife+",
        progress=False,
    )
    assert result.temperature is None and result.verdicts is not None
    assert list(result.summary()["method"]) == ["hard", "verdict"]
    assert "P(first preferred" in repr(result)
    import matplotlib

    matplotlib.use("Agg")
    assert len(result.plot()) == 4


def test_cli_verdict_soft_targets(arena: jb.Battles, tmp_path: Path, capsys) -> None:
    path = tmp_path / "verdicts.csv"
    arena.frame.drop(columns=["score_diff", "score_a", "score_b"]).to_csv(path, index=False)
    assert main(["softelo", str(path), "--n-boot", "5"]) == 2
    assert "--soft verdict" in capsys.readouterr().err
    out = tmp_path / "out"
    args = [
        "softelo",
        str(path),
        "--soft",
        "verdict",
        "--calibration-size",
        "400",
        "--n-boot",
        "5",
        "--conformal",
        "jackknife+",
        "--no-progress",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "human labels of 400 random battles" in text and "verdict" in text
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["method"]) == ["hard", "verdict"]


@pytest.mark.parametrize("seed", range(6))
def test_kendall_tau_is_scipys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = [3, 7, 20, 55, 120, 400][seed]
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    if seed % 2:  # ties in both
        x, y = np.round(x, 1), np.round(y, 0)
    assert kendall_tau(x, y) == kendalltau(x, y).statistic
    assert np.isnan(kendall_tau(np.ones(n), y))  # constant: SciPy's NaN


def test_summary_kendall_and_bootstrap_coverage(arena: jb.Battles) -> None:
    """``kendall`` is SciPy's τ-b of the held-out and human Elo; ``se_coverage`` the share
    of models with |ε| ≤ z_{1−α/2}·SE, counted here from the table (z = 1.6449 at α = 0.1,
    2.5758 at α = 0.01), NaN without SEs."""
    held = held_out_elo(arena, methods=("hard", "verdict"), n_boot=5, progress=False)
    t = held.table
    for alpha, z in ((0.1, 1.6448536), (0.01, 2.5758293)):
        s = held.summary(alpha=alpha).set_index("method")
        for m in ("hard", "verdict"):
            inside = np.abs(t[f"elo_{m}"] - t["elo_human"]) <= z * t[f"se_{m}"]
            assert s.loc[m, "se_coverage"] == pytest.approx(inside.mean())
            assert s.loc[m, "kendall"] == kendalltau(t[f"elo_{m}"], t["elo_human"]).statistic
    no_se = held_out_elo(arena, methods=("hard",), n_boot=0, progress=False).summary()
    assert np.isnan(no_se["se_coverage"].iloc[0])
