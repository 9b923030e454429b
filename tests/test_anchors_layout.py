"""A few anchors × many models (seed 004's Arena-Hard layout): detection, rankings, τ, bootstrap.

References: hand-computed rankings on a tiny star table; SciPy's ``kendalltau`` for the
row-wise τ-b; the full-matrix analysis (``anchor_rankings``, ``informativeness``) of
the same anchors, which the star cut of that matrix must reproduce (an anchor's report
reads only its own verdicts); a bootstrap replicate rebuilt as a table with the
resampled prompts repeated; and the coverage of the informativeness interval against a
population value from 20,000 simulated prompts.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom, kendalltau, linregress, norm

from judgebayes import DataError
from judgebayes.anchors import (
    anchor_layout,
    anchor_rankings,
    find_anchors,
    informativeness,
    kendall_rows,
    simulate_verdicts,
    verdict_table,
)


def star(frame: pd.DataFrame, anchors: list[str], *, anchors_meet: bool) -> pd.DataFrame:
    """The rows of a verdict frame in which an anchor meets a model (an Arena-Hard cut)."""
    a_in, b_in = frame["model_a"].isin(anchors), frame["model_b"].isin(anchors)
    keep = (a_in | b_in) if anchors_meet else (a_in ^ b_in)
    return frame[keep].reset_index(drop=True)


def rows(pairs: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        [(p, a, b, 1) for p, a, b in pairs], columns=["prompt_id", "model_a", "model_b", "verdict"]
    )


@pytest.fixture(scope="module")
def sim():
    return simulate_verdicts(12, 60, seed=11)


@pytest.fixture(scope="module")
def full(sim):
    return sim.table().to_frame().astype({c: str for c in ("prompt_id", "model_a", "model_b")})


# ------------------------------------------------------------------ detection
def test_anchors_are_the_models_every_other_model_meets(sim, full) -> None:
    assert find_anchors(verdict_table(full)) == sim.models  # a full matrix: all of them
    for meet in (True, False):
        cut = verdict_table(star(full, ["m03", "m07", "m10"], anchors_meet=meet))
        assert find_anchors(cut) == ("m03", "m07", "m10")
    assert find_anchors(verdict_table(star(full, ["m05"], anchors_meet=True))) == ("m05",)
    # one target never judged against m07: m07 no longer meets every target ...
    for meet in (True, False):
        cut = star(full, ["m03", "m07"], anchors_meet=meet)
        pair = cut["model_a"].isin(["m07", "m01"]) & cut["model_b"].isin(["m07", "m01"])
        cut = verdict_table(cut[~pair])
        if meet:
            assert find_anchors(cut) == ("m03",)
        else:  # ... and m03, which skips m07, then misses a non-anchor too: name them
            with pytest.raises(DataError, match="no model is judged against every other"):
                find_anchors(cut)
            layout = anchor_layout(cut, anchors=["m03", "m07"], n_boot=0)
            assert layout.targets.sum(axis=1).tolist() == [10, 9]


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        # a ring: everyone meets two others, nobody all of them (an arena's sparse battles)
        ([("p", "a", "b"), ("p", "b", "c"), ("p", "c", "d"), ("p", "d", "e"), ("p", "e", "a")],
         "no model is judged against every other one"),
        # two anchors and two targets: which pair is which?
        ([("p", "a", "x"), ("p", "a", "y"), ("p", "b", "x"), ("p", "b", "y")],
         "cannot tell the anchors from the targets"),
    ],
)  # fmt: skip
def test_tables_without_anchors_are_data_errors(pairs, message) -> None:
    with pytest.raises(DataError, match=message):
        find_anchors(verdict_table(rows(pairs)))
    table = verdict_table(rows(pairs))
    with pytest.raises(DataError, match=message):
        anchor_layout(table, n_boot=0)
    assert anchor_layout(table, anchors=["a"], n_boot=0).anchors == ("a",)  # named: fine


# ------------------------------------------------------------------ τ-b
def test_kendall_rows_is_scipys_tau_b_row_by_row() -> None:
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 4, size=(200, 9)).astype(float)  # many ties
    scores[rng.random(scores.shape) < 0.1] = np.nan
    ref = rng.integers(0, 5, size=9).astype(float)
    ref[2] = np.nan
    got = kendall_rows(scores, ref)
    for row, value in zip(scores, got, strict=True):
        ok = np.isfinite(row) & np.isfinite(ref)
        want = kendalltau(row[ok], ref[ok]).statistic if ok.sum() >= 3 else np.nan
        if np.isnan(want):
            assert np.isnan(value)
        else:
            assert value == pytest.approx(want, abs=1e-12)


# ------------------------------------------------------------------ rankings
def test_hand_computed_rankings_of_a_tiny_star() -> None:
    # anchor A; margins of each target over A on p1, p2:
    #   x: 2, 1   -> win rate 1,     mean margin 1.5
    #   y: 0, -1  -> win rate 0.25,  mean margin -0.5
    #   z: -2, -   (z not judged on p2) -> win rate 0, mean margin -2
    # A: 1 - mean(1, .25, 0) = 0.5833...; margin -mean(1.5, -.5, -2) = 1/3
    frame = pd.DataFrame(
        [
            ("p1", "x", "A", 2),
            ("p2", "A", "x", -1),
            ("p1", "A", "y", 0),
            ("p2", "y", "A", "B>A"),
            ("p1", "z", "A", "B>>A"),
        ],
        columns=["prompt_id", "model_a", "model_b", "verdict"],
    )
    human = {"x": 3.0, "A": 2.0, "y": 1.0, "z": 0.0}
    layout = anchor_layout(verdict_table(frame), human=human, n_boot=0)
    assert layout.anchors == ("A",) and not layout.is_full_matrix
    r = layout.ranking("A").set_index("model")
    assert r["win_rate"].to_dict() == pytest.approx({"x": 1, "A": 7 / 12, "y": 0.25, "z": 0})
    assert r["margin"].to_dict() == pytest.approx({"x": 1.5, "A": 1 / 3, "y": -0.5, "z": -2})
    assert r["n_prompts"].to_dict() == {"x": 2, "A": 0, "y": 2, "z": 1}
    assert list(r.index) == ["x", "A", "y", "z"]  # the human order: τ = 1
    assert layout.tau[("human", "win_rate")][0] == 1.0
    assert ("quadratic", "win_rate") not in layout.tau  # no full matrix, no π_quad
    # p1 holds three targets with three different margins; p2 two with different ones
    assert layout.info.informativeness[0] == pytest.approx((3 + 1) / (3 + 1))
    assert np.isnan(layout.info.lo[0])  # no bootstrap asked for


def test_the_star_cut_reports_what_the_full_matrix_says_of_its_anchors(sim, full) -> None:
    truth = dict(zip(sim.models, sim.theta, strict=True))
    anchors = ["m02", "m06", "m09"]
    cut = anchor_layout(
        verdict_table(star(full, anchors, anchors_meet=True)), human=truth, n_boot=0
    )
    whole = anchor_layout(verdict_table(full), anchors=anchors, human=truth, n_boot=0)
    assert whole.is_full_matrix and not cut.is_full_matrix
    for name in ("win_rate", "margin", "n_prompts"):
        np.testing.assert_allclose(getattr(cut, name), getattr(whole, name))
    np.testing.assert_allclose(cut.info.informativeness, whole.info.informativeness)
    for key in (("human", "win_rate"), ("human", "margin")):
        np.testing.assert_allclose(cut.tau[key], whole.tau[key])
    # the full-matrix functions (SciPy's τ, the per-anchor win-rate scores) agree
    table = verdict_table(full)
    ref = anchor_rankings(table, anchors=anchors, human=truth)
    np.testing.assert_allclose(cut.win_rate, ref.win_rate, atol=1e-12)
    np.testing.assert_allclose(cut.tau[("human", "win_rate")], ref.tau_human)
    np.testing.assert_allclose(whole.tau[("quadratic", "win_rate")], ref.tau_quadratic)
    np.testing.assert_allclose(
        cut.info.informativeness, informativeness(table, anchors=anchors).informativeness
    )


def test_models_without_a_human_score_leave_tau_not_the_ranking(sim, full) -> None:
    truth = dict(zip(sim.models, sim.theta, strict=True))
    partial = {m: s for m, s in truth.items() if m not in ("m00", "m04")}
    table = verdict_table(star(full, ["m03", "m08"], anchors_meet=False))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning leaks
        layout = anchor_layout(table, human=partial, n_boot=50, progress=False)
    assert "m00" in set(layout.ranking("m03")["model"])
    scores = layout.win_rate[0].copy()
    keep = np.isfinite(scores) & np.isfinite(layout.human)
    h = np.array([truth[m] for m in np.asarray(layout.models)[keep]])
    assert layout.tau[("human", "win_rate")][0] == pytest.approx(
        kendalltau(scores[keep], h).statistic
    )
    with pytest.raises(DataError, match="human scores given for 2 of the models"):
        anchor_layout(table, human={"m00": 1.0, "m01": 2.0}, n_boot=0)


# ------------------------------------------------------------------ bootstrap
def test_a_replicate_is_the_analysis_of_the_resampled_prompts(sim, full) -> None:
    truth = dict(zip(sim.models, sim.theta, strict=True))
    table = verdict_table(star(full, ["m01", "m05", "m10"], anchors_meet=False))
    layout = anchor_layout(table, human=truth, n_boot=3, seed=7, progress=False)
    n = len(table.prompts)
    weights = np.random.default_rng(7).multinomial(n, np.full(n, 1 / n), size=3)
    frame = table.to_frame().astype({c: str for c in ("prompt_id", "model_a", "model_b")})
    for r in (0, 2):
        parts = [
            frame[frame["prompt_id"] == p].assign(prompt_id=f"{p}#{copy}")
            for p, w in zip(table.prompts, weights[r], strict=True)
            for copy in range(w)
        ]
        again = anchor_layout(verdict_table(pd.concat(parts)), human=truth, n_boot=0)
        assert again.anchors == layout.anchors
        np.testing.assert_allclose(
            layout.info.replicates[r], again.info.informativeness, rtol=1e-12
        )
        for key in layout.tau:
            np.testing.assert_allclose(layout.tau_replicates[key][r], again.tau[key])


def test_contrast_and_r2_come_from_the_same_replicates(sim, full) -> None:
    truth = dict(zip(sim.models, sim.theta, strict=True))
    layout = anchor_layout(verdict_table(full), human=truth, n_boot=200, progress=False)
    tau = layout.tau[("human", "win_rate")]
    ranked = list(sim.ranked())
    extreme = [ranked[0], ranked[1], ranked[-2], ranked[-1]]
    c = layout.contrast([a for a in layout.anchors if a not in extreme], extreme)
    idx = [layout.anchors.index(a) for a in extreme]
    middle = np.delete(np.arange(len(layout.anchors)), idx)
    assert c.estimate == pytest.approx(tau[middle].mean() - tau[idx].mean())
    reps = layout.tau_replicates[("human", "win_rate")]
    diffs = reps[:, middle].mean(axis=1) - reps[:, idx].mean(axis=1)
    assert c.ci == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])))
    rel = layout.tau_vs_informativeness()
    assert rel.r2 == pytest.approx(linregress(layout.info.informativeness, tau).rvalue ** 2)
    assert rel.r2_lo <= rel.r2_hi and rel.reference == "human"
    quad = layout.tau_vs_informativeness(reference="quadratic", ranking="margin")
    assert quad.tau == pytest.approx(layout.tau[("quadratic", "margin")])
    # the parabola of τ on the anchor's position in the true ranking
    u = layout.inverted_u()
    q = (layout.anchor_rank("human") - 1) / 11
    assert u.position == pytest.approx(q)
    assert u.coef == pytest.approx(np.polyfit(q, tau, 2))
    curv = np.array([np.polyfit(q, r, 2)[0] for r in reps])
    assert u.ci == pytest.approx(tuple(np.quantile(curv, [0.025, 0.975])))
    assert u.p_negative == pytest.approx(np.mean(curv < 0))


def test_intervals_cover_their_estimands() -> None:
    """Coverage of the 90 % percentile intervals of I(p, A) and τ over 200 benchmarks.

    θ is fixed and prompts are i.i.d. given θ (8 models, 80 prompts per benchmark).
    I(p, A): the population value is the mean discordance per prompt over 20,000
    simulated prompts (Monte Carlo SE below 0.001, against half-widths near 0.05).
    τ: a ranking from N prompts is noisy, so τ with the true order is biased low
    against the τ of infinitely many prompts (1 here); the interval's estimand is the
    τ a benchmark of N prompts gives on average, E[τ_N], estimated by the mean of the
    200 point estimates (its SE, sd/√200 ≈ 0.005, is a tenth of the half-widths). With
    200 benchmarks a count of covering intervals is Binomial(200, 0.9) if the interval
    is exact; the test accepts the central 99.9 % of that law for I, and for τ of two
    anchors (m7, the strongest; m3, a middle one) at least its lower end (see below):
    a percentile bootstrap is close to nominal, not exact, so only a gross miss fails.
    """
    theta = np.linspace(-2.0, 2.0, 8)
    truth = {f"m{k}": t for k, t in enumerate(theta)}
    big = simulate_verdicts(8, 20_000, theta=theta, seed=1).table()
    population = informativeness(big, anchors=["m3"])["m3"]
    info_hits, taus, tau_ci = 0, [], []
    for rep in range(200):
        table = simulate_verdicts(8, 80, theta=theta, seed=100 + rep).table()
        layout = anchor_layout(
            table,
            anchors=["m3", "m7"],
            human=truth,
            n_boot=200,
            level=0.9,
            seed=rep,
            progress=False,
        )
        info_hits += int(layout.info.lo[0] <= population <= layout.info.hi[0])
        key = ("human", "win_rate")
        taus.append(layout.tau[key])
        tau_ci.append((layout.tau_lo[key], layout.tau_hi[key]))
    expected = np.mean(taus, axis=0)
    lo, hi = np.array([c[0] for c in tau_ci]), np.array([c[1] for c in tau_ci])
    tau_hits = ((lo <= expected) & (expected <= hi)).sum(axis=0)
    accept = binom.ppf(0.0005, 200, 0.9), binom.ppf(0.9995, 200, 0.9)
    assert accept[0] <= info_hits <= accept[1], (info_hits, accept)
    # τ takes few values (steps of 1/14 with 7 targets and the anchor), so its percentile
    # interval errs on the wide side: it must not under-cover, and its width must stay
    # near the true spread: half-width / 1.645 against the sd of the 200 estimates
    # (whose own relative SE is 1/√398 ≈ 5 %), at most 40 % wider, at least 20 % narrower.
    assert (tau_hits >= accept[0]).all(), (tau_hits, accept)
    ratio = (hi - lo).mean(axis=0) / 2 / norm.ppf(0.95) / np.std(taus, axis=0)
    assert ((ratio > 0.8) & (ratio < 1.4)).all(), ratio
