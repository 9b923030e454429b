"""Comparison-graph checks: what the battles can and cannot identify.

Bradley–Terry strengths are identified only up to a shift within each connected
component of the comparison graph (models are nodes, a pair with battles is an
edge), and a model that won (or lost) every battle has no finite MLE: with the L2
penalty its rating is set by the penalty, not the data. Both are reported, never
fitted past silently.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from judgebayes.core.pairs import PairStats
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DisconnectedGraphWarning, JudgeBayesWarning

__all__ = ["GraphCheck", "check_graph"]


@dataclass(frozen=True, repr=False)
class GraphCheck(ResultDisplay):
    """Connectivity and degenerate models of a comparison graph.

    Attributes
    ----------
    components
        Model names of each connected component, largest first.
    all_wins, all_losses
        Models whose every battle was a win (target 1) or a loss (target 0).
    """

    components: tuple[tuple[str, ...], ...]
    all_wins: tuple[str, ...]
    all_losses: tuple[str, ...]

    @property
    def connected(self) -> bool:
        return len(self.components) <= 1

    def component_of(self) -> dict[str, int]:
        """Map model name → index of its component."""
        return {m: k for k, comp in enumerate(self.components) for m in comp}

    def describe(self) -> list[str]:
        """Human-readable problems (empty when there are none)."""
        lines = []
        if not self.connected:
            groups = "; ".join("{" + ", ".join(c) + "}" for c in self.components)
            lines.append(
                f"the comparison graph has {len(self.components)} disconnected components, "
                f"so Elo differences across them are not identified (each component is "
                f"centred at 1500 by the L2 penalty): {groups}"
            )
        if self.all_wins:
            lines.append(
                f"won every battle (rating set by the penalty, not the data): "
                f"{', '.join(self.all_wins)}"
            )
        if self.all_losses:
            lines.append(
                f"lost every battle (rating set by the penalty, not the data): "
                f"{', '.join(self.all_losses)}"
            )
        return lines

    def warn(self, stacklevel: int = 3) -> None:
        """Emit the problems as warnings."""
        if not self.connected:
            warnings.warn(self.describe()[0], DisconnectedGraphWarning, stacklevel=stacklevel)
        for line in self.describe()[(0 if self.connected else 1) :]:
            warnings.warn(line, JudgeBayesWarning, stacklevel=stacklevel)

    def _headline(self) -> str:
        n = sum(len(c) for c in self.components)
        state = "connected" if self.connected else f"{len(self.components)} components"
        return (
            f"{n} models, {state}; {len(self.all_wins)} won every battle, "
            f"{len(self.all_losses)} lost every battle"
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per model: ``model, component, all_wins, all_losses``."""
        comp = self.component_of()
        return pd.DataFrame(
            {
                "model": list(comp),
                "component": list(comp.values()),
                "all_wins": [m in self.all_wins for m in comp],
                "all_losses": [m in self.all_losses for m in comp],
            }
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "components": [list(c) for c in self.components],
            "all_wins": list(self.all_wins),
            "all_losses": list(self.all_losses),
        }


def check_graph(stats: PairStats) -> GraphCheck:
    """Connected components and all-win / all-loss models of pair statistics."""
    m = stats.n_models
    has = stats.n > 0
    adj = coo_matrix((np.ones(int(has.sum())), (stats.i[has], stats.j[has])), shape=(m, m))
    k, labels = connected_components(adj, directed=False)
    comps = [tuple(stats.models[x] for x in np.flatnonzero(labels == c)) for c in range(k)]
    comps.sort(key=lambda c: (-len(c), c))
    # Total target and weight per model, oriented to that model.
    score = np.bincount(stats.i, stats.y, minlength=m) + np.bincount(
        stats.j, stats.n - stats.y, minlength=m
    )
    total = np.bincount(stats.i, stats.n, minlength=m) + np.bincount(stats.j, stats.n, minlength=m)
    tol = 1e-12 * np.maximum(total, 1.0)
    wins = tuple(stats.models[x] for x in np.flatnonzero((total > 0) & (score >= total - tol)))
    losses = tuple(stats.models[x] for x in np.flatnonzero((total > 0) & (score <= tol)))
    return GraphCheck(tuple(comps), wins, losses)
