"""The real TeX engine as an oracle for the numbers a paper's PDF prints.

A paper is compiled with pdflatex in a scratch copy, with `pmoracle.sty` (papermath's data folder) loaded
before `\\documentclass`. The package writes one line per display and one per number typeset (amsmath's
`\\maketag@@@`, LaTeX's `\\@eqnnum`, or a display that stepped the equation counter by hand), fully expanded,
with references replaced by their numbers from the previous run. `compare_numbers` sets those printed numbers
beside a `Document`'s.

Compiling is tolerant: a class, package or input file missing from the source (conference styles that are
not in TeX Live, figures) becomes an empty stub and the run is repeated; images are drawn as placeholders;
nonstop mode with a timeout. Results are cached by the hash of the source files, the package and the engine
version, under the per-user cache directory (`PAPERMATH_CACHE` overrides), so a second run costs nothing.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ORACLE_PACKAGE = Path(__file__).resolve().parents[1] / "data" / "pmoracle.sty"
ENGINE = "pdflatex"
RUNS = 2
"""Compilations per paper: the second one sees the labels of the first (\\tag{\\ref{…}}, restated theorems)."""
MAX_STUBS = 40
"""Missing files replaced by empty stubs before giving up."""
CACHE_FORMAT = 2

_MISSING = re.compile(r"! LaTeX Error: File `([^']+)' not found\.|! I can't find file `([^']+)'\.")
_DOCUMENTCLASS = re.compile(r"^[^%\n]*\\documentclass", re.MULTILINE)
# A stub stands in for a style file the source does not ship (a conference template). Such templates load
# packages the document then relies on; the stub loads a package when the document uses its commands and
# never loads it itself (with the right package, a missing template does not derail the run into math-mode
# errors that drop whole displays).
STUB_PACKAGES = (
    ("natbib", re.compile(r"\\cite[tp]\b|\\citeauthor\b|\\citealp\b")),
    ("amsmath", re.compile(r"\\(?:text|eqref|tag|DeclareMathOperator|operatorname|dfrac|tfrac|boldsymbol|"
                           r"numberwithin|intertext|substack|iint)\b|\\begin\{(?:align|gather|multline|split|cases)")),
    ("amssymb", re.compile(r"\\(?:mathbb|mathfrak|varepsilon|leqslant|geqslant|lesssim|gtrsim)\b")),
    ("xcolor", re.compile(r"\\(?:definecolor|textcolor|colorbox|color)\b")),
    ("graphicx", re.compile(r"\\includegraphics\b")),
    ("subcaption", re.compile(r"\\begin\{sub(?:figure|table)\}|\\subcaption\b")),
    ("url", re.compile(r"\\url\b")),
    ("hyperref", re.compile(r"\\(?:href|hypersetup|autoref)\b")),
)
_EMERGENCY = re.compile(r"^! (?:Emergency stop|TeX capacity exceeded|==> Fatal error)", re.MULTILINE)


@dataclass(frozen=True)
class TexNumber:
    """One number the PDF prints for a display."""

    line: int
    """TeX's input line when it was typeset (the display's last line for environments read whole)."""
    text: str
    """The number as printed, normalised: `3`, `E.2.2`, `3.4 revisited`, `A.1` (parentheses removed)."""
    kind: str
    """`tag` (typeset by the engine's number or `\\tag` machinery) or `stepped` (a hand-numbered display)."""


@dataclass(frozen=True)
class TexResult:
    """What one compilation of a paper printed."""

    ok: bool
    """True when pdflatex got to the end of the document (errors it recovered from are allowed)."""
    numbers: tuple[TexNumber, ...]
    """Every display number printed, in the order the engine typeset them."""
    displays: int
    """Display math lists the engine built (numbered or not)."""
    seconds: float
    """Wall time of the compilations (0 when read from the cache)."""
    stubs: tuple[str, ...] = ()
    """Files that were missing and replaced by empty stubs."""
    message: str = ""
    """Why the run failed, or the first error the engine recovered from."""
    labels: dict[str, str] = field(default_factory=dict)
    """Every `\\label` TeX defined (from the `.aux` files) → the number a `\\ref` to it prints."""
    cached: bool = field(default=False, compare=False)


def engine_available() -> bool:
    return shutil.which(ENGINE) is not None


def engine_version() -> str | None:
    if not engine_available():
        return None
    out = subprocess.run([ENGINE, "--version"], capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    return out.stdout.splitlines()[0].strip() if out.stdout else None


def _any_installed(names: tuple[str, ...]) -> bool:
    """Whether TeX Live now finds one of the files a cached run had to stub (a publisher's class installed
    since): that run's numbers are the stub's, not the class's, and the paper is compiled again."""
    kpsewhich = shutil.which("kpsewhich")
    if not names or kpsewhich is None:
        return False
    found = subprocess.run([kpsewhich, *names], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           check=False, timeout=60)
    return bool(found.stdout.strip())


def normalise_number(text: str) -> str:
    """A printed number without its parentheses, math shifts, braces, font commands and extra spaces."""
    s = re.sub(r"\\(?:text(?:bf|it|rm|sf|tt|normal|up)|math(?:rm|bf|it)|rm|bf|it|relax|hbox|mbox|unskip)(?![A-Za-z@])",
               "", text)
    s = re.sub(r"\\protect(?![A-Za-z@])", "", s)
    s = s.replace("$", "").replace("{", "").replace("}", "")
    s = re.sub(r"\s+", " ", s).strip()
    if s.startswith("(") and s.endswith(")") and _balanced(s[1:-1]):
        s = s[1:-1].strip()
    return s


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def parse_record(text: str) -> tuple[list[TexNumber], int]:
    """Numbers and display count from a `.pmo` file."""
    numbers: list[TexNumber] = []
    displays = 0
    for line in text.splitlines():
        kind, _, rest = line.partition(" ")
        lineno, _, value = rest.partition(" ")
        if kind == "D":
            displays += 1
        elif kind in ("T", "S") and lineno.isdigit():
            numbers.append(TexNumber(int(lineno), normalise_number(value), "tag" if kind == "T" else "stepped"))
    return numbers, displays


# memoir writes the number as \M@TitleReference {2.1}{Heading title}: the \ref prints the first argument.
_TITLE_REFERENCE = re.compile(r"\\M@TitleReference\s*\{([^{}]*)\}\{(?:[^{}]|\{[^{}]*\})*\}")
_NEWLABEL = re.compile(r"^\\newlabel\{([^{}]*)\}\{\{", re.MULTILINE)


def parse_aux_labels(aux: str) -> dict[str, str]:
    """`\\newlabel{x}{{3.1}{4}…}` lines → {x: "3.1"} (cleveref's `x@cref` twins left out)."""
    labels = {}
    for m in _NEWLABEL.finditer(aux):
        name = m.group(1)
        if name.endswith("@cref") or name.startswith("tocindent"):
            continue
        depth, k = 1, m.end()
        while k < len(aux) and depth:
            depth += {"{": 1, "}": -1}.get(aux[k], 0)
            k += 1
        labels[name] = normalise_number(_TITLE_REFERENCE.sub(r"\1", re.sub(r"\\relax\s*", "", aux[m.end():k - 1])))
    return labels


def source_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(ORACLE_PACKAGE.read_bytes())
    digest.update(Path(__file__).read_bytes())  # the stubs and the way numbers are read are part of the result
    digest.update(f"{engine_version()}|{RUNS}|{CACHE_FORMAT}".encode())
    return digest.hexdigest()[:32]


def _cache_dir() -> Path:
    from ..source.arxiv import default_cache_dir
    return default_cache_dir() / "texoracle"


def compile_numbers(root: Path, main_file: str, *, timeout: float = 180.0, use_cache: bool = True,
                    cache_dir: Path | None = None, keep_dir: Path | None = None) -> TexResult:
    """Compile the paper in `root` (main file relative to it) and return every display number it prints.

    `keep_dir`: compile there (a fresh copy, left in place for inspection) instead of a temporary directory."""
    root = Path(root)
    key = source_hash(root) + "-" + re.sub(r"[^\w.-]", "_", main_file)
    cache = (cache_dir or _cache_dir()) / f"{key}.json"
    if use_cache and cache.is_file():
        try:
            data = json.loads(cache.read_text(encoding="utf-8"))
            data["numbers"] = tuple(TexNumber(**n) for n in data["numbers"])
            data["stubs"] = tuple(data["stubs"])
            if not _any_installed(data["stubs"]):
                return TexResult(**data, cached=True)
        except (ValueError, TypeError, KeyError):
            pass
    if keep_dir is not None:
        shutil.rmtree(keep_dir, ignore_errors=True)
        keep_dir.parent.mkdir(parents=True, exist_ok=True)
        result = _compile_in(root, main_file, timeout, Path(keep_dir))
    else:
        with tempfile.TemporaryDirectory(prefix="papermath-tex-") as scratch:
            result = _compile_in(root, main_file, timeout, Path(scratch) / "paper")
    if use_cache and result.ok:
        cache.parent.mkdir(parents=True, exist_ok=True)
        record = asdict(result)
        record.pop("cached")
        cache.write_text(json.dumps(record), encoding="utf-8")
    return result


def _compile_in(root: Path, main_file: str, timeout: float, work: Path) -> TexResult:
    if not engine_available():
        return TexResult(False, (), 0, 0.0, message=f"{ENGINE} is not installed")
    started = time.perf_counter()
    shutil.copytree(root, work, symlinks=False)
    main = work / main_file
    cwd = main.parent
    shutil.copy(ORACLE_PACKAGE, cwd / ORACLE_PACKAGE.name)
    job = main.stem
    # A flattened source may have lost its \\documentclass: LaTeX's default class stands in, as papermath's does.
    text = main.read_text(encoding="utf-8", errors="replace")
    documentclass = "" if _DOCUMENTCLASS.search(text) else "\\documentclass{article}"
    all_text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(work.rglob("*.tex")))
    # -draftmode: no PDF is written and no image is read; \immediate\write still records every number.
    command = [ENGINE, "-draftmode", "-interaction=nonstopmode", f"-jobname={job}",
               "\\RequirePackage{pmoracle}" + documentclass + "\\input{" + main.name + "}"]
    stubs: list[str] = []
    runs_done = 0
    log = ""
    while runs_done < RUNS:
        remaining = timeout - (time.perf_counter() - started)
        if remaining <= 0:
            return TexResult(False, (), 0, time.perf_counter() - started, tuple(stubs),
                             f"timed out after {timeout:.0f} s")
        try:
            subprocess.run(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=remaining, check=False)
        except subprocess.TimeoutExpired:
            return TexResult(False, (), 0, time.perf_counter() - started, tuple(stubs),
                             f"timed out after {timeout:.0f} s")
        log_path = cwd / f"{job}.log"
        log = log_path.read_text(encoding="latin-1") if log_path.is_file() else ""
        missing = _missing_file(log)
        if missing is not None and len(stubs) < MAX_STUBS and missing not in stubs:
            _write_stub(cwd, missing, _stub_packages(all_text))
            stubs.append(missing)
            runs_done = 0  # the stub changes what every later run sees
            continue
        runs_done += 1
    record_path = cwd / f"{job}.pmo"
    record = record_path.read_text(encoding="latin-1") if record_path.is_file() else ""
    numbers, displays = parse_record(record)
    seconds = time.perf_counter() - started
    first_error = re.search(r"^! .*$", log, re.MULTILINE)
    message = first_error.group() if first_error else ""
    finished = "\nEND" in "\n" + record
    if not finished:
        fatal = _EMERGENCY.search(log)
        message = (log[fatal.start():fatal.start() + 200].strip() if fatal else message) or \
            "the run did not reach \\end{document}"
    labels = {}
    for aux in sorted(work.rglob("*.aux")):
        labels.update(parse_aux_labels(aux.read_text(encoding="latin-1")))
    return TexResult(finished, tuple(numbers), displays, seconds, tuple(stubs), message, labels)


def _missing_file(log: str) -> str | None:
    m = _MISSING.search(log)
    if m is None:
        return None
    return m.group(1) or m.group(2)


def _stub_packages(text: str) -> tuple[str, ...]:
    loaded = set()
    for m in re.finditer(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}", text):
        loaded.update(name.strip() for name in m.group(1).split(","))
    return tuple(name for name, uses in STUB_PACKAGES if name not in loaded and uses.search(text))


def _write_stub(cwd: Path, name: str, packages: tuple[str, ...] = ()) -> None:
    """An empty file where the source expects one. A class stub loads `article`; a class or package stub loads
    `packages` (what the document uses and never loads, which the missing template did)."""
    name = name.strip()
    if not Path(name).suffix:
        name += ".tex"
    target = (cwd / name).resolve()
    if cwd.resolve() not in target.parents:
        target = cwd / Path(name).name
    target.parent.mkdir(parents=True, exist_ok=True)
    body = ""
    if target.suffix in (".sty", ".cls"):
        body = "\\DeclareOption*{}\\ProcessOptions\\relax\n"  # a stub accepts any option the paper passes
        if target.suffix == ".cls":
            body += "\\LoadClass{article}\n"
        body += "".join(f"\\RequirePackage{{{name}}}\n" for name in packages)
    target.write_text(body, encoding="utf-8")


# -- comparison ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NumberComparison:
    """papermath's printed numbers beside the engine's, in document order."""

    tex: tuple[str, ...]
    ours: tuple[str, ...]
    matched: int
    """Numbers in the longest common in-order alignment of the two lists."""
    mismatches: tuple[str, ...]
    """Human-readable differences (`TeX 3 at line 120 / papermath 2`)."""

    @property
    def total(self) -> int:
        return len(self.tex)

    @property
    def equal(self) -> bool:
        return self.tex == self.ours


def compare_numbers(doc, tex: TexResult, limit: int = 20) -> NumberComparison:
    """Every number the engine printed against papermath's numbered displays, in order."""
    theirs = tuple(n.text for n in tex.numbers)
    numbered = [eq for eq in doc.equations if eq.number]
    ours = tuple(normalise_number(eq.number) for eq in numbered)
    matcher = difflib.SequenceMatcher(None, theirs, ours, autojunk=False)
    matched = sum(block.size for block in matcher.get_matching_blocks())
    diffs: list[str] = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        where = f" (TeX line {tex.numbers[a1].line})" if a2 > a1 else ""
        if b2 > b1:
            where += f" (papermath {numbered[b1].span.file}:{numbered[b1].span.line})"
        diffs.append(f"TeX {list(theirs[a1:a2])} / papermath {list(ours[b1:b2])}{where}")
        if len(diffs) >= limit:
            break
    return NumberComparison(theirs, ours, matched, tuple(diffs))


@dataclass(frozen=True)
class LabelComparison:
    """The number each label TeX defined prints, beside papermath's."""

    total: int
    matched: int
    unresolved: tuple[str, ...]
    """Labels TeX resolves that papermath does not know."""
    wrong: tuple[str, ...]
    """`label: TeX 3.1 / papermath 3`."""


PACKAGE_LABELS = frozenset({"LastPage", "TotPages", "FirstPage", "jmlrstart", "jmlrend"})
"""Labels a package or class writes itself (lastpage; acmart's TotPages, revtex's FirstPage/LastPage, jmlr's
jmlrstart/jmlrend)."""


def compare_labels(doc, tex: TexResult) -> LabelComparison:
    unresolved, wrong = [], []
    matched = total = 0
    for label, number in sorted(tex.labels.items()):
        if "@" in label or label in PACKAGE_LABELS or "caption@xref" in number:
            continue  # a package's own bookkeeping (subcaption's sub@x, thm-restate's thmt@@x, lastpage), or a
            # label TeX could not resolve either (caption's \caption@xref)
        total += 1
        if label not in doc.labels:
            unresolved.append(label)
            continue
        ours = normalise_number(doc.label_numbers.get(label) or "")
        if ours == number:
            matched += 1
        else:
            wrong.append(f"{label}: TeX {number!r} / papermath {ours!r}")
    return LabelComparison(total, matched, tuple(unresolved), tuple(wrong))
