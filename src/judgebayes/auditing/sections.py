"""The report's sections, written from the audit's results: text, tables, figures.

One function per section. Each turns results into a :class:`~judgebayes.auditing.result.Section`:
a short summary in sentences (every number with its interval), the frames behind it, the
figures that show it, and — where the data do not allow it — what data would.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from judgebayes._stats import norm_ppf
from judgebayes.auditing.anchors import EFFECT, AnchorBudget
from judgebayes.auditing.board import AuditBoard
from judgebayes.auditing.budget import Budget
from judgebayes.auditing.by_model import JudgeByModel
from judgebayes.auditing.design import DesignComparison
from judgebayes.auditing.estimates import Estimate, fmt
from judgebayes.auditing.figures import (
    anchors_figure,
    board_figure,
    budget_figure,
    confusion_figure,
    data_figure,
    design_figure,
    eta_figure,
    j_by_model_figure,
    reliability_figure,
    theta_figure,
)
from judgebayes.auditing.humans import JudgeAgreement
from judgebayes.auditing.inputs import AuditInput
from judgebayes.auditing.orders import OrderCheck
from judgebayes.auditing.result import Section
from judgebayes.auditing.scores import ScoreCalibration
from judgebayes.auditing.self_preference import SelfPreference
from judgebayes.auditing.verdict import BIAS_LARGE, ECE_HIGH, ETA_LARGE, J_LOW
from judgebayes.core.graph import check_graph
from judgebayes.core.pairs import PairStats

__all__ = [
    "board_section",
    "budget_section",
    "data_section",
    "design_section",
    "humans_section",
    "item_board_section",
    "item_data_section",
    "item_humans_section",
    "self_preference_section",
    "verdict_section",
]


_J_COLUMNS = ("model", "n_cal", "q0", "q0_lo", "q0_hi", "q1", "q1_lo", "q1_hi", "J", "J_lo", "J_hi")
"""The columns of the "J per model" table (:class:`~judgebayes.auditing.by_model.JudgeByModel`)."""


def _e(estimate: Estimate | None, digits: int = 3, *, signed: bool = False) -> str:
    return "n/a" if estimate is None else estimate.text(digits, signed=signed)


def _list(names: list[str] | tuple[str, ...], most: int = 6) -> str:
    names = list(names)
    if len(names) <= most:
        return ", ".join(names)
    return ", ".join(names[:most]) + f" and {len(names) - most} more"


# ------------------------------------------------------------------------- verdict
def verdict_section(
    verdicts: pd.DataFrame,
    findings: pd.DataFrame,
    checklists: Mapping[str, pd.DataFrame],
    says: str,
) -> Section:
    """Verdict first: per judge and use, what the data say, the rules, the checklists."""
    rules = "\n".join(
        (
            "- A use's verdict is its worst finding: a failed diagnostic → do not trust; a "
            "caveat → trust with caveats; cannot tell where no human label checks the judge.",
            f"- Judge quality: Ĵ < {J_LOW} fails pairwise comparisons (Fiedler, Bias and "
            "Uncertainty in LLM-as-a-Judge Estimation, 2026, arXiv:2605.06939, Section 4.4) "
            f"and is a caveat for ranking (a board adds up many verdicts); an interval "
            f"reaching below {J_LOW} is a caveat.",
            "- ΔJ: a pair of models whose J differs after Holm's adjustment over all pairs "
            "fails pairwise comparisons (shared calibration is not defensible) and is a caveat "
            "for ranking.",
            f"- Position bias: an interval excluding 0 is a caveat; with |bias| ≥ {BIAS_LARGE} "
            "it fails pairwise comparisons.",
            "- Self-preference: η (the judge's extra log-odds for its own models beyond the "
            "humans' verdict, the two models' strengths and the position) and ξ (η minus the "
            "other judges' η on the same models) both above 0, the smaller reaching "
            f"{ETA_LARGE}, fail both uses; a smaller clear preference, or intervals that "
            f"cannot rule out {ETA_LARGE}, is a caveat. An η every judge shares is no "
            "self-preference.",
            "- Ranking: a model whose judge-only rank lies outside its calibrated rank-set "
            f"fails it; a score ECE above {ECE_HIGH} is a caveat (Kargi & Salinas, From "
            "Uncertain Judgments to Calibrated Rankings, 2026, Table 7).",
            "- Agreement, κ and Consistency are reported for context and decide nothing.",
            "- Anchor-based battles: an anchor in use that is the strongest or the weakest "
            "model, or clearly less informative than another, is a caveat for ranking "
            "(Don-Yehiya et al., Mediocrity is the key for LLM as a Judge Anchor Selection, "
            "2026, arXiv:2603.16848, Section 4.1); fewer prompts than +5% needs with it "
            "(617 / I(p, A), Table 2) is a caveat for pairwise comparisons.",
        )
    )
    shown = findings.assign(
        estimate=[
            fmt(e, lo, hi, 0 if abs(e) >= 100 else 3) if np.isfinite(e) else ""
            for e, lo, hi in zip(findings["estimate"], findings["lo"], findings["hi"], strict=True)
        ]
    )[["judge", "use", "diagnostic", "severity", "estimate", "message", "fix"]]
    details = {"How the verdict is decided": rules}
    tables: dict[str, pd.DataFrame] = {"verdicts": verdicts, "every finding": shown}
    for judge, frame in checklists.items():
        details[f"Fiedler's Section 7 checklist for {judge}"] = "\n".join(
            f"- {r.item}. {r.title}: {r.text}" for r in frame.itertuples()
        )
        tables[f"Section 7 checklist, {judge}"] = frame
    return Section(
        key="verdict",
        title="1. Verdict",
        available=True,
        summary=says,
        tables=tables,
        details=details,
        folded=("every finding",),
        hidden=tuple(f"Section 7 checklist, {j}" for j in checklists),
        notes=(
            "The Section 7 checklist flags each comparison against its baseline model at "
            "its level, without a correction for multiplicity; the verdict tests ΔJ over all "
            "pairs with Holm's adjustment.",
        )
        if checklists
        else (),
    )


# ---------------------------------------------------------------------------- data
def _per_model(inp: AuditInput) -> pd.DataFrame:
    d = inp.data
    k = d.n_models
    n = np.bincount(d.a, minlength=k) + np.bincount(d.b, minlength=k)
    lab = d.labelled
    n_lab = np.bincount(d.a[lab], minlength=k) + np.bincount(d.b[lab], minlength=k)
    pairs = pd.DataFrame({"a": np.minimum(d.a, d.b), "b": np.maximum(d.a, d.b)}).drop_duplicates()
    opp = np.bincount(pairs["a"], minlength=k) + np.bincount(pairs["b"], minlength=k)
    return pd.DataFrame(
        {"model": d.models, "n_battles": n, "n_labelled": n_lab, "n_opponents": opp}
    ).sort_values("n_battles", ascending=False, ignore_index=True)


def data_section(inp: AuditInput, *, few: int = 20) -> Section:
    """Models, battles, judges, labelled share, the comparison graph."""
    d = inp.data
    per = _per_model(inp)
    n, n_lab = d.n_battles, int(d.labelled.sum())
    verdicts = pd.DataFrame(
        {
            "judge": d.judges,
            "battles judged": [int((~np.isnan(d.verdict(j))).sum()) for j in d.judges],
            "with a human label": [
                int((~np.isnan(d.verdict(j)) & d.labelled).sum()) for j in d.judges
            ],
            "gives scores": [j in inp.scores for j in d.judges],
            "pairs in both orders": [inp.both_orders.get(j, 0) for j in d.judges],
            "prompts in both orders": [inp.both_order_prompts.get(j, 0) for j in d.judges],
        }
    )
    stats = PairStats.from_battles(d.a, d.b, np.full(n, 0.5), d.models)
    graph = check_graph(stats)
    thin = per.loc[per["n_battles"] < few, "model"].tolist()
    thin_lab = per.loc[(per["n_labelled"] < 10) & (per["n_battles"] >= few), "model"].tolist()
    lines = [
        f"{n:,} battles among {d.n_models} models, judged by {len(d.judges)} judge(s) "
        f"({_list(d.judges)}); {n_lab:,} ({n_lab / max(n, 1):.1%}) carry a human label"
        + (
            f" ({inp.n_hidden:,} more human labels were hidden for this audit)"
            if inp.n_hidden
            else ""
        )
        + "."
    ]
    if graph.connected:
        lines.append(
            f"The comparison graph is connected: every model's Elo is comparable with every "
            f"other's ({stats.n_pairs} of {d.n_models * (d.n_models - 1) // 2} pairs of models "
            "meet)."
        )
    else:
        lines.append(" ".join(graph.describe()[:1]) + ".")
    if thin:
        lines.append(f"Models with fewer than {few} battles: {_list(thin)}.")
    if thin_lab and n_lab:  # without any label, the sentence before says it for all
        lines.append(f"Models with fewer than 10 human-labelled battles: {_list(thin_lab)}.")
    lines.append(
        "Which answer was shown first is "
        + ("known (the 'position' column)." if inp.position_known else "not known.")
        + (
            f" {inp.bothbad:,} human ties were 'tie (bothbad)', counted as ties."
            if inp.bothbad
            else ""
        )
    )
    report = d.report
    if report.n_dropped or report.missing:
        gone = "; ".join(
            f"{k}: {v:,}" for k, v in {**report.dropped, **report.missing}.items() if v
        )
        if gone:
            lines.append(f"Rows dropped or values missing on the way in: {gone}.")
    needs = []
    if not inp.has_humans:
        needs.append(
            "human labels on some battles (a 'human_label' column, or a human file beside the "
            "judges' files): without them nothing can check the judge"
        )
    return Section(
        key="data",
        title="2. Data",
        available=True,
        summary=" ".join(lines),
        needs="; ".join(needs),
        tables={"models": per, "judges": verdicts},
        figures={"battles per model": lambda: data_figure(per)},
        folded=("models",),
    )


# ---------------------------------------------------------------- judge vs humans
def humans_section(
    inp: AuditInput,
    agreements: Mapping[str, JudgeAgreement | None],
    by_model: Mapping[str, JudgeByModel | None],
    scores: Mapping[str, ScoreCalibration | None],
    orders: Mapping[str, OrderCheck | None],
) -> Section:
    """Agreement, κ, confusion matrices, J per model and ΔJ, ties, scores, both orders."""
    have = {j: a for j, a in agreements.items() if a is not None}
    needs = []
    if not inp.has_humans:
        needs.append(
            "human labels on a random sample of battles (a few hundred): agreement, κ, J, "
            "ΔJ and position bias all compare the judge with them"
        )
    if not inp.position_known:
        needs.append("which answer was shown first (a 'position' column) for position bias")
    if not inp.scores:
        needs.append("judge scores (score_a, score_b) for the calibration curve and ECE")
    if not any(inp.both_orders.values()):
        needs.append("pairs judged in both orders for Consistency")
    elif not any(inp.both_order_prompts.values()):
        needs.append("prompts judged in both orders for swap agreement")
    if not have:
        lines = []
        for o in orders.values():
            if o is not None:
                lines.append(o._headline() + ".")
        return Section(
            key="humans",
            title="3. Judge vs humans",
            available=bool(lines),
            summary=" ".join(lines),
            needs="; ".join(needs),
            tables={
                "both orders": pd.concat([o.to_frame() for o in orders.values() if o is not None])
            }
            if lines
            else {},
        )
    lines = []
    for j, a in have.items():
        text = (
            f"- {j}: agreement {_e(a['agreement'], 2)} on {a.n:,} labelled battles, "
            f"{_e(a['decisive agreement'], 2)} where neither calls a tie; κ {_e(a['kappa'], 2)}; "
            f"J {_e(a['J'], 2)}."
        )
        if inp.position_known:
            bias = a["position bias"]
            text += (
                f" Says 'first wins' on {_e(a['judge says first'], 2)} of its decisive verdicts, "
                f"the humans on {_e(a['humans say first'], 2)}"
                + (
                    f": position bias {_e(bias, 2, signed=True)}."
                    if bias.excludes(0.0)
                    else " (no position bias)."
                )
            )
        text += (
            f" Calls a tie on {_e(a['judge tie rate'], 2)} of battles (humans "
            f"{_e(a['human tie rate'], 2)})."
        )
        b = by_model.get(j)
        if b is not None:
            text += " " + _shared_sentence(b)
        lines.append(text)
    lines = ["\n".join(lines)]
    tables: dict[str, pd.DataFrame] = {}
    agree = pd.concat([a.to_frame() for a in have.values()], ignore_index=True)
    agree["interval"] = [
        fmt(e, lo, hi)
        for e, lo, hi in zip(agree["estimate"], agree["lo"], agree["hi"], strict=True)
    ]
    tables["agreement"] = agree.pivot(
        index="statistic", columns="judge", values="interval"
    ).reindex(index=list(next(iter(have.values())).statistics))
    tables["confusion matrices"] = pd.concat(
        [
            a.confusion_frame().rename_axis("human").reset_index().assign(judge=j)
            for j, a in have.items()
        ],
        ignore_index=True,
    )[["judge", "human", *next(iter(have.values())).confusion_frame().columns]]
    tables["confusion by model"] = pd.concat(
        [a.by_model.rename(columns={"judge": "verdict"}).assign(judge=j) for j, a in have.items()],
        ignore_index=True,
    )[["judge", "model", "human", "verdict", "n"]]
    bm = {j: b for j, b in by_model.items() if b is not None}
    if bm:
        cols = list(_J_COLUMNS)
        tables["J per model"] = pd.concat(
            [b.per_model[cols].assign(judge=j) for j, b in bm.items()], ignore_index=True
        )[["judge", *cols]]
        every = pd.concat([b.delta_j.assign(judge=j) for j, b in bm.items()], ignore_index=True)[
            ["judge", "a", "b", "delta_j", "lo", "hi", "p", "p_holm"]
        ]
        tables["ΔJ, the five strongest pairs per judge"] = (
            every.sort_values("p").groupby("judge", sort=False).head(5).reset_index(drop=True)
        )
        tables["ΔJ, every pair"] = every
    figs = {
        "confusion matrices (rows: P(verdict | human outcome), counts in brackets)": lambda: (
            confusion_figure(list(have.values()))
        )
    }
    if bm:
        figs["J per model (Fiedler's judge quality, 95% bootstrap intervals)"] = lambda: (
            j_by_model_figure(bm, J_LOW)
        )
    sc = {j: s for j, s in scores.items() if s is not None}
    if sc:
        lines.append(
            " ".join(
                f"{s.judge}'s score differences: β = {_e(s.beta)}, ECE of σ(β|s|) {_e(s.ece)}"
                + (" (above 0.07: miscalibrated)." if s.ece.estimate > ECE_HIGH else ".")
                for s in sc.values()
            )
        )
        tables["score calibration"] = pd.concat(
            [s.to_frame() for s in sc.values()], ignore_index=True
        )
        figs["reliability of σ(β|s|) as P(judge's side = humans' side)"] = lambda: (
            reliability_figure(sc)
        )
    oc = {j: o for j, o in orders.items() if o is not None}
    if oc:
        lines.append(" ".join(o._headline() + "." for o in oc.values()))
        tables["both orders"] = pd.concat([o.to_frame() for o in oc.values()], ignore_index=True)
    return Section(
        key="humans",
        title="3. Judge vs humans",
        available=True,
        summary="\n\n".join(lines),
        needs="; ".join(needs),
        tables=tables,
        figures=figs,
        folded=("J per model", "score calibration"),
        hidden=("confusion matrices", "confusion by model", "ΔJ, every pair"),
    )


def _shared_sentence(b: JudgeByModel) -> str:
    if b.worst is None:
        return "J per model could not be compared (too few labels per model)."
    n_pairs = int(b.delta_j["p_holm"].notna().sum())
    lo_j = b.per_model.nsmallest(1, "J").iloc[0]
    hi_j = b.per_model.nlargest(1, "J").iloc[0]
    head = (
        f"J per model from {lo_j['J']:.2f} ({lo_j['model']}) to {hi_j['J']:.2f} ({hi_j['model']}); "
    )
    if b.shared == "not defensible":
        return head + (
            f"ΔJ[{b.worst.name}] = {b.worst.text(2, signed=True)} after Holm's adjustment over "
            f"{n_pairs} pairs (p = {b.worst_p:.2g}): shared calibration is NOT defensible."
        )
    tail = (
        f"no ΔJ survives Holm's adjustment over {n_pairs} pairs (largest: "
        f"ΔJ[{b.worst.name}] = {b.worst.text(2, signed=True)}): shared calibration is "
        "defensible as far as these labels tell"
    )
    if b.shared == "unverifiable":
        tail += f", unverifiable for {_list(b.unverifiable)}"
    return head + tail + "."


# --------------------------------------------------------------- self-preference
def self_preference_section(
    prefs: Mapping[str, SelfPreference | None], own: Mapping[str, tuple[str, ...]]
) -> Section:
    """η with intervals for every judge with --own."""
    if not own:
        return Section(
            key="self_preference",
            title="4. Self- and family-preference",
            available=False,
            needs=(
                "the judges' own models: --own JUDGE=MODEL (repeat it for a family), with "
                "human labels on battles of those models"
            ),
        )
    lines, rows = [], []
    for j, models in own.items():
        p = prefs.get(j)
        if p is None:
            lines.append(
                f"- {j}: no labelled battle it judged pits {_list(models)} against another "
                "model, so η cannot be measured."
            )
            continue
        excess = (
            ""
            if p.excess is None
            else (
                "; the other judges' η on the same models is "
                + ", ".join(f"{o:+.2f} ({k})" for k, o in p.others.items())
                + f", so its excess is ξ = {p.excess.text(2, signed=True)}"
            )
        )
        lines.append(
            f"- {j} → {_list(models)}: η = {p.eta.text(2, signed=True)} (logit){excess}. "
            f"From {p.n_own} labelled battles of its model(s), where it reads the outcome "
            f"δ = {p.accuracy.text(2, signed=True)} better than elsewhere; on them the judge "
            f"gives its model the win in {p.judge_own_wins:.1%} of its decisive verdicts, the "
            f"humans in {p.human_own_wins:.1%} of theirs."
        )
        rows.append(p.to_frame())
    have = {j: p for j, p in prefs.items() if p is not None}
    board = next(iter(have.values())).strengths if have else ""
    return Section(
        key="self_preference",
        title="4. Self- and family-preference",
        available=bool(have),
        summary="\n".join(lines)
        + (
            "\n\nη is the extra log-odds the judge gives 'my model wins' beyond what the "
            f"position, the two models' strengths (the {board} of the labelled battles) and "
            "the humans' verdict on the same battle explain: a fractional "
            "logistic regression of its verdicts on the human-labelled battles. Without the "
            "strengths every judge would seem to favour strong models, since a judge that "
            "reads quality better than one human vote calls the stronger model the winner "
            "where the human saw a tie. δ is the extra log-odds of a right verdict on battles "
            "of its models (a judge more accurate there has δ > 0, not η > 0). ξ, the excess "
            "over the other judges, tells a self-preference from a misreading every judge "
            "shares; the verdict decides on ξ where there are other judges. Intervals: Wald, "
            "from the judges' regressions stacked over the same battles, with the strengths' "
            "uncertainty carried through."
            if have
            else ""
        ),
        tables={"η and ξ": _eta_shown(have), "eta": pd.concat(rows, ignore_index=True)}
        if rows
        else {},
        hidden=("eta",),
        figures={"self-preference η and ξ (95% Wald intervals)": lambda: eta_figure(have)}
        if have
        else {},
    )


def _eta_shown(prefs: Mapping[str, SelfPreference]) -> pd.DataFrame:
    """The page's table of η: each estimate with its interval as text (the numbers in the
    CSV of table ``eta``)."""
    return pd.DataFrame(
        [
            {
                "judge": p.judge,
                "own models": ", ".join(p.own),
                "η vs humans": p.eta.text(2, signed=True),
                "other judges' η": "; ".join(f"{v:+.2f} ({k})" for k, v in p.others.items()),
                "ξ vs other judges": "" if p.excess is None else p.excess.text(2, signed=True),
                "δ (accuracy on own)": p.accuracy.text(2, signed=True),
                "labelled battles of own": p.n_own,
                "own wins, judge": f"{p.judge_own_wins:.1%}",
                "own wins, humans": f"{p.human_own_wins:.1%}",
            }
            for p in prefs.values()
        ]
    )


# -------------------------------------------------------------------------- board
def board_section(board: AuditBoard, inp: AuditInput) -> Section:
    """The calibrated board beside each judge's own; tiers; pairs told apart."""
    table = board.table()
    pairs = board.pairs
    told = int((pairs["p_holm"] < board.alpha).sum()) if len(pairs) else 0
    lines = []
    if board.calibrated is not None:
        est = board.calibrated
        r = board.calibrated_ranks
        z = 2 * np.median(est.se) * float(norm_ppf(1 - board.alpha / 2))
        if est.judges:
            lam = ", ".join(f"{j} {x:.2f}" for j, x in zip(est.judges, est.lam, strict=True))
            what = (
                f"The calibrated board (prediction-powered Bradley–Terry from {est.n_labelled:,} "
                f"human labels and {est.n_judged:,} judge-only battles; power-tuning weights λ: "
                f"{lam}, where 0 ignores a judge and 1 trusts it fully)"
            )
        else:
            what = f"The humans' own board ({est.n_labelled:,} labels, every battle)"
        lines.append(
            f"{what} has a median 95% interval {z:.0f} Elo wide and a mean rank-set of "
            f"{r.size.mean():.1f} ranks; {told} of {len(pairs)} pairs of models are told apart "
            "(95%, Holm)."
        )
        if r.n_tiers > 1:
            tiers = []
            for t in range(1, r.n_tiers + 1):
                names = [m for m, tt in zip(r.models, r.tier, strict=True) if tt == t]
                order = sorted(names, key=lambda m: -est.elo[est.models.index(m)])
                tiers.append(f"tier {t}: {_list(order, 8)}")
            lines.append("Tiers (models whose rank-sets overlap): " + "; ".join(tiers) + ".")
        else:
            lines.append(
                "Every rank-set overlaps the next, so the models form one tier: the labels "
                "separate some pairs (the table below) but no clean groups."
            )
    else:
        lines.append(
            "Without human labels only each judge's own board can be fitted: it says what the "
            "judge prefers, with intervals that measure the judge's sampling noise, not its "
            f"errors. {told} of {len(pairs)} pairs are told apart on it (95%, Holm)."
        )
    for j, jr in board.judges.items():
        if jr.tau is None:
            continue
        lines.append(
            f"- {j} alone: Kendall τ with the calibrated board {jr.tau.text(2)}, its Elo spread "
            f"{jr.scale.text(2)} × the calibrated one; "
            + (
                f"{len(jr.misranked)} model(s) outside their calibrated rank-set "
                f"({_list(jr.misranked)})."
                if jr.misranked
                else "every model inside its calibrated rank-set."
            )
        )
    needs = (
        ""
        if board.calibrated is not None
        else "human labels on some battles: the calibrated board corrects the judges with them"
    )
    told_pairs = pairs[pairs["p_holm"] < board.alpha] if len(pairs) else pairs
    return Section(
        key="board",
        title="5. The board",
        available=True,
        summary=" ".join(lines[:2]) + ("\n\n" + "\n".join(lines[2:]) if len(lines) > 2 else ""),
        needs=needs,
        tables={
            "board": table,
            "pairs told apart": told_pairs.reset_index(drop=True),
            "every pair": pairs,
        },
        folded=("pairs told apart",),
        hidden=("every pair",),
        figures={
            "calibrated Elo with 95% intervals and rank-sets; each judge's own Elo and the "
            "humans-only Elo marked": lambda: board_figure(board)
        },
        notes=board.notes,
    )


