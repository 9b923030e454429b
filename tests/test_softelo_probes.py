"""Seed-000 judge probes (Appendix F–G): same-family effects, single-order Elo,
verdict-vs-score disagreement, per-completion scores, and the budget curve's reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.softelo import (
    budget_curve,
    combine_orders,
    held_out_elo,
    same_family_excess,
    single_order_elo,
    verdict_disagreement,
)

FAMILY = {f"model-{k:02d}": f"fam-{k // 4}" for k in range(16)}
JUDGES = {f"judge-{k}": f"fam-{k}" for k in range(4)}


def judge_panel(
    bias: dict[str, float] | None = None,
    *,
    seed: int = 0,
    n_battles: int = 4000,
    noise: float = 0.7,
) -> jb.Battles:
    """Four judges scoring the same battles of one simulated arena (same truth, same
    human labels); each judge adds its own noise to the margin, and ``bias[j]``
    rubric points to every model of its own family (``FAMILY``), the self-preference
    of ``simulate_arena(self_bias=...)`` spread over the judge's family."""
    base = jb.simulate_arena(16, n_battles, seed=seed).battles.frame
    fam_a = base["model_a"].astype(str).map(FAMILY).to_numpy()
    fam_b = base["model_b"].astype(str).map(FAMILY).to_numpy()
    rng = np.random.default_rng(seed + 1)
    frames = []
    for j, fam in JUDGES.items():
        f = base.copy()
        delta = rng.normal(0, noise, len(f)) + (bias or {}).get(j, 0.0) * (
            (fam_a == fam).astype(float) - (fam_b == fam)
        )
        f["judge"] = j
        f["score_a"] += delta / 2
        f["score_b"] -= delta / 2
        for col in ("score_diff", "s_a_first", "s_b_first"):
            f[col] += delta
        s, flip = f["score_diff"], np.sign(f["s_a_first"]) != np.sign(f["s_b_first"])
        f["judge_label"] = np.where(flip | (s == 0), 0.5, (s > 0).astype(float))
        frames.append(f)
    return jb.Battles(pd.concat(frames, ignore_index=True))


def test_same_family_excess_is_zero_without_family_bias() -> None:
    result = same_family_excess(judge_panel(), FAMILY, JUDGES, progress=False)
    t = result.table
    assert set(t["level"]) == {"score", "elo_hard", "elo_soft"}
    assert (t["n_same"] == 4).all() and (t["n_cross"] == 12).all()
    covers = (t["ci_lo"] <= 0) & (0 <= t["ci_hi"])
    # judge-0, the judge biased in the next test, is clean at every level here;
    assert covers[t["judge"] == "judge-0"].all()
    # overall ≥ 10 of the 12 nominal-95% intervals cover 0 (≈ 92–99% in simulation).
    assert covers.sum() >= 10
    # The deviations are from the *other* judges' median, target by target.
    d = result.deviations.set_index(["judge", "model"])
    scores = {}
    for j in JUDGES:
        f = judge_panel().frame
        f = f[f["judge"] == j]
        scores[j] = (
            pd.concat(
                [
                    f.groupby("model_a", observed=True)["score_a"].sum(),
                    f.groupby("model_b", observed=True)["score_b"].sum(),
                ]
            )
            .groupby(level=0)
            .sum()
            / pd.concat([f["model_a"], f["model_b"]]).astype(str).value_counts()
        )
    m = "model-05"
    others = np.median([scores[j][m] for j in ("judge-1", "judge-2", "judge-3")])
    assert d.loc[("judge-0", m), "score"] == pytest.approx(scores["judge-0"][m] - others)


def test_same_family_excess_detects_a_judge_that_favours_its_family() -> None:
    result = same_family_excess(
        judge_panel({"judge-0": 0.4}), FAMILY, JUDGES, methods=("hard",), progress=False
    )
    t = result.table.set_index(["judge", "level"])
    for level in ("score", "elo_hard"):
        row = t.loc[("judge-0", level)]
        assert row["excess"] > 0 and row["ci_lo"] > 0, level
    # A 0.4-point margin bonus lands half on each completion: ≈ +0.2 points per
    # family battle against an outsider (12/15 of its battles), −0.2 for outsiders
    # against the family (4/15): excess ≈ 0.2·(12/15 + 4/15) ≈ 0.21.
    assert t.loc[("judge-0", "score"), "excess"] == pytest.approx(0.21, abs=0.03)
    assert "bootstrap-t" in str(result) and repr(result).startswith("<SameFamilyExcess: 4")


