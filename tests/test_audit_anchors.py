"""The audit's anchors (section 7 and rule 8): Don-Yehiya et al., *Mediocrity is the key for
LLM as a Judge Anchor Selection* (2026, arXiv:2603.16848), on battles an audit reads.

The simulator of :mod:`judgebayes.anchors.simulate` judges every pair of 12 models on 300
prompts (five-point verdicts, extreme anchors saturating as in the paper's Figure 2), so the
informativeness of every model as the anchor is known: the same models judged on 4,000 more
prompts give it to about ±0.004 (``POPULATION``). The audit must order the anchors as that
truth does where the truth tells them apart, recommend a middle one, place every model where
its true strength does, and flag an anchor in use that is the strongest or the weakest model
— and not a middle one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

import judgebayes as jb
from judgebayes.anchors import informativeness, simulate_verdicts
from judgebayes.auditing import anchor_budgets, audit, audit_input, simulate_audit
from judgebayes.cli import main

N_MODELS, N_PROMPTS = 12, 300


@pytest.fixture(scope="module")
def sim():
    return simulate_verdicts(N_MODELS, N_PROMPTS, seed=0)


@pytest.fixture(scope="module")
def population(sim) -> pd.Series:
    """I(p, A) of every model from 4,000 fresh prompts of the same models (the truth)."""
    big = simulate_verdicts(N_MODELS, 4_000, theta=sim.theta, seed=1)
    info = informativeness(big.table())
    return pd.Series(info.informativeness, index=list(info.anchors))


@pytest.fixture(scope="module")
def matrix(sim):
    """The audit of the full matrix (every pair judged on every prompt)."""
    return audit(sim.table(), designs=False, progress=False)


def _anchors(result) -> jb.auditing.AnchorBudget:
    (budget,) = result.results["anchors"].values()
    return budget


def test_the_full_matrix_orders_anchors_as_the_truth_does(sim, population, matrix) -> None:
    """Every pair of anchors whose true I differ by more than 4 SEs of the difference is
    ordered as the truth orders them (a flip has probability below Φ(−4) = 3·10⁻⁵ a pair;
    the SEs are the intervals' width / 3.92, the difference's taken as independent, which
    overstates it: the anchors share prompts). At most 3 of the 12 95% intervals miss the
    truth (P(≥ 4 misses) ≈ 0.002 at the nominal 5%, 0.007 at the 7% the layout's own
    coverage test measures). The recommended anchor is one of the most informative: its
    true I within 4 SEs of the true maximum, and not one of the two strongest or weakest."""
    b = _anchors(matrix)
    assert b.full_matrix and b.in_use == () and len(b.table) == N_MODELS
    t = b.table.set_index("anchor")
    truth = population[t.index].to_numpy()
    est = t["informativeness"].to_numpy()
    se = (t["hi"] - t["lo"]).to_numpy() / 3.92
    i, j = np.triu_indices(N_MODELS, 1)
    apart = np.abs(truth[i] - truth[j]) > 4 * np.hypot(se[i], se[j])
    assert apart.sum() >= 20  # the extreme anchors stand apart from the middle ones
    assert np.all(np.sign(est[i] - est[j])[apart] == np.sign(truth[i] - truth[j])[apart])
    assert ((truth < t["lo"]) | (truth > t["hi"])).sum() <= 3
    # the ranks are π_quad's: with 300 prompts they are the true order of strength
    rank = sim.to_frame().set_index("model")["rank"]
    assert (t["position"] == rank[t.index]).all()
    best = b.recommended
    assert population.max() - population[best] < 4 * se[list(t.index).index(best)] * np.sqrt(2)
    assert 3 <= rank[best] <= N_MODELS - 2
    # the strongest and the weakest are the least informative (the paper's inverted U)
    ends = t[t["extreme"]]
    assert set(ends.index) == {sim.anchor_at("strongest"), sim.anchor_at("weakest")}
    assert (ends["hi"] < t.loc[best, "lo"]).all()


def test_prompts_for_five_percent_follow_table_2(matrix) -> None:
    """N_total = ⌈617 / I⌉ (Table 2 and Section 4.3) with the interval from I's; the power on
    the data's prompts reaches 0.8 exactly when they are at least N_total."""
    t = _anchors(matrix).table
    assert (t["n_total"] == np.ceil(617 / t["informativeness"])).all()
    assert (t["n_total_lo"] == np.ceil(617 / t["hi"])).all()
    assert (t["n_total_hi"] == np.ceil(617 / t["lo"])).all()
    assert ((t["prompts"] >= t["n_total"]) == (t["power_now"] >= 0.8)).all()
    assert (t["prompts"] == N_PROMPTS).all() and (t["power_now"] < 0.8).all()
    assert (t["edge_now"] > 0.05).all()  # 300 prompts detect no +5% edge