# ------------------------------------------------------------------------- design
def design_section(design: DesignComparison | None, reason: str, bayes: bool) -> Section:
    """Calibration designs by LOO, with the predictive check."""
    if design is None:
        return Section(
            key="design",
            title="6. Calibration design",
            available=False,
            needs=reason,
        )
    how = "NUTS" if design.method == "nuts" else "MAP + Laplace (run with --bayes for NUTS)"
    loo = design.loo
    runner = loo[loo["rank"] == 1]
    margin = (
        f"ahead of {runner['design'].iloc[0]} by {runner['elpd_diff'].iloc[0]:.1f} ± "
        f"{runner['dse'].iloc[0]:.1f} elpd"
        if len(runner)
        else ""
    )
    shared_out = design.outside("shared") if "shared" in set(design.ppc["design"]) else None
    best_out = design.outside(design.best)
    n_rates = int((design.ppc["design"] == design.best).sum())
    lines = [
        f"For {design.judge}, PSIS-LOO over {design.n_items:,} labelled items ({how}) puts "
        f"the {design.best} design first, {margin}"
        + (
            " — clearly."
            if design.clear
            else " — within two standard errors: the data do not choose."
        )
    ]
    if shared_out is not None:
        if design.best == "shared":
            lines.append(
                f"The predictive check agrees: under the shared design {shared_out} of {n_rates} "
                "per-model calibration rates fall outside their 95% predictive interval."
            )
        else:
            lines.append(
                ("The predictive check shows why: " if design.clear else "The predictive check: ")
                + f"under the shared design {shared_out} of {n_rates} per-model calibration "
                f"rates fall outside their 95% predictive interval, under {design.best} "
                f"{best_out}."
            )
    flagged = loo[loo["warning"].astype(bool)]["design"].tolist()
    if flagged:
        lines.append(
            f"PSIS flags the LOO of {_list(flagged)} as unreliable (Pareto k > 0.7)"
            + (
                ": MAP + Laplace draws approximate those posteriors poorly (the hierarchical "
                "scale sits at its boundary); --bayes samples them."
                if design.method == "map"
                else "."
            )
        )
    return Section(
        key="design",
        title="6. Calibration design",
        available=True,
        summary=" ".join(lines),
        tables={
            "loo": loo,
            "posterior predictive check": design.ppc,
            "estimates": design.estimates,
        },
        folded=("posterior predictive check",),
        hidden=("estimates",),
        figures={
            "judge-positive rates on labelled items: observed vs 95% predictive "
            "intervals": lambda: design_figure(design)
        },
    )


