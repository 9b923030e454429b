"""The public API is pinned: adding or removing a name is a deliberate change."""

from __future__ import annotations

import judgebayes as jb

EXPECTED = {
    "ELO_BASE", "ELO_SCALE", "Battles", "BootstrapElo", "DataError", "DisconnectedGraphWarning",
    "DropReport", "EloFit", "GraphCheck", "JudgeBayesWarning", "PairStats", "SimulatedArena",
    "__version__", "bootstrap_bt", "check_graph", "elo_to_theta", "fit_bt", "read_arena",
    "read_battles", "read_consistency", "read_softelo", "read_table", "simulate_arena",
    "simulate_bt", "theta_to_elo",
}


def test_public_names_are_pinned() -> None:
    assert set(jb.__all__) == EXPECTED
    for name in jb.__all__:
        assert hasattr(jb, name), name


def test_no_module_leaks_into_the_namespace() -> None:
    assert not {"np", "pd", "jax", "warnings"} & set(dir(jb))