def test_no_anchor_in_use_is_information_only(matrix) -> None:
    f = matrix.findings
    anchor = f[f["diagnostic"] == "anchor"]
    assert list(anchor["severity"]) == ["info"]
    assert _anchors(matrix).recommended in anchor["message"].iloc[0]
    assert "prompts for +5%" not in set(f["diagnostic"])


@pytest.mark.parametrize("where", ["strongest", "weakest"])
def test_an_extreme_anchor_is_flagged_with_a_middle_one_to_use(sim, matrix, where) -> None:
    """Every model judged against the strongest (weakest) model alone: that anchor is found,
    flagged as a poor one for ranking, and a model from the middle of its ranking (true rank
    4 to 9 of 12) is named instead; its I is the full matrix's for that anchor, interval
    included (the same verdicts, the same prompt resamples)."""
    anchor = sim.anchor_at(where)
    result = audit(sim.table(anchor=anchor), designs=False, progress=False)
    b = _anchors(result)
    assert not b.full_matrix and b.in_use == (anchor,) and b.recommended is None
    assert b.poor() == {anchor: where}
    row, full = b.row(anchor), _anchors(matrix).row(anchor)
    for col in ("informativeness", "lo", "hi"):
        assert row[col] == pytest.approx(full[col], abs=1e-12)
    f = result.findings.set_index("diagnostic")
    caveat = f.loc["anchor"]
    assert caveat["use"] == "ranking" and caveat["severity"] == "caveat"
    middle = b.middle(anchor)
    rank = sim.to_frame().set_index("model")["rank"]
    assert 4 <= rank[middle] <= 9 and middle in caveat["fix"]
    assert f.loc["prompts for +5%", "severity"] == "caveat"  # 300 prompts < N_total
    assert "A poor anchor" in result["verdict"].summary
    v = result.verdicts.set_index("use")
    assert v.loc["ranking", "verdict"] == "cannot tell"  # no human label decides
    assert "anchor (caveat)" in v.loc["ranking", "also"]


def test_a_middle_anchor_is_not_flagged_and_enough_prompts_pass(sim) -> None:
    """The median model as the anchor on 1,500 prompts: no caveat on the anchor, and
    1,500 prompts exceed N_total (≈ 950 at I ≈ 0.65), so +5% is within reach."""
    big = simulate_verdicts(N_MODELS, 1_500, theta=sim.theta, seed=2)
    anchor = big.anchor_at("median")
    result = audit(big.table(anchor=anchor), designs=False, progress=False)
    b = _anchors(result)
    assert b.poor() == {}
    f = result.findings.set_index("diagnostic")
    assert f.loc["anchor", "severity"] == "ok"
    assert f.loc["prompts for +5%", "severity"] == "ok"
    assert b.row(anchor)["power_now"] >= 0.8


