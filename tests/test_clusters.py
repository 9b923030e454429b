"""Clustered uncertainty: prompts judged several times, the cluster bootstrap, the design effect."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.core.bootstrap import solve_batched
from judgebayes.core.sandwich import sandwich_cov


def test_simulator_games_per_prompt_and_determinism() -> None:
    sim = jb.simulate_prompts(8, 300, n_judges=3, prompt_sd=1.0, seed=3)
    frame = sim.battles.frame
    assert len(frame) == 300 * 6 and sim.params["games_per_prompt"] == 6
    per_prompt = frame.groupby("prompt_id")
    assert (per_prompt.size() == 6).all()
    assert (per_prompt["model_a"].nunique() == 1).all()  # one pair per prompt
    assert (per_prompt["position"].apply(lambda p: (p == "a").sum()) == 3).all()  # both orders
    again = jb.simulate_prompts(8, 300, n_judges=3, prompt_sd=1.0, seed=3)
    pd.testing.assert_frame_equal(frame, again.battles.frame)
    pd.testing.assert_frame_equal(sim.truth, again.truth)


def test_population_elo_is_what_a_large_board_converges_to() -> None:
    """With strong prompt effects, ties and position bias, the BT fit of 60,000 prompts
    (360,000 games) lands on the truth's population Elo (Gauss–Hermite over the prompt
    effects), not on the generating Elo, which prompt effects and ties stretch away from
    1500. SE of each Elo ≈ 2.5 here (sandwich, clustered), so 8 Elo is > 3 SEs."""
    theta = np.linspace(-1.2, 1.2, 6)
    sim = jb.simulate_prompts(
        theta=theta, n_prompts=60_000, prompt_sd=1.0, position_bias=0.5, tie_nu=0.5, seed=0
    )
    fit = jb.fit_bt(sim.battles, lam=0.0)
    truth = sim.truth.set_index("model").reindex(fit.models)
    assert np.max(np.abs(fit.elo - truth["elo"])) < 8
    gap = np.abs(truth["generating_elo"] - truth["elo"]).max()
    assert gap > 50  # the estimand differs from the generating strength


def test_position_and_style_bias_show_where_they_should() -> None:
    one_order = jb.simulate_prompts(6, 20_000, n_judges=1, both_orders=False, position_bias=1.0)
    f = one_order.battles.frame
    first_wins = np.where(f["position"] == "a", f["judge_label"], 1 - f["judge_label"])
    assert first_wins.mean() > 0.65  # σ(1) ≈ 0.73 at equal strength, diluted by gaps
    styled = jb.simulate_prompts(8, 8000, style_bias=3.0, verbosity_sd=0.5, seed=1)
    fit = jb.fit_bt(styled.battles, lam=0.0)
    truth = styled.truth.set_index("model").reindex(fit.models)
    error = fit.elo - truth["elo"].to_numpy()
    # verbose models gain Elo when the judge rewards length
    assert np.corrcoef(error, truth["verbosity"])[0, 1] > 0.8


def test_cell_index_finds_every_battle_hard_and_soft() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 400)
    b = (a + rng.integers(1, 5, 400)) % 5
    models = tuple("abcde")
    for target, weights in (
        (rng.choice([0.0, 0.5, 1.0], 400), None),
        (rng.choice([0.1, 0.3, 0.8], 400), rng.choice([1.0, 2.0], 400)),
    ):
        stats = jb.PairStats.from_battles(a, b, target, models, weights=weights)
        cell = stats.cell_index(a, b, target, weights)
        counts = np.bincount(cell, minlength=len(stats.cell_pair))
        np.testing.assert_array_equal(counts, stats.cell_count)
        swap = a > b
        oriented = np.where(swap, 1 - target, target)
        np.testing.assert_allclose(stats.cell_target[cell], oriented, atol=1e-9)


def test_single_battle_clusters_are_the_battle_bootstrap() -> None:
    """Clusters of one battle: the same replicates as the battle bootstrap, design effect 1."""
    sim = jb.simulate_arena(10, 3000, seed=2)  # prompt_id is unique per battle
    clustered = jb.bootstrap_bt(sim.battles, n_boot=100, seed=1, progress=False)
    plain = jb.bootstrap_bt(sim.battles, n_boot=100, seed=1, progress=False, cluster=None)
    np.testing.assert_array_equal(clustered.replicates, plain.replicates)
    assert clustered.n_clusters == 3000 and plain.cluster is None
    np.testing.assert_allclose(clustered.design_effect, 1.0, rtol=1e-6)


def test_cluster_replicate_is_a_refit_of_the_reweighted_prompts() -> None:
    """A cluster replicate's cell counts are Σ_c weight_c·(battles of the cell in c): the
    refit of the battles, each repeated by its prompt's weight, gives the same Elo."""
    sim = jb.simulate_prompts(6, 200, prompt_sd=1.0, tie_nu=0.4, seed=5)
    clusters = sim.battles.clusters()
    stats = clusters.stats
    weights = np.random.default_rng(1).poisson(1.0, clusters.n_clusters).astype(float)
    counts = clusters.cell_counts @ weights
    n, y = stats.pair_sums(counts)
    fit = jb.fit_bt(stats)
    theta, _ = solve_batched(stats, 0.01, fit.theta, np.arange(6), n[None], y[None])
    frame = sim.battles.frame
    codes = pd.factorize(frame["prompt_id"])[0]
    repeat = weights[codes].astype(int)
    rows = frame.loc[frame.index.repeat(repeat)].reset_index(drop=True)
    refit = jb.fit_bt(jb.Battles(rows))
    np.testing.assert_allclose(theta[0], refit.theta, atol=1e-7)


