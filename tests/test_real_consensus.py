"""Seed 003 on real verdicts: three LLM judges and the humans on the same 26,919 battles.

The data are Chatzi et al.'s (*Prediction-Powered Ranking of Large Language Models*,
NeurIPS 2024, arXiv:2402.17826), read from ``../shared/data/ppr`` through
:func:`judgebayes.datasets.load_ppr`. The numbers asserted are the headline numbers of
``docs/real-data/consensus.md`` and of the "On real data" section of
``notebooks/consensus.ipynb``:

* deterministic quantities (Bradley–Terry MAP boards, online Elo in file order, the
  human-anchored η regressions) to the rounding they are printed with;
* Monte Carlo quantities (bootstrap standard errors, NUTS posterior means) within a
  tolerance derived from their Monte Carlo error, written beside each assertion;

each beside an independent computation: the data README's agreement rates from the raw
JSON-lines files, own-side scores by plain pandas counts, the η regression by
scikit-learn.
"""

from __future__ import annotations

import json

import arviz as az
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

import judgebayes as jb
from conftest import SHARED_DATA
from judgebayes import consensus as cn

PPR = SHARED_DATA / "ppr"
JUDGES = ("claude-3-opus-20240229", "gpt-3.5-turbo", "gpt-4-0125-preview")
OWN = {
    "gpt-3.5-turbo": "gpt-3.5-turbo",
    "claude-3-opus-20240229": ["claude-v1", "claude-instant-v1"],
    "gpt-4-0125-preview": "gpt-4",
}
CHECKS = [
    ("gpt-3.5-turbo", "gpt-3.5-turbo"),
    ("gpt-3.5-turbo", "gpt-4"),
    ("gpt-3.5-turbo", ["gpt-3.5-turbo", "gpt-4"]),
    ("claude-3-opus-20240229", ["claude-v1", "claude-instant-v1"]),
    ("gpt-4-0125-preview", "gpt-4"),
    ("gpt-4-0125-preview", "gpt-3.5-turbo"),
    ("gpt-4-0125-preview", ["gpt-4", "gpt-3.5-turbo"]),
]


@pytest.fixture(scope="module")
def ppr() -> jb.Battles:
    return jb.datasets.load_ppr()


def _raw(name: str) -> pd.DataFrame:
    with open(PPR / f"{name}.json", encoding="utf-8") as handle:
        return pd.DataFrame([json.loads(line) for line in handle if line.strip()])


def test_agreement_and_position_rates_match_the_data_readme(ppr) -> None:
    # Independent of the loader: the raw JSON-lines files, compared line by line.
    human = _raw("human")
    wide = ppr.battle_frame().join(ppr.judge_labels(), on="battle_id")
    for judge, readme in zip(JUDGES, (0.72, 0.57, 0.83), strict=True):
        raw = _raw(judge)
        assert (raw["model_a"] == human["model_a"]).all()  # line k is the same battle
        neither = ~raw["winner"].str.startswith("tie") & ~human["winner"].str.startswith("tie")
        agree = (raw["winner"] == human["winner"])[neither].mean()
        assert agree == pytest.approx(readme, abs=0.005)  # the README prints 2 decimals
        ours = wide[judge].to_numpy()
        decisive = (ours != 0.5) & (wide["human_label"].to_numpy() != 0.5)
        assert (ours == wide["human_label"].to_numpy())[decisive].mean() == pytest.approx(agree)
    says_a = (_raw("gpt-3.5-turbo")["winner"] == "model_a").mean()
    assert (
        says_a == pytest.approx(0.86, abs=0.005) and (wide["gpt-3.5-turbo"] == 1).mean() == says_a
    )


