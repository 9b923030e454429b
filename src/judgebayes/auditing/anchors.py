"""Anchor-based battles in an audit: which anchor, and how many prompts it takes.

Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity is the key for LLM as a Judge Anchor
Selection* (2026, arXiv:2603.16848), on the battles an audit reads. When they are a few
anchors × many models judged on the same prompts (Arena-Hard, AlpacaEval: every model
judged against a baseline) or the full matrix (every pair judged on the same prompts, e.g.
single grades turned into a verdict per prompt and pair), :func:`anchor_budgets` says per
anchor A and judge:

* its **informativeness** I(p, A), the share of (prompt, pair of targets) whose verdicts
  against A differ (Section 4.3, :func:`~judgebayes.anchors.informativeness`), with a
  percentile bootstrap interval over prompts and the share of resamples in which A is the
  most informative (:func:`~judgebayes.anchors.analyze_anchors`, 1,000 resamples);
* its **place** among the models: in π_quad (Bradley–Terry on every pair, Section 3.2) for
  a full matrix, in the ranking it induces for an anchor layout (its own score is one minus
  its targets' mean win rate); 1 is the strongest;
* the **prompts +5 % needs**: a one-sided sign test (α = 0.05, power 0.8) tells apart two
  models one of which wins 55 % of the prompts on which their verdicts against A differ
  after N = 617 such prompts (Table 2, "Base"), so N_total = ⌈617 / I⌉ prompts in all
  (Section 4.3), with the interval from I's; beside it what the data have: the prompts per
  target (the median over A's targets), the power the same test reaches there,
  Φ((√n·0.05 − z_{0.95}·½) / √(0.55·0.45)) with n = prompts · I, and the smallest edge it
  detects there with power 0.8 (:func:`~judgebayes.anchors.sign_test_power`,
  :func:`~judgebayes.anchors.detectable_edge`);
* the **recommended anchor**: the most informative of two candidates or more (Figure 5; with
  three models or fewer Figure 5 says to compare all pairs instead). One anchor alone has
  nothing to be compared with; if it is an extreme one, the verdict suggests a model from the
  middle of its ranking, the kind the paper finds most informative.

**The anchor in use.** For an anchor layout, the anchors found
(:func:`~judgebayes.anchors.find_anchors`: the models every other model meets); for a full
matrix, none (every pair was compared), unless named (``anchor=``, ``--anchor``: the anchor a
benchmark of these models uses or would use). An anchor in use is *poor* where it is the
strongest or the weakest model (the inverted U of Section 4.1: such an anchor beats, or loses
to, every target on most prompts, and those prompts tell the targets nothing), or where
another candidate is clearly more informative (their intervals do not overlap); the verdict
(:func:`~judgebayes.auditing.verdict.anchor_findings`) names the anchor to use instead.

**When the battles are not anchor-based** — no prompt on which one judge saw three models
or more (an arena's battles, one pair per prompt), no model that every other meets, or no
prompt on which an anchor met two targets — there is nothing to add and the section says
nothing about anchors; battles that look anchor-based (every battle involves one of two
models) but carry no ``prompt_id`` get a note: I(p, A) needs the prompt of each battle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.anchors.layout import find_anchors
from judgebayes.anchors.power import detectable_edge, n_total, sign_test_power
from judgebayes.anchors.recommend import AnchorAnalysis, analyze_anchors
from judgebayes.anchors.verdicts import verdicts_from_battles
from judgebayes.auditing.inputs import AuditInput
from judgebayes.core.results import ResultDisplay
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["AnchorBudget", "anchor_budgets"]

EFFECT = 0.05
"""The edge the sample size is for: a 55 % win rate among discordant prompts (Table 2)."""
PAPER = (
    "Don-Yehiya et al., Mediocrity is the key for LLM as a Judge Anchor Selection, 2026, "
    "arXiv:2603.16848"
)


@dataclass(frozen=True, repr=False)
class AnchorBudget(ResultDisplay):
    """One judge's anchors: informativeness, place, prompts needed, the recommendation.

    Attributes
    ----------
    judge
        The judge whose verdicts these are.
    analysis
        :func:`~judgebayes.anchors.analyze_anchors` on them (its ``layout`` holds every
        anchor's ranking, τ and bootstrap replicates).
    table
        One row per candidate anchor, strongest first: ``anchor``, ``in_use``,
        ``position`` (1 = strongest) of ``n_models``, ``extreme`` (strongest or weakest),
        ``informativeness`` with ``lo``, ``hi`` and ``p_best`` (share of resamples in which
        it is the most informative), ``n_total`` (prompts for +5 %) with ``n_total_lo``,
        ``n_total_hi``, ``prompts`` (the data's, median over its targets), ``power_now``
        and ``edge_now`` (the power at +5 % and the smallest edge detectable with power
        0.8 on those prompts); for a full matrix ``tau_quadratic`` with ``tau_lo``,
        ``tau_hi`` (Kendall τ of the anchor's win-rate ranking with π_quad).
    in_use
        The anchors the benchmark uses (found, or named); empty for a full matrix
        without a named anchor.
    recommended
        The most informative candidate (``None`` with one candidate: nothing to compare it
        with; and with three models or fewer, where Figure 5 says to compare all pairs).
    n_models
        Models in the verdicts.
    three_point
        Whether the verdicts carry no margin (−1, 0, 1 only: the sign of a grade
        difference, or win/tie/loss).
    effect, alpha, power, level
        The edge the sample size is for, the sign test's level and power, and the level
        of the intervals.
    """

    judge: str
    analysis: AnchorAnalysis
    table: pd.DataFrame
    in_use: tuple[str, ...]
    recommended: str | None
    n_models: int
    three_point: bool
    effect: float = EFFECT
    alpha: float = 0.05
    power: float = 0.8
    level: float = 0.95

    @property
    def full_matrix(self) -> bool:
        """Whether every pair of models was judged (every model a candidate anchor)."""
        return self.analysis.layout.is_full_matrix

    @property
    def n_base(self) -> int:
        """Discordant prompts the sign test needs for :attr:`effect` (Table 2, "Base")."""
        return self.analysis.n_base

    def row(self, anchor: str) -> pd.Series:
        """The table's row of one anchor."""
        return self.table.set_index("anchor").loc[anchor]

    def poor(self) -> dict[str, str]:
        """``{anchor in use: why it is poor}``: ``"strongest"``, ``"weakest"`` or
        ``"less informative"`` (its interval lies below the recommended anchor's)."""
        out = {}
        best = self.row(self.recommended) if self.recommended is not None else None
        for anchor in self.in_use:
            r = self.row(anchor)
            if r["position"] == 1:
                out[anchor] = "strongest"
            elif r["position"] == r["n_models"]:
                out[anchor] = "weakest"
            elif best is not None and anchor != self.recommended and r["hi"] < best["lo"]:
                out[anchor] = "less informative"
        return out

    def middle(self, anchor: str) -> str:
        """The model in the middle of the ranking ``anchor`` induces (the anchor left out):
        the kind of anchor the paper recommends, where no other anchor was measured."""
        ranking = self.analysis.layout.ranking(anchor)
        models = ranking.loc[ranking["model"] != anchor, "model"].tolist()
        return str(models[len(models) // 2])

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def plot(self) -> Figure:
        """Informativeness per candidate anchor, strongest at the top (:func:`anchors_figure
        <judgebayes.auditing.figures.anchors_figure>`)."""
        from judgebayes.auditing.figures import anchors_figure

        return anchors_figure({self.judge: self})

    def _headline(self) -> str:
        kind = "full matrix" if self.full_matrix else "anchor layout"
        head = f"{self.judge}: {len(self.table)} candidate anchor(s), {kind}"
        if self.recommended is not None:
            r = self.row(self.recommended)
            head += (
                f"; recommended {self.recommended} (I = {r['informativeness']:.3f} "
                f"[{r['lo']:.3f}, {r['hi']:.3f}]), {r['n_total']:,.0f} prompts for "
                f"+{self.effect:.0%}"
            )
        if self.poor():
            head += "; poor anchor(s) in use: " + ", ".join(self.poor())
        return head


def _needed(base: int, info: float) -> float:
    """N_total = ⌈base / I⌉, NaN where I is not positive."""
    return float(n_total(base, min(info, 1.0))) if np.isfinite(info) and info > 0 else np.nan


def _shares_prompts(frame: pd.DataFrame) -> bool:
    """Whether one judge saw three models or more on some prompt (cheap, before any table)."""
    keys = ["judge", "prompt_id"] if "judge" in frame else ["prompt_id"]
    long = pd.concat(
        [frame[[*keys, side]].set_axis([*keys, "model"], axis=1) for side in ("model_a", "model_b")]
    ).drop_duplicates()
    return bool((long.groupby(keys, observed=True).size() >= 3).any())


def _looks_anchored(inp: AuditInput) -> tuple[str, ...]:
    """The one or two models every battle involves, where there are more than four models
    (the shape of anchor-based battles), else ``()``."""
    d = inp.data
    counts = np.bincount(np.concatenate([d.a, d.b]), minlength=d.n_models)
    top = np.argsort(-counts)[:2]
    if d.n_models > 4 and (np.isin(d.a, top) | np.isin(d.b, top)).all():
        return tuple(d.models[k] for k in top if counts[k] > 0)
    return ()


def anchor_budgets(
    inp: AuditInput,
    *,
    anchor: str | Sequence[str] | None = None,
    effect: float = EFFECT,
    alpha: float = 0.05,
    power: float = 0.8,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[dict[str, AnchorBudget], str]:
    """Per judge, the anchors of anchor-based battles (module docstring), and a note.

    Returns ``({judge: AnchorBudget}, note)``: empty where the battles are not
    anchor-based; the note says why an anchor analysis could not run where the battles
    look anchor-based (empty otherwise).

    Raises
    ------
    DataError
        When ``anchor`` names a model that is not an anchor of the battles (or the battles
        are not anchor-based).
    """
    named = (anchor,) if isinstance(anchor, str) else tuple(anchor or ())
    battles = inp.battles
    if inp.kind != "battles" or battles is None:
        return {}, ""
    frame = battles.frame
    if "prompt_id" not in frame or not _shares_prompts(frame):
        star = _looks_anchored(inp)
        if named:
            raise DataError(
                f"--anchor {named[0]}: the battles are not anchor-based (no prompt on which "
                "one judge saw three models or more)",
                column="prompt_id",
                expected="the models judged against the anchor on the same prompts, with a "
                "prompt_id",
            )
        if star and "prompt_id" not in frame:
            return {}, (
                f"the battles look anchor-based (every battle involves {', '.join(star)}) but "
                f"carry no prompt_id: the anchor's informativeness and the prompts the "
                f"anchors paper's power analysis asks for ({PAPER}) need the prompt of each "
                "battle"
            )
        return {}, ""
    try:
        table = verdicts_from_battles(battles)
    except DataError as err:
        return {}, f"the verdicts could not be read as an anchor table: {err}"
    out: dict[str, AnchorBudget] = {}
    notes = []
    for judge in table.judges:
        one = table.for_judge(judge)
        try:
            found = find_anchors(one)
        except DataError:
            continue  # not anchor-based for this judge
        unknown = [a for a in named if a not in found]
        if unknown:
            raise DataError(
                f"--anchor {unknown[0]} is not an anchor of {judge}'s verdicts (a model every "
                "other model was judged against)",
                column="model_a",
                expected=f"one of {list(found)}",
            )
        analysis = analyze_anchors(
            one,
            anchors=list(found),
            effect=effect,
            alpha=alpha,
            power=power,
            n_boot=n_boot,
            level=level,
            seed=seed,
            progress=False,
        )
        three_point = bool(np.isin(one.verdict, (-1, 0, 1)).all())
        budget = _budget(judge, one.models, analysis, named, three_point, effect, alpha, power)
        if budget is None:
            notes.append(
                f"{judge}: no prompt on which an anchor met two of its targets, so no "
                "informativeness (the anchors paper compares the targets' verdicts against "
                "the anchor on the same prompt)"
            )
            continue
        out[judge] = budget
    return out, "; ".join(notes)


def _budget(
    judge: str,
    models: tuple[str, ...],
    analysis: AnchorAnalysis,
    named: tuple[str, ...],
    three_point: bool,
    effect: float,
    alpha: float,
    power: float,
) -> AnchorBudget | None:
    """The per-anchor table of one judge's analysis, or ``None`` without any finite I."""
    layout = analysis.layout
    info = layout.info
    if not np.isfinite(info.informativeness).any():
        return None
    full = layout.is_full_matrix
    p_best = info.p_best()
    quad_rank = layout.anchor_rank("quadratic") if full else None
    tau = layout.tau.get(("quadratic", "win_rate"))
    rows = []
    for k, a in enumerate(layout.anchors):
        if full:
            position, of = int(quad_rank[k]), len(models)
        else:
            ranking = layout.ranking(a)
            position, of = int(np.flatnonzero(ranking["model"] == a)[0]) + 1, len(ranking)
        targets = layout.targets[k]
        prompts = float(np.median(layout.n_prompts[k, targets])) if targets.any() else 0.0
        i, lo, hi = info.informativeness[k], info.lo[k], info.hi[k]
        discordant = prompts * i if np.isfinite(i) else 0.0
        row = {
            "anchor": a,
            "in_use": a in named or (not full and not named),
            "position": position,
            "n_models": of,
            "extreme": position in (1, of),
            "informativeness": i,
            "lo": lo,
            "hi": hi,
            "p_best": p_best[k],
            "n_total": _needed(analysis.n_base, i),
            "n_total_lo": _needed(analysis.n_base, hi),
            "n_total_hi": _needed(analysis.n_base, lo),
            "prompts": prompts,
            "power_now": float(sign_test_power(discordant, 0.5 + effect, alpha=alpha)),
            "edge_now": detectable_edge(discordant, alpha=alpha, power=power),
        }
        if tau is not None:
            row.update(
                {
                    "tau_quadratic": tau[k],
                    "tau_lo": layout.tau_lo[("quadratic", "win_rate")][k],
                    "tau_hi": layout.tau_hi[("quadratic", "win_rate")][k],
                }
            )
        rows.append(row)
    table = pd.DataFrame(rows).sort_values(["position", "anchor"], ignore_index=True)
    finite = table[np.isfinite(table["informativeness"])]
    recommended = (
        None
        if len(models) <= 3 or len(finite) < 2
        else str(finite.loc[finite["informativeness"].idxmax(), "anchor"])
    )
    in_use = tuple(table.loc[table["in_use"], "anchor"])
    return AnchorBudget(
        judge=judge,
        analysis=analysis,
        table=table,
        in_use=in_use,
        recommended=recommended,
        n_models=len(models),
        three_point=three_point,
        effect=effect,
        alpha=alpha,
        power=power,
        level=layout.level,
    )
