"""The papers the verbs follow, as ``judgebayes VERB --help`` cites them.

A module of its own (no imports beyond the standard library) so that every verb's parser
can cite its paper without loading anything else: ``judgebayes softelo --help`` stays
instant.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

__all__ = ["PAPERS", "Paper", "described"]


@dataclass(frozen=True)
class Paper:
    """One paper: authors, title, venue and year, arXiv id; cited in full or short."""

    authors: str
    title: str
    venue: str
    arxiv: str
    short_authors: str

    @property
    def year(self) -> str:
        """The year, the last word of the venue (``"EMNLP 2025"`` → ``"2025"``)."""
        return self.venue.split()[-1]

    @property
    def full(self) -> str:
        """Authors, "title", venue and year, arXiv id."""
        return f'{self.authors}, "{self.title}", {self.venue}, arXiv:{self.arxiv}'

    @property
    def short(self) -> str:
        """Short authors, year, arXiv id: for a verb's one-line help."""
        return f"{self.short_authors} {self.year}, arXiv:{self.arxiv}"


PAPERS = {
    "softelo": Paper(
        "Kargi & Salinas",
        "From Uncertain Judgments to Calibrated Rankings: Conformal Elo Estimation for LLM "
        "Evaluation",
        "2026",
        "2606.13221",
        "Kargi & Salinas",
    ),
    "calibration": Paper(
        "Fiedler",
        "Bias and Uncertainty in LLM-as-a-Judge Estimation",
        "2026",
        "2605.06939",
        "Fiedler",
    ),
    "consistency": Paper(
        "Ramaswamy, Demeure & Rrapaj",
        "Model Consistency as a Cheap yet Predictive Proxy for LLM Elo Scores",
        "EMNLP 2025",
        "2509.23510",
        "Ramaswamy et al.",
    ),
    "consensus": Paper(
        "Zhang, Wang, Wu, Yu, Wang, Bao & Tang",
        "UDA: Unsupervised Debiasing Alignment for Pair-wise LLM-as-a-Judge",
        "2025",
        "2508.09724",
        "Zhang et al.",
    ),
    "anchors": Paper(
        "Don-Yehiya, Yehudai, Choshen & Abend",
        "Mediocrity is the key for LLM as a Judge Anchor Selection",
        "ACL 2026",
        "2603.16848",
        "Don-Yehiya et al.",
    ),
    "ppr": Paper(
        "Chatzi, Straitouri, Thejaswi & Gomez-Rodriguez",
        "Prediction-Powered Ranking of Large Language Models",
        "NeurIPS 2024",
        "2402.17826",
        "Chatzi et al.",
    ),
    "ppi++": Paper(
        "Angelopoulos, Duchi & Zrnic",
        "PPI++: Efficient Prediction-Powered Inference",
        "2023",
        "2311.01453",
        "Angelopoulos et al.",
    ),
}
"""The five papers the methods follow, and the two the calibrated rankings build on."""


def described(summary: str, paper: Paper, detail: str = "") -> str:
    """A verb's ``--help`` description: what it does, then the paper it follows in full.

    Paragraphs wrapped at 88 columns, for ``argparse.RawDescriptionHelpFormatter`` (which
    keeps the blank lines between them).
    """
    parts = [summary, detail, f"Follows {paper.full}."]
    return "\n\n".join(textwrap.fill(p, 88) for p in parts if p)
