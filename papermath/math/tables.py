"""The math grammar as data: every macro the parser knows is an entry in one of these tables.

The parser looks macros up here and never special-cases a name in code, so teaching it a new macro
is a one-line change. Names are stored without the leading backslash unless said otherwise.
"""
from __future__ import annotations

# --- letters and constant symbols ------------------------------------------------------------------

GREEK: frozenset[str] = frozenset("""
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa varkappa lambda mu nu xi
omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega digamma
Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
varGamma varDelta varTheta varLambda varXi varPi varSigma varUpsilon varPhi varPsi varOmega
""".split())
"""Greek letters: a symbol named by its macro (`\\alpha`)."""

LETTER_LIKE: frozenset[str] = frozenset("""
ell infty hbar hslash imath jmath aleph beth gimel wp Re Im emptyset varnothing top bot
forall exists nexists complement Box square blacksquare triangle diamond lozenge
star dagger ddagger flat natural sharp clubsuit diamondsuit heartsuit spadesuit checkmark
angle measuredangle eth mho Finv Game Bbbk backprime varclubsuit S P pounds copyright
circledR yen maltese degree prime dprime intercal transpose_ dag ddag bigtriangleup
hslash_ Diamond mathsterling wp_ AA aa O o_ l_ i_ j_ slash
""".split())
"""Other macros that stand for one symbol, as a letter does."""

# --- fonts, accents, text ----------------------------------------------------------------------------

FONTS: dict[str, str] = {
    "mathbf": "bf", "boldsymbol": "bf", "bm": "bf", "pmb": "bf", "mathbfit": "bf", "bf": "bf",
    "boldmath": "bf", "mathbold": "bf", "vb": "bf", "vec_bf": "bf", "textbf": "bf",
    "mathcal": "cal", "cal": "cal", "mathscr": "scr", "mathpzc": "scr", "euscript": "scr", "EuScript": "scr",
    "mathbb": "bb", "mathds": "bb", "mathbbm": "bb", "bbm": "bb", "Bbb": "bb", "varmathbb": "bb", "bb": "bb",
    "mathrm": "rm", "rm": "rm", "mathup": "rm", "textrm": "rm", "textup": "rm", "upright": "rm",
    "mathsf": "sf", "sf": "sf", "textsf": "sf", "mathsfit": "sf",
    "mathit": "it", "it": "it", "mit": "it", "mathnormal": "it", "textit": "it", "textsl": "it", "emph": "it",
    "mathfrak": "frak", "frak": "frak", "mathtt": "tt", "tt": "tt", "texttt": "tt", "textsc": "rm",
    "textnormal": "rm", "textmd": "rm", "mathsc_": "rm",
    "operatorname": "op", "operatornamewithlimits": "op",
}
"""Font macro → font code. `op` is `\\operatorname`: an upright multi-letter name."""

FONT_SWITCHES: frozenset[str] = frozenset("rm bf it sf tt cal bb frak mit boldmath unboldmath".split())
"""Old-style `{\\rm x}` switches: they restyle the rest of the group."""

TEXT_MACROS: frozenset[str] = frozenset("""
text textnormal mbox hbox textmd textup_ mathtext fbox
""".split())
"""Macros whose argument is prose, not math."""

ACCENTS: dict[str, str] = {
    "hat": "hat", "widehat": "hat", "tilde": "tilde", "widetilde": "tilde", "bar": "bar",
    "overline": "bar", "dot": "dot", "ddot": "ddot", "dddot": "dddot", "vec": "vec",
    "overrightarrow": "vec", "overleftarrow": "leftvec", "check": "check", "widecheck": "check",
    "breve": "breve", "acute": "acute", "grave": "grave", "mathring": "ring", "underline": "underline",
    "utilde": "utilde", "underbar": "underline", "overleftrightarrow": "leftrightvec", "wideparen": "paren",
    "vb*": "bf", "Tilde": "tilde", "Hat": "hat", "Bar": "bar", "Vec": "vec", "Dot": "dot", "Ddot": "ddot",
    "Check": "check", "Breve": "breve", "Acute": "acute", "Grave": "grave", "overset_": "hat",
    "wtilde": "tilde", "what": "hat", "wbar": "bar", "ubar": "underline", "underaccent_": "underline",
}
"""Accent macro → accent code. An accent on a letter becomes part of the symbol's identity."""

ACCENT_LATEX: dict[str, str] = {
    "hat": "hat", "tilde": "tilde", "bar": "bar", "dot": "dot", "ddot": "ddot", "dddot": "dddot",
    "vec": "vec", "leftvec": "overleftarrow", "check": "check", "breve": "breve", "acute": "acute",
    "grave": "grave", "ring": "mathring", "underline": "underline", "utilde": "utilde",
    "leftrightvec": "overleftrightarrow", "paren": "wideparen", "bf": "mathbf",
}
"""Accent code → the macro the printer writes."""

