"""The model catalogue: each generative model with its fixed reference data set.

``models/<name>/card.md`` describes each model; ``models/<name>/reference.json``
holds reference posterior summaries from long NUTS runs
(``models/make_reference.py``) on the data that :func:`build` recreates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scipy.special import expit

from judgebayes.bayes.bt_models import bt_data, bt_model, davidson_data, davidson_model
from judgebayes.bayes.multi_judge import multi_judge_data, multi_judge_model
from judgebayes.simulate import simulate_arena, simulate_bt, simulate_judges

__all__ = ["CATALOGUE", "build"]

CATALOGUE: dict[str, dict[str, Any]] = {
    "bt_hard": {
        "data": {
            "simulator": "simulate_bt",
            "n_models": 6,
            "n_battles": 900,
            "tie_nu": 0.5,
            "seed": 101,
            "target": "human_label (ties as 1/2)",
            "lam": 0.01,
        },
        "summarise": ["elo"],
    },
    "bt_soft": {
        "data": {
            "simulator": "simulate_arena",
            "n_models": 6,
            "n_battles": 900,
            "seed": 102,
            "target": "sigma(0.5 * score_diff)",
            "lam": 0.01,
        },
        "summarise": ["elo"],
    },
    "davidson": {
        "data": {
            "simulator": "simulate_bt",
            "n_models": 6,
            "n_battles": 900,
            "tie_nu": 0.5,
            "seed": 101,
            "target": "human_label counts (win / tie / loss)",
            "lam": 0.01,
        },
        "summarise": ["elo", "nu"],
    },
    "multi_judge": {
        "data": {
            "simulator": "simulate_judges",
            "n_models": 6,
            "n_judges": 3,
            "n_battles": 800,
            "psi": [0.6, 1.0, 1.5],
            "tau": 0.1,
            "eta": [0.0, 0.8, 0.0],
            "own_model": {"judge-1": "model-2"},
            "seed": 103,
        },
        "summarise": ["elo", "psi", "eta", "tau"],
    },
}


def build(name: str) -> tuple[Callable, dict, dict, dict]:
    """Model function, data, coords and dims of a catalogue entry."""
    spec = CATALOGUE[name]["data"]
    if name in ("bt_hard", "davidson"):
        stats = simulate_bt(
            spec["n_models"], spec["n_battles"], tie_nu=spec["tie_nu"], seed=spec["seed"]
        ).battles.pair_stats("human_label")
        coords = {"model": list(stats.models)}
        dims = {"theta": ["model"], "elo": ["model"]}
        if name == "bt_hard":
            return bt_model, bt_data(stats, spec["lam"]), coords, dims
        return davidson_model, davidson_data(stats, spec["lam"]), coords, dims
    if name == "bt_soft":
        battles = simulate_arena(spec["n_models"], spec["n_battles"], seed=spec["seed"]).battles
        stats = battles.pair_stats(expit(0.5 * battles.column("score_diff")))
        return (
            bt_model,
            bt_data(stats, spec["lam"]),
            {"model": list(stats.models)},
            {"theta": ["model"], "elo": ["model"]},
        )
    if name == "multi_judge":
        sim = simulate_judges(
            spec["n_models"],
            spec["n_judges"],
            spec["n_battles"],
            psi=spec["psi"],
            tau=spec["tau"],
            eta=spec["eta"],
            own_model=spec["own_model"],
            seed=spec["seed"],
        )
        data, coords, dims = multi_judge_data(sim.battles, own_model=spec["own_model"])
        return multi_judge_model, data, coords, dims
    raise KeyError(f"unknown catalogue model {name!r}; choose one of {list(CATALOGUE)}")
