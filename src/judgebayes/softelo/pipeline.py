"""Soft-Elo: calibrated soft targets, the held-out Elo protocol and conformal intervals.

Implements seed 000 (Kargi & Salinas, *From Uncertain Judgments to Calibrated
Rankings*):

* battle scores from rubric criteria and both presentation orders (Appendix A):
  :func:`combine_orders`;
* the temperature β of ỹ = σ(β s) by maximum likelihood on human non-ties
  (Eq. 5–6), its profile-likelihood interval, the ECE of σ(β|s|) as the
  probability that the judge's side matches the human's (Appendix G) and the
  low-β warning (Appendix D.2): :func:`fit_temperature`;
* the leave-one-model-out, two-step held-out Elo (Algorithm 1) for hard labels,
  soft targets and label smoothing (Appendix H), with within-model bootstrap SEs
  (Section 3.3): :func:`held_out_elo`;
* budget curves (Appendix C): :func:`budget_curve`;
* split-conformal intervals on the human Elo axis (Eq. 2–4, Section 5.3), hard and
  soft compared on the same random splits, and an interval for a new model:
  :func:`conformal_comparison`, :class:`ConformalPool`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.optimize import brentq, minimize_scalar
from scipy.special import expit, log_expit
from scipy.stats import chi2, pearsonr, spearmanr
from tqdm.auto import tqdm

from judgebayes.conformal import ConformalInterval, evaluate_split_conformal, split_conformal
from judgebayes.core.battles import Battles
from judgebayes.core.bootstrap import bootstrap_bt
from judgebayes.core.bt import solve_map, theta_to_elo
from judgebayes.core.pairs import PairStats
from judgebayes.errors import DataError, JudgeBayesWarning
from judgebayes.softelo.diagnostics import cohen_kappa, reliability, residual_by_quartile

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "ConformalComparison",
    "ConformalPool",
    "HeldOutElo",
    "LowSignalWarning",
    "SoftEloResult",
    "Temperature",
    "budget_curve",
    "combine_orders",
    "conformal_comparison",
    "fit_temperature",
    "held_out_elo",
    "run_softelo",
    "soft_targets",
]


class LowSignalWarning(JudgeBayesWarning):
    """The judge's score difference barely predicts human agreement (seed 000, App. D.2)."""


# ----------------------------------------------------------------------------- scores
def _criteria(frame: pd.DataFrame, criteria: Sequence[str] | None) -> list[str]:
    if criteria is not None:
        return list(criteria)
    found = sorted(c.split(":", 1)[1] for c in frame.columns if c.startswith("score_a:"))
    return found