FONT_LATEX: dict[str, str] = {
    "bf": "mathbf", "cal": "mathcal", "scr": "mathscr", "bb": "mathbb", "rm": "mathrm", "sf": "mathsf",
    "it": "mathit", "frak": "mathfrak", "tt": "mathtt", "op": "operatorname",
}
"""Font code → the macro the printer writes."""

# --- layout: dropped from the meaning, kept in the spans ------------------------------------------

LAYOUT_NOARG: frozenset[str] = frozenset("""
, ; : ! > space quad qquad enspace enskip thinspace medspace thickspace negthinspace negmedspace
negthickspace displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits nonumber notag
big Big bigg Bigg displaylimits
mathstrut strut allowbreak nobreak relax cr hline toprule midrule bottomrule noindent
left_ right_ protect centering par newline linebreak break hfill hfil vfill smallskip medskip bigskip
mathopen mathclose mathpunct mathinner mathord mathrel mathbin nulldelimiterspace
displaybreak leavevmode ignorespaces unskip ensuremath_ normalsize small footnotesize scriptsize tiny
large Large LARGE huge Huge selectfont boldmath_ unboldmath xspace addlinespace
abovedisplayskip belowdisplayskip jot medmuskip thinmuskip thickmuskip vline ( ) [ ]
""".split()) | {" ", "/", "@", "-", "\n", "\t"}
"""Spacing, sizing and numbering macros without arguments."""

LAYOUT_ARGS: dict[str, int] = {
    "label": 1, "tag": 1, "hspace": 1, "vspace": 1, "phantom": 1, "hphantom": 1, "vphantom": 1,
    "color": 1, "mspace": 1, "kern": 0, "mkern": 0, "hskip": 0, "vskip": 0,
    "eqref": 1, "color_": 1, "ref": 1, "cite": 1, "citep": 1, "citet": 1, "footnote": 1, "hyperref": 1,
    "rule": 2, "cline": 1, "cmidrule": 1, "arrayrulecolor": 1, "rowcolor": 1, "columncolor": 1,
    "cellcolor": 1, "setlength": 2, "addtolength": 2, "index": 1, "zref": 1, "autoref": 1, "cref": 1,
    "Cref": 1, "nameref": 1, "pageref": 1, "marginpar": 1, "url": 1, "href": 1, "specialrule": 3, "addtocounter": 2, "setcounter": 2, "stepcounter": 1, "refstepcounter": 1,
    "vadjust": 1, "addvspace": 1, "enlargethispage": 1, "pagebreak": 0, "intertext": 1, "shortintertext": 1,
}
"""Layout macros and how many brace arguments they swallow (dropped with them)."""

TRANSPARENT: dict[str, int] = {
    "boxed": 0, "ensuremath": 0, "mathclap": 0, "mathllap": 0, "mathrlap": 0, "clap": 0, "llap": 0,
    "rlap": 0, "smash": 0, "cancel": 0, "bcancel": 0, "xcancel": 0, "cancelto": 1,
    "scalebox": 1, "resizebox": 2, "fcolorbox": 2, "colorbox": 1, "textcolor": 1, "raisebox": 1,
    "highlight": 0, "hl": 0, "mathmakebox": 0, "makebox": 0, "vcenter": 0, "lefteqn": 0,
    "underbracket_": 0, "mathpalette": 0, "displaylimits_": 0, "vbox": 0, "vtop": 0,
}
"""Wrappers kept for their content: macro → number of leading brace arguments to skip
(`\\textcolor{red}{x}` skips `red`, keeps `x`)."""

OPTIONAL_ARG_MACROS: frozenset[str] = frozenset("sqrt raisebox scalebox smash makebox xrightarrow xleftarrow".split())

# --- delimiters -------------------------------------------------------------------------------------

OPEN_DELIMS: dict[str, str] = {
    "(": "(", "[": "[", "\\{": "{", "\\lbrace": "{", "\\lbrack": "[", "\\langle": "<", "\\lvert": "|",
    "\\lVert": "||", "\\lfloor": "floor", "\\lceil": "ceil", "|": "|", "\\|": "||", "\\Vert": "||",
    "\\vert": "|", "\\lgroup": "(", "\\llbracket": "[[", "\\lparen": "(", "<": "<", "\\ulcorner": "[",
}
"""Opening delimiter token → canonical delimiter."""

CLOSE_DELIMS: dict[str, str] = {
    ")": ")", "]": "]", "\\}": "}", "\\rbrace": "}", "\\rbrack": "]", "\\rangle": ">", "\\rvert": "|",
    "\\rVert": "||", "\\rfloor": "floor", "\\rceil": "ceil", "|": "|", "\\|": "||", "\\Vert": "||",
    "\\vert": "|", "\\rgroup": ")", "\\rrbracket": "]]", "\\rparen": ")", ">": ">", "\\urcorner": "]",
    ".": ".",
}
"""Closing delimiter token → canonical delimiter (`.` is `\\right.`)."""

