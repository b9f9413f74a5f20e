"""Mutations of formulas and papers, driven by one `random.Random` (so hypothesis can drive and shrink them,
and the campaign can replay any input from its seed).

Formula mutations: insert, delete, swap or duplicate tokens, unbalance braces, random commands (known and
unknown), nesting 1–5000 deep, huge numbers and ranges, long flat sums, Unicode (combining marks, bidi
controls, lone surrogates), NUL. Paper mutations: byte flips, deleted and duplicated lines, truncation,
`\\input` of itself, a missing file or an absolute path, `\\def`/`\\newcommand` loops and bombs, duplicated
`\\begin`, unclosed groups and environments, and formula mutations inside the paper's own equations.
"""
from __future__ import annotations

import random
import re

TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|\s+|[0-9]+(?:\.[0-9]+)?|.", re.DOTALL)

COMMANDS = (
    r"\frac", r"\sqrt", r"\hat", r"\tilde", r"\bar", r"\overset", r"\underset", r"\underbrace", r"\overbrace",
    r"\sum", r"\prod", r"\int", r"\max", r"\min", r"\arg\max", r"\operatorname*", r"\lim", r"\mathbb{E}",
    r"\left(", r"\right)", r"\left.", r"\right|", r"\left\{", r"\right\}", r"\big(", r"\Big|", r"\middle|",
    r"\mid", r"\|", r"\Vert", r"\langle", r"\rangle", r"\lfloor", r"\rceil", r"\mathbf", r"\mathcal",
    r"\mathrm", r"\operatorname", r"\text", r"\mbox", r"\binom", r"\begin{cases}", r"\end{cases}",
    r"\begin{pmatrix}", r"\end{pmatrix}", r"\begin{aligned}", r"\end{aligned}", r"\begin{array}{cc}",
    r"\end{array}", r"\\", "&", r"\cdot", r"\times", r"\odot", r"\top", r"\prime", "'", r"\partial",
    r"\nabla", r"\sim", r"\in", r"\le", r"\approx", r"\leftarrow", r"\to", r"\mapsto", r"\dots", r"\cdots",
    r"\infty", r"\alpha", r"\theta", r"\sigma", r"\log", r"\exp", r"\softmax", r"\mathrm{softmax}", r"\KL",
    r"\limits", r"\nolimits", r"\displaystyle", r"\quad", r"\,", r"\!", r"\color{red}", r"\tag{1}",
    r"\label{x}", r"\nonumber", r"\notag", r"\stackrel", r"\xrightarrow", r"\substack", r"\pmod", r"\bmod",
    r"\choose", r"\over", r"\atop", r"\sp", r"\sb", r"\not", r"\neq", r"\ne", r"\hline", r"\vphantom",
    r"\phantom", r"\mathop", r"\DeclareMathOperator", r"\def", r"\newcommand", r"\verb|x|", r"\%", "%",
    r"\#", "#1", "#", "~", "$", r"\(", r"\)", r"\[", r"\]", r"\begin", r"\end", r"\left", r"\right", r"\hat{}",
)
STRUCTURE = ("{", "}", "^", "_", "(", ")", "[", "]", "|", ",", ";", "=", "+", "-", "/", "!", "<", ">", "*")
NESTINGS = (
    (r"\hat{", "}"), (r"\sqrt{", "}"), (r"\frac{1}{", "}"), ("(", ")"), ("{", "}"), ("x_{", "}"), ("x^{", "}"),
    (r"\sum_{i=1}^{n} ", ""), (r"\overset{a}{", "}"), (r"\left(", r"\right)"), (r"\mathbf{", "}"),
    (r"\underbrace{", "}_{u}"), ("[", "]"), (r"\|", r"\|"), ("|", "|"), (r"\text{", "}"), (r"\operatorname{f}(", ")"),
    (r"\begin{pmatrix}", r"\end{pmatrix}"), (r"\exp(", ")"), ("-", ""), (r"\tilde{\bar{", "}}"), ("x'", ""),
    (r"\max_{j} ", ""), (r"\mathbb{E}_{x\sim p}[", "]"), (r"\nabla_\theta ", ""), (r"\frac{\partial}{\partial x}", ""),
)
UNICODE_SAMPLES = ("\x00", "\ud800", "\udfff", "\u202e", "\u2028", "\x85", "\u0301", "\ufeff", "\U0001d465", "é",
                   "∑", "√", "→", "≤", "∞", "α", "\r", "\x0c", "\t", "\x7f", "\uffff", "\U0010ffff", "𝔼", "ℝ")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _nesting_depth(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.5:
        return rng.randint(1, 30)
    if roll < 0.85:
        return rng.randint(30, 400)
    return rng.randint(400, 5000)


def _unicode(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(UNICODE_SAMPLES)
    return chr(rng.randint(0, 0x10FFFF))


def _huge_number(rng: random.Random) -> str:
    return rng.choice([
        "9" * rng.randint(20, 5000), "1e999", "1" + "0" * 400, "0." + "0" * 500 + "1", r"10^{10^{10}}",
        "2^{1000000}", "10^{-400}", str(rng.randint(10**6, 10**9)), "NaN", "1.5e-320", "0000", "3.", ".5",
    ])


def _range(rng: random.Random) -> str:
    n = rng.choice(["10^{12}", "1000000000", "99999999", "10^6", "n^{100}", "2^{64}", "-5", "0", "1e9", r"\infty"])
    op = rng.choice([r"\sum", r"\prod", r"\max", r"\min", r"\arg\max", r"\bigcup"])
    return op + "_{i=1}^{" + n + "} x_i"


def _flat(rng: random.Random) -> str:
    n = rng.choice([50, 300, 1000, 3000, 10000])
    sep = rng.choice([" + ", " - ", " \\cdot ", " ", ", ", " = ", " \\le ", " & ", " \\\\ "])
    return sep.join(f"x_{{{i}}}" for i in range(n))


def mutate_formula(seed: str, rng: random.Random, steps: int | None = None) -> str:
    """`seed` after 1–4 random mutations."""
    toks = tokens(seed) or ["x"]
    for _ in range(steps if steps is not None else rng.randint(1, 4)):
        kind = rng.randrange(13)
        i = rng.randrange(len(toks) + 1)
        if kind == 0:
            toks.insert(i, rng.choice(COMMANDS))
        elif kind == 1:
            toks.insert(i, rng.choice(STRUCTURE))
        elif kind == 2 and toks:
            del toks[min(i, len(toks) - 1)]
        elif kind == 3 and len(toks) > 1:
            a, b = rng.randrange(len(toks)), rng.randrange(len(toks))
            toks[a], toks[b] = toks[b], toks[a]
        elif kind == 4:
            braces = [k for k, t in enumerate(toks) if t in ("{", "}")]
            if braces and rng.random() < 0.5:
                del toks[rng.choice(braces)]
            else:
                toks.insert(i, rng.choice("{}"))
        elif kind == 5:
            name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABC") for _ in range(rng.randint(1, 12)))
            toks.insert(i, "\\" + name + rng.choice(["", "{x}", "{", "[a]{b}", "*"]))
        elif kind == 6:
            j = rng.randint(i, min(len(toks), i + rng.randint(0, 6)))
            open_, close = rng.choice(NESTINGS)
            depth = _nesting_depth(rng)
            toks[i:j] = [open_ * depth, *toks[i:j], close * depth]
        elif kind == 7:
            toks.insert(i, _huge_number(rng))
        elif kind == 8:
            toks.insert(i, _unicode(rng))
        elif kind == 9:
            toks.insert(i, _range(rng))
        elif kind == 10:
            j = rng.randint(i, min(len(toks), i + 8))
            toks[i:i] = toks[i:j] * rng.randint(1, 50)
        elif kind == 11:
            toks.insert(i, _flat(rng))
        else:
            toks.insert(i, rng.choice(["\x00", "\\", "{", "^^", "_^_", "^{}_{}", "''''", "\\left", "\\right"]))
    return "".join(toks)


# ---------------------------------------------------------------------------------------------- papers

PAPER_INSERTS = (
    r"\input{main}", r"\input{main.tex}", r"\include{main}", r"\input{missing-file}", r"\input{/etc/passwd}",
    r"\input{../../../../etc/hostname}", r"\def\a{\a}\a", r"\def\a{\a\a}\a", r"\newcommand{\x}{\x}\x",
    r"\newcommand{\x}[1]{\x{#1}}\x{1}", r"\def\b#1{\b{#1#1}}\b{x}", r"\let\a\b\let\b\a\a",
    r"\def\z{\z z}\z", r"\edef\e{\e}", r"\renewcommand{\begin}{x}", r"\def\section{\section}",
    r"\begin{equation}", r"\end{equation}", r"\begin{align}", r"\end{document}", r"\begin{document}", "{", "}",
    "$", "$$", r"\[", r"\]", r"\iffalse", r"\fi", r"\makeatletter", r"\catcode`\{=12", r"\csname a\endcsname",
    r"\expandafter\a\b", r"\verb|", r"\begin{verbatim}", r"\begin{comment}", "%", r"\\", r"\footnote{",
    r"\newcommand{\x}[9]{#9}\x", r"\newcommand{\x}[10]{#1}", r"\DeclareMathOperator{\op}{", r"\title{",
    r"\label{", r"\ref{", r"\eqref{eq:1}", r"\tag{", r"\begin{equation}\hat{" * 3, r"\newenvironment{e}{\begin{e}}{}\begin{e}",
)


def macro_bomb(rng: random.Random) -> str:
    """`\\def\\a0{xx}\\def\\a1{\\a0\\a0}…`: each level doubles the expansion (2^levels)."""
    levels = rng.randint(10, 40)
    names = ["bomb" + "".join(chr(97 + int(d)) for d in str(k)) for k in range(levels)]
    defs = [f"\\def\\{names[0]}{{xx}}"] + [f"\\def\\{names[k]}{{\\{names[k - 1]}\\{names[k - 1]}}}"
                                            for k in range(1, levels)]
    return "".join(defs) + rng.choice([f"\\{names[-1]}", f"${{\\{names[-1]}}}$",
                                       f"\\begin{{equation}}\\{names[-1]}\\end{{equation}}"])


_EQUATION = re.compile(r"(\\begin\{(equation|align|gather|multline)\*?\})(.*?)(\\end\{\2\*?\})", re.DOTALL)


def mutate_paper(text: str, rng: random.Random, formulas: list[str] | None = None) -> str:
    """`text` (one .tex file) after 1–3 random mutations."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(10)
        if kind == 0 and text:
            data = bytearray(text.encode("utf-8", "surrogatepass"))
            for _ in range(rng.randint(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            text = data.decode("utf-8", "replace")
        elif kind == 1:
            lines = text.split("\n")
            for _ in range(rng.randint(1, 30)):
                if lines:
                    del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 2:
            text = text[: rng.randrange(len(text) + 1)]
        elif kind == 3:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(PAPER_INSERTS) + text[at:]
        elif kind == 4:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + macro_bomb(rng) + text[at:]
        elif kind == 5:
            begins = [m.start() for m in re.finditer(r"\\begin\{", text)]
            if begins:
                at = rng.choice(begins)
                end = text.find("}", at)
                text = text[:at] + text[at:end + 1] * rng.randint(2, 50) + text[at:]
        elif kind == 6:
            matches = list(_EQUATION.finditer(text))
            if matches:
                m = rng.choice(matches)
                body = mutate_formula(m.group(3), rng)
                text = text[:m.start(3)] + body + text[m.end(3):]
        elif kind == 7 and formulas:
            at = rng.randrange(len(text) + 1)
            body = mutate_formula(rng.choice(formulas), rng)
            text = text[:at] + "\n\\begin{equation}\n" + body + "\n\\end{equation}\n" + text[at:]
        elif kind == 8:
            lines = text.split("\n")
            if lines:
                k = rng.randrange(len(lines))
                lines[k:k] = [lines[k]] * rng.randint(2, 200)
            text = "\n".join(lines)
        else:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + "".join(_unicode(rng) for _ in range(rng.randint(1, 10))) + text[at:]
    return text
