"""Front matter: the author names of an `\\author{…}` block, without marks, affiliations or e-mails.

Templates write author blocks in a few shapes, and the shapes are the evidence:
- blocks separated by `\\and`/`\\And`/`\\AND` or set as `tabular` cells (NeurIPS, ICLR, `\\auth` macros): each
  block's first line is the person, the lines under it the affiliation and address;
- a run of names separated by commas, `\\quad`, ties or `\\hspace` on the first lines, then affiliation lines
  (CVPR, ACL, arXiv styles), which start with an affiliation mark (`$^1$`, `\\textsuperscript{2}`), a smaller
  font, or name an institution, or give an address.
Marks (`$^{1,*}$`, `\\thanks`, `\\footnotemark`), e-mails and links never become part of a name.
"""
from __future__ import annotations

import re

from .macros import read_group, read_optional
from .tokens import ALIGN, BGROUP, CS, EGROUP, MATH, PAR, SPACE, SUB, SUP, TEXT, TILDE, Token

BLOCK_SEPARATORS = frozenset({"and", "And", "AND"})
LINE_BREAKS = frozenset({"\\", "newline", "par", "cr", "linebreak"})
NAME_SEPARATORS = frozenset({"quad", "qquad", "hspace", "hfill", "hskip", "enspace", "enskip", "authorskip",
                             "space", ","})
# Commands dropped with their mandatory arguments (optional ones too): marks, addresses, spacing.
DROPPED_ARGS = {"thanks": 1, "footnotemark": 0, "footnote": 1, "textsuperscript": 1, "inst": 1, "email": 1,
                "texttt": 1, "url": 1, "href": 2, "affil": 1, "affiliation": 1, "orcidlink": 1, "orcid": 1,
                "vspace": 1, "vskip": 0, "label": 1, "icmlaffiliation": 2, "icmlcorrespondingauthor": 2,
                "color": 1, "includegraphics": 1, "raisebox": 1, "phantom": 1, "hphantom": 1, "vphantom": 1,
                "normalfont": 0}
# Fonts that set an affiliation or address line apart from the names.
SMALL_FONTS = frozenset({"small", "footnotesize", "scriptsize", "tiny", "normalsize", "tt", "ttfamily", "it",
                         "itshape", "em", "sl", "affilfont"})
ACCENT_COMBINING = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
                    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328"}
LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "l": "ł", "L": "Ł", "i": "ı", "aa": "å",
           "AA": "Å", "oe": "œ", "OE": "Œ", "&": "&"}
INSTITUTION = re.compile(
    r"\b(?:Universit\w*|Univ\.|Institut\w*|Research|Laborator\w*|Labs?|Inc\.?|College|School|Department|Dept\.?"
    r"|Cent(?:er|re)|Academy|Faculty|Google|Microsoft|Meta|DeepMind|OpenAI|Amazon|NVIDIA|Apple|IBM|Adobe|Tencent"
    r"|Alibaba|Baidu|Huawei|ByteDance|Samsung|Intel|ETH|EPFL|MIT|CMU|UCLA|Mila|Vector|FAIR|Team|Corporation"
    r"|Company|Technolog\w*|Hospital|Foundation|Group|Polytechnic|Politecnico|Technische|Hochschule|Sciences?"
    r"|Brain|AI\s+Lab)\b")
_MARKS = re.compile(r"^[\s\d,*†‡§¶∗⋆♠♣♦♥#'’\-–:;.]+|[\s\d,*†‡§¶∗⋆♠♣♦♥#'’\-–:;]+$")
_WORDS = re.compile(r"[^\W\d_][\w'’.\-]*", re.UNICODE)


def author_names(tokens: list[Token], text: str) -> list[str]:
    """The people named in one `\\author{…}` group, in order."""
    blocks = _blocks(list(tokens))
    names: list[str] = []
    for block in blocks:
        lines = [line for line in _lines(block, text) if line.text.strip(" ,")]
        if not lines:
            continue
        candidates = [lines[0]]
        # Under one person (an \\And block, a tabular column) come their affiliation and address; under a
        # list of people, more people may follow until the affiliations start.
        if len(blocks) == 1 or len(_split_names(lines[0].text)) > 1:
            for line in lines[1:]:
                if line.affiliation_like:
                    break
                candidates.append(line)
        for line in candidates:
            names.extend(_split_names(line.text))
    return names