MATCHING: dict[str, str] = {"(": ")", "[": "]", "{": "}", "<": ">", "|": "|", "||": "||",
                            "floor": "floor", "ceil": "ceil", "[[": "]]"}

SIZED_OPEN: frozenset[str] = frozenset("left bigl Bigl biggl Biggl mleft".split())
SIZED_CLOSE: frozenset[str] = frozenset("right bigr Bigr biggr Biggr mright".split())
SIZED_ANY: frozenset[str] = frozenset("big Big bigg Bigg bigm Bigm biggm Biggm middle".split())

SIDED_BARS: dict[str, tuple[str, str]] = {
    "|": ("\\lvert", "\\rvert"), "\\vert": ("\\lvert", "\\rvert"),
    "\\|": ("\\lVert", "\\rVert"), "\\Vert": ("\\lVert", "\\rVert"),
}
"""A bar → the (opening, closing) one-sided delimiter it becomes after a sizing macro of `SIDED_SIZES`."""

SIDED_SIZES: dict[str, int] = {"left": 0, "mleft": 0, "right": 1, "mright": 1}
"""Sizing macros that always pair up, → the side of `SIDED_BARS` they pick: `\\left\\|` can only open a norm
and `\\right\\|` only close one. `\\bigl`/`\\bigr` are not here: papers write `\\biggr|` as a condition bar."""

# --- operators ---------------------------------------------------------------------------------------

ADDITIVE = 20
MULTIPLICATIVE = 30

BINARY_OPS: dict[str, tuple[str, int]] = {
    "+": ("+", ADDITIVE), "-": ("-", ADDITIVE), "\\pm": ("\\pm", ADDITIVE), "\\mp": ("\\mp", ADDITIVE),
    "\\oplus": ("\\oplus", ADDITIVE), "\\cup": ("\\cup", ADDITIVE), "\\sqcup": ("\\sqcup", ADDITIVE),
    "\\uplus": ("\\uplus", ADDITIVE), "\\setminus": ("\\setminus", ADDITIVE),
    "\\backslash": ("\\setminus", ADDITIVE), "\\vee": ("\\vee", ADDITIVE), "\\lor": ("\\vee", ADDITIVE),
    "\\ominus": ("\\ominus", ADDITIVE), "\\dotplus": ("+", ADDITIVE),
    "\\cdot": ("\\cdot", MULTIPLICATIVE), "\\times": ("\\times", MULTIPLICATIVE),
    "*": ("*", MULTIPLICATIVE), "\\ast": ("*", MULTIPLICATIVE), "/": ("/", MULTIPLICATIVE),
    "\\div": ("\\div", MULTIPLICATIVE), "\\odot": ("\\odot", MULTIPLICATIVE),
    "\\otimes": ("\\otimes", MULTIPLICATIVE), "\\circledast": ("\\circledast", MULTIPLICATIVE),
    "\\circ": ("\\circ", MULTIPLICATIVE), "\\bullet": ("\\bullet", MULTIPLICATIVE),
    "\\cap": ("\\cap", MULTIPLICATIVE), "\\sqcap": ("\\sqcap", MULTIPLICATIVE),
    "\\wedge": ("\\wedge", MULTIPLICATIVE), "\\land": ("\\wedge", MULTIPLICATIVE),
    "\\star": ("\\star", MULTIPLICATIVE), "\\diamond": ("\\diamond", MULTIPLICATIVE),
    "\\boxtimes": ("\\boxtimes", MULTIPLICATIVE), "\\boxplus": ("\\boxplus", ADDITIVE),
    "\\cdotp": ("\\cdot", MULTIPLICATIVE), "\\centerdot": ("\\cdot", MULTIPLICATIVE),
    "\\bigodot": ("\\odot", MULTIPLICATIVE), "\\oslash": ("\\oslash", MULTIPLICATIVE),
    "\\circledcirc": ("\\circ", MULTIPLICATIVE), "\\divideontimes": ("\\div", MULTIPLICATIVE),
    "\\ltimes": ("\\ltimes", MULTIPLICATIVE), "\\rtimes": ("\\rtimes", MULTIPLICATIVE),
    "\\amalg": ("\\amalg", ADDITIVE), "\\wr": ("\\wr", MULTIPLICATIVE), "\\bmod": ("\\bmod", MULTIPLICATIVE),
    "\\mod": ("\\bmod", MULTIPLICATIVE), "\\triangleleft": ("\\triangleleft", MULTIPLICATIVE),
    "\\triangleright": ("\\triangleright", MULTIPLICATIVE),
    "\\cdots_": ("\\cdot", MULTIPLICATIVE),
}
"""Infix operator token → (canonical operator, binding power). `:` and relations are below."""

UNARY_OPS: dict[str, str] = {"-": "-", "+": "+", "\\pm": "\\pm", "\\mp": "\\mp", "\\neg": "\\neg",
                             "\\lnot": "\\neg", "\\sim_": "\\sim"}