# ------------------------------------------------------------------------- budget
def _label_budget_lines(budget: Budget) -> list[str]:
    """How many more human labels halve the intervals, in sentences."""
    c = budget.curve
    w0 = c["median_width"].iloc[0]
    ext = " (extrapolated beyond the simulated range)" if "width" in budget.extrapolated else ""
    lines = [
        f"With {budget.n_now:,} human labels the median 95% interval is {w0:.3g} {budget.unit} "
        "wide (simulated)."
    ]
    if budget.halve_width <= budget.n_max:
        more = budget.halve_width - budget.n_now
        lines.append(
            f"About {budget.halve_width:,.0f} labels in all ({more:,.0f} more) halve it{ext}."
        )
    else:
        last = c.iloc[-1]
        lines.append(
            f"Halving it would take about {budget.halve_width:,.0f} labels{ext}, more than the "
            f"{budget.n_max:,.0f} battles there are: labelling all of them narrows it to "
            f"{last['median_width']:.3g} {budget.unit}; halving it needs more battles."
        )
    if np.isfinite(budget.halve_rank_set):
        s0 = c["median_rank_set"].iloc[0]
        ext = " (extrapolated)" if "rank-set" in budget.extrapolated else ""
        if budget.halve_rank_set <= budget.n_max:
            lines.append(
                f"The median rank-set holds {s0:.1f} ranks; about {budget.halve_rank_set:,.0f} "
                f"labels halve it{ext}."
            )
        else:
            lines.append(
                f"The median rank-set holds {s0:.1f} ranks; halving it would take about "
                f"{budget.halve_rank_set:,.0f} labels{ext}, more than there are battles."
            )
    lines.append(
        f"Simulated from the fitted model, {budget.n_reps} data sets per point: it answers "
        "how much sharper more labels make the answer, not how much more right."
    )
    return lines


