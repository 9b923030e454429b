"""The held-out Elo protocol (Algorithm 1) of Kargi & Salinas and its budget curves.

Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM
Evaluation* (2026, arXiv:2606.13221).

* :func:`held_out_elo`: leave-one-model-out, two-step held-out Elo for hard
  labels, soft targets σ(β s), verdict-class soft targets (a judge without scores,
  :mod:`~judgebayes.softelo.verdicts`) and label smoothing (Appendix H), with
  within-model bootstrap SEs (Section 3.3);
* :func:`budget_curve`: the held-out MAE and β* as the battle budget grows
  (Appendix C).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes._stats import kendall_tau, norm_ppf, pearson_r, spearman_rho
from judgebayes.core.battles import Battles
from judgebayes.core.bootstrap import CellResampler, bootstrap_bt, one_blas_thread
from judgebayes.core.bt import newton_map, solve_map, solve_one, theta_to_elo
from judgebayes.core.pairs import PairStats, oriented_target
from judgebayes.core.results import ResultDisplay
from judgebayes.softelo.diagnostics import cohen_kappa, residual_by_quartile
from judgebayes.softelo.scores import method_target
from judgebayes.softelo.temperature import (
    beta_mle,
    beta_mle_counts,
    score_counts,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from judgebayes.softelo.verdicts import VerdictClasses

__all__ = ["HeldOutElo", "budget_curve", "held_out_elo"]


@dataclass(frozen=True, repr=False)
class HeldOutElo(ResultDisplay):
    """Held-out Elo of every model (Kargi & Salinas, 2026, Algorithm 1).

    Attributes
    ----------
    table
        One row per model: ``model, n_battles, beta, elo_human``, and per method
        ``elo_<method>``, ``se_<method>`` (within-model bootstrap SE; NaN when
        ``n_boot`` was 0) and ``residual_<method>`` = Elo_LLM − Elo_Human (Eq. 2).
        With ``verdict``: the fold's class table ``p_A, p_tie, p_B`` (P̂(humans prefer
        the response shown first | verdict), :mod:`~judgebayes.softelo.verdicts`) and
        ``n_calibration`` (the human labels it was fitted on).
    methods
        The fitted methods (``hard``, ``soft``, ``verdict``, ``smooth_0.75``, ...).
    kappa
        Cohen's κ between judge and human labels over battles with both.
    mean_abs_s
        Mean |s| over the judged battles.
    lam, n_boot
        Settings used.
    beta_mode, beta_ties
        How β was chosen (``"per_fold"``, ``"pooled"`` or ``"fixed"``) and which human
        labels it was fitted on (``"exclude"`` ties or ties as ``"half"``).
    verdict_ties
        How human ties entered the verdict-class table (``"half"`` or ``"exclude"``).
    """

    table: pd.DataFrame
    methods: tuple[str, ...]
    kappa: float
    mean_abs_s: float
    lam: float
    n_boot: int
    beta_mode: str = "per_fold"
    beta_ties: str = "exclude"
    verdict_ties: str = "half"

    def _headline(self) -> str:
        mae = self.summary()["mae"]
        return (
            f"{len(self.table)} models, {' vs '.join(self.methods)}: MAE "
            f"{' → '.join(f'{v:.0f}' for v in mae)} Elo; κ {self.kappa:.2f}"
            + ("" if np.isnan(self.mean_abs_s) else f", mean |s| {self.mean_abs_s:.2f}")
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-model table (see ``table``)."""
        return self.table.copy()

    def summary(self, *, alpha: float = 0.1) -> pd.DataFrame:
        """Per method: Elo MAE, Spearman ρ with the human Elo, Δρ vs ``hard`` (Table 2),
        ``r_strength``, the Pearson r of the signed residual ε_i with the human Elo
        (Fig. 2a: +0.49 to +0.90 for Hard-Elo across the paper's judges), ``kendall``
        (Kendall's τ-b with the human Elo) and ``se_coverage``: the share of models whose
        human Elo lies in Elo_LLM ± z_{1−α/2}·SE, the normal interval of the within-model
        bootstrap SE (Section 3.3; NaN without SEs). The bootstrap sees battle noise only,
        not the judge's systematic per-model bias, so this coverage says how much of the
        residual ε_i is bias (the reason the paper calibrates the intervals by conformal
        prediction instead, Eq. 3–4)."""
        rows = []
        human = self.table["elo_human"].to_numpy()
        z = float(norm_ppf(1 - alpha / 2))
        for m in self.methods:
            elo = self.table[f"elo_{m}"].to_numpy()
            se = self.table[f"se_{m}"].to_numpy(float)
            rows.append(
                {
                    "method": m,
                    "mae": float(np.mean(np.abs(elo - human))),
                    "spearman": spearman_rho(elo, human),
                    "r_strength": pearson_r(elo - human, human),
                    "kendall": kendall_tau(elo, human),
                    "se_coverage": float(np.mean(np.abs(elo - human) <= z * se))
                    if np.isfinite(se).all()
                    else np.nan,
                }
            )
        frame = pd.DataFrame(rows)
        if "hard" in self.methods:
            frame["delta_rho"] = frame["spearman"] - float(
                frame.loc[frame["method"] == "hard", "spearman"].iloc[0]
            )
        return frame

    def residual_by_quartile(self) -> pd.DataFrame:
        """Mean signed residual per human-Elo quartile (Fig. 4b / Appendix F.2)."""
        return residual_by_quartile(
            self.table["elo_human"].to_numpy(),
            {m: self.table[f"residual_{m}"] for m in self.methods},
        )

    def plot(self, ax: Axes | None = None, *, start: str = "hard", end: str = "soft") -> Axes:
        """Judge Elo vs human Elo with ``start`` → ``end`` arrows (Fig. 4a)."""
        from judgebayes.plots import held_out_plot

        return held_out_plot(self.table, ax=ax, start=start, end=end)

    def __str__(self) -> str:
        settings = [f"λ = {self.lam:g}"]
        if "soft" in self.methods:
            settings.append(
                {"per_fold": "β per fold", "pooled": "pooled β", "fixed": "fixed β"}[self.beta_mode]
                + (" (ties as ½)" if self.beta_ties == "half" else "")
            )
        if "verdict" in self.methods:
            settings.append(f"verdict classes per fold (human ties {self.verdict_ties})")
        settings.append(f"κ = {self.kappa:.3f}")
        if not np.isnan(self.mean_abs_s):
            settings.append(f"mean |s| = {self.mean_abs_s:.2f}")
        return (
            f"held-out Elo of {len(self.table)} models ({', '.join(settings)})\n"
            + self.summary().to_string(index=False, float_format="%.3f")
        )