"""Prefix operator token → canonical operator."""

RELATIONS: dict[str, str] = {
    "=": "=", "\\ne": "\\ne", "\\neq": "\\ne", "<": "<", ">": ">", "\\le": "\\le", "\\leq": "\\le",
    "\\leqslant": "\\le", "\\leqq": "\\le", "\\ge": "\\ge", "\\geq": "\\ge", "\\geqslant": "\\ge",
    "\\geqq": "\\ge", "\\lt": "<", "\\gt": ">", "\\ll": "\\ll", "\\gg": "\\gg", "\\lll": "\\ll",
    "\\ggg": "\\gg", "\\approx": "\\approx", "\\approxeq": "\\approx", "\\simeq": "\\simeq",
    "\\sim": "\\sim", "\\thicksim": "\\sim", "\\cong": "\\cong", "\\equiv": "\\equiv",
    "\\propto": "\\propto", "\\varpropto": "\\propto", "\\triangleq": "\\triangleq",
    "\\coloneqq": ":=", "\\coloneq": ":=", "\\eqqcolon": "=:", "\\eqcolon": "=:", "\\defeq": ":=",
    "\\doteq": "\\doteq", "\\doteqdot": "\\doteq", "\\stackrel_": "=", "\\in": "\\in",
    "\\notin": "\\notin", "\\ni": "\\ni", "\\owns": "\\ni", "\\subset": "\\subset",
    "\\subseteq": "\\subseteq", "\\subsetneq": "\\subsetneq", "\\supset": "\\supset",
    "\\supseteq": "\\supseteq", "\\supsetneq": "\\supsetneq", "\\sqsubseteq": "\\sqsubseteq",
    "\\sqsupseteq": "\\sqsupseteq", "\\to": "\\to", "\\rightarrow": "\\to", "\\longrightarrow": "\\to",
    "\\leftarrow": "\\leftarrow", "\\gets": "\\leftarrow", "\\longleftarrow": "\\leftarrow",
    "\\mapsto": "\\mapsto", "\\longmapsto": "\\mapsto", "\\Rightarrow": "\\Rightarrow",
    "\\Longrightarrow": "\\Rightarrow", "\\implies": "\\Rightarrow", "\\Leftarrow": "\\Leftarrow",
    "\\Longleftarrow": "\\Leftarrow", "\\impliedby": "\\Leftarrow", "\\Leftrightarrow": "\\iff",
    "\\Longleftrightarrow": "\\iff", "\\iff": "\\iff", "\\leftrightarrow": "\\leftrightarrow",
    "\\longleftrightarrow": "\\leftrightarrow", "\\models": "\\models", "\\vdash": "\\vdash",
    "\\dashv": "\\dashv", "\\perp": "\\perp", "\\parallel": "\\parallel", "\\nparallel": "\\nparallel",
    "\\prec": "\\prec", "\\succ": "\\succ", "\\preceq": "\\preceq", "\\succeq": "\\succeq",
    "\\preccurlyeq": "\\preceq", "\\succcurlyeq": "\\succeq", "\\asymp": "\\asymp",
    "\\lesssim": "\\lesssim", "\\gtrsim": "\\gtrsim", "\\lessapprox": "\\lesssim",
    "\\gtrapprox": "\\gtrsim", "\\nless": "\\nless", "\\ngtr": "\\ngtr", "\\nleq": "\\nleq",
    "\\ngeq": "\\ngeq", "\\nsim": "\\nsim", "\\ncong": "\\ncong", "\\nsubseteq": "\\nsubseteq",
    "\\nsupseteq": "\\nsupseteq", "\\not\\in": "\\notin", "\\hookrightarrow": "\\hookrightarrow",
    "\\rightharpoonup": "\\rightharpoonup", "\\rightsquigarrow": "\\rightsquigarrow",
    "\\leadsto": "\\rightsquigarrow", "\\rightleftharpoons": "\\rightleftharpoons",
    "\\uparrow": "\\uparrow", "\\downarrow": "\\downarrow", "\\Uparrow": "\\Uparrow",
    "\\Downarrow": "\\Downarrow", "\\updownarrow": "\\updownarrow", "\\nearrow": "\\nearrow",
    "\\searrow": "\\searrow", "\\nrightarrow": "\\nrightarrow", "\\twoheadrightarrow": "\\twoheadrightarrow",
    "\\bowtie": "\\bowtie", "\\Join": "\\bowtie", "\\smile": "\\smile", "\\frown": "\\frown",
    "\\vDash": "\\models", "\\Vdash": "\\Vdash", "\\trianglelefteq": "\\trianglelefteq",
    "\\trianglerighteq": "\\trianglerighteq", "\\lhd": "\\lhd", "\\rhd": "\\rhd", "\\unlhd": "\\unlhd",
    "\\unrhd": "\\unrhd", "\\sqsubset": "\\sqsubset", "\\sqsupset": "\\sqsupset", "\\Subset": "\\Subset",
    "\\backsim": "\\backsim", "\\eqsim": "\\eqsim", "\\risingdotseq": "\\doteq",
    "\\fallingdotseq": "\\doteq", "\\circeq": "\\circeq", "\\bumpeq": "\\bumpeq", "\\Bumpeq": "\\Bumpeq",
    "\\lessgtr": "\\lessgtr", "\\gtrless": "\\gtrless", "\\ltimes_": "\\ltimes", "\\therefore": "\\therefore",
    "\\because": "\\because", "\\overset_": "=", "\\leftrightarrows": "\\leftrightarrows",
    "\\rightrightarrows": "\\rightrightarrows", "\\longleftrightarrows": "\\leftrightarrows",
    "\\xrightarrow": "\\to", "\\xleftarrow": "\\leftarrow", "\\xmapsto": "\\mapsto",
    "\\Coloneqq": ":=", "\\approxident": "\\approx", "\\neqq": "\\ne", "\\lneq": "\\lneq", "\\gneq": "\\gneq",
    "\\lneqq": "\\lneq", "\\gneqq": "\\gneq", "\\nmid": "\\nmid", "\\shortmid": "\\mid",
    "\\divides": "\\mid", "\\nprec": "\\nprec", "\\nsucc": "\\nsucc", "\\propto_": "\\propto",
    "\\notni": "\\notni", "\\ngeqslant": "\\ngeq", "\\nleqslant": "\\nleq", "\\leftharpoonup": "\\leftharpoonup",
}
"""Relation token → canonical relation. `:=` and `=:` are recognised from two tokens."""

