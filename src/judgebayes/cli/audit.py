"""`judgebayes audit`: can I trust this judge, and what does it say? One command, one report.

Reads the data a team has — judge verdicts on battles (one judge, or several: ``--judge
NAME=FILE`` beside a human file), human labels on some of them, optionally judge scores or
both orders; or judged items with a correctness label — and writes ``DIR/report.html`` (one
self-contained page), ``report.json`` and a CSV per table (:func:`judgebayes.audit`). It
prints the verdicts: per judge, for ranking and for pairwise comparisons, trust / trust with
caveats / do not trust, with the diagnostic that decided.
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from judgebayes.cli.common import (
    column_pair,
    int_at_least,
    label_pair,
    non_negative_int,
    probability,
)
from judgebayes.core.io import peek_columns, require_file
from judgebayes.core.loaders import FORMATS
from judgebayes.errors import DataError

if TYPE_CHECKING:
    from judgebayes.calibration.items import JudgedItems
    from judgebayes.core.battles import Battles

ITEM_FORMATS = ("items", "prevalence", "inspect")
"""Formats of judged items (``items``: a table ``model, item_id, judge_label, human_label``)."""

_HELP = """Audit an LLM judge against human labels and write one report.

The report answers, per judge: can its verdicts be trusted for ranking, and for pairwise
comparisons? Each verdict (trust / trust with caveats / do not trust) names the diagnostic
that decided it, with its interval, and the fix. Then the evidence: agreement, Cohen's kappa
and confusion matrices against the humans, Youden's J per model and Delta-J (Fiedler, "Bias
and Uncertainty in LLM-as-a-Judge Estimation", 2026, arXiv:2605.06939), position bias and
score calibration (Kargi & Salinas, "From Uncertain Judgments to Calibrated Rankings:
Conformal Elo Estimation for LLM Evaluation", 2026), self-preference (--own), the calibrated
board with rank-sets (prediction-powered Bradley-Terry; Chatzi et al., "Prediction-Powered
Ranking of Large Language Models", NeurIPS 2024, arXiv:2402.17826), the calibration design
chosen by LOO, and how many more human labels would halve the intervals; for anchor-based
battles (every model judged against one anchor or a few on the same prompts, or every pair),
each anchor's informativeness, the recommended anchor and the prompts a +5% edge needs
(Don-Yehiya, Yehudai, Choshen & Abend, "Mediocrity is the key for LLM as a Judge Anchor
Selection", 2026, arXiv:2603.16848).

examples:
  judgebayes audit --demo                             # simulated judges with known defects
  judgebayes audit ppr/human.json --judge gpt-4=ppr/gpt-4-0125-preview.json \\
      --judge claude-3-opus=ppr/claude-3-opus-20240229.json \\
      --judge gpt-3.5-turbo=ppr/gpt-3.5-turbo.json --own gpt-3.5-turbo=gpt-3.5-turbo \\
      --human-labels 500 --out audit-ppr
  judgebayes audit battles.csv --out audit            # judge_label, human_label columns
  judgebayes audit debias_judge/ --judge gpt-4o-mini  # judged items (prevalence layout)
  judgebayes audit arena_bench_v1/model_judgment --format grades --anchor gpt-4-0314
"""


def judge_option(text: str) -> tuple[str, str | None]:
    """An argparse ``type=``: ``--judge NAME=FILE`` (a judge's file) or ``--judge NAME``."""
    name, sep, path = text.partition("=")
    if not name or (sep and not path):
        raise argparse.ArgumentTypeError(f"expected NAME=FILE or NAME, got {text!r}")
    return name, (path or None)


def own_option(text: str) -> tuple[str, str]:
    """An argparse ``type=``: ``--own JUDGE=MODEL``."""
    judge, sep, model = text.partition("=")
    if not (sep and judge and model):
        raise argparse.ArgumentTypeError(f"expected JUDGE=MODEL, got {text!r}")
    return judge, model


def _item_format(path: Path) -> str | None:
    """``prevalence``/``inspect``/``items`` where the file holds judged items, else None."""
    if path.is_dir():
        files = [f for f in path.iterdir() if f.is_file()]
        if any(f.name.split(".")[0] == "human" for f in files):
            return None
        data = sorted(f for f in files if f.suffix.lower() in (".json", ".jsonl", ".csv"))
        if not data:
            return None
        path = data[0]
    if path.suffix.lower() == ".eval":
        return "inspect"
    columns = set(peek_columns(path))
    if {"human_winner", "judge_pick"} <= columns:
        return "prevalence"
    if {"model", "item_id", "judge_label"} <= columns:
        return "items"
    return None


def _read(args: argparse.Namespace) -> tuple[Battles | JudgedItems, str | None]:
    """The audit's data from FILE, ``--format`` and ``--judge`` (auto: printed as chosen)."""
    files = {name: Path(path) for name, path in args.judge if path is not None}
    chosen = [name for name, path in args.judge if path is None]
    if files and chosen:
        raise DataError(
            "--judge takes NAME=FILE (one file per judge) or NAME (a judge of FILE), not both",
            expected="every --judge as NAME=FILE, or every --judge as NAME",
        )
    fmt = args.format
    if not args.file.is_dir():
        require_file(args.file)
    if fmt == "auto":
        if files:
            fmt = "aligned"
        else:
            fmt = _item_format(args.file) or "auto"
        if fmt == "auto":
            from judgebayes.core.loaders import battle_format

            fmt = battle_format(args.file)
        print(f"format: {fmt} (--format auto: chosen from the content of {args.file.name})")
    if fmt in ITEM_FORMATS:
        from judgebayes.calibration.readers import read_judged_items

        if len(chosen) > 1:
            raise DataError(
                "judged items carry one judge: pass one --judge NAME",
                expected="one --judge NAME",
            )
        return read_judged_items(
            args.file,
            format="table" if fmt == "items" else fmt,
            columns=dict(args.map or ()),
            labels=dict(args.label or ()),
            target=args.target,
            judge=chosen[0] if chosen else None,
        ), (chosen[0] if chosen else None)
    from judgebayes.auditing.inputs import DEFAULT_JUDGE
    from judgebayes.core.battles import Battles
    from judgebayes.core.loaders import read_battles

    battles = read_battles(
        args.file,
        fmt,
        columns=dict(args.map or ()),
        labels=dict(args.label or ()),
        judges=files or None,
        baseline=args.baseline,
        on_invalid="drop" if args.drop_invalid else "raise",
    )
    unnamed = not battles.judges or battles.judges == (DEFAULT_JUDGE,)  # a reader's default
    if len(chosen) == 1 and unnamed and "judge_label" in battles:
        # one unnamed judge: --judge NAME names it
        return Battles(battles.frame.assign(judge=chosen[0])).with_report(battles.report), None
    if chosen:
        for name in chosen:
            if name not in battles.judges:
                raise DataError(
                    f"--judge {name}: no such judge in {args.file.name}",
                    column="judge",
                    expected=f"one of {list(battles.judges)}",
                )
        battles = battles.subset(
            battles.frame["judge"].isin(chosen).to_numpy(), reason="other judges"
        )
    return battles, None


def _demo(args: argparse.Namespace) -> tuple[Battles, dict[str, list[str]], str]:
    """``--demo``: simulated battles whose judges each have one known property."""
    from judgebayes.auditing.simulate import simulate_audit

    if args.file is not None or args.judge or args.own:
        raise DataError(
            "--demo audits simulated battles: it takes no FILE, --judge or --own",
            expected="judgebayes audit --demo, or judgebayes audit FILE ...",
        )
    sim = simulate_audit(seed=args.seed)
    own = {name: list(spec.own) for name, spec in sim.judges.items() if spec.own}
    frame = sim.battles.frame
    n_labelled = int(frame.drop_duplicates("battle_id")["human_label"].notna().sum())
    j = sim.truth[sim.truth["judge"] == "uneven"]["J"]
    self_judge = sim.judges["self"]
    print(
        f"demo: {frame['battle_id'].nunique():,} simulated battles of {len(sim.elo)} models, "
        f"{n_labelled:,} with a human label; four judges, each with one known property: "
        "'fine' (none), 'position' (calls the answer shown first), 'uneven' (its J differs "
        f"by {j.max() - j.min():.2f} across models), 'self' (η = {self_judge.eta:g} towards "
        f"its own model, {', '.join(self_judge.own)})"
    )
    return sim.battles, own, "simulated battles, four judges with known defects"


def _run(args: argparse.Namespace) -> int:
    from judgebayes.auditing.run import audit

    if args.demo:
        data, own, title = _demo(args)
        judge = None
    elif args.file is None:
        raise DataError(
            "no data: give FILE (battles or judged items), or --demo for simulated battles",
            expected="judgebayes audit FILE [--judge NAME=FILE ...], or judgebayes audit --demo",
        )
    else:
        data, judge = _read(args)
        own = {}
        for j, model in args.own or ():
            own.setdefault(j, []).append(model)
        title = (
            args.file.name
            if args.file.is_dir()
            else f"{args.file.resolve().parent.name}/{args.file.name}"
        )
    result = audit(
        data,
        own=own,
        anchor=args.anchor,
        judge=judge,
        human_labels=args.human_labels,
        bayes=args.bayes,
        design_judge=args.design_judge,
        alpha=args.alpha,
        n_boot=args.n_boot,
        budget=not args.no_budget,
        seed=args.seed,
        progress=not args.no_progress,
        title=title,
    )
    print(result.title)
    print()
    width = max(len(str(j)) for j in result.verdicts["judge"])
    for r in result.verdicts.itertuples():
        line = f"{r.judge!s:<{width}}  {r.use:<26} {r.verdict.upper():<19} {r.diagnostic}"
        print(line)
        if r.severity in ("fail", "caveat") and r.fix:
            print(textwrap.indent(textwrap.fill(f"fix: {r.fix}", 96), " " * (width + 2)))
    says = result["verdict"].summary
    if says:
        print("\n" + "\n\n".join(textwrap.fill(part, 100) for part in says.split("\n\n")))
    written = result.write(args.out)
    html = next(p for p in written if p.name == "report.html")
    print(f"\nwrote {html} (and report.json, {len(written) - 2} CSV files) in {args.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the verb's parser."""
    p = sub.add_parser(
        "audit",
        help="can I trust this judge, and what does it say? one report (start here)",
        description=_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="battles (judge_label and, on some, human_label), the human file of aligned "
        "judge files (--judge NAME=FILE), a folder of them, or judged items",
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="no FILE: audit simulated battles (8 models, 20,000 battles, 2,000 human "
        "labels) judged by four judges, each with one known property (none, position "
        "bias, J uneven across models, self-preference): the report must find each",
    )
    p.add_argument(
        "--judge",
        action="append",
        type=judge_option,
        default=[],
        metavar="NAME=FILE",
        help="a judge's verdicts on the same battles as FILE, joined by battle id "
        "(repeat for several judges); or NAME: audit only this judge of FILE (or name the "
        "one judge of a file that does not name it)",
    )
    p.add_argument(
        "--own",
        action="append",
        type=own_option,
        metavar="JUDGE=MODEL",
        help="the judge's own model, for self-preference (repeat for a family)",
    )
    p.add_argument(
        "--anchor",
        action="append",
        default=None,
        metavar="MODEL",
        help="the anchor the benchmark uses or would use (repeat for several), for battles "
        "that judge every model against one anchor or a few, or every pair on the same "
        "prompts (default: the anchors found; none for every pair)",
    )
    p.add_argument("--out", type=Path, default=Path("judgebayes-audit"), metavar="DIR")
    p.add_argument(
        "--bayes",
        action="store_true",
        help="fit the calibration designs by NUTS (default: MAP + Laplace)",
    )
    p.add_argument(
        "--format",
        choices=(*FORMATS, *ITEM_FORMATS),
        default="auto",
        help="auto (default): chosen from the content; battle formats as for 'elo'; "
        "judged items: items (model, item_id, judge_label, human_label), prevalence "
        "(human_winner, judge_pick), inspect",
    )
    p.add_argument(
        "--human-labels",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="keep N human labels drawn at random, hide the rest (what a smaller "
        "labelling budget would say)",
    )
    p.add_argument(
        "--design-judge",
        default=None,
        metavar="NAME",
        help="the judge whose calibration designs are compared (default: the one with the "
        "highest J)",
    )
    p.add_argument(
        "--target", default=None, help="prevalence: the model whose preference rate is estimated"
    )
    p.add_argument("--baseline", default=None, help="arena-hard: the baseline model")
    p.add_argument(
        "--map",
        nargs="*",
        type=column_pair,
        metavar="THEIRS=OURS",
        help="column mapping for --format csv or items, e.g. left=model_a",
    )
    p.add_argument(
        "--label",
        nargs="*",
        type=label_pair,
        metavar="VALUE=P",
        help="label mapping, e.g. A=1 B=0 tie=0.5",
    )
    p.add_argument("--alpha", type=probability, default=0.05)
    p.add_argument(
        "--n-boot",
        type=int_at_least(100),
        default=1000,
        help="bootstrap replicates (the paired calibration bootstrap; the anchors' bootstrap "
        "over prompts)",
    )
    p.add_argument("--seed", type=non_negative_int, default=0)
    p.add_argument("--no-budget", action="store_true", help="skip the budget simulation")
    p.add_argument(
        "--drop-invalid",
        action="store_true",
        help="drop invalid rows (counted in the report) instead of failing",
    )
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(run=_run)
