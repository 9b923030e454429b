"""Sandwich intervals from pair statistics: arena-rank's sandwich, the cluster-robust meat,
and the board built on them (comparisons, win rates, score vs a baseline)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import judgebayes as jb
from judgebayes.core.board import holm
from judgebayes.core.ranksets import normal_draws
from judgebayes.core.sandwich import sandwich_cov

ARENA_RANK = importlib.util.find_spec("arena_rank") is not None

# arena-rank turns on JAX's float64 globally when imported: it runs in a child process.
_ARENA_RANK_SCRIPT = """
import json, sys
import pandas as pd
from arena_rank.models.bradley_terry import BradleyTerry
from arena_rank.utils.data_utils import PairDataset
df = pd.read_csv(sys.argv[1])
data = PairDataset.from_pandas(df)
model = BradleyTerry(n_competitors=len(data.competitors))
out = model.compute_ratings_and_cis(data, significance_level=0.05, ci_method="sandwich")
print(json.dumps({
    "models": list(out["competitors"]),
    "ratings": [float(x) for x in out["ratings"]],
    "variances": [float(x) for x in out["variances"]],
    "lower": [float(x) for x in out["rating_lower"]],
}))
"""


def _arena_rank(frame: pd.DataFrame, tmp_path: Path) -> dict:
    path = tmp_path / "battles.csv"
    winner = np.select(
        [frame["human_label"] == 1, frame["human_label"] == 0], ["model_a", "model_b"], "tie"
    )
    frame.assign(winner=winner)[["model_a", "model_b", "winner"]].to_csv(path, index=False)
    out = subprocess.run(
        [sys.executable, "-c", _ARENA_RANK_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


@pytest.mark.skipif(not ARENA_RANK, reason="arena-rank is not installed")
def test_battle_sandwich_equals_arena_rank(tmp_path: Path) -> None:
    """Same battles (12 models, 6,000 battles, Davidson ties ν = 0.5 counted ½), our
    battle-level sandwich (λ = 0) against arena-rank 0.1.1's
    ``compute_ratings_and_cis(ci_method="sandwich")``: Elo equal to 0.01 (its L-BFGS stops
    at a relative change of 1e-9) and variances to 0.1 %: arena-rank adds 1e-5·N to the
    Hessian's diagonal, which changes them by ≈ 1e-5·N / (N·p(1−p)·2/m) ≈ 5e-4 relative."""
    sim = jb.simulate_bt(12, 6000, tie_nu=0.5, seed=3)
    theirs = _arena_rank(sim.battles.frame, tmp_path)
    ours = jb.sandwich_bt(sim.battles, lam=0.0, cluster=None)
    order = [ours.models.index(m) for m in theirs["models"]]
    np.testing.assert_allclose(ours.elo[order], np.array(theirs["ratings"]) + 500, atol=0.01)
    np.testing.assert_allclose(ours.se[order] ** 2, theirs["variances"], rtol=1e-3)
    np.testing.assert_allclose(ours.elo_lo[order], np.array(theirs["lower"]) + 500, atol=0.05)


def test_cluster_meat_equals_a_battle_by_battle_computation() -> None:
    """The cluster-robust covariance from per-(cell, cluster) counts equals H⁺BH⁺ built from
    every battle's score vector summed within its prompt (an independent, dense route)."""
    sim = jb.simulate_prompts(5, 120, prompt_sd=1.0, tie_nu=0.5, seed=2)
    clusters = sim.battles.clusters()
    stats = clusters.stats
    fit = jb.fit_bt(stats, lam=0.0)
    ours = sandwich_cov(stats, fit.theta, 0.0, clusters=clusters)
    frame = sim.battles.frame
    a = frame["model_a"].cat.codes.to_numpy()
    b = frame["model_b"].cat.codes.to_numpy()
    y = frame["judge_label"].to_numpy()
    resid = y - expit(fit.theta[a] - fit.theta[b])
    scores = np.zeros((len(frame), 5))
    scores[np.arange(len(frame)), a] += resid
    scores[np.arange(len(frame)), b] -= resid
    per_prompt = pd.DataFrame(scores).groupby(frame["prompt_id"].to_numpy()).sum().to_numpy()
    meat = per_prompt.T @ per_prompt
    p = expit(fit.theta[a] - fit.theta[b])
    hess = np.zeros((5, 5))
    for ai, bi, w in zip(a, b, p * (1 - p), strict=True):
        hess[[ai, bi], [ai, bi]] += w
        hess[ai, bi] -= w
        hess[bi, ai] -= w
    bread = np.linalg.pinv(hess)
    np.testing.assert_allclose(ours, bread @ meat @ bread, atol=1e-12)


