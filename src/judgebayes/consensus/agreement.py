"""Each judge's board and the judges' consensus against the human board of the same battles.

The UDA paper (Zhang, Wang, Wu, Yu, Wang, Bao & Tang, *UDA: Unsupervised Debiasing Alignment for
Pair-wise LLM-as-a-Judge*, 2025, arXiv:2508.09724) scores a set of judges by the Pearson
correlation of each judge's Elo with a human Elo (its Figure 4 and Table 3) and reports that the
consensus of the judges — their mean rating, the anchor G of its Eq. 3 — correlates with the humans
better than the judges do. When humans labelled the very battles the judges labelled
(:func:`judgebayes.datasets.load_ppr`), that claim can be tested with intervals.
:func:`compare_with_humans` builds, from the same battles,

* the **human board**: the Bradley–Terry MAP of the human labels (Kargi & Salinas, *From Uncertain
  Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM Evaluation*, 2026,
  arXiv:2606.13221, Eq. 1, λ = 0.01; ties ½) — the reference;
* each **judge's board**, two ways: ``"bt"``, the Bradley–Terry MAP of its labels, and
  ``"elo"``, Zhang et al.'s (2025) baseline online Elo (Eq. 1, K = 32, the battles' order; in a
  bootstrap replicate a random order, so its interval covers the order's share of the
  uncertainty too);
* three **consensus boards**: the mean of the judges' ``"bt"`` boards, the mean of their
  ``"elo"`` boards (Zhang et al.'s (2025) G) and ``"bayes"``, the posterior mean of the consensus
  strength θ of the hierarchical multi-judge Bradley–Terry
  (:func:`~judgebayes.consensus.fit_consensus`), fitted on the judges' labels only;

and scores every board against the human board by

* **MAE**: mean over models of |(x_m − x̄) − (h_m − h̄)|, Elo up to a common shift;
* **Kendall τ_b** of the two rankings;
* **Pearson r** (Zhang et al.'s (2025) measure).

Intervals are percentile intervals of a paired battle bootstrap
(:func:`~judgebayes.consensus.resample_battles`, stratified by model pair): every
replicate refits every board, the human board included, so the intervals carry the
uncertainty of both sides and the consensus − best-judge differences are paired.
"The best judge" is, for each metric, the judge whose board of the same kind is best on
the full data (``"elo"`` boards for the mean Elo, ``"bt"`` boards for the mean BT and
the Bayesian consensus).

The MAE depends on each board's scale. The judges' boards have their own scales (a
decisive judge spreads the models more than humans who call 30 % of battles a tie), and
the Bayesian consensus has the scale its identification fixes — the geometric mean of
the judges' discriminations ψ_k is 1 — which is a convention, not an estimate of the
human scale; τ and r do not depend on scale.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import kendalltau
from tqdm.auto import tqdm

from judgebayes.consensus.balance import balance_positions
from judgebayes.consensus.bayes import BayesConsensus, fit_consensus
from judgebayes.consensus.elo import bt_by_judge, online_elo
from judgebayes.consensus.resample import require_paired_labels, resample_battles
from judgebayes.core.battles import Battles
from judgebayes.core.bt import fit_bt
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError, DisconnectedGraphWarning

__all__ = ["HumanComparison", "board_metrics", "compare_with_humans"]

#: The metrics against the human board, and whether larger is better.
METRICS = {"mae": False, "tau": True, "r": True}
CONSENSUS = "consensus"


def board_metrics(board: np.ndarray, human: np.ndarray) -> dict[str, float]:
    """MAE of centred Elo, Kendall τ_b and Pearson r of a board against the human board.

    Parameters
    ----------
    board, human
        Elo of the same models, in the same order.

    Returns
    -------
    dict
        ``mae`` = mean_m |(x_m − x̄) − (h_m − h̄)|, ``tau`` (Kendall's τ_b, ties in
        either ranking accounted for), ``r`` (Pearson).
    """
    x, h = np.asarray(board, float), np.asarray(human, float)
    return {
        "mae": float(np.abs((x - x.mean()) - (h - h.mean())).mean()),
        "tau": float(kendalltau(x, h).statistic),
        "r": float(np.corrcoef(x, h)[0, 1]),
    }


def _boards(
    battles: Battles,
    *,
    own_model: Mapping[str, str | list[str]] | None,
    bayes: bool,
    balance: bool,
    fit_options: Mapping[str, object],
    order: str = "given",
    order_seed: int = 0,
) -> tuple[dict[tuple[str, str], np.ndarray], BayesConsensus | None]:
    """Every board of :func:`compare_with_humans` on one set of battles (human first)."""
    models = list(battles.models)
    human = fit_bt(battles.human_battles(), target="human_label")
    boards = {("human", "bt"): human.elo}
    weighted = balance_positions(battles) if balance else battles
    with warnings.catch_warnings():
        # A judge with a disconnected graph is reported by the caller, once.
        warnings.simplefilter("ignore", DisconnectedGraphWarning)
        bt = bt_by_judge(weighted)
    # One battle at a time: weights do not apply. A replicate plays its battles in a
    # random order (copies of a battle back to back would double that battle's K).
    elo = online_elo(battles, order=order, seed=order_seed)
    for ratings in (bt, elo):
        kind = "bt" if ratings is bt else "elo"
        for k, judge in enumerate(ratings.judges):
            boards[(judge, kind)] = ratings.ratings[k]
        boards[(CONSENSUS, kind)] = ratings.consensus.to_numpy()
    posterior = None
    if bayes:
        posterior = fit_consensus(weighted, own_model=own_model, **fit_options)
        boards[(CONSENSUS, "bayes")] = (
            posterior.elo.set_index("model")["elo"].reindex(models).to_numpy()
        )
    return boards, posterior


@dataclass(frozen=True, repr=False)
class HumanComparison(ResultDisplay):
    """Judges' and consensus boards against the human board of the same battles.

    Attributes
    ----------
    boards
        Full-data Elo: one row per model, one column per board, named
        ``"<judge> (<kind>)"``; ``"human (bt)"`` first, the consensus boards
        ``"consensus (bt)"``, ``"consensus (elo)"``, ``"consensus (bayes)"`` last.
    metrics
        One row per board but the human one: ``board, judge, kind`` and, for each
        metric of :data:`METRICS`, its full-data value and bootstrap interval
        (``mae, mae_lo, mae_hi, tau, …, r_hi``).
    versus_best
        One row per consensus board and metric: ``consensus, metric, best_judge``
        (the best judge board of the same kind on the full data), ``consensus_value,
        best_value, difference`` (consensus − best judge), its interval
        ``lo, hi`` and ``share_better``, the share of replicates in which the consensus
        is better.
    replicates
        ``(n_boot, n_boards, 3)``: each replicate's metric values, boards as in
        :attr:`metrics` and metrics as in :data:`METRICS`.
    inter_judge_sd
        Zhang et al.'s (2025) Tables 1–2 on these boards: one row per model, the SD (ddof = 1) of
        its Elo across judges, one column per kind (``bt``, ``elo``, and ``bayes``: the
        judges' views ψ_k θ + δ_k of the multi-judge model).
    posterior
        The full-data multi-judge fit (``None`` when ``bayes=False``).
    boot_rhat
        Max R-hat of each replicate's multi-judge fit (empty without it).
    n_boot, alpha
        Replicates and interval level 1 − α.
    balanced
        Whether the judges' BT and Bayesian boards used position-balanced weights
        (:func:`~judgebayes.consensus.balance_positions`).
    """

    boards: pd.DataFrame
    metrics: pd.DataFrame
    versus_best: pd.DataFrame
    replicates: np.ndarray
    inter_judge_sd: pd.DataFrame
    posterior: BayesConsensus | None
    boot_rhat: np.ndarray
    n_boot: int
    alpha: float
    balanced: bool

    def to_frame(self) -> pd.DataFrame:
        """:attr:`metrics`: one row per board, each metric with its interval."""
        return self.metrics.copy()

    def _headline(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        parts = []
        for row in self.versus_best[self.versus_best["metric"].isin(["mae", "tau"])].itertuples():
            parts.append(
                f"{row.consensus} {row.metric} − {row.best_judge}: {row.difference:+.3g} "
                f"[{row.lo:+.3g}, {row.hi:+.3g}]"
            )
        return (
            f"{len(self.boards)} models, {self.metrics['judge'].ne(CONSENSUS).sum()} judge "
            f"boards, {self.n_boot} paired battle-bootstrap replicates ({level})"
            + ("; positions balanced" if self.balanced else "")
            + "; "
            + "; ".join(parts)
        )

    def __str__(self) -> str:
        return (
            repr(self)[1:-1]
            + "\n"
            + self.metrics.to_string(index=False, float_format=lambda v: f"{v:.3f}")
            + "\n"
            + self.versus_best.to_string(index=False, float_format=lambda v: f"{v:.3f}")
        )

    def plot(self, axes: np.ndarray | None = None) -> np.ndarray:
        """MAE, τ and r of every board against the human board, with their intervals.

        One panel per metric; consensus boards in orange, judges in blue.
        """
        if axes is None:
            import matplotlib.pyplot as plt

            _, axes = plt.subplots(
                1,
                len(METRICS),
                figsize=(4.2 * len(METRICS), 0.32 * len(self.metrics) + 1.4),
                sharey=True,
            )
        axes = np.asarray(axes).ravel()
        rows = np.arange(len(self.metrics))[::-1]
        colors = np.where(self.metrics["judge"] == CONSENSUS, "#e07b00", "#1f5fa8")
        level = f"{100 * (1 - self.alpha):g}%"
        m = self.metrics
        for ax, metric in zip(axes, METRICS, strict=True):
            for y, value, lo, hi, c in zip(
                rows, m[metric], m[f"{metric}_lo"], m[f"{metric}_hi"], colors, strict=True
            ):
                ax.plot([lo, hi], [y, y], color=c, lw=2)
                ax.plot(value, y, "o", color=c)
            ax.set_yticks(rows, list(m["board"]), fontsize=8)
            better = "higher" if METRICS[metric] else "lower"
            ax.set_title(f"{metric} vs human board ({better} is better)", fontsize=9)
            ax.set_xlabel(f"{level} paired bootstrap interval", fontsize=8)
        return axes


def _interval(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.nanquantile(values, [alpha / 2, 1 - alpha / 2], axis=0)
    return lo, hi


def compare_with_humans(
    battles: Battles,
    *,
    own_model: Mapping[str, str | list[str]] | None = None,
    bayes: bool = True,
    balance: bool = False,
    n_boot: int = 200,
    alpha: float = 0.05,
    chains: int = 2,
    draws: int = 500,
    warmup: int = 500,
    boot_draws: int = 150,
    seed: int = 0,
    progress: bool = True,
) -> HumanComparison:
    """Score each judge's board and the consensus boards against the human board.

    Parameters
    ----------
    battles
        Several judges' battles with the human label of the same battle on every row
        (``judge``, ``judge_label``, ``human_label`` and ``battle_id``, as from
        :func:`judgebayes.datasets.load_ppr`). The human labels are used for the human
        board only: no judge or consensus board sees them.
    own_model
        ``{judge: its own model (or family)}`` for the self-preference terms η of the
        multi-judge consensus (:func:`~judgebayes.consensus.fit_consensus`).
    bayes
        Fit the multi-judge Bayesian consensus (NUTS, once on the data and once per
        replicate).
    balance
        Weight the judges' battles with :func:`~judgebayes.consensus.balance_positions`
        (recomputed in every replicate) for the ``"bt"`` and ``"bayes"`` boards: a
        position bias then cancels within each pair. The human board and the online
        Elo are unweighted.
    n_boot
        Paired battle-bootstrap replicates (:func:`~judgebayes.consensus.resample_battles`).
    alpha
        Intervals are central 1 − α percentile intervals.
    chains, draws, warmup
        NUTS settings of the full-data multi-judge fit.
    boot_draws
        Draws and warm-up per chain of each replicate's multi-judge fit (its posterior
        mean is what a replicate needs).
    seed
        Seed of the replicates (and ``seed``, ``seed + 1 + b`` of the NUTS fits).
    progress
        Show a progress bar over the replicates.

    Returns
    -------
    HumanComparison
    """
    require_paired_labels(battles, "compare_with_humans")
    if len(battles.judges) < 2:
        raise DataError("one judge only: a consensus needs at least two", column="judge")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    models = list(battles.models)
    fit_options = {"chains": chains, "draws": draws, "warmup": warmup, "seed": seed}
    boards, posterior = _boards(
        battles,
        own_model=own_model,
        bayes=bayes,
        balance=balance,
        fit_options={**fit_options, "progress": progress},
    )
    keys = list(boards)[1:]  # every board but the human one
    human = boards[("human", "bt")]
    full = np.array([[board_metrics(boards[k], human)[m] for m in METRICS] for k in keys])
    boot_options = {"chains": 2, "draws": boot_draws, "warmup": boot_draws, "progress": False}
    replicates = np.full((n_boot, len(keys), len(METRICS)), np.nan)
    rhat = []
    draws_iter = resample_battles(battles, n_boot=n_boot, seed=seed)
    for b, replicate in enumerate(
        tqdm(draws_iter, total=n_boot, desc="paired battle bootstrap", disable=not progress)
    ):
        with warnings.catch_warnings():
            # Short replicate chains: their R-hat is kept in boot_rhat instead.
            warnings.simplefilter("ignore")
            rep, rep_post = _boards(
                replicate,
                own_model=own_model,
                bayes=bayes,
                balance=balance,
                fit_options={**boot_options, "seed": seed + 1 + b},
                order="shuffle",
                order_seed=seed + 1 + b,
            )
        if rep_post is not None:
            rhat.append(float(rep_post.diagnostics["max_rhat"].max()))
        h = rep[("human", "bt")]
        replicates[b] = [[board_metrics(rep[k], h)[m] for m in METRICS] for k in keys]
    metrics = pd.DataFrame(
        {
            "board": [f"{j} ({kind})" for j, kind in keys],
            "judge": [j for j, _ in keys],
            "kind": [kind for _, kind in keys],
        }
    )
    lo, hi = _interval(replicates, alpha)
    for c, metric in enumerate(METRICS):
        metrics[metric], metrics[f"{metric}_lo"], metrics[f"{metric}_hi"] = (
            full[:, c],
            lo[:, c],
            hi[:, c],
        )
    versus = []
    for n, (judge, kind) in enumerate(keys):
        if judge != CONSENSUS:
            continue
        rival_kind = "elo" if kind == "elo" else "bt"
        rivals = [k for k, (j, kd) in enumerate(keys) if j != CONSENSUS and kd == rival_kind]
        for c, (metric, larger) in enumerate(METRICS.items()):
            values = full[rivals, c]
            best = rivals[int(np.argmax(values) if larger else np.argmin(values))]
            diff = replicates[:, n, c] - replicates[:, best, c]
            dlo, dhi = _interval(diff, alpha)
            better = diff > 0 if larger else diff < 0
            versus.append(
                (
                    f"{judge} ({kind})",
                    metric,
                    keys[best][0],
                    full[n, c],
                    full[best, c],
                    full[n, c] - full[best, c],
                    float(dlo),
                    float(dhi),
                    float(better.mean()),
                )
            )
    versus_best = pd.DataFrame(
        versus,
        columns=[
            "consensus",
            "metric",
            "best_judge",
            "consensus_value",
            "best_value",
            "difference",
            "lo",
            "hi",
            "share_better",
        ],
    )
    sd = {
        kind: np.nanstd(np.vstack([boards[(j, kind)] for j in battles.judges]), axis=0, ddof=1)
        for kind in ("bt", "elo")
    }
    if posterior is not None:
        views = posterior.judge_ratings().ratings
        sd["bayes"] = np.nanstd(views, axis=0, ddof=1)
    return HumanComparison(
        boards=pd.DataFrame(
            {f"{j} ({kind})": v for (j, kind), v in boards.items()},
            index=pd.Index(models, name="model"),
        ),
        metrics=metrics,
        versus_best=versus_best,
        replicates=replicates,
        inter_judge_sd=pd.DataFrame(sd, index=pd.Index(models, name="model")),
        posterior=posterior,
        boot_rhat=np.asarray(rhat),
        n_boot=n_boot,
        alpha=alpha,
        balanced=balance,
    )