def held_out_elo(
    battles: Battles,
    *,
    methods: Sequence[str] = ("hard", "soft"),
    lam: float = 0.01,
    n_boot: int = 20,
    score: str = "score_diff",
    judge: str = "judge_label",
    human: str = "human_label",
    models: Sequence[str] | None = None,
    beta: str | float = "per_fold",
    beta_ties: str = "exclude",
    calibrate_on: str | None = None,
    verdict_ties: str = "half",
    seed: int = 0,
    progress: bool = True,
) -> HeldOutElo:
    """Leave-one-model-out, two-step held-out Elo (Kargi & Salinas, 2026, Algorithm 1).

    For each held-out model m: β_m* by MLE on human non-ties of battles without m
    (Eq. 6); anchor strengths by BT on the battles without m (Eq. 1, targets of
    each method); θ_m alone on m's battles with the anchors held fixed; the human
    reference Elo by the same two steps on human labels; and SE_m from
    ``n_boot`` within-model bootstrap resamples of m's battles (Section 3.3).

    The temperature has three variants (``beta``) and two label sets (``beta_ties``):

    * ``"per_fold"`` (default): Algorithm 1, lines 3–4: β_m* on the anchor-only human
      labels, refitted for every held-out model (the held-out-safe fit);
    * ``"pooled"``: one β* on all human labels, every model's included (Appendix C's
      "pooled all-model fit": per-fold fits deviate from it by 0.0026 on average and
      the MAE by 0.09 Elo in the paper). It sees the held-out model's human labels,
      so it is not strictly held out;
    * a number: that β for every model (e.g. a β from another corpus, or a sweep);
    * ``beta_ties="exclude"`` (Eq. 6: human ties carry no orientation) or ``"half"``
      (ties as target ½, Appendix C's sensitivity check: it roughly halves β*,
      β_all / β_non-tie ≈ 0.56 in the paper, and raises the MAE by about 7 Elo).

    A judge without scores (verdicts A / tie / B only) gets the ``verdict`` method: in
    each fold the table ỹ_c = P̂(humans prefer the response shown first | verdict c) is
    fitted on the human labels of the battles without m (lines 3–4 with the class
    table of :mod:`~judgebayes.softelo.verdicts` in place of β), every battle of the
    fold gets its class's ỹ_c (line 5), and lines 6–8 are unchanged.

    ``calibrate_on`` names a column of human labels that only the calibration (β, the
    class table) reads, while ``human`` stays the reference: with labels on n battles
    in ``calibrate_on`` and on every battle in ``human``, the held-out Elo is the one a
    user with n human labels gets, measured against the all-human Elo.

    Parameters
    ----------
    battles
        Judged battles with ``judge_label``, ``score_diff`` (for ``soft``) and
        ``human_label`` on (some of) them.
    methods
        ``"hard"`` (judge labels), ``"soft"`` (σ(β_m s)), ``"verdict"`` (the verdict
        class's ỹ_c, refitted per fold), ``"smooth_<c>"`` (label smoothing with
        constant c, Appendix H).
    lam
        L2 penalty λ.
    n_boot
        Within-model bootstrap replicates for SE (0: skip).
    score, judge, human
        Column names.
    models
        Held-out models (default: all).
    beta
        ``"per_fold"``, ``"pooled"`` or a fixed value (see above).
    beta_ties
        ``"exclude"`` or ``"half"``: which human labels the β fits use.
    calibrate_on
        Column of the human labels the calibration is fitted on (default: ``human``).
    verdict_ties
        ``"half"`` (default: human ties as ½, the target of the human Elo itself) or
        ``"exclude"``: which human labels the verdict-class table uses.
    seed
        Seed of the bootstraps.
    progress
        Show a progress bar over models.

    Notes
    -----
    The battles are summed per pair once per target; a fold removes the held-out model's
    pairs from those sums. The anchors are fitted by Newton's method
    (:func:`~judgebayes.core.bt.newton_map`) from the all-model fit, the held-out model
    and each of its bootstrap replicates (the counts ``bootstrap_bt(..., within=model)``
    draws, :class:`~judgebayes.core.bootstrap.CellResampler`) by a vectorised one-model
    Newton (:func:`~judgebayes.core.bt.solve_one`), β_m* on the human labels grouped by
    score (:func:`~judgebayes.softelo.temperature.score_counts`). The numbers are those of
    the earlier route (pair statistics rebuilt per fold, SciPy's Newton-CG, ``bootstrap_bt``
    per method) to within its optimisers' tolerances (about 1e-5 Elo; the tests compare
    them); with ``lam=0`` (no penalty, so Newton's method has no guaranteed optimum)
    that route is used.
    """
    names = battles.models
    a, b = battles.codes()
    yj = np.asarray(battles.column(judge), float)
    yh = np.asarray(battles.column(human), float)
    yc = yh if calibrate_on is None else np.asarray(battles.column(calibrate_on), float)
    for m in methods:
        if m not in ("hard", "soft", "verdict") and not m.startswith("smooth_"):
            raise ValueError(f"unknown method {m!r}: 'hard', 'soft', 'verdict' or 'smooth_<c>'")
    s = np.asarray(battles.column(score), float) if "soft" in methods or score in battles else None
    if beta_ties not in ("exclude", "half"):
        raise ValueError(f"beta_ties must be 'exclude' or 'half', got {beta_ties!r}")
    if verdict_ties not in ("half", "exclude"):
        raise ValueError(f"verdict_ties must be 'half' or 'exclude', got {verdict_ties!r}")
    usable = np.isin(yc, [0.0, 1.0]) if beta_ties == "exclude" else np.isin(yc, [0, 0.5, 1])
    if isinstance(beta, str) and beta not in ("per_fold", "pooled"):
        raise ValueError(f"beta must be 'per_fold', 'pooled' or a number, got {beta!r}")
    if n_boot == 1:
        raise ValueError("n_boot must be at least 2 (or 0: no SE)")
    mode = beta if isinstance(beta, str) else "fixed"
    fixed_beta = (
        float(beta)
        if mode == "fixed"
        else beta_mle(s[usable], yc[usable])
        if mode == "pooled" and "soft" in methods
        else np.nan
    )
    chosen = list(names) if models is None else list(models)
    verdicts = None
    if "verdict" in methods:
        # imported here: the verdict classes load judgebayes.rankings (and scipy.stats),
        # which `judgebayes softelo` on scores never needs
        from judgebayes.softelo.verdicts import VerdictClasses

        verdicts = VerdictClasses.from_battles(
            battles, judge=judge, human=calibrate_on or human, ties=verdict_ties
        )
    data = _Folds(
        names,
        a,
        b,
        yj,
        yh,
        yc,
        s,
        usable,
        tuple(methods),
        lam,
        per_fold_beta=mode == "per_fold" and "soft" in methods,
        beta=fixed_beta,
        verdicts=verdicts,
    )
    rows = []
    rng = np.random.default_rng(seed)
    with one_blas_thread():
        for name in tqdm(chosen, desc="held-out Elo", disable=not progress):
            seeds = [int(rng.integers(2**31)) for _ in methods] if n_boot > 0 else []
            fold = data.fold_newton if lam > 0 else data.fold_scipy
            row = fold(names.index(name), n_boot, seeds)
            for method in methods:
                row[f"residual_{method}"] = row[f"elo_{method}"] - row["elo_human"]
            rows.append(row)
    table = pd.DataFrame(rows)
    both = ~np.isnan(yh) & ~np.isnan(yj)
    kappa = cohen_kappa(yj[both], yh[both]) if both.any() else float("nan")
    mean_abs_s = float(np.mean(np.abs(s))) if s is not None else float("nan")
    return HeldOutElo(
        table=table,
        methods=tuple(methods),
        kappa=kappa,
        mean_abs_s=mean_abs_s,
        lam=lam,
        n_boot=n_boot,
        beta_mode=mode,
        beta_ties=beta_ties,
        verdict_ties=verdict_ties,
    )


