"""Seed 001 (judge misclassification) on real verdicts: debias_judge/ and ppr/.

Fiedler, *Bias and Uncertainty in LLM-as-a-Judge Estimation* (2026, arXiv:2605.06939) on
data nobody here simulated:

* ``debias_judge/`` (github.com/yiqunchen/debias-llm-as-a-judge): claude-opus-4 against
  three opponents, every battle with its human winner and two judges' picks. θ = P(humans
  prefer Claude) per opponent. Checked against the upstream vignette's rates and against a
  count of the raw JSON.
* ``ppr/`` (Chatzi et al., *Prediction-Powered Ranking of Large Language Models*, NeurIPS
  2024, arXiv:2402.17826): humans and three judges on the same battles; a model's win rate
  against the field as judged items (``JudgedItems.from_battles``). Checked against the data
  README's agreement rates and position bias, and against the win rates of
  :mod:`judgebayes.rankings` (an independent implementation of PPR's step 1).

The split studies' headline numbers come from the notebook's full run
(``notebooks/shared_vs_model_specific_calibration.ipynb``, section "On real data"); here a
smaller run is checked against them within Monte Carlo error, the tolerance derived in
each test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.calibration import JudgedItems, judge_rates, split_study
from judgebayes.cli import main
from judgebayes.rankings import RankingData, human_win_rates, judge_win_rates

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TARGET = "claude-opus-4-20250514"
# The 12 models of the PPR paper's main experiment (upstream scripts/config.json).
FIELD = [
    "vicuna-13b",
    "koala-13b",
    "gpt-3.5-turbo",
    "gpt-4",
    "oasst-pythia-12b",
    "alpaca-13b",
    "claude-v1",
    "RWKV-4-Raven-14B",
    "chatglm-6b",
    "fastchat-t5-3b",
    "palm-2",
    "claude-instant-v1",
]


def _raw_counts(opponent: str, judge: str) -> pd.DataFrame:
    """The vignette's Y and Ŷ, counted from the raw JSON with nothing of the package."""
    path = DATA / "debias_judge" / f"{TARGET}_vs_{opponent}_{judge}.json"
    rows = json.loads(path.read_text())
    out = []
    for r in rows:
        if r["judge_pick"] is None:
            continue
        claude_a = r["model_a"] == TARGET
        y = (r["human_winner"] == "model_a") == claude_a
        yhat = (r["judge_pick"] == "A") == claude_a
        out.append((int(y), int(yhat)))
    return pd.DataFrame(out, columns=["y", "yhat"])


@pytest.fixture(scope="module")
def debias() -> dict[str, JudgedItems]:
    return {j: jb.datasets.load_debias_judge(j) for j in jb.datasets.DEBIAS_JUDGES}


def test_debias_rates_match_the_vignette_and_the_raw_files(debias: dict) -> None:
    pro = debias["gpt-4o-mini"].frame.query("model == 'gemini-2.5-pro'")
    # the vignette: 276 battles with a pick, human preference 0.236, the judge's 0.159
    assert len(pro) == 276
    assert round(pro["human_label"].mean(), 3) == 0.236
    assert round(pro["judge_label"].mean(), 3) == 0.159
    for judge, items in debias.items():
        f = items.frame
        for opponent in jb.datasets.DEBIAS_OPPONENTS:
            raw = _raw_counts(opponent, judge)
            mine = f[f["model"] == opponent]
            assert len(mine) == len(raw)
            assert mine["human_label"].sum() == raw["y"].sum()
            assert mine["judge_label"].sum() == raw["yhat"].sum()
            # Youden's J from the 2 × 2 table of the raw counts
            t = pd.crosstab(raw["y"], raw["yhat"])
            j = t.loc[1, 1] / t.loc[1].sum() + t.loc[0, 0] / t.loc[0].sum() - 1
            rates = judge_rates(mine["human_label"], mine["judge_label"])
            assert rates.j == pytest.approx(j, abs=1e-12)


