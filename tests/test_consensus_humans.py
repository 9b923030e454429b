"""Judges checked against the humans on the same battles: the paired battle bootstrap,
position-balanced weights, the human-anchored self-preference and the board comparison.

The data are simulated here with a known truth, in the layout of the real PPR data
(one row per (battle, judge), the human label repeated on each row): humans follow
Bradley–Terry with strengths θ; a "fair" judge follows it with its own slope; a "biased"
judge adds a preference for the answer shown first (γ) and for its own model (η).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

import judgebayes as jb
from judgebayes import consensus as cn

THETA = np.array([-1.0, -0.5, 0.0, 0.3, 0.6, 1.0])
MODELS = [f"m{k}" for k in range(len(THETA))]
GAMMA, PSI, ETA = 1.5, 0.7, 0.8  # the biased judge: position, slope, self-preference
OWN = "m3"


def _panel(n: int, seed: int, *, share_a_first_for: dict[tuple[int, int], float] | None = None):
    """n battles judged by humans, a fair judge and a biased one (model_a shown first)."""
    rng = np.random.default_rng(seed)
    i = rng.integers(0, len(THETA), n)
    j = (i + rng.integers(1, len(THETA), n)) % len(THETA)
    gap = THETA[i] - THETA[j]
    own = (i == MODELS.index(OWN)).astype(float) - (j == MODELS.index(OWN))
    human = (rng.random(n) < expit(gap)).astype(float)
    fair = (rng.random(n) < expit(1.2 * gap)).astype(float)
    biased = (rng.random(n) < expit(GAMMA + PSI * gap + ETA * own)).astype(float)
    rows = []
    for judge, label in (("fair", fair), ("biased", biased)):
        rows.append(
            pd.DataFrame(
                {
                    "battle_id": np.arange(n),
                    "model_a": np.array(MODELS)[i],
                    "model_b": np.array(MODELS)[j],
                    "position": "a",
                    "judge": judge,
                    "judge_label": label,
                    "human_label": human,
                }
            )
        )
    return jb.Battles(pd.concat(rows, ignore_index=True))


@pytest.fixture(scope="module")
def panel() -> jb.Battles:
    return _panel(6000, seed=1)


def _pairs(battles: jb.Battles) -> np.ndarray:
    a, b = battles.codes()
    m = len(battles.models)
    return np.minimum(a, b) * m + np.maximum(a, b)


def test_battle_counts_keep_every_pair_and_resampling_keeps_a_battle_together(panel) -> None:
    first = panel.for_judge("fair")  # one row per battle, in battle order
    pair = _pairs(first)
    draws = list(cn.battle_counts(panel, n_boot=3, seed=7))
    again = list(cn.battle_counts(panel, n_boot=3, seed=7))
    for counts, same in zip(draws, again, strict=True):
        np.testing.assert_array_equal(counts, same)  # seeded
        assert counts.sum() == len(first)
        # Stratified by pair: each pair is drawn exactly as often as it has battles.
        np.testing.assert_array_equal(
            np.bincount(pair, counts, minlength=pair.max() + 1),
            np.bincount(pair, minlength=pair.max() + 1),
        )
    replicate = next(cn.resample_battles(panel, n_boot=1, seed=7))
    assert len(replicate) == 2 * len(first)  # both judges' rows of every drawn battle
    wide = replicate.judge_labels()
    assert len(wide) == len(first) and not wide.isna().any().any()
    # Every copy carries the labels of the battle it copies: the drawn battles' labels,
    # counted, are the counts-weighted labels of the original battles.
    original = panel.judge_labels()
    for judge in panel.judges:
        np.testing.assert_allclose(
            wide[judge].sum(), float(original[judge].to_numpy() @ draws[0]), atol=1e-9
        )


def test_weighting_battles_by_their_counts_is_resampling_them(panel) -> None:
    counts = next(cn.battle_counts(panel, n_boot=1, seed=3))
    replicate = next(cn.resample_battles(panel, n_boot=1, seed=3))
    humans = panel.human_battles()
    keep = counts > 0
    weighted = jb.fit_bt(humans.subset(keep), target="human_label", weights=counts[keep])
    resampled = jb.fit_bt(replicate.human_battles(), target="human_label")
    np.testing.assert_allclose(weighted.elo, resampled.elo, atol=1e-6)


def test_balanced_positions_cancel_a_pure_position_bias_exactly() -> None:
    # A judge that always picks the answer shown first, on pairs whose orders are
    # deliberately unbalanced: unweighted, the model shown first more often looks
    # stronger; balanced, every pair's weighted mean is ½ and all ratings are equal.
    rng = np.random.default_rng(0)
    rows = []
    for a in range(4):
        for b in range(a + 1, 4):
            n_ab, n_ba = 30 + 10 * a, 10 + 5 * b  # a shown first n_ab times, b n_ba times
            for first, second, n in ((a, b, n_ab), (b, a, n_ba)):
                rows += [(MODELS[first], MODELS[second])] * n
    frame = pd.DataFrame(rows, columns=["model_a", "model_b"])
    frame = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
    frame["judge"], frame["judge_label"], frame["position"] = "first-picker", 1.0, "a"
    battles = jb.Battles(frame)
    raw = cn.bt_by_judge(battles).ratings[0]
    balanced = cn.balance_positions(battles)
    weights = balanced.column("weight")
    pair, a_codes = _pairs(balanced), balanced.codes()[0]
    low_first = a_codes == np.minimum(*balanced.codes())
    for p in np.unique(pair):
        cell = pair == p
        assert weights[cell].sum() == pytest.approx(cell.sum())  # the pair keeps its weight
        assert np.average(low_first[cell], weights=weights[cell]) == pytest.approx(0.5)
    fair = cn.bt_by_judge(balanced).ratings[0]
    assert np.ptp(raw) > 100  # the position bias leaks into the unweighted board
    np.testing.assert_allclose(fair, fair.mean(), atol=1e-6)


def test_a_pair_shown_in_one_order_cannot_be_balanced_and_says_so() -> None:
    frame = pd.DataFrame(
        {"model_a": ["m0", "m0", "m1", "m2"], "model_b": ["m1", "m1", "m0", "m0"]}
    ).assign(judge="j", judge_label=1.0)
    with pytest.warns(jb.JudgeBayesWarning, match="1 \\(judge, pair\\) cell"):
        out = cn.balance_positions(jb.Battles(frame))
    # {m0, m1}: 3 battles, 2 with m0 first (w = 3 / 4 each), 1 with m1 first (w = 3 / 2).
    np.testing.assert_allclose(out.column("weight"), [0.75, 0.75, 1.5, 1.0])


def test_human_anchored_eta_matches_scikit_learn_and_recovers_the_simulation() -> None:
    rng = np.random.default_rng(5)
    n = 40_000
    first = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    gap = rng.normal(0, 1, n)
    own = rng.choice([-1.0, 0.0, 1.0], n, p=[0.1, 0.8, 0.1])
    x = np.column_stack([first, gap, own])
    p = expit(x @ np.array([GAMMA, PSI, ETA]))
    wins = (rng.random(n) < p).astype(float)
    # Recovery: without ties the fit is the logistic MLE; its SE from the observed
    # information (X' diag(p(1 - p)) X)^-1; 4 SE bounds a miss at 6e-5 per parameter.
    fit = cn.human_anchored_eta(wins, first, gap, own)
    q = expit(x @ fit)
    se = np.sqrt(np.diag(np.linalg.inv((x * (q * (1 - q))[:, None]).T @ x)))
    assert np.all(np.abs(fit - [GAMMA, PSI, ETA]) < 4 * se)
    # Fractional labels (ties ½ in 20 % of battles) against an independent solver:
    # scikit-learn's unpenalised logistic regression with each battle split into a win
    # of weight y and a loss of weight 1 − y (the same Bernoulli quasi-likelihood).
    label = np.where(rng.random(n) < 0.2, 0.5, wins)
    ours = cn.human_anchored_eta(label, first, gap, own)
    reference = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-10, max_iter=1000)
    reference.fit(np.vstack([x, x]), np.r_[np.ones(n), np.zeros(n)], np.r_[label, 1 - label])
    np.testing.assert_allclose(ours, reference.coef_[0], atol=1e-4)


def test_self_preference_check_finds_the_biased_judge_and_not_the_fair_one(panel) -> None:
    check = cn.self_preference_check(panel, {"biased": OWN, "fair": OWN}, n_boot=60, seed=0)
    table = check.table.set_index("judge")
    biased, fair = table.loc["biased"], table.loc["fair"]
    # Truth: η = 0.8 for the biased judge, 0 for the fair one. The 95 % bootstrap
    # interval is 2 × 1.96 SE wide, so 3 SE = 0.77 widths around the estimate.
    for row, truth in ((biased, ETA), (fair, 0.0)):
        assert abs(row["eta"] - truth) < 3 / 3.92 * (row["eta_hi"] - row["eta_lo"])
    assert biased["eta_lo"] > 0
    # Position-balanced scores are plain means over the two presentation orders.
    frame = panel.battle_frame().join(panel.judge_labels(), on="battle_id")
    is_a = frame["model_a"] == OWN
    mine = is_a | (frame["model_b"] == OWN)
    score = np.where(is_a, frame["biased"], 1 - frame["biased"])[mine]
    by_order = pd.Series(score).groupby(is_a[mine].to_numpy()).mean()
    assert biased["judge_score"] == pytest.approx(by_order.mean())
    assert check.placebo.loc[OWN, "biased"] == pytest.approx(biased["eta"])
    assert "η[biased on m3]" in repr(check)
    check.plot()


def test_judge_boards_never_see_the_human_labels(panel) -> None:
    frame = panel.frame
    rng = np.random.default_rng(0)
    labels = frame.drop_duplicates("battle_id").set_index("battle_id")["human_label"]
    shuffled = frame["battle_id"].map(pd.Series(rng.permutation(labels.to_numpy()), labels.index))
    other = jb.Battles(frame.assign(human_label=shuffled))
    one = cn.compare_with_humans(panel, bayes=False, n_boot=3, progress=False)
    two = cn.compare_with_humans(other, bayes=False, n_boot=3, progress=False)
    judges = [c for c in one.boards if not c.startswith("human")]
    pd.testing.assert_frame_equal(one.boards[judges], two.boards[judges])
    assert not np.allclose(one.boards["human (bt)"], two.boards["human (bt)"])


def test_board_metrics_against_a_plain_computation(panel) -> None:
    result = cn.compare_with_humans(panel, bayes=False, n_boot=20, progress=False)
    human = result.boards["human (bt)"].to_numpy()
    for row in result.metrics.itertuples():
        x = result.boards[row.board].to_numpy()
        i, j = np.triu_indices(len(x), 1)
        concordance = np.sign(x[i] - x[j]) * np.sign(human[i] - human[j])
        assert row.tau == pytest.approx(concordance.mean())  # no ties: τ_b = τ_a
        assert row.mae == pytest.approx(np.mean(np.abs(x - x.mean() - human + human.mean())))
        assert row.r == pytest.approx(np.corrcoef(x, human)[0, 1])
        assert row.mae_lo <= row.mae_hi and row.tau_lo <= row.tau_hi
    # The fair judge (slope 1.2, no bias) ranks as the humans do; the biased one's
    # position bias only dilutes its pairs here (positions are random), so it ranks
    # well too, while its board is compressed (slope 0.7): a larger MAE.
    metrics = result.metrics.set_index("board")
    assert metrics.loc["fair (bt)", "mae"] < metrics.loc["biased (bt)", "mae"]
    best = result.versus_best.set_index(["consensus", "metric"])
    assert best.loc[("consensus (bt)", "mae"), "best_judge"] == "fair"
    assert set(result.versus_best["consensus"]) == {"consensus (bt)", "consensus (elo)"}
    assert result.replicates.shape == (20, len(result.metrics), 3)
    assert "20 paired battle-bootstrap replicates" in repr(result)
    result.plot()


def test_compare_with_humans_needs_the_human_labels_of_several_judges(panel) -> None:
    with pytest.raises(jb.DataError, match="human_label"):
        cn.compare_with_humans(jb.Battles(panel.frame.drop(columns="human_label")), bayes=False)
    with pytest.raises(jb.DataError, match="at least two"):
        cn.compare_with_humans(panel.for_judge("fair"), bayes=False)
    with pytest.raises(jb.DataError, match="not contestants"):
        cn.self_preference_check(panel, {"fair": "gpt-9"}, n_boot=2)


def test_cli_vs_human(panel, tmp_path, capsys) -> None:
    from judgebayes.cli import main

    path = tmp_path / "panel.csv"
    panel.frame.to_csv(path, index=False)
    out = tmp_path / "out"
    args = ["consensus", str(path), "--vs-human", "--no-bayes", "--n-boot", "5"]
    args += ["--own", "biased=m3", "--no-progress", "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "against the human board of the same battles (5 paired" in text
    assert "own-model preference against the human labels" in text
    metrics = pd.read_csv(out / "vs_human.csv")
    assert {"fair (bt)", "biased (elo)", "consensus (bt)"} <= set(metrics["board"])
    assert set(pd.read_csv(out / "self_preference_vs_human.csv")["judge"]) == {"biased"}
    assert "vs_human" in (out / "summary.json").read_text()
    # Without a human label the option cannot run: one line, exit status 2.
    panel.frame.drop(columns="human_label").to_csv(path, index=False)
    assert main(["consensus", str(path), "--vs-human", "--no-bayes"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "human_label" in err[0]
