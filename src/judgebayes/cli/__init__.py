"""The ``judgebayes`` command line.

Every verb prints a readable table; with ``--out DIR`` it also writes the same
results as CSV (a leaderboard: ``model, elo, elo_lo, elo_hi, se, n_battles``) and
a ``summary.json`` (strict JSON). Bad input exits with status 2 and a one-line reason:
argument values are checked by the parser (:mod:`judgebayes.cli.common`), and files are
read through :mod:`judgebayes.core.io`, which turns whatever goes wrong in a file into
one :class:`~judgebayes.DataError` naming the file and the line. One module per verb
group; each has ``register(sub)``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from judgebayes.cli import anchors, arena, calibrate, consensus, consistency, softelo
from judgebayes.core.io import in_file
from judgebayes.errors import DataError, JudgeBayesWarning

__all__ = ["build_parser", "main"]

VERBS = (arena, softelo, consistency, calibrate, consensus, anchors)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every verb."""
    parser = argparse.ArgumentParser(prog="judgebayes", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    for verbs in VERBS:
        verbs.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``judgebayes`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
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
            err = in_file(err, source)  # name the input file unless the error names one
        print("judgebayes: error: " + (" ".join(str(err).split()) or type(err).__name__),
              file=sys.stderr)
        return 2
