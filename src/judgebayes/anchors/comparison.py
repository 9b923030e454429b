"""Does keeping the margin rank better? Ordered logistic vs {−1, 0, 1} BT vs win-rate.

A simulation at equal budget (beyond Don-Yehiya, Yehudai, Choshen & Abend (*Mediocrity is the key
for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848), answering its stated limitation
that Bradley–Terry on {−1, 0, 1} discards the margin): for each replication, verdicts are simulated
from :func:`~judgebayes.anchors.simulate.simulate_verdicts` (known θ), one anchor-based table per
anchor position (strongest, median, weakest model) is cut from the same tensor, and three rankers
see exactly the same N·(M − 1) verdicts:

* **win-rate** (Don-Yehiya et al., 2026, Section 2, the anchor scored 1 − mean target win-rate);
* **BT** on the {−1, 0, 1} verdicts (Section 2);
* **ordinal**: the ordered-logistic model of :mod:`judgebayes.anchors.model`, its
  MAP (``jb.fit(..., method="map")``) or its NUTS posterior mean.

Each ranking's Kendall τ with the true θ (all M models, the anchor included) is
recorded; :meth:`RankerComparison.differences` gives the paired ordinal − BT gain per
anchor position with its standard error over replications.

By default the ordinal model is fitted without answer effects and prompt difficulty
(``model_options``): with them its MAP takes thousands of L-BFGS iterations and ranked
no better. On 20 replications of 12 models × 100 prompts (seeds 100–119) the gain in τ
over BT was, plain / full model: strongest anchor +0.059 ± 0.014 / +0.059 ± 0.016,
weakest +0.031 ± 0.017 / +0.049 ± 0.021, median +0.008 ± 0.005 / −0.018 ± 0.010. The
margin helps where the paper's anchors fail — an extreme anchor, whose {−1, 0, 1}
verdicts saturate while "slightly" vs "clearly" still separates the targets — and not
with a median anchor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.anchors.model import ordered_logistic_spec, theta_means
from judgebayes.anchors.rankings import anchor_bt_scores, kendall, win_rate_scores
from judgebayes.anchors.simulate import SimulatedVerdicts, simulate_verdicts
from judgebayes.bayes.inference import fit
from judgebayes.core.bootstrap import one_blas_thread
from judgebayes.core.results import ResultDisplay
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["RankerComparison", "compare_rankers"]

METHODS = ("win_rate", "bt", "ordinal")
_PLAIN = {"answer_effects": False, "difficulty": False}


def _mean_se(grouped: pd.core.groupby.SeriesGroupBy) -> pd.DataFrame:
    """Mean and standard error (sd / √n) per group, the groups as columns."""
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out.pop("std") / np.sqrt(out.pop("count"))
    return out


@dataclass(frozen=True, repr=False)
class RankerComparison(ResultDisplay):
    """τ with the truth of three rankers on the same anchor-based verdicts.

    Attributes
    ----------
    taus
        One row per (replication, anchor position, method): ``replication, position,
        anchor, method, tau``.
    n_models, n_prompts
        Simulation size; every ranker sees ``n_prompts·(n_models − 1)`` verdicts.
    fit_method
        ``"map"`` or ``"nuts"`` for the ordinal model.
    seed
        Seed of the first replication (replication r uses ``seed + r``).
    """

    taus: pd.DataFrame
    n_models: int
    n_prompts: int
    fit_method: str
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """Mean τ and its standard error per anchor position and method."""
        g = self.taus.groupby(["position", "method"], sort=False)["tau"]
        return _mean_se(g).rename(columns={"mean": "mean_tau"})

    def differences(self, baseline: str = "bt") -> pd.DataFrame:
        """Paired τ(ordinal) − τ(baseline) per anchor position: mean, se, share of wins."""
        wide = self.taus.pivot_table(
            index=["replication", "position"], columns="method", values="tau"
        ).reset_index()
        wide["gain"] = wide["ordinal"] - wide[baseline]
        g = wide.groupby("position", sort=False)["gain"]
        out = _mean_se(g)
        out["ordinal_better"] = g.apply(lambda x: float((x > 0).mean())).to_numpy()
        out["ties"] = g.apply(lambda x: float((x == 0).mean())).to_numpy()
        return out.rename(columns={"mean": f"gain_vs_{baseline}"})

    def _headline(self) -> str:
        d = self.differences()
        parts = ", ".join(
            f"{p} {g:+.3f} ± {s:.3f}"
            for p, g, s in zip(d["position"], d["gain_vs_bt"], d["se"], strict=True)
        )
        reps = self.taus["replication"].nunique()
        return (
            f"{reps} replications, {self.n_models} models × {self.n_prompts} prompts, "
            f"ordinal ({self.fit_method}) − BT τ with the truth by anchor: {parts}"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Mean τ with the truth (± se) per anchor position, one bar per method."""
        f = self.to_frame()
        ax = panel_axes(ax, (6.5, 4))
        positions = list(dict.fromkeys(f["position"]))
        width = 0.8 / len(METHODS)
        for k, method in enumerate(METHODS):
            rows = f[f["method"] == method].set_index("position").reindex(positions)
            x = np.arange(len(positions)) + (k - (len(METHODS) - 1) / 2) * width
            ax.bar(x, rows["mean_tau"], width, yerr=rows["se"], capsize=2, label=method)
        ax.set_xticks(np.arange(len(positions)), [f"{p} anchor" for p in positions])
        lo = float(np.nanmin(f["mean_tau"] - f["se"]))
        ax.set_ylim(max(0.0, lo - 0.05), 1.0)
        ax.set_ylabel("Kendall τ with the true θ")
        ax.legend(frameon=False, fontsize=8)
        ax.grid(alpha=0.3, axis="y")
        return ax


