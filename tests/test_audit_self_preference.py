"""The audit's self-preference η: beyond the humans' verdict *and* the models' strengths.

Two simulated judges on battles of 8 models with very unequal strengths (Elo SD 300), both
decisive and both reading the strength gap beyond the single human vote (``quality`` ψ = 1
of :class:`~judgebayes.auditing.JudgeSpec`: it calls the stronger model the winner where
the human saw a tie, as a strong LLM judge does): ``reader`` owns the strongest model and
has no self-preference (η = 0); ``self`` prefers the middle model by η = 0.8. The first must
not be flagged, the second must.

A judge of the first kind is what a self-preference measured against the human verdicts
alone mistakes for one: the test shows by construction that the data hold that trap —
where the humans called a tie, ``reader`` gives its (strongest) model the win in most of
its verdicts, and the regression on the human verdict without the strengths (the same
fractional logit, :func:`judgebayes.consensus.human_anchored_eta`, with the human verdict
in the place of the strength gap) puts its η well above the size that fails a judge.

Error rates. Each judge's η and excess are tested once at α = 0.05: ``reader`` is wrongly
flagged with probability ≤ 0.05 (it needs η and ξ both significant *and* their smaller
estimate ≥ 0.4 logit, so far less); the recovered η are checked within 3 standard errors
(0.27 % two-sided for a normal estimate). With 3,000 labelled battles, about 2 × 3,000 / 8
= 750 involve the middle model, and η = 0.8 lies ≈ 5 standard errors from 0 (SE ≈ 0.16).
"""

from __future__ import annotations

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.auditing import JudgeSpec, audit, simulate_audit
from judgebayes.auditing.self_preference import self_preference
from judgebayes.auditing.verdict import ETA_LARGE
from judgebayes.consensus import human_anchored_eta
from judgebayes.simulate import davidson_probs

# decisive: no tie verdicts, so P(A wins) has log-odds 1.73·d + ψ·(θ_a − θ_b) + η·s exactly,
# the regression's own form (d = +1, 0, −1 for the human verdict)
DECISIVE = np.array([[0.85, 0.0, 0.15], [0.5, 0.0, 0.5], [0.15, 0.0, 0.85]])


@pytest.fixture(scope="module")
def sim():
    models = [f"model-{k:02d}" for k in range(8)]
    # the truth's strengths come from the seed: the strongest model is found after drawing
    probe = simulate_audit(8, 10, 0, judges={"x": JudgeSpec()}, elo_sd=300.0, seed=3)
    strongest = str(probe.elo.idxmax())
    middle = str(probe.elo.sort_values().index[4])
    judges = {
        "reader": JudgeSpec(confusion=DECISIVE, own=(strongest,), quality=1.0),
        "self": JudgeSpec(confusion=DECISIVE, own=(middle,), eta=0.8, quality=1.0),
    }
    out = simulate_audit(8, 12_000, 3_000, judges=judges, elo_sd=300.0, seed=3)
    assert list(out.elo.index) == models and out.elo.idxmax() == strongest
    return out


@pytest.fixture(scope="module")
def result(sim):
    own = {j: list(spec.own) for j, spec in sim.judges.items()}
    return audit(sim.battles, own=own, designs=False, budget=False, progress=False)


def _severities(result, judge: str) -> set[str]:
    f = result.findings
    return set(f.loc[(f["judge"] == judge) & (f["diagnostic"] == "self-preference η"), "severity"])


def test_the_strengths_are_very_unequal(sim) -> None:
    elo = sim.elo.sort_values()
    assert elo.iloc[-1] - elo.iloc[-2] > 100 and elo.iloc[-1] - elo.iloc[0] > 600


def test_a_judge_that_reads_quality_is_not_flagged_for_its_strong_model(result) -> None:
    assert _severities(result, "reader") <= {"ok", "info"}
    pref = result.results["self_preference"]["reader"]
    assert abs(pref.eta.estimate) < 3 * pref.eta.se, pref
    assert abs(pref.excess.estimate) < 3 * pref.excess.se, pref
    # (its verdicts fail on other grounds: reading strength makes its J differ by model)