def test_same_family_excess_checks_its_inputs() -> None:
    panel = judge_panel(n_battles=1500)
    with pytest.raises(jb.DataError, match="no family for judge"):
        same_family_excess(panel, FAMILY, {"judge-0": "fam-0"}, methods=(), progress=False)
    one = jb.Battles(panel.frame[panel.frame["judge"] == "judge-0"])
    with pytest.raises(jb.DataError, match="at least two judges"):
        same_family_excess(one, FAMILY, JUDGES, methods=(), progress=False)
    score_only = same_family_excess(panel, FAMILY, JUDGES, methods=(), progress=False)
    assert set(score_only.table["level"]) == {"score"}


def test_combine_orders_keeps_the_per_completion_scores() -> None:
    calls = pd.DataFrame(
        {
            "prompt_id": [1, 1],
            "model_a": ["x", "y"],
            "model_b": ["y", "x"],
            "score_a:help": [8, 6],
            "score_b:help": [5, 7],
            "score_a:fact": [7, 6],
            "score_b:fact": [6, 8],
        }
    )
    row = combine_orders(calls).frame.iloc[0]
    # x: (8 + 7)/2 = 7.5 shown first, (7 + 8)/2 = 7.5 shown second; y: 5.5 and 6.
    assert row["score_a"] == pytest.approx(7.5) and row["score_b"] == pytest.approx(5.75)
    assert row["score_a"] - row["score_b"] == pytest.approx(row["score_diff"])


def _always_first(battles: jb.Battles, model: str) -> jb.Battles:
    """The same battles, re-oriented so that ``model`` is always model_a."""
    f = battles.frame
    for col in ("model_a", "model_b"):
        f[col] = f[col].astype(str)
    swap = (f["model_b"] == model).to_numpy()
    g = f.copy()
    g.loc[swap, "model_a"], g.loc[swap, "model_b"] = f.loc[swap, "model_b"], f.loc[swap, "model_a"]
    g.loc[swap, "score_a"], g.loc[swap, "score_b"] = f.loc[swap, "score_b"], f.loc[swap, "score_a"]
    g.loc[swap, "s_a_first"] = -f.loc[swap, "s_b_first"]
    g.loc[swap, "s_b_first"] = -f.loc[swap, "s_a_first"]
    g.loc[swap, "score_diff"] = -f.loc[swap, "score_diff"]
    for col in ("judge_label", "human_label"):
        g.loc[swap, col] = 1 - f.loc[swap, col]
    return jb.Battles(g)


def test_single_order_elo_moves_a_model_with_its_position() -> None:
    """A judge that adds 1 point to the response shown first; model-05 is always A, so
    the A-first fit credits it and the B-first fit its opponents (Fig. 11b)."""
    m = "model-05"
    biased = _always_first(jb.simulate_arena(16, 5000, seed=3, position_bias=1.0).battles, m)
    result = single_order_elo(biased, progress=False)
    row = result.table.set_index("model").loc[m]
    assert row["elo_a_first"] - row["elo_both"] > 80
    assert row["elo_b_first"] - row["elo_both"] < -80
    assert row["abs_resid_both"] < 0.5 * min(row["abs_resid_a_first"], row["abs_resid_b_first"])
    s = result.summary()
    assert s["mae_gap"] == pytest.approx(abs(s["mae_a_first"] - s["mae_b_first"]))
    # By hand: the A-first fit is Algorithm 1 on the labels sign(s_a_first).
    f = biased.frame
    f["judge_label"] = np.sign(f["s_a_first"]) / 2 + 0.5
    ref = held_out_elo(
        jb.Battles(f), methods=("hard",), n_boot=0, models=[m], progress=False
    ).table.iloc[0]
    assert row["elo_a_first"] == pytest.approx(ref["elo_hard"], abs=1e-6)
    # Without position bias the two orders agree on that model.
    plain = _always_first(jb.simulate_arena(16, 5000, seed=3).battles, m)
    row = single_order_elo(plain, progress=False).table.set_index("model").loc[m]
    assert abs(row["elo_a_first"] - row["elo_b_first"]) < 40