def _anchor_text(b: AnchorBudget, several: bool) -> str:
    """One judge's anchors in paragraphs (the table and figure hold every anchor)."""
    t = b.table
    prompts = float(t["prompts"].median())
    scale = (
        "three-point verdicts: win, tie or loss, no margin"
        if b.three_point
        else "five-point verdicts, the margin kept"
    )

    def info(anchor: str, name: bool = True) -> str:
        r = b.row(anchor)
        where = f"rank {int(r['position'])} of {int(r['n_models'])}"
        return f"{r['informativeness']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] " + (
            f"({anchor}, {where})" if name else f"({where})"
        )

    if b.full_matrix:
        shape = (
            f"Every pair of the {b.n_models} models was judged on the same prompts (about "
            f"{prompts:,.0f} per model), so each model could be the anchor of a cheaper "
            "benchmark that judges every other model against it alone; ranks are in π_quad, "
            "the Bradley–Terry ranking from every pair"
            + (f", and {', '.join(b.in_use)} is named as the anchor." if b.in_use else ".")
        )
    else:
        shape = (
            f"Every model was judged against {', '.join(b.in_use)} on the same prompts (about "
            f"{prompts:,.0f} per model): {len(t)} anchor(s) and {b.n_models - len(t)} other "
            "models; an anchor's rank is its place in the ranking its verdicts induce "
            "(1 = strongest)."
        )
    lo_k, hi_k = t["informativeness"].idxmin(), t["informativeness"].idxmax()
    what = (
        f"Informativeness I(p, A), the share of (prompt, pair of models) whose verdicts "
        f"against the anchor differ ({scale}; {100 * b.level:g}% intervals from "
        f"{b.analysis.layout.n_boot:,} bootstrap resamples of the prompts)"
    )
    if len(t) > 1:
        what += f", runs from {info(t.loc[lo_k, 'anchor'])} to {info(t.loc[hi_k, 'anchor'])}."
    else:
        what += f": {info(t.loc[lo_k, 'anchor'])}."
    paragraphs = [(f"{b.judge}: " if several else "") + shape]
    text = [what]
    ends = t[t["extreme"]]
    if b.full_matrix and len(ends) and len(t) > 3:
        text.append(
            "The strongest and the weakest model: "
            + " and ".join(info(a) for a in ends["anchor"])
            + "."
        )
    if b.recommended is not None:
        r = b.row(b.recommended)
        runner = t[t["anchor"] != b.recommended].sort_values("p_best", ascending=False)
        also = (
            f"; {runner['anchor'].iloc[0]} in {runner['p_best'].iloc[0]:.0%}"
            if len(runner) and runner["p_best"].iloc[0] > 0.05
            else ""
        )
        text.append(
            f"Recommended anchor: {b.recommended}, the most informative in {r['p_best']:.0%} "
            f"of the resamples{also}."
        )
    elif b.n_models <= 3:
        text.append(
            f"With {b.n_models} models the paper's Figure 5 says to compare all pairs: no "
            "anchor to choose."
        )
    paragraphs.append(" ".join(text))
    focus = b.recommended if b.recommended is not None else str(t.loc[hi_k, "anchor"])
    r = b.row(focus)
    worst = str(t.loc[lo_k, "anchor"])
    text = []
    text.append(
        f"To tell apart two models one of which wins {0.5 + b.effect:.0%} of the prompts on "
        f"which their verdicts against the anchor differ (+{b.effect:.0%}; one-sided sign "
        f"test, α = {b.alpha:g}, power {b.power:g}: {b.n_base} such prompts, the paper's "
        f"Table 2) takes N_total = {b.n_base} / I prompts in all: {r['n_total']:,.0f} "
        f"[{r['n_total_lo']:,.0f}, {r['n_total_hi']:,.0f}] with {focus}"
        + (f", {t.loc[lo_k, 'n_total']:,.0f} with {worst}" if worst != focus else "")
        + f". The data have {r['prompts']:,.0f} per model: with {focus} the test reaches "
        f"power {r['power_now']:.2f} at +{b.effect:.0%}"
        + (
            f", and the smallest edge it detects with power {b.power:g} is +{r['edge_now']:.1%}."
            if np.isfinite(r["edge_now"])
            else "."
        )
    )
    paragraphs.append(" ".join(text))
    text = []
    poor = b.poor()
    flags = {
        "strongest": "the strongest model, a poor anchor",
        "weakest": "the weakest model, a poor anchor",
        "less informative": f"clearly less informative than {b.recommended}, a poor anchor",
    }
    for a in b.in_use:
        ra = b.row(a)
        flag = f": {flags[poor[a]]} (section 1 says what to use instead)" if a in poor else ""
        if a == focus:
            if flag:
                text.append(f"In use: {a}{flag}.")
            continue
        text.append(
            f"In use: {a}, I = {info(a, name=False)}; +{b.effect:.0%} takes "
            f"{ra['n_total']:,.0f} prompts with it (power {ra['power_now']:.2f} on the "
            f"data's){flag}."
        )
    if b.full_matrix and len(t) >= 3 and "tau_quadratic" in t:
        fit = b.analysis.layout.tau_vs_informativeness(reference="quadratic")
        interval = (
            f" [{fit.r2_lo:.2f}, {fit.r2_hi:.2f}]"
            if np.isfinite(fit.r2_lo) and np.isfinite(fit.r2_hi)
            else ""
        )
        text.append(
            f"Kendall τ of each anchor's ranking with π_quad runs from "
            f"{t['tau_quadratic'].min():.3f} to {t['tau_quadratic'].max():.3f}; across anchors "
            f"R² of τ on I is {fit.r2:.2f}{interval} (the paper's Figure 3: 0.59)."
        )
    paragraphs.append(" ".join(text))
    return "\n\n".join(p for p in paragraphs if p)