# Full-data boards against the human board (docs/real-data/consensus.md), printed to 3
# decimals: (MAE, Kendall tau, Pearson r). Deterministic: Bradley-Terry MAP and online Elo
# in the file's order.
BOARDS = {
    "claude-3-opus-20240229 (bt)": (23.859, 0.947, 0.983),
    "gpt-3.5-turbo (bt)": (70.460, 0.821, 0.887),
    "gpt-4-0125-preview (bt)": (32.273, 0.916, 0.991),
    "consensus (bt)": (22.582, 0.937, 0.987),
    "claude-3-opus-20240229 (elo)": (48.315, 0.695, 0.853),
    "gpt-3.5-turbo (elo)": (103.961, 0.221, 0.240),
    "gpt-4-0125-preview (elo)": (53.409, 0.737, 0.929),
    "consensus (elo)": (44.429, 0.726, 0.894),
}
# Bootstrap SD (100 replicates, seed 0, as in the notebook) of consensus (bt) minus the best
# judge board: (MAE vs claude-3-opus, tau vs claude-3-opus, r vs gpt-4-0125-preview).
VERSUS_BEST_SD = (1.22856, 0.02425, 0.00189)


def test_boards_against_the_human_board(ppr) -> None:
    n_boot = 30
    result = cn.compare_with_humans(ppr, bayes=False, n_boot=n_boot, seed=0, progress=False)
    metrics = result.metrics.set_index("board")
    for board, values in BOARDS.items():
        assert tuple(metrics.loc[board, ["mae", "tau", "r"]]) == pytest.approx(values, abs=5e-4)
    # Independent: the human board by scikit-learn. fit_bt minimises −loglik + λ‖θ‖²
    # (λ = 0.01); LogisticRegression minimises C·Σ loss + ½‖w‖², so C = 1 / (2λ). A battle
    # is a row e_A − e_B, split into a win of weight y and a loss of weight 1 − y (ties ½).
    humans = ppr.battle_frame()
    models = list(result.boards.index)
    x = np.zeros((len(humans), len(models)))
    rows_ = np.arange(len(humans))
    x[rows_, humans["model_a"].astype(str).map(models.index)] = 1.0
    x[rows_, humans["model_b"].astype(str).map(models.index)] = -1.0
    y = humans["human_label"].to_numpy(float)
    reference = LogisticRegression(fit_intercept=False, C=1 / (2 * 0.01), tol=1e-10, max_iter=5000)
    reference.fit(np.vstack([x, x]), np.r_[np.ones(len(y)), np.zeros(len(y))], np.r_[y, 1 - y])
    theirs = jb.theta_to_elo(reference.coef_[0])
    ours = result.boards["human (bt)"].to_numpy()
    np.testing.assert_allclose(ours - ours.mean(), theirs - theirs.mean(), atol=0.05)  # Elo
    # The Monte Carlo part: these 30 replicates are the first 30 of the notebook's 100
    # (same seed), so the SD of a difference is the notebook's up to the SD's sampling
    # error, relative SE sqrt(1/(2·29) − 1/(2·99)) = 0.11; 4 of them bound a miss at 6e-5.
    best = result.versus_best.set_index(["consensus", "metric"])
    rows = list(result.metrics["board"])
    consensus, claude, gpt4 = (
        rows.index(b)
        for b in ("consensus (bt)", "claude-3-opus-20240229 (bt)", "gpt-4-0125-preview (bt)")
    )
    reps = result.replicates
    sds = (
        np.std(reps[:, consensus, 0] - reps[:, claude, 0], ddof=1),
        np.std(reps[:, consensus, 1] - reps[:, claude, 1], ddof=1),
        np.std(reps[:, consensus, 2] - reps[:, gpt4, 2], ddof=1),
    )
    tolerance = 4 * np.sqrt(1 / (2 * (n_boot - 1)) - 1 / (2 * 99))
    for ours, documented in zip(sds, VERSUS_BEST_SD, strict=True):
        assert abs(ours / documented - 1) < tolerance
    assert best.loc[("consensus (bt)", "r"), "best_judge"] == "gpt-4-0125-preview"