NEGATABLE: dict[str, str] = {"=": "\\ne", "\\in": "\\notin", "<": "\\nless", ">": "\\ngtr", "\\le": "\\nleq",
                             "\\ge": "\\ngeq", "\\sim": "\\nsim", "\\subseteq": "\\nsubseteq",
                             "\\equiv": "\\nequiv", "\\approx": "\\napprox", "\\cong": "\\ncong",
                             "\\mid": "\\nmid", "\\parallel": "\\nparallel", "\\ni": "\\notni",
                             "\\subset": "\\nsubset", "\\supset": "\\nsupset", "\\perp": "\\nperp",
                             "\\propto": "\\npropto", "\\models": "\\nmodels", "\\simeq": "\\nsimeq",
                             "\\to": "\\nrightarrow", "\\exists": "\\nexists"}
"""`\\not` followed by a relation → the negated relation."""

for _negated in NEGATABLE.values():
    RELATIONS.setdefault(_negated, _negated)

CONDITION_BARS: frozenset[str] = frozenset({"|", "\\mid", "\\vert", "\\middle|", "\\middle\\vert",
                                             "\\middle\\mid", "\\bigm|", "\\Bigm|",
                                             "\\big|", "\\Big|", "\\bigg|", "\\Bigg|", "\\biggm|"})
"""Tokens that separate an event from its condition inside `p( … )` or a set builder."""

DIVERGENCE_BARS: frozenset[str] = frozenset({"\\|", "\\Vert", "\\parallel", "||", "\\middle\\|",
                                              "\\middle\\Vert", "\\big\\|",
                                              "\\Big\\|", "\\bigm\\|", "\\|_"})
"""Tokens that separate the two arguments of a divergence (`D_{KL}(p \\| q)`)."""

BAR_PAIR_STOPS: frozenset[str] = frozenset({",", ";"}) | frozenset(RELATIONS) | CONDITION_BARS | DIVERGENCE_BARS
"""Inside a bracket group or a script, a bar after a factor opens a norm or absolute value (`[a \\|u\\|^2]`,
`e^{-a|x|^2}`) only when the same bar closes it before the group ends and before one of these tokens (other bars
are skipped over): otherwise it separates a condition (`p(x | y, z)`, `p_{X|Y}`) or a divergence (`D(p \\| q)`)."""

BAR_SEPARATED_GROUPS: frozenset[str] = frozenset({"<"})
"""Groups (by canonical opener) in which a bar after a factor always separates: `\\langle n | O | p \\rangle`
is a bra-ket, not n·|O|·p."""

# --- big operators and operators with limits --------------------------------------------------------

PREFIX_BIG_BINARY: dict[str, str] = {"cup": "union", "cap": "intersection", "oplus": "direct_sum",
                                     "otimes": "tensor_product", "vee": "or", "wedge": "and", "sqcup": "disjoint_union",
                                     "uplus": "multiset_union", "odot": "hadamard_product"}
"""Binary operators written with limits in operand position (`\\cup_{k=1}^K M_k`): read as big operators."""

PLAIN_TEX_MATRICES: dict[str, str] = {"matrix": "matrix", "pmatrix": "pmatrix", "bordermatrix": "matrix",
                                      "cases": "cases"}
"""Plain-TeX `\\pmatrix{a & b \\cr c & d}` forms → the environment they stand for."""