def budget_section(
    budget: Budget | None,
    reason: str,
    anchors: Mapping[str, AnchorBudget] | None = None,
    anchor_note: str = "",
) -> Section:
    """How many more labels halve the intervals; for anchor-based battles, which anchor and
    how many prompts (Don-Yehiya et al.)."""
    anchors = dict(anchors or {})
    if budget is None and not anchors:
        needs = reason + (f"; {anchor_note}" if anchor_note else "")
        return Section(key="budget", title="7. Budget", available=False, needs=needs)
    paragraphs, tables, figures = [], {}, {}
    needs = [anchor_note] if anchor_note else []
    if budget is not None:
        paragraphs.append(" ".join(_label_budget_lines(budget)))
        tables["simulated curve"] = budget.curve
        figures["simulated median interval width against human labels"] = lambda: budget_figure(
            budget
        )
    else:
        needs.insert(0, f"for how many more human labels halve the intervals: {reason}")
    if anchors:
        paragraphs.append(
            "Which anchor, and how many prompts (Don-Yehiya, Yehudai, Choshen & Abend, "
            "Mediocrity is the key for LLM as a Judge Anchor Selection, 2026, "
            "arXiv:2603.16848)."
        )
        paragraphs += [_anchor_text(b, len(anchors) > 1) for b in anchors.values()]
        frames = [b.table.assign(judge=b.judge) for b in anchors.values()]
        frame = pd.concat(frames, ignore_index=True)
        # two narrower tables: which anchor, and the prompts +5% needs with each (the
        # number of models is in the text; "extreme" is rank 1 or last)
        keys = ["anchor"] if len(anchors) == 1 else ["judge", "anchor"]
        which = ["in_use", "position", "informativeness", "lo", "hi", "p_best"]
        which += [c for c in ("tau_quadratic", "tau_lo", "tau_hi") if c in frame]
        prompts = ["n_total", "n_total_lo", "n_total_hi", "prompts", "power_now", "edge_now"]
        tables["anchors"] = frame[keys + which]
        tables[f"prompts for +{EFFECT:.0%} per anchor"] = frame[keys + prompts]
        figures["informativeness of each candidate anchor, and the prompts +5% needs"] = lambda: (
            anchors_figure(anchors)
        )
    return Section(
        key="budget",
        title="7. Budget",
        available=True,
        summary="\n\n".join(paragraphs),
        needs="; ".join(needs),
        tables=tables,
        figures=figures,
    )


