"""Every input a fuzzing campaign or the issue found to crash, hang or write invalid code, kept as a regression
case (shrunk with `benchmarks/fuzz_campaign.py --shrink SEED`). Each must now give papermath's own answer:
a result, or a PapermathError / diagnostic."""
from __future__ import annotations


def _nest(open_: str, inner: str, close: str, n: int) -> str:
    return open_ * n + inner + close * n


FORMULAS: list[str] = [
    # campaign 8 (1d24ebb, seed 308078209): a constant side SymPy cannot turn into a real number (TypeError)
    "\\left\\langle g_{t-1} + \\frac{z_t-z'_t}{\\eta_{t-1}}, z_t-z'_{t+1}\\right\\rangle &\\le \\Big|0",
    # campaign 7 (9672274, seed 307031470): an identity whose size subscript asks for 779 GiB (MemoryError)
    "y = \\bm I_{323323} x",
    # issue 12: small hostile papers
    "y = " + _nest("\\hat{", "x", "}", 120),
    "y = " + _nest("\\overset{a}{", "x", "}", 20),
    "y = " + " + ".join(f"x_{{{i}}}" for i in range(1000)),
    "y = " + _nest("\\sqrt{", "x", "}", 200),
    "y = " + "\\sum_{i=1}^{n} " * 200 + "x_i",
    # issue 12: code injection through a formula
    'y = x_{\\text{"""; import os; os.system("echo pwned"); r"""}}',
    "y = x_{\\text{\x00}} + \\text{\ud800}",
    "y = x_{\\text{}}}",
    # bounded evaluation: ranges and nested reductions
    "\\sum_{i=1}^{10^{12}} x_i",
    "\\prod_{k=1}^{1000000000} x_k",
    "y = " + "\\sum_{i=1}^{3} " * 49 + "x_i",
    "\\max_{i=1}^{99999999} x_i",
    # nesting: every kind at and past the limit
    _nest("(", "x", ")", 5000),
    "-" * 5000 + "x",
    _nest("x^{", "y", "}", 300),
    _nest("\\exp(", "x", ")", 300),
    _nest("{\\hat{", "x", "}}", 100),
    "\\begin{" * 5000,
    # wide formulas: linear work (a 2000-factor product took minutes in the evaluator's name matching)
    "y = " + " ".join(f"x_{{{i}}}" for i in range(300)),
    "y = " + ", ".join(f"x_{{{i}}}" for i in range(300)),
    "y = " + " \\le ".join(f"x_{{{i}}}" for i in range(300)),
    # huge numbers
    "x = " + "9" * 5000,
    "x^{" + "9" * 400 + "}",
    "1e999 + 10^{-400}",
    # an application with no argument (campaign seed 102052532, shrunk: IndexError in shapes.s_Apply)
    "softmax[",
    "\\mathrm{softmax}()",
    # an empty matrix (campaign seed 91002297316: ValueError in shapes.s_Matrix)
    "y = \\begin{pmatrix}\\end{pmatrix} x",
    # a chain of 150 equal sides (campaign seed 91001288329: 95 s in codegen.properties' symmetry search)
    " = ".join(f"x_{{{i}}}" for i in range(150)),
    # a function applied to no argument in codegen's range rules (campaign seed 301051797, shrunk: IndexError)
    "\\tilde(\\exp(}m",
    "\\exp() + \\tanh(x, y) + \\sqrt{}",
    # campaign 3 (11e3156, seed 303022947): a code operand left missing took a `:p` mark as plain text (ValueError)
    r"A_t  \frac{r_t - \mathrm{man}(\mathbf{r})}{\mathrm{std}(" + "}(" * 44 + r"\mathbf{r})\iikj{x}}",
    # campaign 3 (11e3156, seed 303019147): 300 `x'` written together, every slice tried as one name (53 s)
    "TS = {\\mathcal{O}} \\left(m^32/{} \\kappa^{2/3} " + "x'" * 300 + "\\right) + TS",
    # campaign 4 (fe8df58, seed 304085967): expectations nested in expectations' subscripts — the subscript is also
    # the condition and the draw, and every walker took it once per field (2^depth: 22 s)
    "\\nabla V &= " + "\\mathbb{E}_{\\tau " * 14 + "\\sim \\pi} \\gamma^t A" + "}2" * 13 + " \\log \\pi(b_t|s_t)",
    # campaign 4 (seed 304051431): SymPy computed 2^{1000000} exactly and could not print it (ValueError)
    "{\\bm{v}}(x) = f({\\bm{v}}({\\bm{x2^{1000000}}}), \\theta) \\Delta r",
    "y = x 10^{10^{10}} + z \\cdot 7^{9^{9}}",
]