def combine_orders(calls: pd.DataFrame | Battles, *, criteria: Sequence[str] | None = None,
                   ) -> Battles:
    """One battle per (judge, prompt, model pair) from judge calls in either order.

    Seed 000, Appendix A: s(x, A) is the mean over rubric criteria; each call's
    model-oriented difference is s(x, A) − s(x, B); when both presentation orders
    were judged the two model-oriented differences are averaged, and the hard
    label is sign(s), a tie (½) when the sign flips between the orders.

    Parameters
    ----------
    calls
        One row per judge call: ``model_a`` is the response shown **first**,
        ``prompt_id`` identifies the prompt, and the scores are per-criterion
        columns ``score_a:<criterion>`` / ``score_b:<criterion>`` (or, without
        criteria, ``score_a`` / ``score_b``). Optional ``judge`` and
        ``human_label`` (P(first beats second)).
    criteria
        Criteria to average (default: every ``score_a:<criterion>`` column). A
        missing or NaN criterion score is an error, never a silent zero.

    Returns
    -------
    Battles
        Oriented to the alphabetically first model of each pair, with
        ``score_diff``, ``judge_label``, ``s_a_first`` / ``s_b_first`` (the
        model-oriented difference of the call that showed A / B first; NaN when
        that order was not judged), ``n_calls`` and ``human_label``.
    """
    frame = calls.frame if isinstance(calls, Battles) else pd.DataFrame(calls).reset_index(
        drop=True)
    for col in ("model_a", "model_b", "prompt_id"):
        if col not in frame:
            raise DataError(f"judge calls need a {col!r} column", column=col)
    crits = _criteria(frame, criteria)
    if crits:
        cols = [f"score_{side}:{c}" for c in crits for side in "ab"]
        missing = [c for c in cols if c not in frame]
        if missing:
            raise DataError(f"missing criterion column(s) {missing}", column=missing[0],
                            expected=f"scores for every criterion {crits}")
        block = frame[cols].apply(pd.to_numeric, errors="coerce")
        bad = block.isna().to_numpy()
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise DataError("missing criterion score", row=int(row), column=cols[col],
                            expected="a number for every criterion")
        diff = (block[[f"score_a:{c}" for c in crits]].to_numpy()
                - block[[f"score_b:{c}" for c in crits]].to_numpy()).mean(axis=1)
    elif "score_a" in frame and "score_b" in frame:
        diff = (pd.to_numeric(frame["score_a"]) - pd.to_numeric(frame["score_b"])).to_numpy()
    else:
        raise DataError("no scores: need score_a:<criterion>/score_b:<criterion> or "
                        "score_a/score_b columns", column="score_a")
    a = frame["model_a"].astype(str).to_numpy()
    b = frame["model_b"].astype(str).to_numpy()
    lo_first = a < b
    lo, hi = np.where(lo_first, a, b), np.where(lo_first, b, a)
    d_lo = np.where(lo_first, diff, -diff)
    keys = ["judge", "prompt_id"] if "judge" in frame else ["prompt_id"]
    work = frame[keys].copy()
    work["model_a"], work["model_b"] = lo, hi
    work["s_lo_first"] = np.where(lo_first, d_lo, np.nan)
    work["s_hi_first"] = np.where(lo_first, np.nan, d_lo)
    work["d"] = d_lo
    if "human_label" in frame:
        h = pd.to_numeric(frame["human_label"], errors="coerce").to_numpy()
        work["human_label"] = np.where(lo_first, h, 1 - h)
    group = work.groupby([*keys, "model_a", "model_b"], sort=False, dropna=False)
    out = group.agg(n_calls=("d", "size"), score_diff=("d", "mean"),
                    s_a_first=("s_lo_first", "max"), s_b_first=("s_hi_first", "max"),
                    n_lo_first=("s_lo_first", "count"), n_hi_first=("s_hi_first", "count"))
    if (out["n_lo_first"] > 1).any() or (out["n_hi_first"] > 1).any():
        where = out.index[(out["n_lo_first"] > 1) | (out["n_hi_first"] > 1)][0]
        raise DataError(f"the same presentation order was judged twice for {where}",
                        expected="at most one call per order per prompt and pair")
    if "human_label" in work:
        spread = group["human_label"].agg(lambda x: np.nanmax(x) - np.nanmin(x)
                                          if x.notna().any() else 0.0)
        if (spread > 0).any():
            raise DataError(f"the two orders carry different human labels for "
                            f"{spread.index[spread > 0][0]}", column="human_label")
        out["human_label"] = group["human_label"].max()
    out = out.drop(columns=["n_lo_first", "n_hi_first"]).reset_index()
    s1, s2 = out["s_a_first"].to_numpy(), out["s_b_first"].to_numpy()
    both = ~np.isnan(s1) & ~np.isnan(s2)
    flip = both & (np.sign(s1) != np.sign(s2))
    s = out["score_diff"].to_numpy()
    out["judge_label"] = np.where(flip | (s == 0), 0.5, (s > 0).astype(float))
    return Battles(out)


def soft_targets(score: np.ndarray, beta: float) -> np.ndarray:
    """ỹ = σ(β s) (seed 000, Eq. 5)."""
    return expit(beta * np.asarray(score, float))


def _smoothed(judge: np.ndarray, c: float) -> np.ndarray:
    """Label smoothing (seed 000, Appendix H): decisive labels → c / 1 − c, ties ½."""
    return np.where(judge == 1, c, np.where(judge == 0, 1 - c, 0.5))


# ------------------------------------------------------------------------ temperature
def _nll(beta: float, s: np.ndarray, y: np.ndarray) -> float:
    return float(-np.sum(y * log_expit(beta * s) + (1 - y) * log_expit(-beta * s)))


def _beta_mle(s: np.ndarray, y: np.ndarray) -> float:
    """Eq. 6: argmax_β Σ y log σ(β s) + (1 − y) log σ(−β s) (convex in β)."""
    return float(minimize_scalar(_nll, bounds=(-20.0, 20.0), args=(s, y), method="bounded",
                                 options={"xatol": 1e-8}).x)