# Human-anchored η of each check and the own-side score gap (judge − humans), full data,
# 3 decimals (the notebook's and docs' table).
ETA_HUMAN = {
    ("gpt-3.5-turbo", "gpt-3.5-turbo"): (-0.019, -0.127),
    ("gpt-3.5-turbo", "gpt-4"): (-0.250, -0.222),
    ("gpt-3.5-turbo", "gpt-3.5-turbo,gpt-4"): (-0.167, -0.188),
    ("claude-3-opus-20240229", "claude-v1,claude-instant-v1"): (0.137, -0.026),
    ("gpt-4-0125-preview", "gpt-4"): (-0.249, 0.017),
    ("gpt-4-0125-preview", "gpt-3.5-turbo"): (-0.026, 0.028),
    ("gpt-4-0125-preview", "gpt-4,gpt-3.5-turbo"): (-0.153, 0.025),
}
# Bootstrap SD of η and of its excess over the other judges (500 replicates, seed 0).
ETA_SD = {
    ("gpt-3.5-turbo", "gpt-3.5-turbo"): {"eta": 0.04779, "excess": 0.04998},
    ("gpt-3.5-turbo", "gpt-4"): {"eta": 0.05803, "excess": 0.06221},
    ("gpt-3.5-turbo", "gpt-3.5-turbo,gpt-4"): {"eta": 0.04368, "excess": 0.04461},
    ("claude-3-opus-20240229", "claude-v1,claude-instant-v1"): {"eta": 0.03554, "excess": 0.03693},
    ("gpt-4-0125-preview", "gpt-4"): {"eta": 0.05337, "excess": 0.04889},
    ("gpt-4-0125-preview", "gpt-3.5-turbo"): {"eta": 0.03999, "excess": 0.03922},
    ("gpt-4-0125-preview", "gpt-4,gpt-3.5-turbo"): {"eta": 0.03856, "excess": 0.03628},
}


def test_self_preference_against_the_humans(ppr) -> None:
    n_boot = 40
    check = cn.self_preference_check(
        ppr, CHECKS, n_boot=n_boot, seed=0, placebo=False, progress=False
    )
    table = check.table.set_index(["judge", "own"])
    for key, (eta, gap) in ETA_HUMAN.items():
        assert table.loc[key, "eta"] == pytest.approx(eta, abs=5e-4)
        assert table.loc[key, "gap"] == pytest.approx(gap, abs=5e-4)
    # Independent: claude-3-opus's own-side score on the battles of its family, by plain
    # pandas, averaged over the two presentation orders (model_a is shown first).
    wide = ppr.battle_frame().join(ppr.judge_labels(), on="battle_id")
    family = ["claude-v1", "claude-instant-v1"]
    a_own, b_own = wide["model_a"].isin(family), wide["model_b"].isin(family)
    mine = wide[a_own ^ b_own]
    first = mine["model_a"].isin(family)
    for who, column in (("human_score", "human_label"), ("judge_score", "claude-3-opus-20240229")):
        score = np.where(first, mine[column], 1 - mine[column])
        plain = pd.Series(score).groupby(first.to_numpy()).mean().mean()
        key = ("claude-3-opus-20240229", "claude-v1,claude-instant-v1")
        assert table.loc[key, who] == pytest.approx(plain, abs=1e-12)
        assert table.loc[key, "n_battles"] == len(mine)
    # Independent: the η regression by scikit-learn on the same design (f = +1 for every
    # battle: model_a is shown first, so γ is an intercept), h from the human BT board.
    human = jb.fit_bt(ppr.human_battles(), target="human_label")
    theta = dict(zip(human.models, human.theta, strict=True))
    gap = wide["model_a"].astype(str).map(theta) - wide["model_b"].astype(str).map(theta)
    side = a_own.astype(float) - b_own.astype(float)
    x = np.column_stack([np.ones(len(wide)), gap, side])
    y = wide["claude-3-opus-20240229"].to_numpy(float)
    reference = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-10, max_iter=1000)
    reference.fit(np.vstack([x, x]), np.r_[np.ones(len(y)), np.zeros(len(y))], np.r_[y, 1 - y])
    row = table.loc[("claude-3-opus-20240229", "claude-v1,claude-instant-v1")]
    np.testing.assert_allclose(
        [row["gamma"], row["psi"], row["eta"]], reference.coef_[0], atol=1e-4
    )
    # The Monte Carlo part: these 40 replicates are the first 40 of the notebook's 500, so
    # the SD matches the notebook's up to relative SE sqrt(1/(2·39) − 1/(2·499)) = 0.11.
    tolerance = 4 * np.sqrt(1 / (2 * (n_boot - 1)) - 1 / (2 * 499))
    for n, key in enumerate(ETA_HUMAN):
        for c, name in ((1, "eta"), (2, "excess")):
            sd = np.std(check.replicates[:, n, c], ddof=1)
            assert abs(sd / ETA_SD[key][name] - 1) < tolerance


