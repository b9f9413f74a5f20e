"""`papermath compare`: is `82.3 ± 0.4` really higher than `81.5 ± 0.4`? Guide 002's calculation."""
from __future__ import annotations

import argparse
import dataclasses
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # SciPy's statistics are imported when the command runs, not when its options are listed
    from ..stats import Comparison, Interval

HELP = "compare two 'mean ± spread' results: difference, 95% intervals (normal, t, Welch, paired), verdict"
DESCRIPTION = """\
Compare two benchmark entries reported as 'mean ± spread': is the gap larger than the noise?

First find in the table's caption what the ± figure is:
  --spread sd   the standard deviation across runs: each mean's standard error is sd/sqrt(runs)
  --spread se   already each mean's standard error: nothing is divided by sqrt(runs)
The verdict can flip between the two readings.

papermath prints the difference, its standard error, the normal 95% interval (1.96, which treats the
estimated spread as known), the Student-t 95% interval with runs_A + runs_B - 2 degrees of freedom
(equal variances), the Welch interval with --welch, and the paired-t interval with --paired --pair-sd SD
(SD = standard deviation of the within-pair differences, e.g. the same tasks or seeds for both models).

examples:
  papermath compare '82.3±0.4' '81.5±0.4' --runs 4 --spread sd
  papermath compare '82.3 +- 0.4' '81.5 \\pm 0.4' --runs 4,5 --spread se --welch --json
  papermath compare --runs 4 --spread sd -- '-1.2±0.3' '-1.9±0.3'   (-- before negative entries)
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("first", metavar="A", help="first entry, e.g. '82.3±0.4' (also '82.3+-0.4', '82.3 \\pm 0.4')")
    parser.add_argument("second", metavar="B", help="second entry, e.g. '81.5±0.4'")
    parser.add_argument("--runs", required=True, metavar="N[,M]",
                        help="runs behind each mean: 4 (both) or 4,5 (A, B)")
    parser.add_argument("--spread", required=True, choices=("sd", "se"),
                        help="what the ± figure is: sd = standard deviation across runs, "
                             "se = standard error of each mean (read the caption)")
    parser.add_argument("--welch", action="store_true",
                        help="do not assume equal variances: Welch interval, Welch–Satterthwaite df")
    parser.add_argument("--paired", action="store_true",
                        help="the runs are paired (same tasks or seeds): analyse within-pair differences")
    parser.add_argument("--pair-sd", type=float, metavar="SD",
                        help="with --paired: standard deviation of the within-pair differences A − B")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def comparison_to_json(comparison: Comparison) -> dict:
    """The dataclass as JSON, with each interval's derived fields spelled out."""
    data = dataclasses.asdict(comparison)
    for name in ("normal", "student_t", "welch", "paired"):
        interval: Interval | None = getattr(comparison, name)
        if interval is not None:
            data[name]["half_width"] = interval.half_width
            data[name]["excludes_zero"] = interval.excludes_zero
    return data


def run(args: argparse.Namespace) -> int:
    from ..render.compare import render_comparison
    from ..stats import compare_scores

    comparison = compare_scores(args.first, args.second, args.runs, args.spread,
                                welch=args.welch, paired=args.paired, pair_sd=args.pair_sd)
    if args.json:
        print(json.dumps({"schema": "papermath.compare/1", **comparison_to_json(comparison)}, indent=2,
                         ensure_ascii=False))
    else:
        print(render_comparison(comparison))
    return 0