def test_sandwich_board_with_anchors_and_penalty() -> None:
    """Anchors have zero variance; with λ > 0 the Hessian is invertible as it is."""
    sim = jb.simulate_bt(6, 3000, seed=4)
    anchors = {"model-0": 1500.0, "model-1": 1550.0}
    board = jb.sandwich_bt(sim.battles, fixed=anchors, cluster=None)
    assert board["model-0"] == 1500.0 and board.se[0] == 0 and board.se[1] == 0
    assert np.all(board.se[2:] > 0)
    penalised = jb.sandwich_bt(sim.battles, lam=0.5, cluster=None)
    plain = jb.sandwich_bt(sim.battles, lam=0.0, cluster=None)
    assert np.all(penalised.se < plain.se)  # the penalty shrinks


def test_rank_set_draws_take_the_unseen_shift_as_zero_without_a_warning() -> None:
    """The sandwich covariance of centred strengths is singular along the common shift
    u = 1/√m, and its eigenvalue there is round-off of either sign (about ±10⁻⁶ Elo²):
    where it is negative NumPy's ``multivariate_normal`` warns "covariance is not symmetric
    positive-semidefinite" (the warning the audit used to filter). Forced to −10⁻⁶ here,
    so the case does not hang on the platform's round-off. The rank-sets' draws
    (``normal_draws``) raise no warning, reproduce the covariance, and do not move along u;
    an anchored model (a zero row and column) stays at its Elo in every draw.

    Covariance tolerance: the sample covariance of n normal draws has SE
    √((Σ_ii Σ_jj + Σ_ij²) / n); 4 SEs per element (36 elements: a miss has probability
    below 36 · 6.3·10⁻⁵ ≈ 0.002 at this seed's worst)."""
    sim = jb.simulate_bt(6, 3000, seed=0)
    board = jb.sandwich_bt(sim.battles, cluster=None)
    anchored = jb.sandwich_bt(sim.battles, fixed={"model-0": 1500.0}, cluster=None)
    assert np.array_equal(board.cov, board.cov.T)
    u = np.full(6, 1 / np.sqrt(6))
    assert abs(u @ board.cov @ u) < 1e-4  # singular along the shift, up to round-off
    shifted = board.cov - 1e-6 * np.outer(u, u)
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        np.random.default_rng(0).multivariate_normal(board.elo, shifted, size=10)
    n = 40_000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert board.rank_sets.size.max() >= 1 and anchored.rank_sets.size.max() >= 1
        draws = normal_draws(board.elo, shifted, n, 1)
        pinned = normal_draws(anchored.elo, anchored.cov, n, 1)
    for d, cov in ((draws, board.cov), (pinned, anchored.cov)):
        var = np.diag(cov)
        se = np.sqrt((np.outer(var, var) + cov**2) / n)
        assert np.all(np.abs(np.cov(d.T) - cov) <= 4 * se + 1e-9)
    assert np.ptp(draws.sum(axis=1)) < 1e-6  # SEs are 9 Elo: any movement along u shows
    assert np.all(pinned[:, 0] == 1500.0)


def test_sandwich_covers_where_clusters_are_respected() -> None:
    """The cluster-robust sandwich's 95% intervals cover the population Elo of 100 arenas
    with six games per prompt; the battle-level (HC0) sandwich does not. Arenas are the
    independent units: the MC SE at 0.95 is at most √(0.95·0.05/100) = 0.022, so ±0.065
    (three SEs) around 0.95, and HC0 must fall below 0.95 − 0.065."""
    cluster, battle = [], []
    for rep in range(100):
        sim = jb.simulate_prompts(10, 600, prompt_sd=1.0, seed=30_000 + rep)
        truth = None
        for how, out in (("auto", cluster), (None, battle)):
            board = jb.sandwich_bt(sim.battles, lam=0.0, cluster=how)
            truth = sim.elo.reindex(board.models).to_numpy() if truth is None else truth
            out.append(np.mean((board.elo_lo <= truth) & (truth <= board.elo_hi)))
    assert abs(np.mean(cluster) - 0.95) < 0.065, np.mean(cluster)
    assert np.mean(battle) < 0.95 - 0.065, np.mean(battle)