@dataclass(frozen=True)
class Temperature:
    """The fitted score-to-probability temperature β and its calibration diagnostics.

    Attributes
    ----------
    beta
        β* (Eq. 6).
    ci
        Profile-likelihood interval of β at level ``1 - alpha``.
    alpha
        Level of ``ci``.
    ties
        ``"exclude"`` (the paper's choice) or ``"half"`` (human ties as ½, the
        sensitivity variant of Appendix C).
    n
        Human-labelled battles used.
    ece
        Expected calibration error of σ(β|s|) as P(judge's side = human's side),
        over ten equal-mass bins of decisive battles (Appendix G).
    reliability
        The reliability table behind ``ece``.
    agreement_r
        Pearson r between mean |s| and judge–human agreement over ten equal-mass
        |s| bins (Appendix D.2, Fig. 7b).
    low_signal
        True when β* < 0.2 and agreement_r < 0.5: the score difference is not a
        trustworthy confidence signal and Soft-Elo may over-compress the scale.
    """

    beta: float
    ci: tuple[float, float]
    alpha: float
    ties: str
    n: int
    ece: float
    reliability: pd.DataFrame
    agreement_r: float
    low_signal: bool

    @property
    def message(self) -> str:
        if not self.low_signal:
            return ""
        return (f"low score signal: β* = {self.beta:.3f} and r(|s|, agreement) = "
                f"{self.agreement_r:.2f}; the judge's score differences barely predict "
                f"human agreement, so Soft-Elo may over-compress the Elo axis (seed 000, "
                f"Appendix D.2)")

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"beta": self.beta, "ci_lo": self.ci[0], "ci_hi": self.ci[1],
                              "ties": self.ties, "n": self.n, "ece": self.ece,
                              "agreement_r": self.agreement_r, "low_signal": self.low_signal}])

    def __str__(self) -> str:
        level = f"{100 * (1 - self.alpha):g}%"
        text = (f"β* = {self.beta:.3f} ({level} profile CI {self.ci[0]:.3f}–{self.ci[1]:.3f}; "
                f"{self.n} human {'non-tie ' if self.ties == 'exclude' else ''}battles), "
                f"ECE = {self.ece:.3f}, r(|s|, agreement) = {self.agreement_r:.2f}")
        return text + (f"\nwarning: {self.message}" if self.low_signal else "")

    def plot(self, ax: Axes | None = None) -> Axes:
        """Reliability diagram (see :func:`judgebayes.plots.reliability_plot`)."""
        from judgebayes.plots import reliability_plot

        return reliability_plot(self, ax=ax)


def fit_temperature(battles: Battles, *, score: str = "score_diff",
                    human: str = "human_label", judge: str | None = "judge_label",
                    ties: str = "exclude", alpha: float = 0.05, warn: bool = True,
                    ) -> Temperature:
    """Fit β of ỹ = σ(β s) on human labels (seed 000, Eq. 6) with its diagnostics.

    Parameters
    ----------
    battles
        Battles with the judge score difference and (some) human labels.
    score, human
        Columns of s and of the human label.
    judge
        The judge's hard label column, used to orient the ECE to "the judge's
        chosen side" (default ``sign(s)`` when the column is absent).
    ties
        ``"exclude"`` human ties (Eq. 6) or count them as ``"half"``.
    alpha
        Level of the profile-likelihood interval.
    warn
        Emit :class:`LowSignalWarning` when the signal is low.
    """
    if ties not in ("exclude", "half"):
        raise ValueError("ties must be 'exclude' or 'half'")
    s = np.asarray(battles.column(score), float)
    y = np.asarray(battles.column(human), float)
    use = np.isin(y, [0.0, 1.0]) if ties == "exclude" else ~np.isnan(y)
    if use.sum() < 10 or len(np.unique(y[use])) < 2:
        raise DataError("too few human labels to fit β (need at least 10, both outcomes)",
                        column=human)
    su, yu = s[use], y[use]
    beta = _beta_mle(su, yu)
    best = _nll(beta, su, yu)
    cut = best + chi2.ppf(1 - alpha, 1) / 2

    def gap(b: float) -> float:
        return _nll(b, su, yu) - cut

    step = max(0.05, 4 * abs(beta) / np.sqrt(use.sum()) + 0.05)
    lo_b, hi_b = beta - step, beta + step
    while gap(lo_b) < 0:
        lo_b -= step
    while gap(hi_b) < 0:
        hi_b += step
    ci = (brentq(gap, lo_b, beta), brentq(gap, beta, hi_b))

    jl = (np.asarray(battles.column(judge), float) if judge and judge in battles
          else np.where(s > 0, 1.0, np.where(s < 0, 0.0, 0.5)))
    decisive = np.isin(jl, [0.0, 1.0]) & np.isin(y, [0.0, 1.0]) & (s != 0)
    agree = (jl[decisive] == y[decisive]).astype(float)
    table, ece = reliability(expit(beta * np.abs(s[decisive])), agree)
    order = np.argsort(np.abs(s[decisive]), kind="stable")
    bins = np.array_split(order, 10)
    abs_s = np.array([np.abs(s[decisive])[b].mean() for b in bins])
    rate = np.array([agree[b].mean() for b in bins])
    r = float(pearsonr(abs_s, rate).statistic) if np.ptp(rate) > 0 and np.ptp(abs_s) > 0 else 0.0
    result = Temperature(beta=beta, ci=(float(ci[0]), float(ci[1])), alpha=alpha, ties=ties,
                         n=int(use.sum()), ece=ece, reliability=table, agreement_r=r,
                         low_signal=bool(beta < 0.2 and r < 0.5))
    if warn and result.low_signal:
        warnings.warn(result.message, LowSignalWarning, stacklevel=2)
    return result