def test_debias_judges_are_near_chance_on_every_opponent(debias: dict) -> None:
    """The finding: on all 876 battles neither judge reaches J = 0.3 against any opponent,
    and two of the six (judge, opponent) cells have Ĵ within 0.02 of 0, their 95% Wald
    intervals (binomial SEs of q̂0, q̂1) containing 0."""
    js = {}
    for judge, items in debias.items():
        f = items.frame
        for opponent, g in f.groupby("model"):
            js[judge, opponent] = judge_rates(g["human_label"], g["judge_label"])
    assert max(r.j for r in js.values()) < 0.3
    for cell in (("gpt-4o-mini", "gemini-2.5-pro"), ("gpt-5.2", "qwen3-235b-a22b-no-thinking")):
        r = js[cell]
        assert abs(r.j) < 0.02 and r.ci("j")[0] < 0 < r.ci("j")[1], cell


@pytest.fixture(scope="module")
def ppr() -> jb.Battles:
    return jb.datasets.load_ppr()


def test_ppr_items_reproduce_the_readme_and_the_rankings_win_rates(ppr: jb.Battles) -> None:
    # README: on battles neither side calls a tie the judges agree with humans 0.83, 0.72,
    # 0.57; each battle is two items with the same agreement
    agreement = {"gpt-4-0125-preview": 0.83, "claude-3-opus-20240229": 0.72, "gpt-3.5-turbo": 0.57}
    for judge, rate in agreement.items():
        f = JudgedItems.from_battles(ppr, judge, ties="drop").frame
        assert round((f["judge_label"] == f["human_label"]).mean(), 2) == rate
    # README: gpt-3.5-turbo says model_a in 86% of battles
    v = ppr.judge_labels()["gpt-3.5-turbo"]
    assert round((v == 1).mean(), 2) == 0.86
    # θ (all human labels) and the naive p̂ per model equal PPR's step-1 win rates
    # (ties are no win), computed by judgebayes.rankings from the battle arrays
    bf = ppr.battle_frame()
    field = bf["model_a"].isin(FIELD) & bf["model_b"].isin(FIELD)
    bf, verdicts = bf[field.to_numpy()], ppr.judge_labels()[field.to_numpy()]
    data = RankingData.from_arrays(
        bf["model_a"].astype(str),
        bf["model_b"].astype(str),
        bf["human_label"],
        {"gpt-3.5-turbo": verdicts["gpt-3.5-turbo"].to_numpy()},
        models=sorted(FIELD),
    )
    items = JudgedItems.from_battles(ppr, "gpt-3.5-turbo", models=FIELD)
    assert len(items) == 2 * len(bf) == 2 * 14_947
    human, judge = human_win_rates(data), judge_win_rates(data, "gpt-3.5-turbo")
    np.testing.assert_allclose(items.human_accuracy().to_numpy(), human.estimate, atol=1e-12)
    naive = items.frame.groupby("model")["judge_label"].mean().reindex(items.models)
    np.testing.assert_allclose(naive.to_numpy(), judge.estimate, atol=1e-12)


