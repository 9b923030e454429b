"""Anchor-free adaptive design: which pairs to judge next (beyond Don-Yehiya, Yehudai, Choshen &
Abend (*Mediocrity is the key for LLM as a Judge Anchor Selection*, ACL 2026, arXiv:2603.16848)).

Don-Yehiya et al. (2026) ask which single anchor wastes the fewest judgments. An adaptive design
drops the anchor: after each batch, the ordered-logistic model
(:mod:`judgebayes.anchors.model`, without answer effects or prompt difficulty, so that
verdicts are exchangeable given θ) is refitted by MAP + Laplace, and the next batch is
the model pairs whose next verdict carries the most expected information about the
parameters (BALD: the mutual information between the verdict and the parameters),

    EIG(a, b) = H[ E_θ p(v | θ_a − θ_b, κ) ] − E_θ H[ p(v | θ_a − θ_b, κ) ],

estimated from the Laplace draws. Pairs near a tie in strength *and* uncertain win;
a pair whose verdict is already predictable (a strong model against a weak one: the
saturation of Don-Yehiya et al. (2026), Figure 2) loses.

:func:`adaptive_design` replays this on a :class:`~judgebayes.anchors.simulate.SimulatedVerdicts`
tensor (each judgment reads a verdict of the chosen pair on a prompt not yet used for
it) against two fixed designs of the same budget: every model against one anchor
(Don-Yehiya et al.'s (2026) design) and uniformly random pairs, and records Kendall τ of each
design's MAP ranking with the true θ as the budget is spent.

It does not win. Over 8 simulations (12 models × 200 prompts, seeds 20–27, budget 400 in
batches of 50) τ with the truth at 400 judgments was 0.864 ± 0.018 (adaptive), 0.856 ±
0.026 (median anchor) and 0.886 ± 0.028 (random pairs); paired adaptive − anchor
+0.008 ± 0.029, adaptive − random −0.023 ± 0.030. Greedy BALD concentrates each batch on
the closest, most uncertain pairs (the distinct top-``batch`` pairs of one refit), which
sharpens a few local orders while random pairs spread the budget over the whole ranking;
a ranking-targeted utility (expected reduction in pairwise order uncertainty) or
sequential rather than batch refits are the obvious next steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.special import entr, expit
from tqdm.auto import tqdm

from judgebayes.anchors.model import ordered_logistic_spec
from judgebayes.anchors.rankings import kendall
from judgebayes.anchors.simulate import SimulatedVerdicts
from judgebayes.anchors.verdicts import verdict_table
from judgebayes.bayes.inference import fit
from judgebayes.core.bootstrap import one_blas_thread
from judgebayes.core.results import ResultDisplay
from judgebayes.plots import panel_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["AdaptiveDesign", "adaptive_design", "expected_information"]

DESIGNS = ("adaptive", "anchor", "random")
_PLAIN = {"answer_effects": False, "difficulty": False, "position_bias": False}


def _category_probs(eta: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """Ordered-logistic probabilities ``(S, P, n_levels)`` for η ``(S, P)``, κ ``(S, L − 1)``."""
    cdf = expit(cut[:, None, :] - eta[..., None])
    ones = np.ones((*cdf.shape[:-1], 1))
    return np.diff(np.concatenate([0.0 * ones, cdf, ones], axis=-1), axis=-1)


def expected_information(
    theta: np.ndarray, cutpoints: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """BALD expected information gain of one more verdict of each pair (a, b), in nats.

    Parameters
    ----------
    theta
        Posterior draws ``(S, n_models)``.
    cutpoints
        Draws of one judge's cut-points ``(S, n_levels − 1)``.
    a, b
        Model indices of the candidate pairs.
    """
    p = _category_probs(theta[:, a] - theta[:, b], cutpoints)
    marginal = entr(p.mean(axis=0)).sum(axis=-1)
    conditional = entr(p).sum(axis=-1).mean(axis=0)
    return marginal - conditional


@dataclass(frozen=True, repr=False)
class AdaptiveDesign(ResultDisplay):
    """τ with the truth as the budget is spent, per design.

    Attributes
    ----------
    curve
        ``design, n_judgments, tau``.
    anchor
        The fixed design's anchor.
    pairs_judged
        Per design, the number of distinct pairs judged at the end.
    seed
        Random seed.
    """

    curve: pd.DataFrame
    anchor: str
    pairs_judged: dict
    seed: int

    def to_frame(self) -> pd.DataFrame:
        """τ per design (columns) at each budget (rows)."""
        return self.curve.pivot(index="n_judgments", columns="design", values="tau")

    def _headline(self) -> str:
        last = self.curve[self.curve["n_judgments"] == self.curve["n_judgments"].max()]
        parts = ", ".join(f"{d} {t:.3f}" for d, t in zip(last["design"], last["tau"], strict=True))
        return (
            f"{int(last['n_judgments'].iloc[0]):,} judgments, τ with the truth: {parts} "
            f"(anchor {self.anchor})"
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """τ with the truth against judgments spent, one line per design."""
        ax = panel_axes(ax, (6, 4))
        for design, rows in self.curve.groupby("design", sort=False):
            ax.plot(rows["n_judgments"], rows["tau"], "o-", ms=3, label=str(design))
        ax.set_xlabel("judgments")
        ax.set_ylabel("Kendall τ with the true θ")
        ax.legend(frameon=False)
        ax.grid(alpha=0.3)
        return ax


class _Judge:
    """Reads verdicts from the simulated tensor, a fresh prompt per pair each time."""

    def __init__(self, sim: SimulatedVerdicts, rng: np.random.Generator) -> None:
        self.sim, self.rng = sim, rng
        self.used: dict[tuple[int, int], set[int]] = {}
        self.rows: list[tuple[str, str, str, int]] = []

    def judge(self, a: int, b: int) -> None:
        key = (min(a, b), max(a, b))
        used = self.used.setdefault(key, set())
        free = np.setdiff1d(np.arange(self.sim.n_prompts), list(used))
        prompt = int(self.rng.choice(free if free.size else self.sim.n_prompts))
        used.add(prompt)
        first, margin = self.sim.verdict(0, np.array([prompt]), np.array([a]), np.array([b]))
        second = b if first[0] == a else a
        self.rows.append(
            (
                self.sim.prompts[prompt],
                self.sim.models[int(first[0])],
                self.sim.models[second],
                int(margin[0]),
            )
        )


def adaptive_design(
    sim: SimulatedVerdicts,
    *,
    budget: int = 600,
    batch: int = 50,
    anchor: str | int = "median",
    designs: Sequence[str] = DESIGNS,
    draws: int = 200,
    seed: int = 0,
    progress: bool = True,
) -> AdaptiveDesign:
    """Replay adaptive, fixed-anchor and random designs of equal budget on a simulation.

    Parameters
    ----------
    sim
        The simulated verdict tensor (its first judge answers).
    budget, batch
        Judgments in all, and per round (the model is refitted between rounds).
    anchor
        The fixed design's anchor: a model name or a position for
        :meth:`SimulatedVerdicts.anchor_at`.
    designs
        Any of ``"adaptive"``, ``"anchor"``, ``"random"``.
    draws
        Laplace draws for the expected information.
    seed
        Random seed.
    """
    m = len(sim.models)
    anchor_name = anchor if anchor in sim.models else sim.anchor_at(anchor)  # type: ignore[arg-type]
    anchor_idx = sim.models.index(anchor_name)
    pa, pb = np.triu_indices(m, k=1)
    truth = sim.theta
    rows = []
    total = len(designs) * -(-budget // batch)
    # BLAS on one thread: SciPy's L-BFGS beside JAX's threads oversubscribes the cores
    # (docs/benchmarks.md)
    with tqdm(total=total, desc="designs", disable=not progress) as bar, one_blas_thread():
        for d, design in enumerate(designs):
            if design not in DESIGNS:
                raise ValueError(f"unknown design {design!r}; expected one of {DESIGNS}")
            rng = np.random.default_rng([seed, d])
            judge = _Judge(sim, rng)
            targets = np.setdiff1d(np.arange(m), [anchor_idx])
            ring = rng.permutation(m)  # the adaptive design starts from a random ring
            draws_theta = draws_cut = None
            while len(judge.rows) < budget:
                size = min(batch, budget - len(judge.rows))
                for k in range(size):
                    n = len(judge.rows)
                    if design == "anchor":
                        judge.judge(int(targets[n % targets.size]), anchor_idx)
                    elif design == "adaptive" and draws_theta is None and n < m:
                        judge.judge(int(ring[n]), int(ring[(n + 1) % m]))
                    elif design == "random" or draws_theta is None:
                        p = int(rng.integers(pa.size))
                        judge.judge(int(pa[p]), int(pb[p]))
                    else:
                        if k == 0:
                            gain = expected_information(draws_theta, draws_cut, pa, pb)
                            best = np.argsort(-gain)
                        p = int(best[k % best.size])
                        judge.judge(int(pa[p]), int(pb[p]))
                mode, draws_theta, draws_cut = _posterior(judge.rows, sim, budget, draws, seed)
                rows.append(
                    {
                        "design": design,
                        "n_judgments": len(judge.rows),
                        "tau": kendall(mode, truth),
                        "pairs": len(judge.used),
                    }
                )
                bar.update()
    curve = pd.DataFrame(rows)
    pairs = {d: int(curve.loc[curve["design"] == d, "pairs"].iloc[-1]) for d in designs}
    return AdaptiveDesign(
        curve=curve.drop(columns="pairs"), anchor=anchor_name, pairs_judged=pairs, seed=seed
    )


def _posterior(
    rows: list,
    sim: SimulatedVerdicts,
    budget: int,
    draws: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MAP fit of the plain ordinal model on the judgments so far (padded to ``budget``,
    every model of ``sim`` indexed, so that one compiled layout serves every round).

    Returns the mode of θ and Laplace draws of θ and of the cut-points.
    """
    frame = pd.DataFrame(rows, columns=["prompt_id", "model_a", "model_b", "verdict"])
    spec = ordered_logistic_spec(verdict_table(frame), pad_to=budget, models=sim.models, **_PLAIN)
    idata = fit(spec, method="map", draws=draws, seed=seed)
    theta = idata.posterior["theta"].values.reshape(draws, -1)
    cut = idata.posterior["cutpoints"].values.reshape(draws, -1)
    return idata["map"]["theta"].values, theta, cut