def test_compare_decides_and_agrees_between_methods() -> None:
    sim = jb.simulate_prompts(6, 1500, prompt_sd=0.5, seed=1, elo_sd=150)
    boot = jb.bootstrap_bt(sim.battles, n_boot=2000, seed=0, progress=False)
    sand = jb.sandwich_bt(sim.battles)
    order = np.argsort(-boot.elo)
    best, second, worst = (boot.models[k] for k in (order[0], order[1], order[-1]))
    for board in (boot, sand):
        far = board.compare(best, worst)
        assert far.ahead and far.delta > 0 and far.p_value < 1e-6
        back = board.compare(worst, best)
        assert not back.ahead and back.delta == pytest.approx(-far.delta)
        assert far.win_probability == pytest.approx(expit(far.delta / jb.ELO_SCALE))
        # a rope wider than the gap makes it not ahead
        assert not board.compare(best, worst, rope=far.ci[0] + 1).ahead
    # the two methods agree on the SE of a difference (bootstrap MC error ≈ 1.6 % at 2,000)
    assert boot.compare(best, second).se == pytest.approx(sand.compare(best, second).se, rel=0.1)
    with pytest.raises(jb.DataError, match="unknown model"):
        boot.compare(best, "nobody")


def test_holm_and_all_pairs() -> None:
    # Holm by hand: sorted p (0.01, 0.02, 0.04) times (3, 2, 1) = (0.03, 0.04, 0.04)
    np.testing.assert_allclose(holm(np.array([0.04, 0.01, 0.02])), [0.04, 0.03, 0.04])
    sim = jb.simulate_bt(6, 4000, elo_sd=150, seed=2)
    board = jb.sandwich_bt(sim.battles)
    holm_pairs = board.compare_all().table
    bh_pairs = board.compare_all(correction="bh").table
    assert len(holm_pairs) == 15 and (holm_pairs["delta"] >= 0).all()
    assert (bh_pairs["p_adjusted"] <= holm_pairs["p_adjusted"] + 1e-12).all()
    assert (holm_pairs["p_adjusted"] >= holm_pairs["p_value"]).all()


def test_win_rates_and_score_vs_baseline() -> None:
    """Predicted win rates are σ(ΔElo / scale) and, on a correctly specified BT arena, lie in
    the observed rate's 95% Wilson interval for at least 80% of the pairs (15 independent
    pairs, each its two orientations; with a 95% interval each, fewer than 12 of 15 inside
    has probability below 0.01)."""
    sim = jb.simulate_bt(6, 6000, elo_sd=120, seed=5)
    board = jb.bootstrap_bt(sim.battles, n_boot=300, progress=False, seed=1)
    rates = board.win_rates()
    table = rates.to_frame()
    assert len(table) == 30
    first = table.iloc[0]
    i, j = board.models.index(first["model_a"]), board.models.index(first["model_b"])
    assert first["predicted"] == pytest.approx(expit((board.elo[i] - board.elo[j]) / jb.ELO_SCALE))
    inside = (table["observed_lo"] <= table["predicted"]) & (
        table["predicted"] <= table["observed_hi"]
    )
    assert inside.mean() >= 0.8
    matrix = rates.matrix()
    off = ~np.eye(6, dtype=bool)
    np.testing.assert_allclose((matrix.to_numpy() + matrix.T.to_numpy())[off], 1.0)
    base = board.vs_baseline("model-0")
    row = base.to_frame().set_index("model").loc["model-0"]
    assert row["score"] == 50 and row["score_lo"] == 50
    assert (base.to_frame()["score_lo"] <= base.to_frame()["score"]).all()