# ------------------------------------------------------------------------ held-out Elo
@dataclass(frozen=True)
class HeldOutElo:
    """Held-out Elo of every model (seed 000, Algorithm 1).

    Attributes
    ----------
    table
        One row per model: ``model, n_battles, beta, elo_human``, and per method
        ``elo_<method>``, ``se_<method>`` (within-model bootstrap SE; NaN when
        ``n_boot`` was 0) and ``residual_<method>`` = Elo_LLM − Elo_Human (Eq. 2).
    methods
        The fitted methods (``hard``, ``soft``, ``smooth_0.75``, ...).
    kappa
        Cohen's κ between judge and human labels over battles with both.
    mean_abs_s
        Mean |s| over the judged battles.
    lam, n_boot
        Settings used.
    """

    table: pd.DataFrame
    methods: tuple[str, ...]
    kappa: float
    mean_abs_s: float
    lam: float
    n_boot: int

    def summary(self) -> pd.DataFrame:
        """Per method: Elo MAE, Spearman ρ with the human Elo, Δρ vs ``hard`` (Table 2)."""
        rows = []
        human = self.table["elo_human"].to_numpy()
        for m in self.methods:
            elo = self.table[f"elo_{m}"].to_numpy()
            rows.append({"method": m, "mae": float(np.mean(np.abs(elo - human))),
                         "spearman": float(spearmanr(elo, human).statistic)})
        frame = pd.DataFrame(rows)
        if "hard" in self.methods:
            frame["delta_rho"] = frame["spearman"] - float(
                frame.loc[frame["method"] == "hard", "spearman"].iloc[0])
        return frame

    def residual_by_quartile(self) -> pd.DataFrame:
        """Mean signed residual per human-Elo quartile (Fig. 4b / Appendix F.2)."""
        return residual_by_quartile(self.table["elo_human"].to_numpy(),
                                    {m: self.table[f"residual_{m}"] for m in self.methods})

    def plot(self, ax: Axes | None = None, *, start: str = "hard", end: str = "soft") -> Axes:
        """Judge Elo vs human Elo with ``start`` → ``end`` arrows (Fig. 4a)."""
        from judgebayes.plots import held_out_plot

        return held_out_plot(self, ax=ax, start=start, end=end)

    def __str__(self) -> str:
        return (f"held-out Elo of {len(self.table)} models (λ = {self.lam:g}, κ = "
                f"{self.kappa:.3f}, mean |s| = {self.mean_abs_s:.2f})\n"
                + self.summary().to_string(index=False, float_format="%.3f"))


def _method_target(method: str, judge: np.ndarray, score: np.ndarray | None,
                   beta: float) -> np.ndarray:
    if method == "hard":
        return judge
    if method == "soft":
        return soft_targets(score, beta)
    if method.startswith("smooth_"):
        return _smoothed(judge, float(method.removeprefix("smooth_")))
    raise ValueError(f"unknown method {method!r}: 'hard', 'soft' or 'smooth_<c>'")