class _Line:
    __slots__ = ("small", "starts_marked", "text")

    def __init__(self) -> None:
        self.text = ""
        self.starts_marked = False
        self.small = False

    @property
    def affiliation_like(self) -> bool:
        return self.starts_marked or self.small or "@" in self.text or "http" in self.text \
            or bool(INSTITUTION.search(self.text))


def _blocks(tokens: list[Token]) -> list[list[Token]]:
    """Split at top-level \\and/\\And/\\AND and around tabular environments (one block per tabular cell)."""
    blocks: list[list[Token]] = [[]]
    depth = 0
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.kind == BGROUP:
            depth += 1
        elif tok.kind == EGROUP:
            depth -= 1
        elif tok.kind == CS and tok.text in BLOCK_SEPARATORS and depth <= 0:
            blocks.append([])
            i += 1
            continue
        elif tok.kind == CS and tok.text == "begin" and _env(tokens, i + 1)[0] in ("tabular", "tabular*", "array"):
            name, j = _env(tokens, i + 1)
            _, j = read_optional(tokens, j)
            _, j = read_group(tokens, j)
            close = _matching_end(tokens, j, name)
            cells = _tabular_columns(tokens[j:close])
            if blocks[-1] and any(t.kind not in (SPACE, PAR) for t in blocks[-1]):
                blocks.append([])
            for cell in cells:
                blocks[-1] = cell
                blocks.append([])
            i = _env(tokens, close + 1)[1] if close < n else n
            continue
        blocks[-1].append(tok)
        i += 1
    return [b for b in blocks if any(t.kind not in (SPACE, PAR) for t in b)]


def _tabular_columns(body: list[Token]) -> list[list[Token]]:
    """A tabular of authors, column by column: each column is a block ("Name \\\\ Affiliation")."""
    rows: list[list[list[Token]]] = [[[]]]
    depth = 0
    for tok in body:
        if tok.kind == BGROUP:
            depth += 1
        elif tok.kind == EGROUP:
            depth -= 1
        if depth == 0 and tok.kind == ALIGN:
            rows[-1].append([])
            continue
        if depth == 0 and tok.kind == CS and tok.text == "\\":
            rows.append([[]])
            continue
        rows[-1][-1].append(tok)
    width = max(len(r) for r in rows)
    columns: list[list[Token]] = []
    for c in range(width):
        column: list[Token] = []
        for row in rows:
            if c < len(row):
                column.extend(row[c])
                column.append(Token(CS, "\\", 0, 0, True))
        columns.append(column)
    return columns


def _env(tokens, i):
    group, j = read_group(tokens, i)
    if group is None:
        return None, i
    return "".join(t.text for t in group).strip(), j


def _matching_end(tokens, j, name) -> int:
    depth = 0
    for k in range(j, len(tokens)):
        tok = tokens[k]
        if tok.kind == CS and tok.text in ("begin", "end") and _env(tokens, k + 1)[0] == name:
            if tok.text == "begin":
                depth += 1
            elif depth == 0:
                return k
            else:
                depth -= 1
    return len(tokens)


def _lines(tokens: list[Token], text: str) -> list[_Line]:
    """The block's lines as plain text; name separators become "|"."""
    return _LineReader(tokens).read()


MARK_COMMANDS = frozenset({"textsuperscript", "inst", "footnotemark", "thanks"})


