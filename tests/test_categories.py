"""Per-category boards from one hierarchical fit: the limits of the shrinkage, τ by empirical
Bayes, and what pooling buys on small categories."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb


def _centred(board: pd.DataFrame, models: tuple[str, ...]) -> np.ndarray:
    elo = board.set_index("model").reindex(list(models))["elo"].to_numpy()
    return elo - elo.mean()


def test_no_pooling_and_full_pooling_limits() -> None:
    """τ → ∞: each category's board is that category fitted alone (λ = 0, centred);
    τ → 0: every category's board is the overall one, the fit of all battles."""
    sim = jb.simulate_prompts(6, 1500, n_categories=3, category_sd=0.5, seed=2)
    battles = sim.battles
    frame = battles.frame
    free = jb.category_bt(battles, lam=0.0, category_sd=1e5, cluster=None)
    for c in free.categories:
        alone = jb.fit_bt(jb.Battles(frame[frame["category"] == c]), lam=0.0)
        np.testing.assert_allclose(
            _centred(free.board(c), alone.models), alone.elo - alone.elo.mean(), atol=1e-3
        )
    pooled = jb.category_bt(battles, lam=0.0, category_sd=1e-6, cluster=None)
    overall = jb.fit_bt(battles, lam=0.0)
    for c in pooled.categories:
        np.testing.assert_allclose(
            _centred(pooled.board(c), overall.models), overall.elo - 1500, atol=1e-3
        )


def test_empirical_bayes_tau() -> None:
    """τ̂ near the simulated σ_c = 0.4 (8 models × 4 categories: 32 offsets, SE of τ̂ ≈
    τ/√64 ≈ 12%; 40% is more than three SEs), and near 0 without category effects."""
    sim = jb.simulate_prompts(8, 6000, n_categories=4, category_sd=0.4, seed=1)
    fit = jb.category_bt(sim.battles)
    assert fit.tau == pytest.approx(0.4, rel=0.4)
    flat = jb.simulate_prompts(8, 6000, n_categories=4, category_sd=0.0, seed=1)
    assert jb.category_bt(flat.battles).tau < 0.1


def test_pooling_beats_fitting_categories_alone() -> None:
    """Small categories (8 models, 6 categories, 150 prompts each): over 10 arenas the
    hierarchical boards are closer to each category's population Elo than the boards
    fitted category by category (mean squared error lower by at least 20%)."""
    pooled, alone = [], []
    for rep in range(10):
        sim = jb.simulate_prompts(
            8, 900, n_categories=6, category_sd=0.3, seed=100 + rep, n_judges=1
        )
        fit = jb.category_bt(sim.battles, lam=0.0, cluster=None)
        frame = sim.battles.frame
        truth = sim.truth.set_index("model")
        for c in fit.categories:
            target = truth[f"elo_{c}"].reindex(list(fit.models)).to_numpy()
            target = target - target.mean()
            pooled.append(np.mean((_centred(fit.board(c), fit.models) - target) ** 2))
            one = jb.fit_bt(jb.Battles(frame[frame["category"] == c]), lam=0.01)
            elo = pd.Series(one.elo, index=one.models).reindex(list(fit.models)).to_numpy()
            alone.append(np.mean((elo - elo.mean() - target) ** 2))
    assert np.mean(pooled) < 0.8 * np.mean(alone), (np.mean(pooled), np.mean(alone))


def test_category_boards_have_intervals_rank_sets_and_checks() -> None:
    sim = jb.simulate_prompts(6, 1200, n_categories=3, category_sd=0.4, prompt_sd=0.5, seed=3)
    fit = jb.category_bt(sim.battles)
    assert fit.cluster == "prompt_id" and fit.n_clusters == 1200
    board = fit.board("cat-1")
    assert {"elo_lo", "elo_hi", "rank_lo", "rank_hi", "tier"} <= set(board.columns)
    assert (board["elo_lo"] < board["elo"]).all() and (board["elo"] < board["elo_hi"]).all()
    frame = fit.to_frame()
    assert list(frame["category"].unique()) == ["overall", "cat-0", "cat-1", "cat-2"]
    assert fit.matrix().shape == (6, 4)
    with pytest.raises(jb.DataError, match="unknown category"):
        fit.board("cat-9")
    broken = sim.battles.frame
    broken.loc[5, "category"] = None
    with pytest.raises(jb.DataError, match="row 5"):
        jb.category_bt(jb.Battles(broken))


def test_cli_by_category(tmp_path, capsys: pytest.CaptureFixture) -> None:
    import json

    from judgebayes.cli import main

    sim = jb.simulate_prompts(5, 600, n_categories=3, category_sd=0.4, seed=4)
    path = tmp_path / "games.csv"
    sim.battles.frame.to_csv(path, index=False)
    out = tmp_path / "out"
    args = ["elo", str(path), "--format", "csv", "--pool-judges", "--by", "category"]
    assert main([*args, "--out", str(out)]) == 0
    assert "3 categories (category)" in capsys.readouterr().out
    frame = pd.read_csv(out / "categories.csv")
    assert set(frame["category"]) == {"overall", "cat-0", "cat-1", "cat-2"}
    assert json.loads((out / "summary.json").read_text())["tau_elo"] > 0
    assert main([*args[:-1], "topic"]) == 2
