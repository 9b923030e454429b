"""``jb.audit(...)``: can this judge be trusted, and what does it say? One call, one report.

:func:`audit` runs every check the data allow and writes the answer as an
:class:`~judgebayes.auditing.result.Audit`:

1. **Verdict** per judge, for ranking and for pairwise comparisons (judged items: per-model
   accuracy and comparisons between models), decided by the rules of
   :mod:`judgebayes.auditing.verdict`, and Fiedler's Section 7 checklist;
2. **Data**: models, battles, judges, the labelled share, the comparison graph;
3. **Judge vs humans**: agreement, κ, confusion matrices, J per model and ΔJ, ties, score
   calibration, both orders (:mod:`~judgebayes.auditing.humans`,
   :mod:`~judgebayes.auditing.by_model`, :mod:`~judgebayes.auditing.scores`,
   :mod:`~judgebayes.auditing.orders`);
4. **Self- and family-preference** η (:mod:`~judgebayes.auditing.self_preference`);
5. **The board**: calibrated beside each judge's own (:mod:`~judgebayes.auditing.board`);
6. **Calibration design** by LOO with its predictive check (:mod:`~judgebayes.auditing.design`);
7. **Budget**: the labels that halve the intervals (:mod:`~judgebayes.auditing.budget`);
   for anchor-based battles, each anchor's informativeness, the recommended anchor and the
   prompts a +5 % edge needs (:mod:`~judgebayes.auditing.anchors`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from judgebayes.anchors.verdicts import VerdictTable
from judgebayes.auditing.anchors import anchor_budgets
from judgebayes.auditing.board import AuditBoard, audit_board
from judgebayes.auditing.budget import battle_budget, item_budget
from judgebayes.auditing.by_model import JudgeByModel, judge_by_model
from judgebayes.auditing.design import compare_designs
from judgebayes.auditing.humans import item_agreement, judge_agreement
from judgebayes.auditing.inputs import AuditInput, audit_input
from judgebayes.auditing.orders import order_check
from judgebayes.auditing.result import Audit, Section
from judgebayes.auditing.scores import score_calibration
from judgebayes.auditing.sections import (
    board_section,
    budget_section,
    data_section,
    design_section,
    humans_section,
    item_board_section,
    item_data_section,
    item_humans_section,
    self_preference_section,
    verdict_section,
)
from judgebayes.auditing.self_preference import check_own_judges, self_preferences
from judgebayes.auditing.verdict import (
    BATTLE_USES,
    ITEM_USES,
    Finding,
    anchor_findings,
    battle_findings,
    item_findings,
    verdict_table,
)
from judgebayes.calibration.items import JudgedItems
from judgebayes.core.battles import Battles
from judgebayes.errors import DataError

__all__ = ["audit"]


def _own(own: Mapping[str, str | Sequence[str]] | None) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for judge, models in (own or {}).items():
        out[judge] = (models,) if isinstance(models, str) else tuple(models)
    return out


def _checklist(by_model: JudgeByModel) -> pd.DataFrame:
    return by_model.checklist.to_frame()


def audit(
    data: Battles | JudgedItems | VerdictTable | AuditInput,
    *,
    own: Mapping[str, str | Sequence[str]] | None = None,
    anchor: str | Sequence[str] | None = None,
    judge: str | None = None,
    human_labels: int | None = None,
    bayes: bool = False,
    design_judge: str | None = None,
    alpha: float = 0.05,
    n_boot: int = 1000,
    designs: bool = True,
    budget: bool = True,
    seed: int = 0,
    progress: bool = True,
    title: str = "",
) -> Audit:
    """Audit a judge (or several) against the humans, and say what it says.

    Parameters
    ----------
    data
        Battles — one judge (``judge_label``), or several joined by ``battle_id``
        (:func:`~judgebayes.read_aligned`, :func:`~judgebayes.read_judge_table`) — with a
        ``human_label`` on some of them; or judged items (:class:`~judgebayes.JudgedItems`,
        a correctness label per model and item), or an anchor verdict table
        (:class:`~judgebayes.anchors.VerdictTable`, read as battles:
        :meth:`~judgebayes.anchors.VerdictTable.to_battles`).
    own
        ``{judge: its own model or family}`` for self-preference (the CLI's ``--own``).
    anchor
        The anchor(s) the benchmark uses or would use (the CLI's ``--anchor``), for battles
        that are a few anchors × many models (default: the anchors found) or the full
        matrix (default: none in use); section 7 and the verdict assess it
        (:mod:`judgebayes.auditing.anchors`).
    judge
        The judge's name for judged items.
    human_labels
        Keep this many human labels, drawn at random, and hide the rest: what the audit
        says on a smaller labelling budget.
    bayes
        Fit the calibration designs by NUTS (default: MAP + Laplace).
    design_judge
        The judge whose calibration designs are compared (default: the one with the highest
        Ĵ).
    alpha
        Intervals have level 1 − α; tests are at α.
    n_boot
        Bootstrap replicates of the paired calibration bootstrap and of the anchors'
        bootstrap over prompts.
    designs
        Compare the calibration designs (section 6; loads JAX).
    budget
        Run the budget simulation (section 7).
    seed
        Seed of every random draw (label hiding, bootstraps, simulations).
    progress
        Show a progress bar over the audit's steps.
    title
        What the data are (the report's title); default from the data.

    Returns
    -------
    Audit
        Its sections, verdicts and findings; :meth:`~Audit.write` writes the report.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    start = time.perf_counter()
    if isinstance(data, VerdictTable):
        data = data.to_battles()
    inp = audit_input(data, judge=judge, human_labels=human_labels, seed=seed, source=title)
    own_models = _own(own)
    settings = {
        "alpha": alpha,
        "n_boot": n_boot,
        "seed": seed,
        "route": "NUTS" if bayes else "MAP + Laplace",
        "human_labels": human_labels if human_labels is not None else "all given",
    }
    named = (anchor,) if isinstance(anchor, str) else tuple(anchor or ())
    if named:
        settings["anchor"] = ", ".join(named)
    if inp.kind == "items":
        result = _audit_items(inp, bayes, alpha, n_boot, designs, budget, seed, progress)
    else:
        result = _audit_battles(
            inp,
            own_models,
            named,
            bayes,
            design_judge,
            alpha,
            n_boot,
            designs,
            budget,
            seed,
            progress,
        )
    section_list, findings, uses, results = result
    verdicts = verdict_table(findings, uses)
    frame = pd.DataFrame([f.to_dict() for f in findings])
    section_list[0] = verdict_section(
        verdicts, frame, section_list[0].tables, section_list[0].summary
    )
    settings["seconds"] = round(time.perf_counter() - start, 1)
    name = title or inp.source or "the data"
    what = (
        f"{name}: {inp.data.n_battles:,} battles, {inp.data.n_models} models, judges "
        f"{', '.join(inp.judges)}, {inp.n_labelled:,} human labels"
        if inp.kind == "battles"
        else f"{name}: {len(inp.items):,} judged items, {len(inp.models)} models, judge "
        f"{inp.judge}, {inp.n_labelled:,} human labels"
    )
    return Audit(what, tuple(section_list), verdicts, frame, settings, results)


def _bar(total: int, progress: bool) -> tqdm:
    return tqdm(total=total, desc="audit", disable=not progress, leave=False)


def _audit_battles(
    inp: AuditInput,
    own: dict[str, tuple[str, ...]],
    named: tuple[str, ...],
    bayes: bool,
    design_judge: str | None,
    alpha: float,
    n_boot: int,
    designs: bool,
    budget: bool,
    seed: int,
    progress: bool,
) -> tuple[list[Section], list[Finding], tuple[str, ...], dict]:
    data = inp.data
    judges = [j for j in data.judges if (~np.isnan(data.verdict(j))).any()]
    if not judges:
        raise DataError(
            "no judge verdict to audit: the battles carry no judge_label",
            column="judge_label",
            expected="a judge's verdicts (judge_label, or --judge NAME=FILE)",
        )
    check_own_judges(own, data.judges)
    bar = _bar(6, progress)
    agreements = {
        j: judge_agreement(data, j, position_known=inp.position_known, alpha=alpha, seed=seed)
        for j in judges
    }
    scores, orders = {}, {}
    for j in judges:
        if j in inp.scores and inp.has_humans:
            scores[j] = score_calibration(inp.judge_battles(j), j, alpha=alpha, seed=seed)
        orders[j] = order_check(inp, j, alpha=alpha)
    bar.update()
    items: dict[str, JudgedItems] = {}
    by_model = {}
    for j in judges:
        if agreements[j] is None:
            by_model[j] = None
            continue
        items[j] = JudgedItems.from_battles(inp.judge_battles(j))
        by_model[j] = judge_by_model(items[j], j, alpha=alpha, n_boot=n_boot, seed=seed)
    bar.update()
    board = audit_board(inp, alpha=alpha, seed=seed)
    prefs = self_preferences(data, own, alpha=alpha) if own else {}
    bar.update()
    # the calibration designs of one judge: the one asked for, else the best by Ĵ
    design, reason = None, "human labels on some battles (the designs are fitted to them)"
    if not designs:
        reason = "the comparison of calibration designs (it was switched off)"
    elif items:
        choice = design_judge
        if choice is None:
            choice = max(items, key=lambda j: np.nan_to_num(agreements[j]["J"].estimate, nan=-1))
        elif choice not in items:
            raise DataError(
                f"--design-judge {choice!r} is not a judge with human-labelled battles",
                column="judge",
                expected=f"one of {list(items)}",
            )
        design = compare_designs(
            items[choice], choice, method="nuts" if bayes else "map", alpha=alpha, seed=seed
        )
        if design is None:
            reason = f"labelled battles of at least two models with both outcomes for {choice}"
    bar.update()
    plan, budget_reason = None, "human labels on some battles and the calibrated board"
    if budget and board.calibrated is not None and data.labelled.all():
        budget_reason = (
            "battles without a human label: every battle is labelled already, so more labels "
            "need more battles"
        )
    elif budget and board.calibrated is not None:
        plan = battle_budget(data, board.calibrated, alpha=alpha, n_reps=3, seed=seed)
    elif not budget:
        budget_reason = "the budget simulation (it was switched off)"
    anchors, anchor_note = anchor_budgets(inp, anchor=named, n_boot=n_boot, seed=seed)
    bar.update()
    findings: list[Finding] = []
    for j in judges:
        findings += battle_findings(
            j,
            agreement=agreements[j],
            by_model=by_model[j],
            self_pref=prefs.get(j),
            own=own.get(j, ()),
            ranking=board.judges.get(j),
            scores=scores.get(j),
            orders=orders.get(j),
            position_known=inp.position_known,
        )
    for a in anchors.values():
        findings += anchor_findings(a)
    checklists = {j: _checklist(b) for j, b in by_model.items() if b is not None}
    says = "\n\n".join(filter(None, [_says(board), *(_anchor_says(f) for f in findings)]))
    placeholder = Section("verdict", "1. Verdict", True, says, tables=checklists)
    section_list = [
        placeholder,
        data_section(inp),
        humans_section(inp, agreements, by_model, scores, orders),
        self_preference_section(prefs, own),
        board_section(board, inp),
        design_section(design, reason, bayes),
        budget_section(plan, budget_reason, anchors, anchor_note),
    ]
    bar.update()
    bar.close()
    results = {
        "input": inp,
        "agreement": agreements,
        "by_model": by_model,
        "self_preference": prefs,
        "board": board,
        "scores": scores,
        "orders": orders,
        "design": design,
        "budget": plan,
        "anchors": anchors,
    }
    return section_list, findings, BATTLE_USES, results


def _says(board: AuditBoard) -> str:
    """What the calibrated board says, in two sentences, for the verdict section."""
    if board.calibrated is None:
        return (
            "What the judges say cannot be checked without human labels: their own boards "
            "are in section 5."
        )
    est, r = board.calibrated, board.calibrated_ranks
    top = []
    for k in np.argsort(-est.elo)[:5]:
        lo, hi = int(r.rank_lo[k]), int(r.rank_hi[k])
        top.append(f"{est.models[k]} (rank {lo}" + (f"–{hi})" if hi > lo else ")"))
    told = int((board.pairs["p_holm"] < board.alpha).sum())
    return (
        "What they say, calibrated by the human labels (prediction-powered Bradley–Terry, "
        f"section 5): first {', '.join(top)}; {told} of {len(board.pairs)} pairs of models are "
        f"told apart at the 95% level (Holm), and the mean rank-set holds {r.size.mean():.1f} "
        "ranks (section 7 says how many more labels would narrow it)."
    )


def _anchor_says(f: Finding) -> str:
    """A poor anchor in the verdict's own words (its finding may not decide the verdict)."""
    if f.diagnostic != "anchor" or f.severity != "caveat":
        return ""
    return f"A poor anchor: {f.message}. What to do: {f.fix}."


def _audit_items(
    inp: AuditInput,
    bayes: bool,
    alpha: float,
    n_boot: int,
    designs: bool,
    budget: bool,
    seed: int,
    progress: bool,
) -> tuple[list[Section], list[Finding], tuple[str, ...], dict]:
    items, judge = inp.items, inp.judge
    bar = _bar(4, progress)
    f = items.frame
    cal = f[f["split"] == "calibration"]
    table, stats = None, {}
    if len(cal) and cal["human_label"].nunique() == 2:
        table, stats = item_agreement(
            cal["human_label"].to_numpy(), cal["judge_label"].to_numpy(), alpha=alpha, seed=seed
        )
    by_model = (
        judge_by_model(items, judge, alpha=alpha, n_boot=n_boot, seed=seed)
        if table is not None and (f["split"] == "test").any()
        else None
    )
    bar.update()
    design = None
    reason = "labelled items of at least two models with both outcomes"
    if not designs:
        reason = "the comparison of calibration designs (it was switched off)"
    elif table is not None:
        design = compare_designs(
            items, judge, method="nuts" if bayes else "map", alpha=alpha, seed=seed
        )
    bar.update()
    plan, budget_reason = None, "labelled and judge-only items of every model"
    if budget and by_model is not None:
        try:
            plan = item_budget(items, alpha=alpha, seed=seed)
        except DataError as err:
            budget_reason = str(err)
    bar.update()
    findings = item_findings(judge, by_model=by_model, pooled_j=stats.get("J"))
    checklists = {judge: _checklist(by_model)} if by_model is not None else {}
    says = ""
    if by_model is not None:
        parts = [
            f"{r.model} {r.ppi_2x:.3f} [{r.ppi_2x_lo:.3f}, {r.ppi_2x_hi:.3f}] (the judge alone "
            f"{r.naive:.3f})"
            for r in by_model.per_model.itertuples()
        ]
        says = (
            "What it says, corrected by the human labels (PPI++ with model-specific "
            "calibration, section 5): θ = " + "; ".join(parts) + "."
        )
    if table is not None and by_model is None:
        budget_reason = reason = (
            "judge-only items (items without a human label) beside the labelled ones: "
            "with every item labelled there is nothing to correct"
        )
    section_list = [
        Section("verdict", "1. Verdict", True, says, tables=checklists),
        item_data_section(inp),
        item_humans_section(judge, table, stats, by_model),
        Section(
            key="self_preference",
            title="4. Self- and family-preference",
            available=False,
            needs="pairwise battles of the judge's own model against others, with --own "
            "JUDGE=MODEL (judged items carry no opponent)",
        ),
        item_board_section(by_model),
        design_section(design, reason, bayes),
        budget_section(plan, budget_reason),
    ]
    bar.update()
    bar.close()
    results = {
        "input": inp,
        "agreement": stats,
        "by_model": by_model,
        "design": design,
        "budget": plan,
    }
    return section_list, findings, ITEM_USES, results