class _LineReader:
    """One pass over an author block, one handler per kind of token."""

    def __init__(self, tokens: list[Token]) -> None:
        self.toks = tokens
        self.lines = [_Line()]
        self.parts: list[str] = []

    def read(self) -> list[_Line]:
        i, n = 0, len(self.toks)
        while i < n:
            tok = self.toks[i]
            if tok.kind == CS:
                i = self.command(i)
            elif tok.kind == MATH:
                i = self.math(i)
            else:
                self.character(tok)
                i += 1
        self.lines[-1].text = _clean("".join(self.parts))
        return self.lines

    def character(self, tok: Token) -> None:
        if tok.kind == TEXT:
            self.parts.append(tok.text)
        elif tok.kind in (SPACE, PAR):
            self.parts.append(" ")
        elif tok.kind == TILDE:
            self.parts.append("~")  # runs of ties separate names; one tie is a space (resolved in _clean)
        elif tok.kind in (SUP, SUB):
            self.mark_start()
        elif tok.kind == ALIGN:
            self.parts.append("|")

    def mark_start(self, small: bool = False) -> None:
        """A mark or a font change before any text: the line is an affiliation or address line."""
        if not "".join(self.parts).strip(" |"):
            if small:
                self.lines[-1].small = True
            else:
                self.lines[-1].starts_marked = True

    def math(self, i: int) -> int:
        k = i + 1
        while k < len(self.toks) and self.toks[k].kind != MATH:
            k += 1
        self.mark_start()
        self.parts.append(" ")
        return k + 1

    def new_line(self) -> None:
        self.lines[-1].text = _clean("".join(self.parts))
        self.parts.clear()
        self.lines.append(_Line())

    def command(self, i: int) -> int:
        toks, name = self.toks, self.toks[i].text
        j = i + 1
        if name in LINE_BREAKS:
            self.new_line()
            if j < len(toks) and toks[j].kind == TEXT and toks[j].text.startswith("*"):
                j += 1
            return read_optional(toks, j)[1]
        if name in NAME_SEPARATORS:
            self.parts.append("|")
            return max(read_group(toks, j)[1], j) if name in ("hspace", "hskip") else j
        if name in DROPPED_ARGS:
            if name in MARK_COMMANDS:
                self.mark_start()
            if j < len(toks) and toks[j].kind == TEXT and toks[j].text.startswith("*"):
                j += 1
            _, j = read_optional(toks, j)
            for _ in range(DROPPED_ARGS[name]):
                _, j = read_group(toks, j)
            return max(j, i + 1)
        if name in SMALL_FONTS:
            self.mark_start(small=True)
        elif name in ACCENT_COMBINING:
            return self.accent(i)
        elif name in LETTERS:
            self.parts.append(LETTERS[name])
        # Any other command (\\textbf, \\bf, \\mbox, …): dropped, its argument (if any) read as text.
        return j

    def accent(self, i: int) -> int:
        toks, name = self.toks, self.toks[i].text
        group, j = read_group(toks, i + 1)
        letter = "".join(t.text for t in group) if group else ""
        if not letter and i + 1 < len(toks) and toks[i + 1].kind == TEXT:
            letter, j = toks[i + 1].text, i + 2
        if not letter:
            return i + 1
        self.parts.append(letter[0] + ACCENT_COMBINING[name] + letter[1:])
        return j


def _clean(s: str) -> str:
    import unicodedata
    s = unicodedata.normalize("NFC", s)
    s = re.sub(r"~{2,}", "|", s).replace("~", " ")
    return re.sub(r"\s+", " ", s).strip()


def _split_names(line: str) -> list[str]:
    names = []
    for piece in re.split(r"\||,|;|\band\b|&", line):
        name = _MARKS.sub("", piece.strip()).strip()
        name = re.sub(r"\s+", " ", name)
        if _looks_like_name(name):
            names.append(name)
    return names


def _looks_like_name(name: str) -> bool:
    if not name or "@" in name or "http" in name or "/" in name:
        return False
    words = _WORDS.findall(name)
    if not words or len(words) > 7:
        return False
    if not any(w[:1].isupper() for w in words):
        return False
    return not INSTITUTION.search(name)


TITLE_SIZES = {"Huge": 5, "huge": 4, "LARGE": 3, "Large": 2}
FRONT_ENDS = frozenset({"section", "chapter", "part", "maketitle"})


def title_from_front(tokens: list[Token], start: int, text: str) -> str | None:
    """A title set by hand (a `center` block, a `titlepage`): the text in the largest font before the
    abstract or the first heading, up to its line break or the end of its group."""
    from .plain import plain_text
    best: tuple[int, int] | None = None
    n = len(tokens)
    for i in range(start, n):
        tok = tokens[i]
        if tok.kind == CS and (tok.text in FRONT_ENDS or (tok.text == "begin" and _env(tokens, i + 1)[0] == "abstract")):
            break
        if tok.kind == CS and tok.text in TITLE_SIZES and (best is None or TITLE_SIZES[tok.text] > best[0]):
            best = (TITLE_SIZES[tok.text], i)
    if best is None:
        return None
    i = best[1] + 1
    depth = 0
    piece: list[Token] = []
    while i < n:
        tok = tokens[i]
        if tok.kind == BGROUP:
            depth += 1
        elif tok.kind == EGROUP:
            depth -= 1
            if depth < 0:
                break
        elif depth == 0 and _ends_title_line(tok) and any(t.kind == TEXT and t.text.strip() for t in piece):
            break
        piece.append(tok)
        i += 1
    title = plain_text(piece, text, keep_math=True)
    return title or None


def _ends_title_line(tok: Token) -> bool:
    return tok.kind == PAR or (tok.kind == CS and (tok.text in LINE_BREAKS or tok.text in TITLE_SIZES
                                                   or tok.text in ("end", "vspace", "vskip")))
