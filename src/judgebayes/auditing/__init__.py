"""The judge audit: can this judge be trusted, and what does it say? One call, one report.

:func:`audit` (``jb.audit``; the CLI's ``judgebayes audit``) reads battles (one judge or
several, human labels on some) or judged items and writes an :class:`Audit`: a verdict per
judge for ranking and for pairwise comparisons, with the diagnostic that decided it and the
fix, then the evidence section by section — data, judge against humans, self-preference,
the calibrated board, the calibration design, the labelling budget (and, for anchor-based
battles, which anchor and how many prompts).

Modules: ``inputs`` (what an audit reads), ``estimates`` (an estimate with its interval),
``humans`` (confusion matrices, agreement, κ, J, position bias, ties), ``by_model`` (J per
model, ΔJ with Holm's adjustment, the Section 7 checklist), ``self_preference`` (η against
the humans), ``scores`` (score calibration, ECE), ``orders`` (both orders, Consistency),
``board`` (judge-only, humans-only and calibrated boards), ``design`` (calibration designs
by LOO), ``budget`` (labels that halve the intervals, by simulation), ``anchors`` (for
anchor-based battles: each anchor's informativeness, the recommended anchor, the prompts +5 %
needs), ``verdict`` (the rules), ``sections``, ``figures``, ``result`` and ``html`` (the
report), ``run`` (:func:`audit`), ``simulate`` (judges with known defects).
"""

from judgebayes.auditing.anchors import AnchorBudget, anchor_budgets
from judgebayes.auditing.estimates import Estimate
from judgebayes.auditing.inputs import AuditInput, audit_input
from judgebayes.auditing.result import Audit, Section
from judgebayes.auditing.run import audit
from judgebayes.auditing.simulate import JudgeSpec, SimulatedAudit, default_judges, simulate_audit
from judgebayes.auditing.verdict import Finding

__all__ = [
    "AnchorBudget",
    "Audit",
    "AuditInput",
    "Estimate",
    "Finding",
    "JudgeSpec",
    "Section",
    "SimulatedAudit",
    "anchor_budgets",
    "audit",
    "audit_input",
    "default_judges",
    "simulate_audit",
]