def budget_curve(
    battles: Battles,
    *,
    budgets: Sequence[float] = (5, 10, 25, 50, 100),
    n_rep: int = 3,
    lam: float = 0.01,
    reference: str = "full",
    seed: int = 0,
    progress: bool = True,
) -> pd.DataFrame:
    """Held-out Elo MAE and β* as the per-model budget b = |B| / M grows (Appendix C, Fig. 6).

    For each budget, ``n_rep`` random subsets of round(b·M) battles are drawn and
    the hard and soft held-out protocols (Algorithm 1, β_m* from the subset's human
    non-ties) re-run without bootstrap. What each model's error is measured against:

    ``reference="full"`` (default)
        The held-out human Elo of Algorithm 1 on **all** battles. The curve then
        answers "how close does the judge get with b battles per model to the best
        human ruler we have": only the judge side (and β*, fitted on the subset's
        human labels) is starved, and the MAE falls towards the judge's intrinsic
        bias as b grows.
    ``reference="subsampled"``
        The human Elo fitted on the same subset (the earlier behaviour): judge and
        human reference share the budget, so the MAE also contains the subset
        reference's own sampling noise, which dominates at small b. Read it as
        "judge vs a human leaderboard built from the same few battles".

    At a budget that keeps every battle the two readings coincide.

    Returns
    -------
    pandas.DataFrame
        ``budget, rep, n_battles, mae_hard, mae_soft, beta, reference``.
    """
    if reference not in ("full", "subsampled"):
        raise ValueError(f"reference must be 'full' or 'subsampled', got {reference!r}")
    rng = np.random.default_rng(seed)
    frame = battles.frame
    n_models = len(battles.models)
    full = None
    if reference == "full":
        full = held_out_elo(battles, methods=(), lam=lam, n_boot=0, progress=False).table.set_index(
            "model"
        )["elo_human"]
    rows = []
    for budget in tqdm(budgets, desc="budgets", disable=not progress):
        size = min(len(frame), round(budget * n_models))
        for rep in range(n_rep):
            sub = Battles(frame.iloc[np.sort(rng.choice(len(frame), size, replace=False))])
            t = held_out_elo(sub, lam=lam, n_boot=0, progress=False).table
            human = t["elo_human"] if full is None else t["model"].map(full)
            rows.append(
                {
                    "budget": budget,
                    "rep": rep,
                    "n_battles": size,
                    "mae_hard": float(np.mean(np.abs(t["elo_hard"] - human))),
                    "mae_soft": float(np.mean(np.abs(t["elo_soft"] - human))),
                    "beta": float(t["beta"].mean()),
                    "reference": reference,
                }
            )
    return pd.DataFrame(rows)