def held_out_elo(battles: Battles, *, methods: Sequence[str] = ("hard", "soft"),
                 lam: float = 0.01, n_boot: int = 20, score: str = "score_diff",
                 judge: str = "judge_label", human: str = "human_label",
                 models: Sequence[str] | None = None, seed: int = 0,
                 progress: bool = True) -> HeldOutElo:
    """Leave-one-model-out, two-step held-out Elo (seed 000, Algorithm 1).

    For each held-out model m: β_m* by MLE on human non-ties of battles without m
    (Eq. 6); anchor strengths by BT on the battles without m (Eq. 1, targets of
    each method); θ_m alone on m's battles with the anchors held fixed; the human
    reference Elo by the same two steps on human labels; and SE_m from
    ``n_boot`` within-model bootstrap resamples of m's battles (Section 3.3).

    Parameters
    ----------
    battles
        Judged battles with ``judge_label``, ``score_diff`` (for ``soft``) and
        ``human_label`` on (some of) them.
    methods
        ``"hard"`` (judge labels), ``"soft"`` (σ(β_m s)), ``"smooth_<c>"`` (label
        smoothing with constant c, Appendix H).
    lam
        L2 penalty λ.
    n_boot
        Within-model bootstrap replicates for SE (0: skip).
    score, judge, human
        Column names.
    models
        Held-out models (default: all).
    seed
        Seed of the bootstraps.
    progress
        Show a progress bar over models.
    """
    names = battles.models
    a, b = battles.codes()
    yj = np.asarray(battles.column(judge), float)
    yh = np.asarray(battles.column(human), float)
    for m in methods:
        if m not in ("hard", "soft") and not m.startswith("smooth_"):
            raise ValueError(f"unknown method {m!r}: 'hard', 'soft' or 'smooth_<c>'")
    s = (np.asarray(battles.column(score), float) if "soft" in methods or score in battles
         else None)
    chosen = list(names) if models is None else list(models)
    rng = np.random.default_rng(seed)
    rows = []
    for name in tqdm(chosen, desc="held-out Elo", disable=not progress):
        k = names.index(name)
        mine = (a == k) | (b == k)
        rest = ~mine
        labelled = rest & np.isin(yh, [0.0, 1.0])
        beta = _beta_mle(s[labelled], yh[labelled]) if "soft" in methods else np.nan
        row: dict[str, object] = {"model": name, "n_battles": int(mine.sum()), "beta": beta}
        targets = {f: _method_target(f, yj, s, beta) for f in methods}
        targets["human"] = yh
        for method, t in targets.items():
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
                    boot = bootstrap_bt(held, lam=lam, within=name, n_boot=n_boot,
                                        seed=int(rng.integers(2**31)), progress=False,
                                        fixed={names[j]: float(theta_to_elo(v))
                                               for j, v in fixed.items()})
                    se = float(boot.se[k])
                row[f"se_{method}"] = se
        for method in methods:
            row[f"residual_{method}"] = row[f"elo_{method}"] - row["elo_human"]
        rows.append(row)
    table = pd.DataFrame(rows)
    both = ~np.isnan(yh) & ~np.isnan(yj)
    kappa = cohen_kappa(yj[both], yh[both]) if both.any() else float("nan")
    mean_abs_s = float(np.mean(np.abs(s))) if s is not None else float("nan")
    return HeldOutElo(table=table, methods=tuple(methods), kappa=kappa, mean_abs_s=mean_abs_s,
                      lam=lam, n_boot=n_boot)


def budget_curve(battles: Battles, *, budgets: Sequence[float] = (5, 10, 25, 50, 100),
                 n_rep: int = 3, lam: float = 0.01, seed: int = 0,
                 progress: bool = True) -> pd.DataFrame:
    """Held-out Elo MAE and β* as the per-model budget b = |B| / M grows (Appendix C).

    For each budget, ``n_rep`` random subsets of round(b·M) battles are drawn and
    the hard and soft held-out protocols re-run (no bootstrap).

    Returns
    -------
    pandas.DataFrame
        ``budget, rep, n_battles, mae_hard, mae_soft, beta``.
    """
    rng = np.random.default_rng(seed)
    frame = battles.frame
    n_models = len(battles.models)
    rows = []
    for budget in tqdm(budgets, desc="budgets", disable=not progress):
        size = min(len(frame), round(budget * n_models))
        for rep in range(n_rep):
            sub = Battles(frame.iloc[np.sort(rng.choice(len(frame), size, replace=False))])
            held = held_out_elo(sub, lam=lam, n_boot=0, progress=False)
            summary = held.summary().set_index("method")["mae"]
            rows.append({"budget": budget, "rep": rep, "n_battles": size,
                         "mae_hard": summary["hard"], "mae_soft": summary["soft"],
                         "beta": float(held.table["beta"].mean())})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- conformal