def test_the_data_hold_the_trap_the_strengths_avoid(sim, result) -> None:
    """By construction: against the human verdict alone the reader seems to prefer its
    model."""
    frame = sim.battles.frame
    mine = frame[frame["judge"] == "reader"].dropna(subset=["human_label"])
    strongest = sim.judges["reader"].own[0]
    side = (mine["model_a"] == strongest).astype(float) - (mine["model_b"] == strongest)
    y = mine["judge_label"].to_numpy()
    d = 2 * mine["human_label"].to_numpy() - 1
    # 1. on battles of its model the humans called a tie, the reader gives it the win
    tie = (d == 0) & (side != 0).to_numpy()
    own_win = np.where(side[tie] > 0, y[tie], 1 - y[tie])
    share, null_se = own_win.mean(), np.sqrt(0.25 / tie.sum())  # binomial SE at ½
    assert share - 0.5 > 4 * null_se, (share, null_se, tie.sum())
    # 2. the regression on the human verdict alone: η far above the size that fails
    naive = human_anchored_eta(y, np.ones(len(y)), d, side.to_numpy())[2]
    assert naive > 2 * ETA_LARGE, naive
    # while the audit's η, with the strengths, is near 0 (previous test) on the same labels
    assert abs(result.results["self_preference"]["reader"].eta.estimate) < ETA_LARGE


def test_a_self_preferring_judge_is_flagged_among_unequal_models(result) -> None:
    assert _severities(result, "self") == {"fail"}
    pref = result.results["self_preference"]["self"]
    assert abs(pref.eta.estimate - 0.8) < 3 * pref.eta.se, pref
    # the other judge has no preference for the middle model: the excess is η itself
    assert abs(pref.excess.estimate - 0.8) < 3 * pref.excess.se, pref
    v = result.verdicts.set_index(["judge", "use"])["verdict"]
    assert (v["self"] == "do not trust").all()


def test_a_preference_every_judge_shares_is_no_self_preference() -> None:
    """Both judges prefer model-04 by 0.8 (a misreading of it that LLM judges share): η is
    clear of 0 for each, the excess is not, and the rule says info, not fail."""
    judges = {
        j: JudgeSpec(confusion=DECISIVE, own=("model-04",), eta=0.8, quality=1.0)
        for j in ("one", "two")
    }
    sim = simulate_audit(8, 12_000, 12_000, judges=judges, elo_sd=300.0, seed=3)
    result = audit(
        sim.battles, own={"one": ["model-04"]}, designs=False, budget=False, progress=False
    )
    pref = result.results["self_preference"]["one"]
    assert pref.eta.lo > 0 and not pref.excess.excludes(0.0), pref
    assert pref.excess.hi < ETA_LARGE, pref  # 12,000 labels rule out a preference of 0.4
    assert _severities(result, "one") == {"info"}


@pytest.mark.parametrize("eta, delta", [(0.0, 1.0), (0.8, 0.0), (0.5, -0.7)])
def test_eta_and_extra_accuracy_are_recovered_apart(eta: float, delta: float) -> None:
    """Verdicts drawn from the regression's own story (module docstring of
    self_preference): logit P(first | h, g, s) = γ + ψ·g + κ·d + η·s + δ·s·d, g the true
    strength gap and the human outcome h drawn from the strengths (Davidson). A judge only
    more accurate on its own battles (η = 0, δ = 1) must not read as self-preferring."""
    rng = np.random.default_rng(7)
    n, k = 40_000, 6
    theta = np.linspace(-1.5, 1.5, k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    g = theta[a] - theta[b]
    p_a, p_tie, _ = davidson_probs(g, 0.6)
    u = rng.random(n)
    h = np.where(u < p_a, 0, np.where(u < p_a + p_tie, 1, 2))
    own = np.zeros(k)
    own[2] = 1.0
    s = own[a] - own[b]
    d = np.select([h == 0, h == 2], [1.0, -1.0], 0.0)
    logit = 0.2 + 0.8 * g + 1.4 * d + eta * s + delta * s * d
    first = rng.random(n) < 1 / (1 + np.exp(-logit))
    names = [f"m{j}" for j in range(k)]
    data = jb.rankings.RankingData.from_arrays(
        np.take(names, a),
        np.take(names, b),
        np.array([1.0, 0.5, 0.0])[h],
        {"judge": np.where(first, 1.0, 0.0)},
        models=names,
    )
    pref = self_preference(data, "judge", "m2")
    assert pref.excess is None and pref.deciding is pref.eta
    assert abs(pref.eta.estimate - eta) < 3 * pref.eta.se, pref.eta
    assert abs(pref.accuracy.estimate - delta) < 3 * pref.accuracy.se, pref.accuracy
