"""The ``judgebayes`` command line.

Every verb prints a readable table; with ``--out DIR`` it also writes the same
results as CSV (a leaderboard: ``model, elo, elo_lo, elo_hi, se, n_battles, rank_lo,
rank_hi, tier``: Elo intervals and simultaneous rank-sets with their tiers) and
a ``summary.json`` (strict JSON). Bad input exits with status 2 and a one-line reason:
argument values are checked by the parser (:mod:`judgebayes.cli.common`), and files are
read through :mod:`judgebayes.core.io`, which turns whatever goes wrong in a file into
one :class:`~judgebayes.DataError` naming the file and the line. One module per verb
group; each has ``register(sub)``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

from judgebayes.errors import DataError, JudgeBayesWarning

__all__ = ["build_parser", "main"]

# Each verb and the module that registers it, in the order of ``judgebayes --help``. The
# modules are imported when a parser needs them: ``judgebayes softelo ...`` imports only
# ``judgebayes.cli.softelo`` (and, when it runs, what that verb needs), not the modules of
# the other verbs and their dependencies (simulation, plotting, calibration, ...).
VERB_MODULES = {
    "audit": "audit",
    "demo": "arena",
    "elo": "arena",
    "compare": "arena",
    "softelo": "softelo",
    "consistency": "consistency",
    "calibrate": "calibrate",
    "consensus": "consensus",
    "anchors": "anchors",
    "rank": "rank",
}


DESCRIPTION = """\
Calibrated, uncertainty-aware model evaluation from LLM-judge verdicts.

Start here: judgebayes audit FILE [--judge NAME=FILE ...] [--own JUDGE=MODEL] --out DIR
answers "can I trust this judge, and what does it say?" in one report: per judge, a
verdict for ranking and for pairwise comparisons (trust / trust with caveats / do not
trust) with the diagnostic that decided it and the fix; agreement and confusion with the
humans, J per model and ΔJ, position bias, self-preference, the calibrated board with
rank-sets, the calibration design, and how many more human labels would help.

The other verbs run one method each and cite the paper it follows in their --help:
Soft-Elo (Kargi & Salinas 2026), judge calibration (Fiedler 2026), Consistency (Ramaswamy
et al. 2025), consensus (Zhang et al. 2025), anchors (Don-Yehiya et al. 2026), calibrated
rankings (Chatzi et al. 2024; Angelopoulos et al. 2023). Try one without data:
judgebayes demo."""


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


def _parser(modules: Sequence[str]) -> argparse.ArgumentParser:
    """The parser with the verbs registered by ``modules`` (module names, in order)."""
    parser = argparse.ArgumentParser(
        prog="judgebayes",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    every = list(dict.fromkeys(VERB_MODULES.values()))
    # A parser with some verbs names all of them in its usage line, as the full parser does,
    # so that its error messages are the same. (Not on the full parser: a metavar would also
    # replace "verb" in "the following arguments are required: verb".)
    choices = {} if list(modules) == every else {"metavar": "{" + ",".join(VERB_MODULES) + "}"}
    sub = parser.add_subparsers(dest="verb", required=True, **choices)
    for module in modules:
        _module(module).register(sub)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The parser of every verb."""
    return _parser(list(dict.fromkeys(VERB_MODULES.values())))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``judgebayes`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    verb = VERB_MODULES.get(argv[0]) if argv else None
    # A known verb first: only its module's parser (the rest parse as before); anything
    # else (no verb, --help, a typo) gets the full parser, which lists every verb.
    parser = _parser([verb]) if verb is not None else build_parser()
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", JudgeBayesWarning)
            status = args.run(args)
        for w in caught:
            print(f"note: {w.message}", file=sys.stderr)
        return status
    except (DataError, OSError, ValueError) as err:  # bad input: one line, no traceback
        source = getattr(args, "file", None) or getattr(args, "path", None)
        if isinstance(err, DataError) and source is not None:
            from judgebayes.core.io import in_file  # not at start-up: it imports judgebayes.core

            err = in_file(err, source)  # name the input file unless the error names one
        print(
            "judgebayes: error: " + (" ".join(str(err).split()) or type(err).__name__),
            file=sys.stderr,
        )
        return 2