def test_calibrate_cli_on_the_debias_folder(capsys: pytest.CaptureFixture) -> None:
    code = main(
        [
            "calibrate",
            str(DATA / "debias_judge"),
            "--judge",
            "gpt-4o-mini",
            "--calibration-size",
            "0.1",
            "--per-model",
            "--n-boot",
            "200",
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    # 10% of 325, 276 and 275 battles: 32 + 28 + 28 calibration items
    assert "88 human-labelled items kept, 788 test items" in out
    assert "true θ (test)" in out and "low judge quality" in out


def _binomial_tolerance(reference: float, n_test: int, n_reference: int) -> float:
    """3 SE of the difference of two independent coverage estimates (n_test and
    n_reference splits) of a rate near ``reference``; the rate is kept within [0.02, 0.98]
    so that a reference of 0 or 1 still leaves room for one split either way."""
    p = min(max(reference, 0.02), 0.98)
    return 3 * np.sqrt(p * (1 - p) * (1 / n_test + 1 / n_reference))


def test_debias_split_study_headlines(debias: dict) -> None:
    """gpt-5.2, 25% of each opponent's battles labelled. The notebook's run (200 splits,
    seed 0, 1,000 bootstrap replicates) found: RG (shared) with gemini-2.5-flash's
    calibration covers θ[qwen3] in 0.020 of splits, biased by +0.597 (its estimate is
    clipped at 1); PPI++ 2× covers every θ and Δθ in 0.965–0.975; the ΔĴ[qwen3 − flash]
    interval excludes 0 in 0.085 of splits, Δq̂0's in 0.715. Here 60 other splits
    (size 0.25 alone, so other unit seeds) with 300 replicates: each rate must lie
    within 3 SE of the difference of the two binomial estimates (about ±0.06 at 0.02,
    ±0.12 at 0.085, ±0.20 at 0.715); the bias within 3 SE of its split-to-split sd."""
    n = 60
    study = split_study(
        debias["gpt-5.2"],
        sizes=(0.25,),
        n_splits=n,
        per_model=True,
        baseline="gemini-2.5-flash",
        n_boot=300,
        seed=0,
        progress=False,
    )
    s = study.summary().set_index(["quantity", "estimator"])
    qwen, flash = "theta[qwen3-235b-a22b-no-thinking]", "theta[gemini-2.5-flash]"
    rg = s.loc[(qwen, "rg")]
    assert abs(rg["coverage"] - 0.020) <= _binomial_tolerance(0.020, n, 200)
    assert abs(rg["bias"] - 0.597) <= 3 * np.hypot(rg["bias_mcse"], 0.0016)
    for q in study.truth.index:
        assert s.loc[(q, "ppi_2x"), "coverage"] >= 0.965 - _binomial_tolerance(0.965, n, 200), q
    assert s.loc[(f"{qwen} - {flash}", "rg"), "coverage"] <= _binomial_tolerance(0.0, n, 200)
    rates = study.flag_rates().set_index(["what", "quantity"])["rate"]
    dj = rates[("delta_J", "J[qwen3-235b-a22b-no-thinking] - J[gemini-2.5-flash]")]
    dq0 = rates[("delta_q0", "q0[qwen3-235b-a22b-no-thinking] - q0[gemini-2.5-flash]")]
    assert abs(dj - 0.085) <= _binomial_tolerance(0.085, n, 200)
    assert abs(dq0 - 0.715) <= _binomial_tolerance(0.715, n, 200)


@pytest.mark.slow
def test_ppr_position_bias_is_low_j_not_delta_j(ppr: jb.Battles) -> None:
    """gpt-3.5-turbo (says model_a in 86% of battles) on the PPR field, n = 500 labelled
    battles. The notebook's run (50 splits, seed 1) found: Ĵ < 0.3 for 0.948 of the
    (model, split) pairs, ΔĴ against vicuna-13b excluding 0 for 0.071 of the (comparison,
    split) pairs, PPI++ 2× covering the 12 models' θ in 0.94 of (model, split) pairs on
    average. The position bias is the same for every model, so it lowers every J and
    leaves ΔJ near 0. Here 12 other splits; the tolerance is 3 SE of the difference of two
    binomial rates counted with the splits as the unit (the models of one split share its
    calibration set, so they are not independent): at 0.948, ±0.20; at 0.071, ±0.23;
    at 0.94, ±0.21."""
    n = 12
    items = JudgedItems.from_battles(ppr, "gpt-3.5-turbo", models=FIELD)
    study = split_study(
        items,
        sizes=(500,),
        n_splits=n,
        baseline="vicuna-13b",
        n_boot=200,
        seed=5,
        progress=False,
    )
    rates = study.flag_rates().groupby("what")["rate"].mean()
    assert abs(rates["J"] - 0.948) <= _binomial_tolerance(0.948, n, 50)
    assert abs(rates["delta_J"] - 0.071) <= _binomial_tolerance(0.071, n, 50)
    s = study.summary()
    theta = s[(s["estimator"] == "ppi_2x") & ~s["quantity"].str.contains(" - ")]
    assert abs(theta["coverage"].mean() - 0.94) <= _binomial_tolerance(0.94, n, 50)