def test_design_effect_equals_the_bootstrap_variance_ratio() -> None:
    """The sandwich design effect (clustered / battle-level variance) agrees with the ratio
    of the two bootstraps' variances: with 2,000 replicates each, a variance has a Monte
    Carlo error of √(2/2000) ≈ 3%, so a ratio ≈ 4.5%; pooled over 10 models (median), 10%
    is a generous bound that still tells 1 from the ≈ 2.4 measured."""
    sim = jb.simulate_prompts(10, 1500, prompt_sd=1.0, seed=7)
    clustered = jb.bootstrap_bt(sim.battles, lam=0.0, n_boot=2000, seed=1, progress=False)
    plain = jb.bootstrap_bt(sim.battles, lam=0.0, n_boot=2000, seed=2, progress=False, cluster=None)
    ratio = np.median(clustered.se**2 / plain.se**2)
    assert clustered.median_design_effect == pytest.approx(ratio, rel=0.10)
    assert clustered.median_design_effect > 1.8


def test_cluster_labels_are_checked() -> None:
    sim = jb.simulate_prompts(5, 50, seed=0)
    frame = sim.battles.frame
    frame.loc[7, "prompt_id"] = np.nan
    with pytest.raises(jb.DataError, match=r"row 7.*missing cluster label"):
        jb.bootstrap_bt(jb.Battles(frame), n_boot=10, progress=False)
    stats = sim.battles.pair_stats()
    with pytest.raises(jb.DataError, match="carry no cluster labels"):
        jb.bootstrap_bt(stats, n_boot=10, progress=False, cluster="prompt_id")
    board = jb.bootstrap_bt(stats, n_boot=10, progress=False)  # auto: battles
    assert board.cluster is None
    with pytest.raises(jb.DataError, match="no 'session' column"):
        jb.bootstrap_bt(sim.battles, n_boot=10, progress=False, cluster="session")


@pytest.mark.slow
def test_clustered_intervals_cover_where_battle_intervals_do_not() -> None:
    """95% intervals on arenas whose prompts are judged six times (3 judges × 2 orders)
    and suit some models more than others (σ_u = 1): the battle bootstrap under-covers
    (≈ 78% measured), the prompt-cluster bootstrap covers at the nominal rate.

    200 arenas × 10 models × 600 prompts; coverage is averaged over models within an
    arena, so arenas are the independent units: at 0.95 the Monte Carlo SE of the mean
    over 200 arenas is at most √(0.95·0.05/200) = 0.0154 (less, as the models of an arena
    are not perfectly correlated), and the tolerance ±0.046 is three of them. The
    battle-level coverage must fall below 0.95 − 0.046.
    """
    battle, cluster = [], []
    for rep in range(200):
        sim = jb.simulate_prompts(10, 600, prompt_sd=1.0, seed=10_000 + rep)
        for how, out in ((None, battle), ("auto", cluster)):
            board = jb.bootstrap_bt(
                sim.battles, lam=0.0, n_boot=200, seed=rep, cluster=how, progress=False
            )
            truth = sim.elo.reindex(board.models).to_numpy()
            out.append(np.mean((board.elo_lo <= truth) & (truth <= board.elo_hi)))
    assert abs(np.mean(cluster) - 0.95) < 0.046, np.mean(cluster)
    assert np.mean(battle) < 0.95 - 0.046, np.mean(battle)


def test_sandwich_cov_is_centred_and_clusters_widen_it() -> None:
    sim = jb.simulate_prompts(6, 400, prompt_sd=1.0, seed=3)
    clusters = sim.battles.clusters()
    fit = jb.fit_bt(clusters.stats, lam=0.0)
    battle = sandwich_cov(clusters.stats, fit.theta, 0.0)
    clustered = sandwich_cov(clusters.stats, fit.theta, 0.0, clusters=clusters)
    np.testing.assert_allclose(battle.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(clustered.sum(axis=0), 0.0, atol=1e-12)
    assert np.all(np.diag(clustered) > np.diag(battle))


def test_cli_clusters_by_prompt_and_says_so(tmp_path, capsys: pytest.CaptureFixture) -> None:
    import json

    from judgebayes.cli import main

    sim = jb.simulate_prompts(6, 300, prompt_sd=1.0, seed=4)
    path = tmp_path / "games.csv"
    sim.battles.frame.to_csv(path, index=False)
    common = ["elo", str(path), "--format", "csv", "--pool-judges", "--n-boot", "50"]
    assert main([*common, "--no-progress", "--out", str(tmp_path / "a")]) == 0
    assert "300 prompt_id clusters" in capsys.readouterr().out
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["cluster"] == "prompt_id" and summary["n_clusters"] == 300
    assert summary["design_effect"] > 1.5
    assert main([*common, "--no-progress", "--cluster", "none", "--out", str(tmp_path / "b")]) == 0
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["cluster"] is None and summary["design_effect"] is None
    assert main([*common, "--no-progress", "--cluster", "session"]) == 2
    assert "no 'session' column" in capsys.readouterr().err