@dataclass(frozen=True)
class ConformalComparison:
    """Split-conformal intervals of each method on the same random model splits.

    Attributes
    ----------
    table
        Per method: ``coverage`` (mean over splits), ``median_width`` (mean of
        the per-split median width), ``width_min``, ``width_max``, ``q_hat``
        (mean), ``median_se`` (Appendix I's width decomposition).
    evaluations
        The :class:`~judgebayes.conformal.ConformalEvaluation` of each method.
    """

    table: pd.DataFrame
    evaluations: Mapping[str, object]

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def __str__(self) -> str:
        return self.table.to_string(index=False, float_format="%.3f")


def conformal_comparison(held: HeldOutElo, *, alpha: float = 0.1,
                         n_calibration: int | None = None, n_splits: int = 5,
                         seed: int = 0) -> ConformalComparison:
    """Hard vs soft (vs others) split-conformal intervals, paired on the same splits.

    Seed 000, Section 5.3: models are split at random into a calibration set
    (27 of 55 in the paper; default ⌊M/2⌋) and a test set, scores
    S_i = |ε_i| / SE_i (Eq. 3), half-width q̂·SE (Eq. 4); ``n_splits`` splits
    (the paper: 5) with the same seed for every method, so the comparison is
    paired.
    """
    t = held.table
    if t[[f"se_{m}" for m in held.methods]].isna().any().any():
        raise DataError("conformal intervals need the within-model bootstrap SEs: run "
                        "held_out_elo with n_boot > 0")
    rows, evals = [], {}
    for m in held.methods:
        ev = evaluate_split_conformal(t["elo_human"].to_numpy(), t[f"elo_{m}"].to_numpy(),
                                      t[f"se_{m}"].to_numpy(), alpha=alpha,
                                      n_calibration=n_calibration, n_splits=n_splits, seed=seed)
        evals[m] = ev
        rows.append({"method": m, "coverage": ev.coverage, "median_width": ev.median_width,
                     "width_min": float(np.min(ev.median_width_per_split)),
                     "width_max": float(np.max(ev.median_width_per_split)),
                     "q_hat": float(np.mean(ev.q_hat_per_split)),
                     "median_se": float(np.median(t[f"se_{m}"]))})
    return ConformalComparison(table=pd.DataFrame(rows), evaluations=evals)


@dataclass(frozen=True)
class ConformalPool:
    """A stored calibration pool: conformal intervals on the human Elo axis for new models.

    Attributes
    ----------
    human, elo, se
        Human Elo, judge-derived held-out Elo and its SE of the calibration models.
    alpha
        Miscoverage level.
    method
        The method the pool was built from.
    """

    human: np.ndarray
    elo: np.ndarray
    se: np.ndarray
    alpha: float
    method: str

    @classmethod
    def from_held_out(cls, held: HeldOutElo, *, method: str = "soft", alpha: float = 0.1,
                      exclude: Sequence[str] = ()) -> ConformalPool:
        """Pool of the held-out models (less ``exclude``, e.g. the model to predict)."""
        t = held.table[~held.table["model"].isin(list(exclude))]
        return cls(t["elo_human"].to_numpy(), t[f"elo_{method}"].to_numpy(),
                   t[f"se_{method}"].to_numpy(), alpha, method)

    def interval(self, elo: float | np.ndarray, se: float | np.ndarray) -> ConformalInterval:
        """Eq. 4 for new models with judge-derived Elo ``elo`` and bootstrap SE ``se``."""
        return split_conformal(np.atleast_1d(elo), self.human, self.elo,
                               se=np.atleast_1d(se), calib_se=self.se, alpha=self.alpha)

    def predict(self, battles: Battles, model: str, anchors: Mapping[str, float], *,
                beta: float | None = None, lam: float = 0.01, n_boot: int = 20,
                score: str = "score_diff", judge: str = "judge_label",
                seed: int = 0) -> ConformalInterval:
        """Human-Elo interval for a new model that has only judge battles.

        Fits the new model's Elo with the anchors held fixed (Algorithm 1, step 7)
        on the pool's kind of targets (σ(β s) for ``soft``, judge labels for
        ``hard``), its SE by ``n_boot`` within-model bootstrap resamples, and
        returns Eq. 4's interval.

        Parameters
        ----------
        battles
            The new model's judged battles against anchor models.
        model
            The new model's name.
        anchors
            ``{anchor: Elo}`` of the anchor models (from the same method).
        beta
            Temperature for ``soft`` pools (β* fitted on the calibration data).
        """
        if self.method == "soft":
            if beta is None:
                raise ValueError("a soft pool needs the temperature beta")
            target = soft_targets(battles.column(score), beta)
        else:
            target = _method_target(self.method, np.asarray(battles.column(judge), float),
                                    None, np.nan)
        boot = bootstrap_bt(battles, target=target, lam=lam, fixed=anchors, within=model,
                            n_boot=n_boot, seed=seed, progress=False)
        k = boot.models.index(model)
        return self.interval(boot.elo[k], boot.se[k])