# The multi-judge Bayesian consensus (2 chains × 500 draws after 500 warm-up, seed 0, as in
# the notebook): its board against the human board, and each judge's η against the consensus.
BAYES_BOARD = (33.191, 0.895, 0.985)  # (MAE, tau, r)
BAYES_ETA = {  # judge: posterior mean η (logit) on its own model or family
    "gpt-3.5-turbo": -0.075,
    "claude-3-opus-20240229": 0.012,
    "gpt-4-0125-preview": 0.284,
}


@pytest.mark.slow
def test_bayesian_consensus_against_the_human_board(ppr) -> None:
    post = cn.fit_consensus(
        ppr, own_model=OWN, chains=2, draws=500, warmup=500, seed=0, progress=False
    )
    assert post.diagnostics["max_rhat"].max() < 1.05
    human = jb.fit_bt(ppr.human_battles(), target="human_label")
    elo = post.elo.set_index("model")["elo"].reindex(list(human.models)).to_numpy()
    ours = cn.board_metrics(elo, human.elo)
    # Monte Carlo error of the posterior means (ArviZ's MCSE per model, m_i). The notebook's
    # run and this one each carry it (identical on one machine, not across JAX builds), so
    # a difference has SD √2·m_i. MAE moves by at most mean|Δx_i − Δx̄| ≤ 2·mean|Δx_i|.
    draws = post.idata[0].posterior["elo"].sel(model=list(human.models))
    mcse = az.mcse(draws.to_dataset(name="elo"))["elo"].to_numpy()
    assert abs(ours["mae"] - BAYES_BOARD[0]) < 4 * np.sqrt(2) * 2 * mcse.mean()
    # τ moves by 2/190 for each pair of models whose order flips; only pairs whose gap in
    # posterior means is within 4 MC SEs of a difference can flip.
    i, j = np.triu_indices(len(elo), 1)
    close = np.abs(elo[i] - elo[j]) < 4 * np.sqrt(2) * np.hypot(mcse[i], mcse[j])
    assert abs(ours["tau"] - BAYES_BOARD[1]) <= 2 * close.sum() / len(i) + 1e-9
    # r = <u, v> with u the centred, normalised board: |Δr| ≤ |Δu| ≤ |Δx_c| / |x_c|.
    centred = np.linalg.norm(elo - elo.mean())
    assert abs(ours["r"] - BAYES_BOARD[2]) < 4 * np.sqrt(2) * np.linalg.norm(mcse) / centred
    eta = post.eta.set_index("judge")
    eta_mcse = az.mcse(post.idata[0], var_names=["eta"])["eta"].to_series()
    for judge, value in BAYES_ETA.items():
        assert abs(eta.loc[judge, "eta"] - value) < 4 * np.sqrt(2) * eta_mcse.loc[judge]
