"""The public API is pinned: adding or removing a name is a deliberate change."""

from __future__ import annotations

import judgebayes as jb

EXPECTED = {
    "ELO_BASE", "ELO_SCALE", "Battles", "BootstrapElo", "DataError", "DisconnectedGraphWarning",
    "DropReport", "EloFit", "GraphCheck", "JudgeBayesWarning", "PairStats", "SimulatedArena",
    "__version__", "bootstrap_bt", "check_graph", "elo_to_theta", "fit_bt", "read_arena",
    "read_battles", "read_consistency", "read_softelo", "read_table", "simulate_arena",
    "simulate_bt", "theta_to_elo", "ConformalEvaluation", "ConformalInterval", "ConformalPool",
    "HeldOutElo", "JudgeConsistency", "Temperature", "combine_orders", "compare_elo",
    "conformal_comparison", "evaluate_split_conformal", "fit_temperature", "held_out_elo",
    "judge_consistency", "loo_conformal", "simulate_judges", "split_conformal", "Calibration",
    "JudgedItems", "calibrate", "read_judged_items",
}


def test_public_names_are_pinned() -> None:
    assert set(jb.__all__) == EXPECTED
    for name in jb.__all__:
        assert hasattr(jb, name), name


def test_no_module_leaks_into_the_namespace() -> None:
    assert not {"np", "pd", "jax", "warnings"} & set(dir(jb))


def test_importing_the_package_does_not_load_jax_or_pymc() -> None:
    """`import judgebayes` stays light; the Bayesian engine loads JAX on first use."""
    import subprocess
    import sys

    code = "import sys, judgebayes; print(any(m in sys.modules for m in ('jax', 'pymc')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