# ---------------------------------------------------------------------- one-call pipeline
@dataclass(frozen=True)
class SoftEloResult:
    """The whole seed-000 pipeline on one judge: temperature, held-out Elo, conformal.

    Attributes
    ----------
    temperature
        β* and its calibration diagnostics.
    held
        Held-out Elo of every model and method.
    conformal
        Split-conformal comparison of the methods on the same splits.
    """

    temperature: Temperature
    held: HeldOutElo
    conformal: ConformalComparison

    def summary(self) -> pd.DataFrame:
        """Tables 2 and 3 of seed 000 in one frame: per method MAE, ρ, Δρ, width, coverage."""
        return self.held.summary().merge(self.conformal.table, on="method")

    def __str__(self) -> str:
        return (f"{self.temperature}\nκ = {self.held.kappa:.3f}, mean |s| = "
                f"{self.held.mean_abs_s:.2f}\n"
                + self.summary().to_string(index=False, float_format="%.3f"))

    def plot(self) -> Figure:
        """Reliability diagram, held-out arrows, residual ramp and conformal intervals."""
        import matplotlib.pyplot as plt

        from judgebayes.plots import conformal_plot

        fig = plt.figure(figsize=(11, 7.5))
        grid = fig.add_gridspec(2, 3)
        self.temperature.plot(ax=fig.add_subplot(grid[0, 0]))
        self.held.plot(ax=fig.add_subplot(grid[0, 1]))
        ax = fig.add_subplot(grid[0, 2])
        ramp = self.held.residual_by_quartile()
        for method, colour in zip(ramp.columns, ["#1f5fa8", "#c2185b", "0.5", "0.7"],
                                  strict=False):
            ax.plot(ramp.index.astype(str), ramp[method], "o-", color=colour, label=method)
        ax.axhline(0, color="k", lw=0.8)
        ax.set(ylabel="mean signed residual (Elo)", title="residual by human-Elo quartile")
        ax.legend(frameon=False, fontsize=8)
        methods = tuple(m for m in ("hard", "soft") if m in self.held.methods)
        conformal_plot(self.held, self.conformal, ax=fig.add_subplot(grid[1, :]),
                       methods=methods)
        fig.tight_layout()
        return fig


def run_softelo(battles: Battles, *, methods: Sequence[str] = ("hard", "soft"),
                lam: float = 0.01, n_boot: int = 20, alpha: float = 0.1,
                n_calibration: int | None = None, n_splits: int = 5, seed: int = 0,
                progress: bool = True) -> SoftEloResult:
    """Temperature (Eq. 6), held-out Elo (Algorithm 1) and conformal intervals in one call.

    Parameters are those of :func:`fit_temperature`, :func:`held_out_elo` and
    :func:`conformal_comparison`.
    """
    temperature = fit_temperature(battles)
    held = held_out_elo(battles, methods=methods, lam=lam, n_boot=n_boot, seed=seed,
                        progress=progress)
    conformal = conformal_comparison(held, alpha=alpha, n_calibration=n_calibration,
                                     n_splits=n_splits, seed=seed)
    return SoftEloResult(temperature, held, conformal)
