"""`judgebayes demo` and `judgebayes elo`: Bradley–Terry leaderboards with bootstrap intervals.

Seed 000, Eq. 1 on per-pair statistics (:func:`judgebayes.fit_bt`, :func:`judgebayes.bootstrap_bt`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from judgebayes.cli.common import (
    TARGETS,
    board_summary,
    column_pair,
    count,
    label_pair,
    non_negative,
    non_negative_int,
    one_judge,
    positive_int,
    print_board,
    probability,
    write_board,
)
from judgebayes.core.bootstrap import bootstrap_bt
from judgebayes.core.loaders import FORMATS
from judgebayes.simulate import simulate_arena


def _demo(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    sim = simulate_arena(args.models, args.battles, seed=args.seed)
    board = bootstrap_bt(sim.battles, target="judge_label", n_boot=args.n_boot,
                         seed=args.seed, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    truth = sim.elo.to_dict()
    print(f"Simulated arena: {args.models} models, {args.battles} battles judged by an LLM "
          f"(seed {args.seed}). Hard-Elo from the judge's labels, "
          f"{100 * (1 - board.alpha):g}% bootstrap intervals ({args.n_boot} replicates):")
    print_board(board, {"true_elo": truth})
    frame = board.to_frame()
    covered = ((frame["elo_lo"] <= frame["model"].map(truth))
               & (frame["model"].map(truth) <= frame["elo_hi"])).mean()
    print(f"\n{elapsed:.1f} s. The judge's hard labels stretch the Elo axis: the true ratings "
          f"span {min(truth.values()):.0f}-{max(truth.values()):.0f}, the judge's "
          f"{frame['elo'].min():.0f}-{frame['elo'].max():.0f}, and only {covered:.0%} of the "
          f"intervals cover the human-scale truth. Soft-Elo (seed 000) corrects the scale.")
    written = write_board(args.out, board, board_summary(board, simulated=True, seconds=elapsed),
                     plot=True, truth=truth)
    if written:
        print("wrote " + ", ".join(str(p) for p in written))
    return 0

def _elo(args: argparse.Namespace) -> int:
    battles = one_judge(args, may_pool=True)
    target = TARGETS.get(args.target, args.target) if args.target else None
    board = bootstrap_bt(battles, target=target, lam=args.lam, n_boot=args.n_boot,
                         alpha=args.alpha, seed=args.seed, progress=not args.no_progress)
    print(board)
    summary = board_summary(board, file=str(args.file), format=args.format, judge=args.judge)
    written = write_board(args.out, board, summary, plot=args.out is not None)
    if written:
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    demo = sub.add_parser("demo", help="simulate a judged arena and fit Hard-Elo with "
                                       "bootstrap intervals")
    demo.add_argument("--models", type=count, default=55)
    demo.add_argument("--battles", type=positive_int, default=25_000)
    demo.add_argument("--n-boot", type=count, default=1000)
    demo.add_argument("--seed", type=non_negative_int, default=0)
    demo.add_argument("--out", type=Path, default=Path("judgebayes-demo"),
                      help="folder for leaderboard.csv, summary.json, forest.png")
    demo.add_argument("--no-progress", action="store_true")
    demo.set_defaults(run=_demo)
    elo = sub.add_parser("elo", help="Bradley–Terry Elo leaderboard with bootstrap intervals")
    elo.add_argument("file", type=Path)
    elo.add_argument("--format", choices=FORMATS, required=True)
    elo.add_argument("--target", default=None,
                     help="judge, human, or a column name (default: judge if present)")
    elo.add_argument("--judge", default=None, help="use this judge's verdicts only")
    elo.add_argument("--pool-judges", action="store_true",
                     help="fit all judges' verdicts together")
    elo.add_argument("--map", nargs="*", type=column_pair, metavar="THEIRS=OURS",
                     help="column mapping for --format csv, e.g. left=model_a")
    elo.add_argument("--label", nargs="*", type=label_pair, metavar="VALUE=P",
                     help="label mapping for --format csv, e.g. A=1 B=0 tie=0.5")
    elo.add_argument("--lam", type=non_negative, default=0.01)
    elo.add_argument("--n-boot", type=count, default=1000)
    elo.add_argument("--alpha", type=probability, default=0.05)
    elo.add_argument("--seed", type=non_negative_int, default=0)
    elo.add_argument("--drop-invalid", action="store_true",
                     help="drop invalid rows (counted in the summary) instead of failing")
    elo.add_argument("--out", type=Path, default=None)
    elo.add_argument("--no-progress", action="store_true")
    elo.set_defaults(run=_elo)
