"""Anchor-based evaluation (seed 004): verdict table, rankings, informativeness, power."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from judgebayes import DataError
from judgebayes.anchors import (
    anchor_count_curve,
    anchor_rankings,
    informativeness,
    n_total,
    pilot_informativeness,
    power_check,
    power_table,
    read_verdicts,
    recommend_anchor,
    sign_test_n,
    simulate_verdicts,
    tau_vs_informativeness,
    tau_vs_size,
    verdict_table,
    wilcoxon_power,
    win_histogram,
)


def transitive_table(n_models: int = 5, n_prompts: int = 3) -> pd.DataFrame:
    """Every pair on every prompt; the better model (earlier letter) wins by 1."""
    names = "abcdefgh"[:n_models]
    rows = [
        {"prompt_id": f"p{i}", "model_a": x, "model_b": y, "verdict": 1}
        for i in range(n_prompts)
        for x, y in combinations(names, 2)
    ]
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ Table 2
def test_table2_is_reproduced() -> None:
    table = power_table()
    assert table.n_normal.tolist() == [617, 153, 67, 37, 23]
    assert table.totals[:, 0].tolist() == [1012, 251, 110, 61, 38]
    # Table 2 prints 341 in the second row: ceil(153 / 0.44999999999999996) in floating
    # point; exact arithmetic gives 153 / 0.45 = 340, which n_total returns.
    assert table.totals[:, 1].tolist() == [1372, 340, 149, 83, 52]
    assert math.ceil(153 / (1 - 0.55)) == 341
    assert n_total(617, 0.54) == 1143  # the sign-test N the paper sets beside Wilcoxon


def test_exact_sign_test_is_the_smallest_n_reaching_the_power() -> None:
    for p, n in zip((0.55, 0.6, 0.7), sign_test_n([0.55, 0.6, 0.7], method="exact"), strict=True):

        def power(k: int, p: float = p) -> float:
            c = np.arange(k + 2)  # reject when X >= crit, the smallest with size <= 5%
            crit = int(c[np.argmax(binom.sf(c - 1, k, 0.5) <= 0.05)])
            return float(binom.sf(crit - 1, k, p))

        assert power(int(n)) >= 0.8
        assert all(power(k) < 0.8 for k in range(max(1, int(n) - 40), int(n)))
    with pytest.raises(ValueError, match=r"\(0.5, 1\)"):
        sign_test_n(0.5)


# ------------------------------------------------------------ verdict table
def test_hand_computed_informativeness_on_a_tiny_table() -> None:
    # anchor A, targets x, y, z. Margins of each target over A:
    #   p1: x 2, y 2, z -1   -> pairs differ: (x,z), (y,z)       five 2/3, three 2/3
    #   p2: x 2, y 1, z 0    -> all three differ (five); sign 1,1,0 -> 2
    #   p3: x -1, y -1, z -  -> one pair, same                    0/1
    rows = [
        ("p1", "x", "A", "A>>B"),
        ("p1", "A", "y", -2),
        ("p1", "z", "A", "B>A"),
        ("p2", "x", "A", 2),
        ("p2", "A", "y", "B>A"),
        ("p2", "z", "A", "A=B"),
        ("p3", "x", "A", -1),
        ("p3", "A", "y", "A>B"),
    ]
    table = verdict_table(
        pd.DataFrame(rows, columns=["prompt_id", "model_a", "model_b", "verdict"])
    )
    assert table.usable_anchors() == ("A",)
    five = informativeness(table)
    three = informativeness(table, scale="three")
    assert five["A"] == pytest.approx(5 / 7)
    assert three["A"] == pytest.approx(4 / 7)
    hist = win_histogram(table, ["A"])  # models beating A per prompt: 2, 2, 0
    assert hist.counts[0].tolist() == [1, 0, 2, 0]


def test_position_debiasing_averages_both_orders_and_counts_them() -> None:
    frame = pd.DataFrame(
        {
            "prompt_id": ["p1", "p1", "p1", "p2"],
            "model_a": ["x", "y", "x", "x"],
            "model_b": ["y", "x", "z", "y"],
            "verdict": [2, -1, 1, "B>>A"],
        }
    )
    table = verdict_table(frame)
    assert table.n_debiased == 1
    pv = table.pair_verdicts().set_index(["prompt_id", "model_i", "model_j"])
    assert pv.loc[("p1", "x", "y"), "verdict"] == 1.5  # (2 + 1) / 2
    assert pv.loc[("p1", "x", "y"), "n_orders"] == 2
    assert pv.loc[("p2", "x", "y"), "verdict"] == -2
    v = table.tensor()
    assert v[0, 0, 1] == 1.5 and v[0, 1, 0] == -1.5 and np.isnan(v[1, 0, 2])
    assert "1 (prompt, pair)s judged in both orders averaged" in repr(table)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"verdict": ["A>>B", "A>>>B"]}, r"row 1, column 'verdict': not a verdict"),
        ({"verdict": [1, 0.5]}, r"row 1, column 'verdict': a verdict must be a whole margin"),
        ({"verdict": [1, None]}, r"row 1, column 'verdict': missing verdict"),
        ({"model_b": ["y", "x"]}, r"row 1, column 'model_b': a model judged against itself"),
        ({"model_a": ["x", None]}, r"row 1, column 'model_a': missing name"),
        (
            {"prompt_id": ["p", "p"], "model_b": ["y", "y"]},
            r"row 1, column 'prompt_id': repeats row 0",
        ),
    ],
)
def test_bad_rows_name_row_and_column(change: dict, message: str) -> None:
    frame = pd.DataFrame(
        {"prompt_id": ["p", "q"], "model_a": ["x", "x"], "model_b": ["y", "z"], "verdict": [1, -1]}
    )
    for col, values in change.items():
        frame[col] = values
    with pytest.raises(DataError, match=message):
        verdict_table(frame)


def test_missing_column_and_files(tmp_path) -> None:
    with pytest.raises(DataError, match="missing column 'verdict'"):
        verdict_table(pd.DataFrame({"prompt_id": ["p"], "model_a": ["x"], "model_b": ["y"]}))
    good = tmp_path / "v.csv"
    good.write_text("prompt_id,model_a,model_b,verdict\n007,x,y,A>B\n7,x,y,B>>A\n")
    table = read_verdicts(good)
    assert table.prompts == ("007", "7") and table.verdict.tolist() == [1, -2]
    bad = tmp_path / "bad.csv"
    bad.write_text("prompt_id,model_a,model_b,verdict\np,x,y,1\np,x,z,1,extra\n")
    with pytest.raises(DataError, match=r"bad.csv, line 3"):
        read_verdicts(bad)
    worse = tmp_path / "worse.csv"
    worse.write_text("prompt_id,model_a,model_b,verdict\np,x,y,1\np,x,z,A>>C\n")
    with pytest.raises(DataError, match=r"worse.csv, row 1, column 'verdict'"):
        read_verdicts(worse)


# ------------------------------------------------------------------ rankings
def test_transitive_verdicts_give_the_inverted_u_by_hand() -> None:
    # Models a > b > c > d > e, every verdict won by the better model: anchor-based
    # win-rates tie every model on the same side of the anchor, so Kendall τ-b with the
    # (exact) quadratic ranking is 4/√40 for an extreme anchor, 7/√70 next to it and
    # 8/√80 for the middle one.
    table = verdict_table(transitive_table())
    r = anchor_rankings(table, human={m: -k for k, m in enumerate("abcde")})
    tau = dict(zip(r.anchors, r.tau_quadratic, strict=True))
    assert tau["a"] == pytest.approx(4 / math.sqrt(40))
    assert tau["b"] == pytest.approx(7 / math.sqrt(70))
    assert tau["c"] == pytest.approx(8 / math.sqrt(80))
    assert tau["e"] == pytest.approx(tau["a"]) and tau["d"] == pytest.approx(tau["b"])
    assert r.tau_quadratic_human == pytest.approx(1.0)
    assert r.anchor_rank().tolist() == [1, 2, 3, 4, 5]
    # {−1, 0, 1} informativeness: the middle anchor splits 4 targets 2/2: 4 of 6 pairs
    # differ, M/(2(M−1)) for M targets — above the ½ of Section 4.3, which holds only as
    # M grows; an extreme anchor has none.
    info = informativeness(table, scale="three")
    assert info["c"] == pytest.approx(4 / 6) and info["a"] == 0.0
    rel = tau_vs_informativeness(r, info)
    assert rel.r2 > 0.99 and rel.slope > 0  # three distinct points, almost on a line


def test_simulator_reproduces_the_papers_qualitative_findings() -> None:
    sim = simulate_verdicts(22, 750, seed=0)
    table = sim.table()
    info = informativeness(table)
    extremes = {sim.anchor_at("strongest"), sim.anchor_at("weakest")}
    assert info.anchors[int(np.argmin(info.informativeness))] in extremes
    assert 0.40 < info.informativeness.min() < 0.50 < 0.60 < info.informativeness.max() < 0.72
    r = anchor_rankings(table)
    assert r.tau_quadratic.min() > 0.85
    hist = win_histogram(table, [sim.anchor_at("strongest")])
    assert hist.counts[0, 0] > hist.counts[0, -1]  # strong anchor: skewed to the left


def test_wilcoxon_simulation_pool_and_formula() -> None:
    sim = simulate_verdicts(10, 200, seed=1)
    w = wilcoxon_power(sim.table(), n_sim=300, n_max=2000, n_grid=10, progress=False)
    assert w.n_candidates == 10 * math.comb(9, 2)
    assert 0 < w.n_pool < w.n_candidates
    assert w.n_sign_formula == n_total(617, w.informativeness)
    # power grows with N (common random numbers) and the answers lie where it crosses 0.8
    assert w.power_wilcoxon[-1] > w.power_wilcoxon[0]
    for n, curve in ((w.n_wilcoxon, w.power_wilcoxon), (w.n_sign, w.power_sign)):
        assert np.isfinite(n)
        assert curve[np.searchsorted(w.grid, n)] >= 0.8


# ---------------------------------------------------------------- robustness
def test_robustness_curves_meet_their_exact_end_points() -> None:
    sim = simulate_verdicts(7, 30, seed=2)
    table = sim.table()
    size = tau_vs_size(table, sizes=[10, 30], repeats=3, progress=False)
    assert np.allclose(size.tau_quadratic[-1], 1.0)  # all prompts: π_quad itself
    count = anchor_count_curve(table, permutations=3, progress=False)
    assert np.allclose(count.tau[:, -1], 1.0)  # every model an anchor: all pairs
    pilot = pilot_informativeness(table, n_prompts=30, model_counts=[7], repeats=2, progress=False)
    assert np.allclose(pilot.pearson, 1.0) and pilot.bottom3.all()  # the pilot is the data
    for result in (size, count, pilot):
        text = repr(result)
        assert "\n" not in text and text.startswith(f"<{type(result).__name__}: ")


def test_recommend_anchor_follows_figure_5() -> None:
    pilot = verdict_table(transitive_table(5, 4))
    rec = recommend_anchor(pilot, n_boot=200, benchmark_size=500)
    assert rec.best == "c"  # the middle model is the most informative
    assert rec.n_total == n_total(617, rec.info["c"])
    assert any("more than the 500 available" in a for a in rec.advice)
    few = recommend_anchor(verdict_table(transitive_table(3, 4)), n_boot=50)
    assert few.best is None and "compare all pairs" in few.advice[0]
    natural = recommend_anchor(pilot, natural_anchor="a", n_boot=50)
    assert natural.best == "a" and "natural baseline" in natural.advice[0]
    with pytest.raises(DataError, match="pick one"):
        recommend_anchor(verdict_table(transitive_table().assign(judge=["j1", "j2"] * 15)))


# ------------------------------------------------------- single grades, five levels
def test_grade_gaps_become_five_point_margins() -> None:
    from judgebayes import Battles, read_grades
    from judgebayes.anchors import verdicts_from_battles

    # one prompt; grades a 9, b 8, c 5, d 9: gaps a-b 1, a-c 4, a-d 0, b-c 3, b-d -1, c-d -4
    grades = pd.DataFrame({"question_id": ["q"] * 4, "model": list("abcd"), "score": [9, 8, 5, 9]})
    battles = read_grades(grades)
    three = verdicts_from_battles(battles).pair_verdicts()
    five = verdicts_from_battles(battles, clear_gap=3).pair_verdicts()
    key = ["model_i", "model_j"]
    want3 = {("a", "b"): 1, ("a", "c"): 1, ("a", "d"): 0, ("b", "c"): 1, ("b", "d"): -1}
    want5 = {("a", "b"): 1, ("a", "c"): 2, ("a", "d"): 0, ("b", "c"): 2, ("b", "d"): -1}
    want3[("c", "d")], want5[("c", "d")] = -1, -2
    assert three.set_index(key)["verdict"].to_dict() == want3
    assert five.set_index(key)["verdict"].to_dict() == want5
    labels = Battles(pd.DataFrame({"model_a": ["x"], "model_b": ["y"], "judge_label": [1.0]}))
    with pytest.raises(DataError, match="clear_gap maps grade differences"):
        verdicts_from_battles(labels, clear_gap=3)


def test_power_check_matches_the_closed_form_power() -> None:
    """One pair of targets against anchor A whose differences are known exactly.

    On 40 prompts the pair's difference d = v_a − v_b is +1 on 12, −1 on 8 and 0 on 20:
    edge 12/20 − ½ = 0.1, informativeness ½. Drawing N prompts with replacement, the
    discordant count K ~ Binomial(N, ½) and the wins given K ~ Binomial(K, 0.6), so the
    exact sign test's power is Σ_k P(K = k)·P(wins > crit_k), crit_k the one-sided 5 %
    critical value. The simulation's 4,000 experiments must land within 4 Monte Carlo
    SEs (√(p(1−p)/4000) ≈ 0.0065) of it.
    """
    rows = []
    for i in range(40):
        va = 1 if i < 12 else (-1 if i < 20 else 0)
        rows += [(f"p{i:02d}", "a", "A", va), (f"p{i:02d}", "b", "A", 0)]
    frame = pd.DataFrame(rows, columns=["prompt_id", "model_a", "model_b", "verdict"])
    check = power_check(
        verdict_table(frame), "A", n_sim=4000, edges=(0.05, 0.25), seed=3, progress=False
    )
    row = check.pairs.iloc[0]
    assert (row["model_a"], row["model_b"]) == ("a", "b")
    assert row["edge"] == pytest.approx(0.1) and row["informativeness"] == pytest.approx(0.5)
    assert row["n_base"] == sign_test_n(0.6)[0] and row["n_pair"] == 2 * row["n_base"]
    assert check.anchor_informativeness == pytest.approx(0.5)
    n = int(row["n_pair"])
    k = np.arange(n + 1)
    crit = binom.isf(0.05, k, 0.5)  # reject when wins > crit
    exact = float((binom.pmf(k, n, 0.5) * binom.sf(crit, k, 0.6)).sum())
    assert row["power_pair"] == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 4000))
    sub = power_check(verdict_table(frame), "A", n_sim=200, replace=False, progress=False)
    assert np.isnan(sub.pairs["power_pair"].iloc[0])  # 298 prompts cannot come from 40