PAPERS: list[str] = [
    # campaign 6 (33ca29e, seed 306002592): theorem environments nested 300 deep (RecursionError in the builder)
    ("\\documentclass{article}\\newtheorem{lemma}{Lemma}\\begin{document}" + "\\begin{lemma}" * 300 + "x"
     + "\\end{lemma}" * 300 + "\\begin{equation}x\\end{equation}\\end{document}\n"),
    # campaign 5 (a6ea569, seed 305001153), the rest of it: one sentence of 300 inline formulas (the run-of-formulas
    # patterns took `$ $` between two of them for a formula: 2^n ways to split the run) and a formula of 3,990 letters
    ("\\documentclass{article}\\begin{document}" + "$x$ " * 300 + "is the rate. $" + "x" * 3990 + "$ is long."
     + "\\begin{equation}x\\end{equation}\\end{document}\n"),
    # campaign 5 (a6ea569, seed 305001153): a macro bomb redefined at every use, each use inside its own budget,
    # used 200 times (2.4 million expansions: 44 s)
    ("\\documentclass{article}\\newcommand{\\x}{\\def\\ba{xx}"
     + "".join(f"\\def\\b{chr(98 + k)}{{\\b{chr(97 + k)}\\b{chr(97 + k)}}}" for k in range(12))
     + "\\bm}\\begin{document}" + "$\\x$ " * 200 + "\\begin{equation}x\\end{equation}\\end{document}\n"),
    # campaign 4 (fe8df58, seed 304002373): 220 figures nested in one another (RecursionError in the builder)
    ("\\documentclass{article}\\begin{document}" + "\\begin{figure}" * 220 + "\\caption{c}" + "\\end{figure}" * 220
     + "\\begin{equation}x\\end{equation}\\end{document}\n"),
    ("\\documentclass{article}\\begin{document}\\section{M}\\def\\a{\\a}\\a\n\\begin{equation}x\\end{equation}"
    "\\end{document}\n"),
    ("\\documentclass{article}\\begin{document}\\def\\b#1{\\b{#1#1}}\\b{x}\\begin{equation}y\\end{equation}"
    "\\end{document}\n"),
    "\\documentclass{article}\\begin{document}" + "".join(
        f"\\def\\bomb{chr(97 + k)}{{\\bomb{chr(96 + k)}\\bomb{chr(96 + k)}}}" for k in range(1, 26))
    + "\\def\\bomba{xx}$\\bombz$\\end{document}\n",
    "\\documentclass{article}\\begin{document}\\input{main}\\end{document}\n",
    "\\documentclass{article}\\begin{document}\\input{/etc/passwd}\\input{../../x}\\end{document}\n",
    "\\documentclass{article}\\begin{document}\\begin{equation}" + "\\hat{" * 120 + "x" + "}" * 120
    + "\\end{equation}\\end{document}\n",
    "\\documentclass{article}\\begin{document}" + "\\begin{equation}" * 60 + "x\\end{document}\n",
    # campaign 9 (eecc32d, seed 309002082): an align of thousands of rows, each re-reading the statement above
    ("\\documentclass{article}\\begin{document}\\begin{align}y " + " \\\\ ".join(["& + x"] * 4000)
     + "\\end{align}\\end{document}\n"),
    # campaign 11 (18bdf5c, seed 311002670): a restatable that lost its \end and restates itself
    ("\\documentclass{article}\\newtheorem{theorem}{Theorem}\\begin{document}\\begin{restatable}{theorem}{big}"
     "\\begin{equation}a\\end{equation}" + "\\big* " * 30 + "\\end{document}\n"),
]

# Printed formulas that did not print the same after a reparse (campaign signature print:not-a-fixed-point).
PRINTS: list[str] = [
    "{E}_{\\sim}[",  # a symbol E indexed by \sim printed bare reparsed as an expectation (seed 7002265, shrunk)
    "{E}_{x \\sim p} + 1",
    "\\theta)\\forall",  # a quantifier factor printed bare started a condition (seed 102004363, shrunk)
    "i)\\text{for}",  # likewise a connective (seed 102001775, shrunk)
    "i)\\text{and}",
    "i)\\text{for}i",  # a condition annotation as a later factor printed bare became a sequence (seed 301048763)
    "x)\\forall i",
    "\\text{s.t.}}\\f*",  # a leading connective factor printed bare became a condition's note (seed 309027027)
    "{\\forall} x",
    "\\text{Pr}_{}\\min2",  # a function's name set as text, with a script, braced no longer applied (310054842)
    "\\text{softmax}_{i} x + \\text{Pr}_{i}(x)",
    "sgn_0 0 + sgn_{0}'(x)",  # likewise a known function's bare name with a label (hypothesis, session 6)
    "\\langle{>})x)=",  # a > at the start of \\langle … closed it, so the printed {\\langle >\\rangle x} broke (310082404)
    "\\boldsymbol\u1046",  # an argument the tokenizer could not read was a symbol, braced it did not parse (309041246)
    "\\begin]{x} y",  # an opaque \begin before a printed { took it as an environment name (seed 301041436)
    "\\begin]{split} Z & = X; \\\\ X & = Z, \\end{s,plit}",
    "\\end]{x}",
    # braces close a reduction's scope; printed, a sum the next term's index would join is braced
    "\\sum_{t}\\mathbf\\le\\sum_{t}\\langle\\rangle-t",  # (session 2 campaign, shrunk)
    "\\sum_{x}\\mathbb{E}_{x}\\|_)\\|-{i} x",
    "a {\\sum_{t} x_t} - t",
    "{z}[rj]",  # one bracket index that is a product: as a subscript it read as two (session 2 campaign)
    "z[rj][k] + x[2t]",
    "z[a][ij]",
    "E_{s,2i}",  # E[…] is an expectation: a subscript that round-trips stays a subscript (seed 301000535, shrunk)
    "\\log^{}_{}|",  # a function's scripts printed unbraced, so it still applies (seed 301000378, shrunk)
    "{{[]{}}}{{}}({{}}0) \\mid_{0}{0} \\\\_{9} ",  # an evaluation bar before a factor, braced (seed 301002053)
    "\\fracx_{}{()^2}",  # a bracket-led factor after a callable, braced (seed 301002156, shrunk)
    "\\Delta\\bm{xx}",  # the increment of a styled multi-letter name (campaign 2 seed 302021058, shrunk)
    "\\Delta \\mathcal{AB}_t",
    "m_][k]",  # a closing delimiter as one of several indices (campaign 2 seed 302011161, shrunk)
    "m_)(k)_{i}",
]
