"""`papermath code`: the ten lines of NumPy (or PyTorch) an equation stands for, and a test on its numbers."""
from __future__ import annotations

import argparse
import json

from .numbers import add_function_arguments, evaluate_target
from .shapes import add_source_arguments

HELP = "code it: a NumPy/PyTorch function for an equation, with shape comments and a pytest file"
DESCRIPTION = """\
Write the function an equation defines (named after it: attention(Q, K, V), loss_dpo(…)), one line per
operation with its shape as a comment, a docstring citing the paper, version and equation number, and a
pytest file that checks it on the hand-worked numbers (--set values or papermath's chosen ones) with expected
values from papermath's evaluator. --torch prints the PyTorch variant (torch ops: F.softmax, F.logsigmoid);
the test checks it against the NumPy one when torch is installed.

examples:
  papermath code --latex '\\mathrm{Attention}(Q,K,V)=\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V' --out gen/
  papermath code paper/ --eq 1 --torch
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_source_arguments(parser)
    parser.add_argument("--set", action="append", default=[], metavar="SYMBOL=VALUE",
                        help="values for the test (default: small chosen values)")
    add_function_arguments(parser)
    parser.add_argument("--torch", action="store_true", help="print the PyTorch variant")
    parser.add_argument("--out", metavar="DIR", help="write <name>.py, <name>_torch.py and test_<name>.py here")


def run(args: argparse.Namespace) -> int:
    from ..codegen import Citation, generate

    target, _, ev = evaluate_target(args)
    code = generate(ev, Citation(target.paper, target.version, target.number))
    if args.out:
        paths = code.write(args.out)
        if args.json:
            print(json.dumps({"schema": "papermath.code/1", "function": code.function,
                              "files": [str(p) for p in paths]}, indent=2))
        else:
            for path in paths:
                print(f"wrote {path}")
        return 0
    if args.json:
        print(json.dumps({"schema": "papermath.code/1", "function": code.function, "module": code.module,
                          "numpy": code.numpy,
                          "torch": code.torch, "test": code.test}, ensure_ascii=False, indent=2))
        return 0
    print(code.torch if args.torch else code.numpy)
    print(f"# --- test_{code.module}.py " + "-" * 40)
    print(code.test)
    return 0