# ----------------------------------------------------------------- judged items
def item_data_section(inp: AuditInput) -> Section:
    items = inp.items
    s = items.summary()
    n_cal = int(s["n_cal"].sum())
    lines = (
        f"{len(items):,} judged items of {len(s)} models, judged by {inp.judge}; {n_cal:,} "
        f"carry a human label (the calibration set)"
        + (f", {inp.n_hidden:,} more labels hidden for this audit" if inp.n_hidden else "")
        + "."
    )
    dropped = items.report.dropped
    if dropped:
        lines += (
            " Left out on the way in: " + "; ".join(f"{k}: {v:,}" for k, v in dropped.items()) + "."
        )
    return Section(
        key="data",
        title="2. Data",
        available=True,
        summary=lines,
        tables={"models": s},
        needs="" if n_cal else "human labels on a calibration sample of every model's items",
    )


def item_humans_section(
    judge: str,
    table: np.ndarray | None,
    stats: Mapping[str, Estimate],
    by_model: JudgeByModel | None,
) -> Section:
    if table is None:
        return Section(
            key="humans",
            title="3. Judge vs humans",
            available=False,
            needs="human labels on a calibration sample of the items",
        )
    text = (
        f"{judge} on {int(table.sum()):,} labelled items: agreement {_e(stats['agreement'])}, κ "
        f"{_e(stats['kappa'])}, sensitivity q1 {_e(stats['q1'])}, specificity q0 "
        f"{_e(stats['q0'])}, J {_e(stats['J'])}; it calls {_e(stats['judge positive rate'])} "
        f"positive where the humans call {_e(stats['human positive rate'])}."
    )
    tables = {
        "agreement": pd.DataFrame([e.to_dict() for e in stats.values()]),
        "confusion": pd.DataFrame(
            table,
            index=pd.Index(["human: 0", "human: 1"], name=judge),
            columns=["judge: 0", "judge: 1"],
        ),
    }
    figs = {}
    if by_model is not None:
        text += " " + _shared_sentence(by_model)
        cols = list(_J_COLUMNS)
        tables["J per model"] = by_model.per_model[cols]
        tables["ΔJ, every pair"] = by_model.delta_j
        figs["J per model (Fiedler's judge quality, 95% bootstrap intervals)"] = lambda: (
            j_by_model_figure({judge: by_model}, J_LOW, "Youden's J (95% interval)")
        )
    return Section(
        key="humans",
        title="3. Judge vs humans",
        available=True,
        summary=text,
        tables=tables,
        figures=figs,
        folded=("J per model", "ΔJ, every pair"),
    )


def item_board_section(by_model: JudgeByModel | None) -> Section:
    if by_model is None:
        return Section(
            key="board",
            title="5. Per-model accuracy",
            available=False,
            needs="human labels on a calibration sample of every model's items",
        )
    f = by_model.per_model
    lines = []
    for r in f.itertuples():
        lines.append(
            f"{r.model}: judge alone {fmt(r.naive, r.naive_lo, r.naive_hi)}, PPI++ "
            f"{fmt(r.ppi_2x, r.ppi_2x_lo, r.ppi_2x_hi)}."
        )
    cols = ["model", "naive", "naive_lo", "naive_hi", "ppi_2x", "ppi_2x_lo", "ppi_2x_hi"]
    return Section(
        key="board",
        title="5. Per-model accuracy",
        available=True,
        summary="θ per model, the judge alone beside PPI++ with model-specific calibration "
        "(Fiedler's most robust estimator): " + " ".join(lines),
        tables={"accuracy": f[cols], "every estimator": by_model.calibration.to_frame()},
        figures={"θ per model": lambda: theta_figure(by_model)},
        folded=("every estimator",),
    )