def test_verdict_disagreement_by_hand() -> None:
    b = jb.Battles(
        pd.DataFrame(
            {
                "model_a": "a",
                "model_b": "b",
                "score_diff": [1.0, -0.5, 2.0, -1.0, 0.0, 0.3],
                "judge_label": [1.0, 1.0, 0.0, 0.0, 1.0, 0.5],
            }
        )
    )
    out = verdict_disagreement(b)
    # decisive with s ≠ 0: rows 0–3; rows 1 (verdict A, scored lower) and 2 disagree.
    assert out["n_decisive"] == 4 and out["n_disagree"] == 2 and out["rate"] == 0.5
    sim = jb.simulate_arena(10, 500, seed=0)
    assert verdict_disagreement(sim.battles)["rate"] == 0.0  # verdict = sign(s) there


def test_budget_curve_reference_full_vs_subsampled() -> None:
    sim = jb.simulate_arena(12, 1800, seed=6)
    n = len(sim.battles)
    full = budget_curve(sim.battles, budgets=(10, n / 12), n_rep=1, progress=False)
    sub = budget_curve(
        sim.battles, budgets=(10, n / 12), n_rep=1, reference="subsampled", progress=False
    )
    assert set(full["reference"]) == {"full"} and set(sub["reference"]) == {"subsampled"}
    # Same seed, same subsets: identical β; at the all-battles budget the readings coincide.
    np.testing.assert_allclose(full["beta"], sub["beta"])
    np.testing.assert_allclose(
        full.iloc[-1][["mae_hard", "mae_soft"]].astype(float),
        sub.iloc[-1][["mae_hard", "mae_soft"]].astype(float),
    )
    # By hand at b = 10: the subset's judge Elo against the full-data human Elo.
    rng = np.random.default_rng(0)
    idx = np.sort(rng.choice(n, 120, replace=False))
    t = held_out_elo(jb.Battles(sim.battles.frame.iloc[idx]), n_boot=0, progress=False).table
    human = held_out_elo(sim.battles, methods=(), n_boot=0, progress=False).table
    ref = t["model"].map(human.set_index("model")["elo_human"])
    assert full.iloc[0]["mae_soft"] == pytest.approx(np.mean(np.abs(t["elo_soft"] - ref)))
    assert sub.iloc[0]["mae_soft"] == pytest.approx(np.mean(np.abs(t["elo_soft"] - t["elo_human"])))
    with pytest.raises(ValueError, match="reference"):
        budget_curve(sim.battles, reference="half")


def test_probe_plots() -> None:
    import matplotlib

    matplotlib.use("Agg")
    result = same_family_excess(
        judge_panel(n_battles=1500), FAMILY, JUDGES, methods=("hard",), n_boot=200, progress=False
    )
    axes = result.plot()
    assert axes.size == 2
    order = single_order_elo(jb.simulate_arena(10, 1500, seed=1).battles, progress=False)
    assert "MAE_A" in order.plot().get_title()


def test_softelo_by_judge_tabulates_each_judges_pipeline() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from judgebayes.softelo import run_softelo, softelo_by_judge

    panel = judge_panel(n_battles=2000)
    by = softelo_by_judge(panel, n_boot=8, conformal="jackknife+", progress=False)
    t = by.table.set_index("judge")
    assert list(t.index) == list(JUDGES) and (t["n_battles"] == 2000).all()
    # Row = that judge's own pipeline.
    mine = jb.Battles(panel.frame[panel.frame["judge"] == "judge-2"])
    ref = run_softelo(mine, n_boot=8, conformal="jackknife+", progress=False)
    s = ref.summary().set_index("method")
    row = t.loc["judge-2"]
    assert row["beta"] == pytest.approx(ref.held.table["beta"].mean())
    assert row["kappa"] == pytest.approx(ref.held.kappa)
    assert row["mae_soft"] == pytest.approx(s.loc["soft", "mae"])
    assert row["width_hard"] == pytest.approx(s.loc["hard", "median_width"])
    assert row["mae_reduction"] == pytest.approx(1 - row["mae_soft"] / row["mae_hard"])
    assert row["delta_rho_soft"] == pytest.approx(s.loc["soft", "delta_rho"])
    assert (t["mae_reduction"] > 0).all() and np.isfinite(t["width_soft"]).all()
    tables = by.tables()
    assert set(tables) == {"table1", "table2", "table3"}
    assert tables["table2"]["mae_reduction"].is_monotonic_decreasing
    assert "4 judges" in repr(by) and "table3" in str(by)
    ax = by.plot()
    assert ax.get_xlabel().startswith("conformal quantile")
