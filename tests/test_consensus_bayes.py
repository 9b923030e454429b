"""The Bayesian counterpart of UDA: the multi-judge BT on the simulator and the real 24 judges.

Both fits have the same layout (24 judges, 5 models, 240 judge × pair cells: one component of
the real data, or the real-data-shaped simulation), so NUTS is compiled once for the module.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import test_consensus_uda
from conftest import SHARED_DATA
from judgebayes.cli import main
from judgebayes.consensus import compare_rating_methods, fit_consensus, online_elo

sim = test_consensus_uda.sim  # the same simulation, as a fixture


@pytest.fixture(scope="module")
def posterior(sim):
    return fit_consensus(
        sim.battles,
        own_model=sim.own_model,
        chains=2,
        draws=300,
        warmup=300,
        seed=0,
        progress=False,
    )


def test_posterior_self_preference_covers_the_simulated_eta(sim, posterior) -> None:
    """The 95% intervals of η cover the simulated η = γ(1 − c̄) (simulate module docstring).

    Monte Carlo basis of the tolerance: on 40 data sets of this design (seeds 0–39, the same
    2 chains × 300 draws), 191 of the 200 intervals covered (95.5%), and 39 of the 40 data
    sets had at least 4 of 5 covered, which is what is asserted (seed 0 covers all five).
    Coverage is not uniform: 34/40 (85%) for the judge with γ = 4, whose η the posterior
    underestimates by 0.27 on average — γ(1 − c̄) is a first-order summary, and resemblance
    that varies from prompt to prompt attenuates the marginal log-odds of a strong bias."""
    coverage = posterior.eta_coverage(sim.judges["eta"])
    assert coverage["covered"].sum() >= 4
    strongest = coverage.set_index("judge").loc["judge-4"]
    assert strongest["eta_lo"] > 0.5 and strongest["p_positive"] == 1.0
    assert posterior.correlation(sim.elo) > 0.98
    assert posterior.diagnostics["max_rhat"].max() < 1.1
    assert "η[judge-4]" in repr(posterior)


def test_judge_views_are_less_dispersed_than_the_baseline(sim, posterior) -> None:
    result = compare_rating_methods(
        [online_elo(sim.battles), posterior.judge_ratings()], reference=sim.elo, own=sim.own_model
    )
    assert result.mean_sd["bayes"] < 0.5 * result.mean_sd["baseline"]
    assert result.mean_correlation["bayes"] > result.mean_correlation["baseline"]
    # ψ: every simulated judge has ψ = 1
    assert posterior.psi["psi"].between(0.7, 1.4).all()


def test_posterior_plots(sim, posterior) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    for ax, kind in zip(axes, ("elo", "eta", "psi"), strict=True):
        assert (
            posterior.plot(kind, ax, truth=sim.judges["eta"].to_dict() if kind == "eta" else None)
            is ax
        )
    assert "posterior" in axes[0].get_legend().get_texts()[0].get_text()
    plt.close(fig)


def _strict(text: str) -> dict:
    def bad(token: str) -> None:
        raise ValueError(f"non-strict JSON token {token}")

    return json.loads(text, parse_constant=bad)


def test_cli_on_real_verdicts_of_24_judges(consistency_battles, tmp_path: Path, capsys) -> None:
    """The component of the real data in which two judges (zephyr-7b-beta,
    mistral-7b-instruct) are also contestants: 24 judges × 10 pairs, written as a battles CSV.
    (Same draws and warm-up as the simulation: NUTS is compiled for the layout *and* the run
    length, so the CLI reuses the compiled sampler.)"""
    group = [
        "gpt-3.5-turbo-0613",
        "llama-2-13b-chat",
        "llama-2-7b-chat",
        "mistral-7b-instruct",
        "zephyr-7b-beta",
    ]
    frame = consistency_battles.frame
    path = tmp_path / "component.csv"
    frame[frame["model_a"].isin(group)].to_csv(path, index=False)
    args = [
        "consensus",
        str(path),
        "--draws",
        "300",
        "--warmup",
        "300",
        "--no-progress",
        "--out",
        str(tmp_path / "out"),
        "--reference",
        str(SHARED_DATA / "llm_consistency" / "contestant_arena_elo.csv"),
        "--own",
        "zephyr-7b-beta=zephyr-7b-beta",
        "--own",
        "mistral-7b-instruct=mistral-7b-instruct",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "24 judges on 5 models" in out and "self-preference η" in out
    eta = pd.read_csv(tmp_path / "out" / "self_preference.csv")
    assert list(eta.columns[:5]) == ["judge", "model", "eta", "eta_lo", "eta_hi"]
    assert set(eta["judge"]) == {"zephyr-7b-beta", "mistral-7b-instruct"}
    assert ((eta["eta_lo"] < eta["eta"]) & (eta["eta"] < eta["eta_hi"])).all()
    sd = pd.read_csv(tmp_path / "out" / "inter_judge_sd.csv")
    assert list(sd.columns) == ["model", "sd_baseline", "sd_bt", "sd_bayes"] and len(sd) == 5
    summary = _strict((tmp_path / "out" / "summary.json").read_text())
    assert summary["components"] == 1 and len(summary["bayes"]["consensus"]) == 5
    # judge views agree with the human Arena Elo better than each judge's online Elo does,
    # and the consensus puts last the model the Arena puts last
    assert summary["mean_r"]["bayes"] > summary["mean_r"]["baseline"]
    assert summary["bayes"]["consensus"][-1]["model"] == "mistral-7b-instruct"
    assert all(math.isfinite(r["eta"]) for r in summary["self_preference"])