SCRIPT_SYNONYMS: dict[str, str] = {"sp": "^", "sb": "_"}
"""Plain-TeX `\\sp`/`\\sb` for `^`/`_`."""

BIG_OPERATORS: dict[str, str] = {
    "sum": "sum", "prod": "prod", "coprod": "coprod", "bigcup": "union", "bigcap": "intersection",
    "bigoplus": "direct_sum", "bigotimes": "tensor_product", "bigvee": "or", "bigwedge": "and",
    "bigsqcup": "disjoint_union", "biguplus": "multiset_union", "bigodot": "hadamard_product",
    "int": "int", "iint": "int", "iiint": "int", "oint": "int", "intop": "int", "smallint": "int",
    "idotsint": "int", "oiint": "int", "Sigma_": "sum",
}
"""Big operators: they bind variables in their under/over scripts and take a body."""

INTEGRALS: frozenset[str] = frozenset("int iint iiint oint intop smallint idotsint oiint".split())

LIMIT_OPERATORS: dict[str, str] = {
    "max": "max", "min": "min", "sup": "sup", "inf": "inf", "lim": "lim", "limsup": "limsup",
    "liminf": "liminf", "argmax": "argmax", "argmin": "argmin", "arg max": "argmax",
    "arg min": "argmin", "arg\\,max": "argmax", "arg\\,min": "argmin", "Pr": "Pr",
    "esssup": "sup", "essinf": "inf", "maximize": "max", "minimize": "min", "argsup": "argsup",
    "arginf": "arginf", "varlimsup": "limsup", "varliminf": "liminf", "injlim": "lim", "projlim": "lim",
    "median": "median", "argtopk": "argtopk", "topk": "topk", "Topk": "topk", "TopK": "topk",
    "mean": "mean", "avg": "mean", "Avg": "mean", "Mean": "mean", "softmax": "softmax",
    "Softmax": "softmax", "logsumexp": "logsumexp", "LSE": "logsumexp", "max_": "max",
    "det": "det", "gcd": "gcd", "lcm": "lcm", "sgn": "sgn",
}
"""Named operators that may carry an under-script naming what they run over
(`\\max_\\theta`, `\\operatorname{Softmax}_j`)."""

EXPECTATION_NAMES: frozenset[str] = frozenset({"E", "Ex", "Exp_", "EE", "Expect", "Expectation"})
"""Base letters read as an expectation when set in blackboard/upright font or given a `\\sim` script."""

# --- functions -----------------------------------------------------------------------------------

FUNCTION_MACROS: frozenset[str] = frozenset("""
log ln lg exp sin cos tan sec csc cot arcsin arccos arctan arcsec arccsc arccot sinh cosh tanh coth
sech csch arcsinh arccosh arctanh det dim ker deg hom arg Pr gcd lcm sgn sign erf erfc tr Tr trace
diag rank Var Cov Cor vol supp span spn softmax sigmoid relu ReLU proj Proj poly polylog logit
arsinh arcosh artanh arccosh arcsinh arctanh arccot floor ceil sech csch Li Ei erfinv
""".split())
"""Function macros that exist in LaTeX/amsmath or common packages (`\\log`, `\\exp`, `\\det`)."""

KNOWN_FUNCTIONS: frozenset[str] = frozenset("""
log ln lg exp sin cos tan sec csc cot arcsin arccos arctan sinh cosh tanh coth det dim ker deg arg Pr
gcd lcm sgn sign erf erfc tr Tr trace Trace diag Diag rank Rank Var Cov Cor Corr vol supp span Span
softmax Softmax SoftMax softplus Softplus sigmoid Sigmoid sigm logsigmoid tanh ReLU Relu relu LeakyReLU
GELU Gelu gelu SiLU silu Swish swish SwiGLU GLU GeGLU ELU SELU Mish RoPE Rope rope RMSNorm LayerNorm
LN BN BatchNorm GroupNorm Norm norm Normalize normalize L2Norm Topk TopK topk Top top argtopk
Attention Attn attn MultiHead MultiHeadAttention MHA MLA GQA MQA SelfAttention CrossAttention FFN MLP
FeedForward FF Linear linear Dense Concat concat Cat cat Stack stack Split split sg stopgrad stop_gradient
StopGrad detach KL D_KL JS JSD KLD CE BCE MSE MAE NLL Loss loss Dropout dropout Embed Embedding Emb
emb Enc Dec Encoder Decoder Enc_ Proj proj Gate gate Router Route Score score sim Sim dist Dist cos_sim
clip Clip clamp Clamp min max argmax argmin Max Min mean Mean median Median std Std avg Avg Unif Uniform
Bernoulli Bern Categorical Cat_ Multinomial Dir Dirichlet Beta Gamma_ Poisson Pois Geom Binomial Bin
Laplace Gumbel Exp_ Lognormal logsumexp LSE round Round floor ceil vec Vec vect reshape Reshape
flatten Flatten Conv conv Pool pool MaxPool AvgPool Upsample Downsample Resize ResBlock Block
Transformer TransformerBlock Decoder_ Tokenizer tokenize Detok Quant quant Dequant dequant Q_ round_
sigma_ Sample sample Bin_ hist Hist Mask mask Pad pad Shift shift Rot rot Rotate Diag_ erfinv
Cosine cosine Acc acc Accuracy Precision Recall Prec Rec FID IS BLEU ROUGE CLIP DINO Perplexity PPL
KLdiv Entropy entropy MI logdet Logdet Det inv Inv pinv Pinv poly Poly relu6 hardtanh Hardtanh
ReLU2 Sq sq abs Abs nnz card Card len Len sup inf lim Prob Pr_ Expect
pass passk indicator Ind ind one_hot onehot OneHot argsort sort Sort cumsum Cumsum cumprod Sum sum
Prod prod Lin MoE Expert Experts TopP Attn_ AttnPool Readout readout Agg agg Aggregate aggregate
Update update Message message Softmin softmin Sparsemax sparsemax Entmax entmax GumbelSoftmax
Heaviside step Step sinc Sinc DCT DFT FFT IFFT fft ifft Re Im conj Arg Log Exp Sin Cos
""".split())
"""Names the parser reads as functions when applied to `( … )`: standard maths plus ML vocabulary.
Multi-letter names match as written in `\\mathrm{}`/`\\operatorname{}`/`\\text{}` or as bare letters."""