def test_a_named_anchor_in_a_full_matrix(sim, matrix) -> None:
    """anchor= names the anchor a benchmark would use: the strongest model is flagged and the
    recommended one named; a model that is not an anchor is refused."""
    strongest = sim.anchor_at("strongest")
    result = audit(sim.table(), anchor=strongest, designs=False, progress=False)
    b = _anchors(result)
    assert b.in_use == (strongest,) and b.poor() == {strongest: "strongest"}
    caveat = result.findings.set_index("diagnostic").loc["anchor"]
    assert b.recommended == _anchors(matrix).recommended and b.recommended in caveat["fix"]
    with pytest.raises(jb.DataError, match="not an anchor"):
        audit(sim.table(), anchor="no-such-model", designs=False, progress=False)


def test_battles_that_are_not_anchor_based_get_no_anchors() -> None:
    """An arena (one pair per prompt) has no anchor analysis and no note; battles that all
    involve one model but carry no prompt_id get a note saying what is missing."""
    arena = simulate_audit(n_models=5, n_battles=3_000, n_labelled=600, seed=3)
    out, note = anchor_budgets(audit_input(arena.battles))
    assert out == {} and note == ""
    sim = simulate_verdicts(8, 40, seed=5)
    frame = sim.table(anchor=sim.anchor_at("median")).to_battles().frame
    no_prompts = jb.Battles(frame.drop(columns="prompt_id"))
    out, note = anchor_budgets(audit_input(no_prompts))
    assert out == {} and "prompt_id" in note and sim.anchor_at("median") in note
    with pytest.raises(jb.DataError, match="not anchor-based"):
        anchor_budgets(audit_input(arena.battles), anchor="model-00")


def test_the_report_shows_the_anchors(matrix, tmp_path: Path) -> None:
    budget = matrix["budget"]
    assert budget.available and "Recommended anchor" in budget.summary
    assert {"anchors", "prompts for +5% per anchor"} <= set(budget.tables)
    assert "human labels" in budget.needs  # the label budget needs them
    written = matrix.write(tmp_path)
    assert (tmp_path / "budget_anchors.csv") in written
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "arXiv:2603.16848" in page and "informativeness of each candidate anchor" in page


def test_cli_anchor_option(sim, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "verdicts.csv"
    sim.table(anchor=sim.anchor_at("strongest")).to_battles().frame.to_csv(path, index=False)
    code = main(["audit", str(path), "--no-progress", "--out", str(tmp_path / "o")])
    assert code == 0 and "A poor anchor" in capsys.readouterr().out
    code = main(["audit", str(path), "--anchor", "nobody", "--no-progress", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--anchor nobody" in err


def test_sign_test_power_inverts_table_2() -> None:
    """sign_test_power and detectable_edge invert sign_test_n (Table 2's N is the first that
    reaches power 0.8), and the exact binomial test's power lies within one lattice step of
    the normal approximation (the exact test's power jumps by the binomial mass at its
    critical count as n grows)."""
    for p in (0.55, 0.6, 0.65, 0.7, 0.75):
        n = int(jb.anchors.sign_test_n(p)[0])
        assert jb.anchors.sign_test_power(n, p) >= 0.8 > jb.anchors.sign_test_power(n - 1, p)
        assert jb.anchors.detectable_edge(n) <= p - 0.5 < jb.anchors.detectable_edge(n - 1)
    for n in (100, 300, 617, 2000):
        crit = binom.isf(0.05, n, 0.5)
        exact = binom.sf(crit, n, 0.55)
        assert abs(exact - jb.anchors.sign_test_power(n, 0.55)) <= binom.pmf(crit + 1, n, 0.55)
    assert jb.anchors.sign_test_power(0, 0.55) == 0.0
    assert np.isnan(jb.anchors.detectable_edge(2))  # too few pairs for any edge below ½


def test_verdict_table_round_trips_through_battles() -> None:
    sim = simulate_verdicts(6, 30, n_judges=2, seed=4)
    table = sim.table()
    back = jb.anchors.verdicts_from_battles(table.to_battles())
    for name in ("models", "prompts", "judges", "judge", "prompt", "a", "b", "verdict"):
        assert np.array_equal(getattr(back, name), getattr(table, name)), name