class _Folds:
    """The data of the held-out protocol and one fold of it, by either route."""

    def __init__(
        self,
        names: tuple[str, ...],
        a: np.ndarray,
        b: np.ndarray,
        yj: np.ndarray,
        yh: np.ndarray,
        yc: np.ndarray,
        s: np.ndarray | None,
        usable: np.ndarray,
        methods: tuple[str, ...],
        lam: float,
        *,
        per_fold_beta: bool,
        beta: float,
        verdicts: VerdictClasses | None,
    ) -> None:
        self.names, self.a, self.b, self.yj, self.yh, self.s = names, a, b, yj, yh, s
        self.yc, self.usable, self.methods, self.lam = yc, usable, methods, lam
        self.per_fold_beta, self.beta, self.verdicts = per_fold_beta, beta, verdicts
        self._prepared = False

    def targets(self, beta_m: float, verdict: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Each method's per-battle target (P(A beats B)), and the human labels;
        ``verdict``: the fold's verdict-class targets."""
        targets = {
            f: verdict if f == "verdict" else method_target(f, self.yj, self.s, beta_m)
            for f in self.methods
        }
        targets["human"] = self.yh
        return targets

    def fold_verdict(self, mine: np.ndarray) -> tuple[np.ndarray | None, dict[str, object]]:
        """The verdict-class targets of a fold, calibrated without the held-out model's
        battles, and the fold's table ``p_A, p_tie, p_B, n_calibration`` for its row."""
        if self.verdicts is None:
            return None, {}
        calibration = self.verdicts.calibrate(mine)
        table = calibration.table
        row: dict[str, object] = {
            f"p_{v}": p for v, p in zip(table["verdict"], table["p_a"], strict=True)
        }
        row["n_calibration"] = int(table["n_labelled"].sum())
        return self.verdicts.targets(calibration), row

    def fold_scipy(self, k: int, n_boot: int, seeds: list[int]) -> dict[str, object]:
        """Fold ``k`` by pair statistics rebuilt from the battles, SciPy's Newton-CG
        (:func:`~judgebayes.core.bt.solve_map`) and ``bootstrap_bt`` per method: the
        route for ``lam = 0``, where Newton's method has no guaranteed optimum."""
        names, a, b, lam = self.names, self.a, self.b, self.lam
        mine = (a == k) | (b == k)
        rest = ~mine
        labelled = rest & self.usable
        beta_m = beta_mle(self.s[labelled], self.yc[labelled]) if self.per_fold_beta else self.beta
        verdict, extra = self.fold_verdict(mine)
        row: dict[str, object] = {"model": names[k], "n_battles": int(mine.sum()), "beta": beta_m}
        row |= extra
        for method, t in self.targets(beta_m, verdict).items():
            ok = ~np.isnan(t)
            anchors = PairStats.from_battles(a[rest & ok], b[rest & ok], t[rest & ok], names)
            theta_anchor, _ = solve_map(anchors, lam, {})
            held = PairStats.from_battles(a[mine & ok], b[mine & ok], t[mine & ok], names)
            fixed = {j: theta_anchor[j] for j in range(len(names)) if j != k}
            theta, _ = solve_map(held, lam, fixed)
            row[f"elo_{method}"] = float(theta_to_elo(theta[k]))
            if method != "human":
                se = np.nan
                if n_boot > 0:
                    boot = bootstrap_bt(
                        held,
                        lam=lam,
                        within=names[k],
                        n_boot=n_boot,
                        seed=seeds[self.methods.index(method)],
                        progress=False,
                        fixed={names[j]: float(theta_to_elo(v)) for j, v in fixed.items()},
                    )
                    se = float(boot.se[k])
                row[f"se_{method}"] = se
        return row

    def _prepare(self) -> None:
        """Pair index of every battle, fold-free targets summed per pair, grouped scores."""
        a, b = self.a, self.b
        self.pairs = PairStats.from_battles(a, b, np.zeros(len(a)), self.names)
        self.pair_of, _ = self.pairs.locate(a, b)
        self.sums: dict[str, tuple] = {}
        for method, t in self.targets(np.nan).items():
            if method not in ("soft", "verdict"):  # those are refitted per fold
                self.sums[method] = self._pair_sums(t)
        self.start: dict[str, np.ndarray] = {}
        if self.per_fold_beta:
            y = self.yc[self.usable]
            self.grouped = score_counts(self.s[self.usable], y)
            self.score_index = np.searchsorted(self.grouped[0], self.s[self.usable])
        self._prepared = True

    def _pair_sums(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(n, y, ok)``: battles and summed oriented targets per pair, and which
        battles have a target."""
        ok = ~np.isnan(t)
        size = self.pairs.n_pairs
        y = oriented_target(self.a[ok], self.b[ok], t[ok])
        return (
            np.bincount(self.pair_of[ok], minlength=size).astype(float),
            np.bincount(self.pair_of[ok], y, minlength=size),
            ok,
        )

    def _fold_beta(self, mine: np.ndarray) -> float:
        """β_m* on the human labels of the battles without the held-out model."""
        values, n, wins = self.grouped
        out = mine[self.usable]
        index, y = self.score_index[out], self.yc[self.usable][out]
        return beta_mle_counts(
            values,
            n - np.bincount(index, minlength=len(values)),
            wins - np.bincount(index, y, minlength=len(values)),
        )

    def fold_newton(self, k: int, n_boot: int, seeds: list[int]) -> dict[str, object]:
        """Fold ``k`` from per-pair sums built once: Newton for the anchors, a vectorised
        one-model Newton for the held-out model and for every bootstrap replicate."""
        if not self._prepared:
            self._prepare()
        names, a, b, lam, pairs = self.names, self.a, self.b, self.lam, self.pairs
        mine = (a == k) | (b == k)
        beta_m = self._fold_beta(mine) if self.per_fold_beta else self.beta
        verdict, extra = self.fold_verdict(mine)
        row: dict[str, object] = {"model": names[k], "n_battles": int(mine.sum()), "beta": beta_m}
        row |= extra
        own = np.flatnonzero((pairs.i == k) | (pairs.j == k))
        k_is_i = pairs.i[own] == k
        opponents = np.where(k_is_i, pairs.j[own], pairs.i[own])
        free = np.delete(np.arange(len(names)), k)
        for method, t in self.targets(beta_m, verdict).items():
            n, y, ok = self.sums[method] if method in self.sums else self._pair_sums(t)
            if method not in self.start:  # warm start of every fold: the all-model fit
                self.start[method] = newton_map(
                    pairs, lam, np.arange(len(names)), n, y, np.zeros(len(names))
                )[0]
            n_rest, y_rest = n.copy(), y.copy()
            n_rest[own] = y_rest[own] = 0.0
            start = self.start[method].copy()
            start[k] = 0.0  # no anchor battles: the penalty holds θ_k at 0
            theta_anchor, _ = newton_map(pairs, lam, free, n_rest, y_rest, start)
            wins = np.where(k_is_i, y[own], n[own] - y[own])
            theta_k, _ = solve_one(theta_anchor[opponents], n[own], wins, lam)
            row[f"elo_{method}"] = float(theta_to_elo(theta_k))
            if method != "human":
                row[f"se_{method}"] = (
                    np.nan
                    if n_boot == 0
                    else self._within_se(
                        k,
                        t,
                        mine & ok,
                        theta_anchor,
                        theta_k,
                        n_boot,
                        seeds[self.methods.index(method)],
                    )
                )
        return row

    def _within_se(
        self,
        k: int,
        t: np.ndarray,
        sel: np.ndarray,
        theta_anchor: np.ndarray,
        theta_k: float,
        n_boot: int,
        seed: int,
    ) -> float:
        """SE of model k's Elo over ``n_boot`` within-model bootstrap replicates: the
        counts ``bootstrap_bt(..., within=model)`` draws, each refitted with the anchors
        held."""
        held = PairStats.from_battles(self.a[sel], self.b[sel], t[sel], self.names)
        mask = np.ones(len(held.cell_count), dtype=bool)  # every cell involves k
        n, y = CellResampler(held, mask, n_boot=n_boot, seed=seed).all_pair_sums()
        k_is_i = (held.i == k)[:, None]
        opponents = np.where(held.i == k, held.j, held.i)
        theta, _ = solve_one(
            theta_anchor[opponents], n, np.where(k_is_i, y, n - y), self.lam, theta_k
        )
        return float(np.std(theta_to_elo(theta), ddof=1))