DISTRIBUTIONS: frozenset[str] = frozenset("N U B D P Q G".split())
"""Calligraphic letters commonly used as distributions or datasets applied to arguments
(`\\mathcal N(\\mu, \\sigma^2)`), read as functions when applied."""

LIKELY_FUNCTION_LETTERS: frozenset[str] = frozenset(
    "f g h p q r F G H L J P Q R V T K \\pi \\sigma \\phi \\varphi \\psi \\Phi \\Psi \\rho \\mu \\ell "
    "\\delta \\Gamma \\chi \\kappa \\omega \\Omega \\zeta".split())
"""Single letters that papers routinely apply (`f(x)`, `p(x)`, `\\pi(a)`): `X(...)` with these is an
application whose certainty is "ambiguous"; other single letters followed by a group multiply."""

SCALAR_LETTERS: frozenset[str] = frozenset(
    "\\alpha \\beta \\gamma \\eta \\lambda \\epsilon \\varepsilon \\tau \\nu \\xi \\theta "
    "a b c d e k m n s t u v w x y z i j l o A B C D E I M N O S U W X Y Z".split())
"""Letters that papers rarely apply as functions: `\\eta(a+b)` multiplies."""

# --- special forms -------------------------------------------------------------------------------

FRACTIONS: frozenset[str] = frozenset("frac dfrac tfrac cfrac nicefrac sfrac flatfrac genfrac_ xfrac".split())
BINOMIALS: frozenset[str] = frozenset("binom dbinom tbinom".split())
ROOTS: frozenset[str] = frozenset({"sqrt"})
ELLIPSES: dict[str, str] = {"ldots": "...", "cdots": "\\cdots", "dots": "...", "dotsc": "...",
                            "dotsb": "\\cdots", "dotsm": "\\cdots", "dotsi": "\\cdots", "dotso": "...",
                            "vdots": "\\vdots", "ddots": "\\ddots", "iddots": "\\ddots", "adots": "\\ddots",
                            "mathellipsis": "...", "hdots": "\\cdots", "cdotp_": "\\cdots"}
"""Ellipsis macros → canonical form."""

TRANSPOSE_MARKS: frozenset[str] = frozenset({"\\top", "T", "\\intercal", "\\mathsf{T}", "\\mathrm{T}",
                                              "\\mathsf T", "\\mathrm T", "\\textsf{T}", "\\text{T}",
                                              "\\mathtt{T}", "\\texttt{T}", "\\mathbf{T}", "\\textup{T}",
                                              "\\transpose", "\\T", "t_"})
"""Superscripts that mean transpose, as written (compared after removing spaces)."""

OPTIMUM_MARKS: frozenset[str] = frozenset({"*", "\\ast", "\\star", "\\*"})
PARAMETER_LETTERS: frozenset[str] = frozenset({"\\theta", "\\phi", "\\psi", "\\vartheta", "\\varphi"})
"""The letters papers write a model's weights with: a subscript holding one names its symbol (`\\pi_\\theta`,
`q_\\phi`, `\\sigma_\\phi`)."""
PRIME_MARKS: frozenset[str] = frozenset({"\\prime", "'", "\\dprime"})
DAGGER_MARKS: frozenset[str] = frozenset({"\\dagger", "\\ddagger", "+"})
"""Pseudo-inverse / adjoint marks (`A^\\dagger`, `A^+`): a label in the tree."""

