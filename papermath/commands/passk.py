"""`papermath passk`: the unbiased pass@k estimator, computed stably."""
from __future__ import annotations

import argparse
import dataclasses
import json

HELP = "pass@k with the unbiased, numerically stable estimator 1 − C(n−c, k)/C(n, k)"
DESCRIPTION = """\
pass@k: the chance that at least one of k samples passes the tests, estimated from n samples per problem
of which c passed (Chen et al. 2021, "Evaluating Large Language Models Trained on Code", eq. 1):

    pass@k := 1 − C(n−c, k) / C(n, k)

computed as 1 − prod_{i=n−c+1}^{n} (1 − k/i), which never forms the huge binomial coefficients.
It is exactly 1 when n − c < k (every set of k samples contains a correct one). k must not exceed n.
Average the per-problem values over the benchmark to get the reported pass@k.

example:
  papermath passk --n 200 --c 12 --k 1,10,100
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=int, required=True, help="samples generated per problem")
    parser.add_argument("--c", type=int, required=True, help="how many of the n samples passed")
    parser.add_argument("--k", default="1,10,100", metavar="K[,K...]",
                        help="values of k, comma-separated (default 1,10,100)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    from ..render.passk import render_pass_at_k
    from ..stats import parse_ks, pass_at_k_table  # NumPy and SciPy: when the command runs, not when it is listed

    rows = pass_at_k_table(args.n, args.c, parse_ks(args.k))
    if args.json:
        print(json.dumps({"schema": "papermath.passk/1", "n": args.n, "c": args.c, "estimator": "1 - C(n-c,k)/C(n,k)",
                          "pass_at_k": [dataclasses.asdict(r) for r in rows]}, indent=2))
    else:
        print(render_pass_at_k(rows))
    return 0