def compare_rankers(
    *,
    n_models: int = 12,
    n_prompts: int = 100,
    positions: Sequence[str | int] = ("strongest", "median", "weakest"),
    replications: int = 10,
    fit_method: str = "map",
    model_options: Mapping[str, Any] | None = None,
    sim_options: Mapping[str, Any] | None = None,
    chains: int = 2,
    draws: int = 300,
    seed: int = 0,
    progress: bool = True,
) -> RankerComparison:
    """τ with the truth of win-rate, {−1, 0, 1} BT and the ordinal model at equal budget.

    Parameters
    ----------
    n_models, n_prompts
        Size of each simulated benchmark.
    positions
        Anchor positions in the true ranking (``"strongest"``, ``"median"``,
        ``"weakest"`` or a 0-based rank).
    replications
        Simulated benchmarks (replication r uses seed ``seed + r``).
    fit_method
        ``"map"`` (default) or ``"nuts"`` (posterior mean; ``chains`` × ``draws``).
    model_options
        Options of :func:`~judgebayes.anchors.model.ordered_logistic_spec`; default
        no answer effects and no prompt difficulty (see the module docstring).
    sim_options
        Options of :func:`~judgebayes.anchors.simulate.simulate_verdicts`.
    """
    if fit_method not in ("map", "nuts"):
        raise ValueError(f"fit_method must be 'map' or 'nuts', got {fit_method!r}")
    options = dict(_PLAIN if model_options is None else model_options)
    rows = []
    # BLAS on one thread: SciPy's L-BFGS beside JAX's threads oversubscribes the cores
    # (docs/benchmarks.md)
    with (
        tqdm(total=replications * len(positions), desc="rankers", disable=not progress) as bar,
        one_blas_thread(),
    ):
        for r in range(replications):
            sim = simulate_verdicts(n_models, n_prompts, seed=seed + r, **dict(sim_options or {}))
            for pos in positions:
                rows += _compare_once(sim, pos, r, fit_method, options, chains, draws, seed + r)
                bar.update()
    return RankerComparison(
        taus=pd.DataFrame(rows),
        n_models=n_models,
        n_prompts=n_prompts,
        fit_method=fit_method,
        seed=seed,
    )


def _compare_once(
    sim: SimulatedVerdicts,
    pos: str | int,
    r: int,
    fit_method: str,
    options: Mapping[str, Any],
    chains: int,
    draws: int,
    seed: int,
) -> list[dict]:
    """τ with the truth of the three rankers on one anchor-based table."""
    anchor = sim.anchor_at(pos)
    table = sim.table(anchor=anchor)
    k = table.models.index(anchor)
    v3 = table.tensor(scale="three")
    spec = ordered_logistic_spec(table, **options)
    if fit_method == "map":
        ordinal = fit(spec, method="map", draws=20, seed=seed)["map"]["theta"].values
    else:
        idata = fit(spec, chains=chains, draws=draws, warmup=draws, seed=seed, progress=False)
        ordinal = theta_means(idata).reindex(table.models).to_numpy()
    truth = sim.truth().reindex(table.models).to_numpy()
    scores = {"win_rate": win_rate_scores(v3, k), "bt": anchor_bt_scores(v3, k), "ordinal": ordinal}
    return [
        {
            "replication": r,
            "position": str(pos),
            "anchor": anchor,
            "method": m,
            "tau": kendall(scores[m], truth),
        }
        for m in METHODS
    ]