INDEX_LETTERS: frozenset[str] = frozenset("i j k l m n t s p q r u v".split())
"""Letters that, run together in a subscript (`W_{ij}`), are read as one index each; other runs
of letters (`\\theta_{old}`) are read as one label."""

LABEL_WORDS: frozenset[str] = frozenset("""
old new ref init max min base tgt src in out pos neg enc dec cls tok emb obs act rew val
train test eval gen inf sup opt avg sum tot prev next left right top bot mid
""".split())
"""Short words that are labels even when made of index letters."""

INDICATOR_BASES: frozenset[str] = frozenset({"1", "I_", "\\mathbb{I}_"})
"""Symbols (set in bold or blackboard font) that form an indicator when given a condition."""

MATRIX_ENVS: dict[str, str] = {
    "matrix": "", "pmatrix": "()", "bmatrix": "[]", "Bmatrix": "{}", "vmatrix": "||", "Vmatrix": "‖‖",
    "smallmatrix": "", "psmallmatrix": "()", "bsmallmatrix": "[]", "array": "", "subarray": "",
    "tabular": "", "matrix*": "", "pmatrix*": "()", "bmatrix*": "[]", "vmatrix*": "||",
    "Bmatrix*": "{}", "Vmatrix*": "‖‖", "tabular*": "",
}
"""Matrix-like environments → their delimiters."""

CASES_ENVS: frozenset[str] = frozenset("cases dcases rcases cases* dcases* numcases subnumcases".split())
ROW_ENVS: frozenset[str] = frozenset("""
aligned alignedat split gathered gather gather* align align* alignat alignat* equation equation*
multline multline* flalign flalign* eqnarray eqnarray* lgathered rgathered darray displaymath math
empheq
""".split())
"""Environments whose rows are statements (align-like): `&` is layout, `\\\\` separates rows."""

ENV_ARGS: dict[str, int] = {"array": 1, "subarray": 1, "alignedat": 1, "alignat": 1, "alignat*": 1,
                            "tabular": 1, "darray": 1, "tabular*": 2, "empheq": 0, "numcases": 1,
                            "subnumcases": 1}
"""Environments with leading brace arguments (column specs) to skip."""

STACK_MACROS: frozenset[str] = frozenset("overset underset stackrel stackbin".split())
BRACES: dict[str, str] = {"underbrace": "underbrace", "overbrace": "overbrace", "underbracket": "underbrace",
                          "overbracket": "overbrace"}
"""Annotating braces: the script under/over them is a note, not an index."""

SUBSTACK: frozenset[str] = frozenset({"substack", "atop_", "subarray_"})
INFIX_GENFRAC: dict[str, str] = {"over": "frac", "choose": "binom", "atop": "frac", "brack": "binom",
                                 "brace": "binom"}
"""Old infix forms `{a \\over b}`, `{n \\choose k}`."""

NABLA_SPELLINGS: frozenset[str] = frozenset({"triangledown", "bigtriangledown"})
"""Triangles some papers write for ∇ (the score `\\triangledown_{x_t} \\ln q`, `\\bigtriangledown f`): `\\nabla`."""
NABLA: frozenset[str] = frozenset({"nabla", "grad_"}) | NABLA_SPELLINGS
"""The gradient operator, however it is written."""
DIFFERENTIALS: frozenset[str] = frozenset({"partial", "delta_", "mathrm{d}"})

UNICODE_TOKENS: dict[str, str] = {
    "≤": "\\le", "≥": "\\ge", "≠": "\\ne", "≈": "\\approx", "∈": "\\in", "∉": "\\notin", "×": "\\times",
    "·": "\\cdot", "⋅": "\\cdot", "−": "-", "∑": "\\sum", "∏": "\\prod", "∫": "\\int", "∞": "\\infty",
    "→": "\\to", "←": "\\leftarrow", "↦": "\\mapsto", "∼": "\\sim", "∝": "\\propto", "≡": "\\equiv",
    "∂": "\\partial", "∇": "\\nabla", "⊤": "\\top", "‖": "\\|", "⊙": "\\odot", "⊗": "\\otimes",
    "⊕": "\\oplus", "∪": "\\cup", "∩": "\\cap", "⊂": "\\subset", "⊆": "\\subseteq", "…": "\\ldots",
    "⋯": "\\cdots", "±": "\\pm", "≔": "\\coloneqq", "≜": "\\triangleq", "⟨": "\\langle",
    "⟩": "\\rangle", "∀": "\\forall", "∃": "\\exists", "∅": "\\emptyset", "ℓ": "\\ell", "≪": "\\ll",
    "≫": "\\gg", "√": "\\sqrt", "∘": "\\circ", "⇒": "\\Rightarrow", "⇔": "\\iff", "∧": "\\wedge",
    "∨": "\\vee", "¬": "\\neg", "\u00a0": " ", "\u2009": " ", "\u200b": " ",
}
"""Unicode characters pasted into LaTeX formulas → the macro they stand for."""
