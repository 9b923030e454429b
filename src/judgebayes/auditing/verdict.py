"""The verdict: trust, trust with caveats, or do not trust — and the diagnostic that decided.

Each diagnostic of a judge becomes a :class:`Finding` with a severity (``ok``, ``caveat``,
``fail``; ``info`` for context that decides nothing; ``unknown`` where the data cannot tell)
for each of two uses:

* **ranking**: reading a leaderboard off the judge's verdicts;
* **pairwise comparisons**: reading "A beats B" (win rates, differences Δθ between two
  models) off its verdicts, with or without a correction calibrated on shared labels.

(For judged items the two uses are **per-model accuracy** and **comparisons between
models**.) A use's verdict is its worst finding: any ``fail`` → *do not trust*, else any
``caveat`` → *trust with caveats*, else *trust*; *cannot tell* where no human label checks
the judge and nothing failed (without human labels a failure, e.g. a large position bias
seen in both orders, is still informative). The deciding diagnostic is the first finding
of that severity, in the order of the rules below; every ``fail`` names its fix.

Rules (α the audit's level, intervals at 1 − α):

1. **Judge quality J** (Fiedler, *Bias and Uncertainty in LLM-as-a-Judge Estimation*,
   2026, arXiv:2605.06939, Section 4.4, question 1): pairwise comparisons (per-model
   accuracy) fail when Ĵ < 0.3 (the paper's low judge quality, where corrected estimates
   become unstable as 1/J) and get a caveat when the interval reaches below 0.3. For ranking a
   low J is a caveat only: a board adds up thousands of verdicts, so per-battle noise
   compresses its Elo scale but reorders it only through errors that depend on the models,
   which rules 2, 4 and 5 test (on the PPR data the judge with Ĵ = 0.27 ranks the 20 models
   with Kendall τ = 0.95 against the all-human board).
2. **ΔJ across models** (Section 4.4, question 2): pairwise comparisons fail when some
   pair's ΔJ differs from 0 after Holm's adjustment over all pairs (shared calibration is
   not defensible); caveat when some model has too few labels to check. Ranking: caveat (the
   judge's errors differ by model, which bends its board).
3. **Position bias** (Kargi & Salinas, *From Uncertain Judgments to Calibrated Rankings:
   Conformal Elo Estimation for LLM Evaluation*, 2026, Appendix F): P(judge says first) −
   P(humans say first) on the same battles (without human labels, P(judge says first) − ½
   on the pairs it judged in both orders, :mod:`judgebayes.auditing.orders`). Pairwise
   comparisons fail when the interval excludes 0 and |bias| ≥ 0.10, caveat when it
   excludes 0; ranking: caveat when it excludes 0 (with orders random across battles the
   bias blurs the board rather than reorders it).
4. **Self-preference η** (``--own``; :mod:`judgebayes.auditing.self_preference`): η is the
   judge's extra log-odds for its own models beyond what the position, the humans' strength
   gap of the two models and the humans' verdict on the battle explain; ξ, where other
   judges judged the battles, is η minus their mean η on the same models. A self-preference
   is a preference beyond the humans *and* beyond the other judges: both uses fail when the
   intervals of η and of ξ both lie above 0 and the smaller estimate reaches
   ``ETA_LARGE`` = 0.4 logit (a win probability near ½ moved by 10 points, the size at
   which position bias fails); a smaller one that is clear is a caveat, as is one the
   intervals cannot rule out (η's and ξ's upper ends both reaching 0.4: too few labels on
   its own models). An η that every judge shares (η clear of 0, ξ not: all of them misread
   those models against the humans) is no self-preference, nor are η and ξ both below 0
   (the judge under-credits its models, as a judge that reads some models' wins less well
   does): ``info``, the matter of rule 2.
5. **Rank agreement** (ranking): fail when a model's judge-only rank lies outside its
   calibrated rank-set (:mod:`judgebayes.auditing.board`).
6. **Score calibration** (judges that give scores; Kargi & Salinas, Appendix G and
   Table 7): caveat for ranking when ECE of σ(β|s|) exceeds 0.07, or when the score
   carries little signal (β̂ < 0.2 with agreement uncorrelated with |s|).
7. **Agreement, κ, Consistency** (Kargi & Salinas, Table 1; Ramaswamy, Demeure & Rrapaj,
   *Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores*): ``info``.
8. **The anchor** (anchor-based battles; Don-Yehiya, Yehudai, Choshen & Abend, *Mediocrity
   is the key for LLM as a Judge Anchor Selection*, 2026, arXiv:2603.16848;
   :mod:`judgebayes.auditing.anchors`): ranking gets a caveat when the anchor in use is
   the strongest or the weakest model, or clearly less informative than another candidate
   (Section 4.1: such anchors agree least with the human and the quadratic rankings); the
   fix names the anchor to use. Pairwise comparisons get a caveat when the data have fewer
   prompts than telling apart two models at +5 % takes with that anchor (N_total = 617 /
   I(p, A), Section 4.3 and Table 2: a benchmark that size cannot separate close models).
   A full matrix with no anchor in use gets ``info``: the anchor it would recommend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from judgebayes.auditing.estimates import Estimate

if TYPE_CHECKING:
    from judgebayes.auditing.anchors import AnchorBudget
    from judgebayes.auditing.board import JudgeRanking
    from judgebayes.auditing.by_model import JudgeByModel
    from judgebayes.auditing.humans import JudgeAgreement
    from judgebayes.auditing.orders import OrderCheck
    from judgebayes.auditing.scores import ScoreCalibration
    from judgebayes.auditing.self_preference import SelfPreference

__all__ = [
    "BATTLE_USES",
    "BIAS_LARGE",
    "ECE_HIGH",
    "ETA_LARGE",
    "ITEM_USES",
    "J_LOW",
    "SEVERITIES",
    "VERDICTS",
    "Finding",
    "anchor_findings",
    "verdict_table",
]

J_LOW = 0.3
"""Ĵ below this is low judge quality (Fiedler, Section 4.4; the package's ``low_j``)."""
BIAS_LARGE = 0.10
"""|P(judge says first) − P(humans say first)| from which position bias fails comparisons."""
ETA_LARGE = 0.4
"""Self-preference (logit) that fails a judge, and that an audit wants to rule out before it
calls a judge free of one: near P = ½, 0.4 logit is 10 points of win probability, the size
``BIAS_LARGE`` gives position bias."""
ECE_HIGH = 0.07
"""ECE above which Kargi & Salinas (Table 7) call a judge's score calibration broken."""
BATTLE_USES = ("ranking", "pairwise comparisons")
"""The two uses of a judge's verdicts on battles, each with its own verdict."""
ITEM_USES = ("per-model accuracy", "comparisons between models")
"""The two uses of a judge's verdicts on judged items."""
SEVERITIES = ("ok", "info", "unknown", "caveat", "fail")
"""Severities, mildest first."""
VERDICTS = {"fail": "do not trust", "caveat": "trust with caveats", "ok": "trust"}
"""The verdict a use gets from its worst finding."""
CANNOT_TELL = "cannot tell"


@dataclass(frozen=True)
class Finding:
    """One diagnostic of one judge for one use.

    Attributes
    ----------
    judge
        The judge.
    use
        ``"ranking"``, ``"pairwise comparisons"`` (battles), ``"per-model accuracy"``,
        ``"comparisons between models"`` (judged items).
    diagnostic
        Its name (``"judge quality J"``, ``"ΔJ across models"``, ...).
    severity
        One of :data:`SEVERITIES`.
    estimate
        The number that decided, with its interval (``None`` for a list of models).
    message
        What it found, in a sentence.
    fix
        What to do (empty when nothing is to be done).
    """

    judge: str
    use: str
    diagnostic: str
    severity: str
    estimate: Estimate | None
    message: str
    fix: str = ""

    def to_dict(self) -> dict[str, object]:
        e = self.estimate
        return {
            "judge": self.judge,
            "use": self.use,
            "diagnostic": self.diagnostic,
            "severity": self.severity,
            "estimate": np.nan if e is None else e.estimate,
            "lo": np.nan if e is None else e.lo,
            "hi": np.nan if e is None else e.hi,
            "message": self.message,
            "fix": self.fix,
        }


def verdict_table(findings: list[Finding], uses: tuple[str, ...]) -> pd.DataFrame:
    """One row per judge and use: ``judge, use, verdict, severity, diagnostic, estimate,
    lo, hi, message, fix`` (the deciding finding; module docstring) and ``also`` (the other
    diagnostics that failed or raised a caveat)."""
    rows = []
    judges = list(dict.fromkeys(f.judge for f in findings))
    for judge in judges:
        for use in uses:
            mine = [f for f in findings if f.judge == judge and f.use == use]
            decisive = [f for f in mine if f.severity in ("fail", "caveat", "ok")]
            if not decisive:
                unknown = [f for f in mine if f.severity == "unknown"]
                first = unknown[0] if unknown else None
                rows.append(
                    {
                        "judge": judge,
                        "use": use,
                        "verdict": CANNOT_TELL,
                        "severity": "unknown",
                        **_row(first),
                        "also": "",
                    }
                )
                continue
            worst = max(decisive, key=lambda f: SEVERITIES.index(f.severity))
            unchecked = next(
                (f for f in mine if f.diagnostic == "human labels" and f.severity == "unknown"),
                None,
            )
            if unchecked is not None and worst.severity != "fail":
                # without human labels only a failure is informative; the rest is untested
                rows.append(
                    {
                        "judge": judge,
                        "use": use,
                        "verdict": CANNOT_TELL,
                        "severity": "unknown",
                        **_row(unchecked),
                        "also": "; ".join(
                            f"{f.diagnostic} ({f.severity})"
                            for f in decisive
                            if f.severity == "caveat"
                        ),
                    }
                )
                continue
            first = next(f for f in decisive if f.severity == worst.severity)
            if worst.severity == "ok":  # the diagnostic that speaks most for the judge
                first = next((f for f in decisive if f.estimate is not None), first)
            also = [
                f"{f.diagnostic} ({f.severity})"
                for f in decisive
                if f is not first and f.severity in ("fail", "caveat")
            ]
            rows.append(
                {
                    "judge": judge,
                    "use": use,
                    "verdict": VERDICTS[worst.severity],
                    "severity": worst.severity,
                    **_row(first),
                    "also": "; ".join(dict.fromkeys(also)),
                }
            )
    return pd.DataFrame(rows)


def _row(f: Finding | None) -> dict[str, object]:
    if f is None:
        return {
            "diagnostic": "",
            "estimate": np.nan,
            "lo": np.nan,
            "hi": np.nan,
            "message": "",
            "fix": "",
        }
    d = f.to_dict()
    return {k: d[k] for k in ("diagnostic", "estimate", "lo", "hi", "message", "fix")}


def _j_finding(judge: str, use: str, j: Estimate, remedy: str = "the calibrated board") -> Finding:
    """Rule 1 (``remedy``: where the human labels correct the judge)."""
    if not np.isfinite(j.estimate):
        return Finding(judge, use, "judge quality J", "unknown", j, "J cannot be estimated")
    if j.estimate < J_LOW:
        return Finding(
            judge,
            use,
            "judge quality J",
            "fail",
            j,
            f"low judge quality: Ĵ = {j.text()} < {J_LOW} (Fiedler, Section 4.4): the "
            "judge is close to chance, and corrected estimates scale as 1/J",
            "treat every estimate from this judge with caution: rely on the human labels "
            f"({remedy}), label more, or use a better judge",
        )
    if j.lo < J_LOW:
        return Finding(
            judge,
            use,
            "judge quality J",
            "caveat",
            j,
            f"Ĵ = {j.text()}: its interval reaches below {J_LOW}, where corrected "
            "estimates become unstable",
            "more human labels narrow the interval of J",
        )
    return Finding(judge, use, "judge quality J", "ok", j, f"Ĵ = {j.text()} ≥ {J_LOW}")


def battle_findings(
    judge: str,
    *,
    agreement: JudgeAgreement | None = None,
    by_model: JudgeByModel | None = None,
    self_pref: SelfPreference | None = None,
    own: tuple[str, ...] = (),
    ranking: JudgeRanking | None = None,
    scores: ScoreCalibration | None = None,
    orders: OrderCheck | None = None,
    position_known: bool = True,
) -> list[Finding]:
    """Every finding of one judge on battles, for both uses (module docstring)."""
    out = _label_findings(judge, agreement)
    if by_model is not None:
        out += _delta_j_findings(judge, by_model)
    out += _position_findings(judge, agreement, orders, position_known=position_known)
    if own:
        out += _self_preference_findings(judge, self_pref, own)
    if ranking is not None and ranking.tau is not None:
        out += _rank_findings(judge, ranking)
    if scores is not None:
        out += _score_findings(judge, scores)
    return out + _info_findings(judge, agreement, orders)


def _label_findings(judge: str, agreement: JudgeAgreement | None) -> list[Finding]:
    """Rule 1, or the labels it needs."""
    rank, pair = BATTLE_USES
    out: list[Finding] = []
    if agreement is None:
        msg = "no battle carries both a human label and this judge's verdict"
        fix = "label a few hundred battles at random (a human_label on some battles)"
        for use in (rank, pair):
            out.append(Finding(judge, use, "human labels", "unknown", None, msg, fix))
    else:
        out.append(_j_finding(judge, pair, agreement["J"]))
        j_rank = _j_finding(judge, rank, agreement["J"])
        if j_rank.severity == "fail":  # rule 1: for a board, low J is a caveat
            j_rank = Finding(
                judge,
                rank,
                j_rank.diagnostic,
                "caveat",
                j_rank.estimate,
                f"weak per-battle signal: Ĵ = {j_rank.estimate.text()} < {J_LOW}; the board "
                "adds up many verdicts, but its Elo scale is compressed",
                "read Elo from the calibrated board; rely on its order only where the "
                "other diagnostics pass",
            )
        out.append(j_rank)
    return out


def _delta_j_findings(judge: str, by_model: JudgeByModel) -> list[Finding]:
    """Rule 2."""
    rank, pair = BATTLE_USES
    out: list[Finding] = []
    worst = by_model.worst
    if by_model.shared == "not defensible":
        msg = (
            f"J differs across models: ΔJ[{worst.name}] = {worst.text(signed=True)}, "
            f"Holm-adjusted p = {by_model.worst_p:.2g} over "
            f"{int(by_model.delta_j['p_holm'].notna().sum())} pairs: shared calibration "
            "is not defensible (Fiedler, Section 4.4)"
        )
        out.append(
            Finding(
                judge,
                pair,
                "ΔJ across models",
                "fail",
                worst,
                msg,
                "calibrate per model (PPI++ with model-specific calibration, 2×): label "
                "battles of every model you compare",
            )
        )
        out.append(
            Finding(
                judge,
                rank,
                "ΔJ across models",
                "caveat",
                worst,
                msg.replace(": shared calibration is not defensible (Fiedler, Section 4.4)", "")
                + ": the judge's errors differ by model, which bends its board",
                "read the calibrated board, not the judge's",
            )
        )
    elif by_model.shared == "unverifiable":
        who = ", ".join(by_model.unverifiable[:5]) + (
            f" and {len(by_model.unverifiable) - 5} more" if len(by_model.unverifiable) > 5 else ""
        )
        out.append(
            Finding(
                judge,
                pair,
                "ΔJ across models",
                "caveat",
                worst,
                f"shared calibration is unverifiable for {who}: too few labels to estimate their J",
                f"label battles of {who}",
            )
        )
    else:
        text = (
            f"no pair of models has a J that differs after Holm's adjustment (largest "
            f"evidence ΔJ[{worst.name}] = {worst.text(signed=True)})"
            if worst is not None
            else "J per model could not be compared"
        )
        out.append(Finding(judge, pair, "ΔJ across models", "ok", worst, text))
    return out


def _position_findings(
    judge: str, agreement: JudgeAgreement | None, orders: OrderCheck | None, *, position_known: bool
) -> list[Finding]:
    """Rule 3: against the humans where labels exist, against ½ on both orders otherwise."""
    rank, pair = BATTLE_USES
    out: list[Finding] = []
    bias = None
    if agreement is not None:
        bias, against = agreement["position bias"], "than the humans do on the same battles"
    elif orders is not None:  # no humans: against ½ on pairs judged in both orders
        bias, against = orders.position_bias, "than ½ on pairs it judged in both orders"
    if bias is not None:
        if not position_known:
            for use in (rank, pair):
                out.append(
                    Finding(
                        judge,
                        use,
                        "position bias",
                        "unknown",
                        None,
                        "not measured: the battles do not say which answer was shown first",
                        "keep a 'position' column (which model was shown first)",
                    )
                )
        elif bias.excludes(0.0):
            big = abs(bias.estimate) >= BIAS_LARGE
            side = "first" if bias.estimate > 0 else "second"
            msg = (
                f"the judge calls the answer shown {side} more often {against}: "
                f"{bias.text(signed=True)}"
            )
            fix = (
                "judge both orders and average the two verdicts (or keep a verdict only when "
                "both orders agree)"
            )
            out.append(
                Finding(judge, pair, "position bias", "fail" if big else "caveat", bias, msg, fix)
            )
            out.append(Finding(judge, rank, "position bias", "caveat", bias, msg, fix))
        else:
            out.append(
                Finding(
                    judge,
                    pair,
                    "position bias",
                    "ok",
                    bias,
                    f"no position bias ({bias.name} {bias.text(signed=True)})",
                )
            )
    return out


def _self_preference_findings(
    judge: str, self_pref: SelfPreference | None, own: tuple[str, ...]
) -> list[Finding]:
    """Rule 4."""
    uses = BATTLE_USES
    who = ", ".join(own)
    if self_pref is None:
        return [
            Finding(
                judge,
                use,
                "self-preference η",
                "unknown",
                None,
                f"no labelled battle it judged pits {who} against another model",
                f"label battles of {who}",
            )
            for use in uses
        ]
    sev, msg, fix = _self_preference_rule(self_pref, who)
    return [
        Finding(judge, use, "self-preference η", sev, self_pref.deciding, msg, fix) for use in uses
    ]


def _self_preference_rule(p: SelfPreference, who: str) -> tuple[str, str, str]:
    """Rule 4 on one judge: severity, message and fix."""
    eta, xi = p.eta, p.excess
    both = [eta] if xi is None else [eta, xi]
    said = f"η = {eta.text(2, signed=True)} beyond the humans' verdicts and strengths" + (
        "" if xi is None else f", ξ = {xi.text(2, signed=True)} beyond the other judges"
    )
    labels = f"{p.n_own} labelled battles of its models"
    size = min(e.estimate for e in both)
    if all(e.lo > 0 for e in both) and size >= ETA_LARGE:
        return (
            "fail",
            f"the judge favours {who}: {said} ({labels})",
            f"do not let it judge battles of {who}: use another judge there, or calibrate per "
            "model",
        )
    if all(e.lo > 0 for e in both):
        return (
            "caveat",
            f"a small preference for {who}, below {ETA_LARGE} logit: {said}",
            f"use another judge for battles of {who} where a small edge matters",
        )
    if min(e.hi for e in both) >= ETA_LARGE:
        return (
            "caveat",
            f"no evidence of a preference for {who}, but the intervals cannot rule out one of "
            f"{ETA_LARGE} logit: {said} ({labels})",
            f"label more battles of {who}",
        )
    if all(e.hi < 0 for e in both):
        return (
            "info",
            f"no preference for {who}: the judge gives them fewer wins than the humans and "
            f"the other judges do ({said}), an error on those models (ΔJ across models) that "
            "does not favour them",
            "",
        )
    if eta.excludes(0.0):
        side = "favour" if eta.estimate > 0 else "disfavour"
        return (
            "info",
            f"no self-preference towards {who}: the other judges {side} them as much "
            f"against the humans ({said}), a misreading of those models that every judge "
            "shares (ΔJ across models)",
            "",
        )
    return "ok", f"no self-preference towards {who}: {said}", ""


def _rank_findings(judge: str, ranking: JudgeRanking) -> list[Finding]:
    """Rule 5."""
    rank = BATTLE_USES[0]
    out: list[Finding] = []
    if ranking.misranked:
        names = ", ".join(ranking.misranked[:6]) + (
            f" and {len(ranking.misranked) - 6} more" if len(ranking.misranked) > 6 else ""
        )
        out.append(
            Finding(
                judge,
                rank,
                "rank agreement",
                "fail",
                ranking.tau,
                f"its own board ranks {len(ranking.misranked)} model(s) outside their "
                f"calibrated rank-sets ({names}); Kendall τ with the calibrated board "
                f"{ranking.tau.text(2)}",
                "use the calibrated board (prediction-powered BT with your human labels)",
            )
        )
    else:
        out.append(
            Finding(
                judge,
                rank,
                "rank agreement",
                "ok",
                ranking.tau,
                f"every model's judge-only rank lies in its calibrated rank-set; Kendall τ "
                f"{ranking.tau.text(2)}",
            )
        )
    return out


def _score_findings(judge: str, scores: ScoreCalibration) -> list[Finding]:
    """Rule 6."""
    rank = BATTLE_USES[0]
    out: list[Finding] = []
    ece, t = scores.ece, scores.temperature
    if ece.estimate > ECE_HIGH or t.low_signal:
        why = (
            f"ECE of σ(β|s|) = {ece.text()} > {ECE_HIGH}"
            if ece.estimate > ECE_HIGH
            else f"the score carries little signal (β = {scores.beta.text()}, agreement "
            f"r with |s| = {t.agreement_r:.2f})"
        )
        out.append(
            Finding(
                judge,
                rank,
                "score calibration",
                "caveat",
                ece,
                f"{why}: soft targets from its scores are miscalibrated "
                "(Kargi & Salinas, Appendix G)",
                "use hard verdicts, or refit β on more human labels",
            )
        )
    else:
        out.append(
            Finding(
                judge,
                rank,
                "score calibration",
                "ok",
                ece,
                f"scores calibrated: ECE {ece.text()}, β = {scores.beta.text()}",
            )
        )
    return out


def _info_findings(
    judge: str, agreement: JudgeAgreement | None, orders: OrderCheck | None
) -> list[Finding]:
    """Rule 7: context that decides nothing."""
    pair = BATTLE_USES[1]
    out: list[Finding] = []
    if agreement is not None:
        for name in ("decisive agreement", "kappa"):
            e = agreement[name]
            out.append(Finding(judge, pair, name, "info", e, f"{name} {e.text()}"))
    if orders is not None:
        out.append(
            Finding(judge, pair, "Consistency", "info", orders.consistency, orders._headline())
        )
    return out


def _informativeness(budget: AnchorBudget, anchor: str) -> Estimate:
    r = budget.row(anchor)
    return Estimate(
        f"I(p, {anchor})",
        float(r["informativeness"]),
        float(r["lo"]),
        float(r["hi"]),
        alpha=1 - budget.level,
        method="bootstrap over prompts",
    )


def _place(budget: AnchorBudget, anchor: str) -> str:
    r = budget.row(anchor)
    among = "π_quad, the ranking from every pair" if budget.full_matrix else "its own verdicts"
    return f"rank {int(r['position'])} of {int(r['n_models'])} by {among}"


def anchor_findings(budget: AnchorBudget) -> list[Finding]:
    """Rule 8: the anchor in use, and the prompts +5 % needs with it (module docstring)."""
    judge, (rank, pair) = budget.judge, BATTLE_USES
    best = budget.recommended
    out: list[Finding] = []
    if not budget.in_use:
        if best is not None:
            worst = budget.table.loc[budget.table["informativeness"].idxmin(), "anchor"]
            out.append(
                Finding(
                    judge,
                    rank,
                    "anchor",
                    "info",
                    _informativeness(budget, best),
                    f"every pair of models was judged, so no anchor is in use; were one used, "
                    f"{best} would be the most informative (I(p, A) = "
                    f"{_informativeness(budget, best).text()}, {_place(budget, best)}) and "
                    f"{worst} the least ({_informativeness(budget, worst).text()}, "
                    f"{_place(budget, worst)})",
                )
            )
        return out
    poor = budget.poor()
    for anchor in budget.in_use:
        info = _informativeness(budget, anchor)
        r = budget.row(anchor)
        why = poor.get(anchor)
        if why is None:
            out.append(
                Finding(
                    judge,
                    rank,
                    "anchor",
                    "ok",
                    info,
                    f"{anchor} as the anchor: I(p, A) = {info.text()}, {_place(budget, anchor)}",
                )
            )
        else:
            if why == "less informative":
                what = (
                    f"{anchor} as the anchor: I(p, A) = {info.text()}, clearly below {best}'s "
                    f"{_informativeness(budget, best).text()}: fewer of its prompts tell two "
                    "models apart"
                )
            else:
                what = (
                    f"{anchor} as the anchor is the {why} model ({_place(budget, anchor)}): "
                    f"I(p, A) = {info.text()}; the {why} anchor "
                    + ("beats" if why == "strongest" else "loses to")
                    + " most models on most prompts, and the anchors paper finds the strongest "
                    "and weakest models the poorest anchors (Don-Yehiya et al., Section 4.1)"
                )
            if best is not None and best != anchor:
                fix = (
                    f"use {best} as the anchor: I(p, A) = {_informativeness(budget, best).text()}"
                    f", {_place(budget, best)}, the most informative here"
                )
            else:
                middle = budget.middle(anchor)
                fix = (
                    f"judge the models against a middle one instead (e.g. {middle}, "
                    f"{_place_in(budget, anchor, middle)}): the paper finds middle models the "
                    "most informative anchors"
                )
            out.append(Finding(judge, rank, "anchor", "caveat", info, what, fix))
        needed = Estimate(
            "prompts for +5%",
            float(r["n_total"]),
            float(r["n_total_lo"]),
            float(r["n_total_hi"]),
            alpha=1 - budget.level,
            method="617 / I(p, A)",
        )
        if not np.isfinite(needed.estimate):
            continue
        head = (
            f"with {anchor} as the anchor, telling apart two models at +{budget.effect:.0%} "
            f"(one wins {0.5 + budget.effect:.0%} of the prompts on which their verdicts "
            f"differ) takes about {needed.estimate:,.0f} prompts "
            f"[{needed.lo:,.0f}, {needed.hi:,.0f}] ({budget.n_base} / I(p, A); Table 2)"
        )
        if r["prompts"] < needed.estimate:
            edge = r["edge_now"]
            fix = f"about {needed.estimate - r['prompts']:,.0f} more prompts"
            if best is not None and best != anchor:
                fix += (
                    f", or {best} as the anchor ({budget.row(best)['n_total']:,.0f} prompts in all)"
                )
            out.append(
                Finding(
                    judge,
                    pair,
                    "prompts for +5%",
                    "caveat",
                    needed,
                    f"{head}; the data have {r['prompts']:,.0f} per model: power "
                    f"{r['power_now']:.2f} at +{budget.effect:.0%}"
                    + (
                        f", and the smallest edge detected with power {budget.power:g} is "
                        f"+{edge:.1%}"
                        if np.isfinite(edge)
                        else ""
                    ),
                    fix,
                )
            )
        else:
            out.append(
                Finding(
                    judge,
                    pair,
                    "prompts for +5%",
                    "ok",
                    needed,
                    f"{head}; the data have {r['prompts']:,.0f} per model",
                )
            )
    return out


def _place_in(budget: AnchorBudget, anchor: str, model: str) -> str:
    ranking = budget.analysis.layout.ranking(anchor)
    k = int(np.flatnonzero(ranking["model"] == model)[0]) + 1
    return f"rank {k} of {len(ranking)} by its verdicts against {anchor}"


def item_findings(
    judge: str, *, by_model: JudgeByModel | None = None, pooled_j: Estimate | None = None
) -> list[Finding]:
    """Findings of one judge on judged items: per-model accuracy and comparisons."""
    acc, comp = ITEM_USES
    out: list[Finding] = []
    if pooled_j is None:
        for use in (acc, comp):
            out.append(
                Finding(
                    judge,
                    use,
                    "human labels",
                    "unknown",
                    None,
                    "no model has labelled items of both outcomes",
                    "label a calibration sample of every model's items",
                )
            )
        return out
    for use in (acc, comp):
        out.append(_j_finding(judge, use, pooled_j, "PPI++ with model-specific calibration"))
    if by_model is None:  # every item labelled: nothing to correct, nor a ΔJ to bootstrap
        return out
    cal = by_model.calibration
    for m in cal.models:
        if m in by_model.unverifiable:
            continue
        e = cal.estimate(m, "J")
        j = Estimate(f"J[{m}]", e.estimate, e.ci[0], e.ci[1], e.se, by_model.alpha)
        if np.isfinite(j.estimate) and j.estimate < J_LOW:
            out.append(
                Finding(
                    judge,
                    acc,
                    f"J of {m}",
                    "caveat",
                    j,
                    f"{m}: low Ĵ = {j.text()}: its corrected accuracy is unstable",
                    f"label more of {m}'s items; weaken claims about {m}",
                )
            )
    sub = [
        f for f in battle_findings(judge, by_model=by_model) if f.diagnostic == "ΔJ across models"
    ]
    for f in sub:
        if f.use == BATTLE_USES[1]:
            out.append(Finding(judge, comp, f.diagnostic, f.severity, f.estimate, f.message, f.fix))
    return out
