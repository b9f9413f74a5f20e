#!/usr/bin/env python3
"""Equation numbers as pdflatex prints them, read from LaTeXML's XML: an offline oracle.

LaTeXML (Debian package `latexml`, the converter behind arXiv's HTML) is slow (tens of seconds to
minutes per paper) but numbers equations the way LaTeX does: align rows, `\\tag`, `subequations`
(3a, 3b), `\\numberwithin`, appendix letters. This module runs it on a *copy* of a paper directory in a
temporary directory (LaTeXML and the source tree are never written to) and extracts, for every
numbered equation: its printed number, its `\\label`, the TeX of the row (LaTeXML's `tex=` attribute,
user macros expanded) and the printed number of the innermost numbered section holding it.

It is an oracle for benchmarks and for corpus tests that skip when LaTeXML is absent; papermath never
calls it at run time.

    python benchmarks/latexml_oracle.py ../shared/corpus/papers/attention-1706.03762
    python benchmarks/latexml_oracle.py --corpus ../shared/corpus/papers --papers DyT,minp --out /tmp/oracle

Importable: `latexml_equations(paper_dir, main)`, `latexml_time(paper_dir, main)`, `run_latexml(...)`,
`parse_equations(xml_path)`, `find_main(paper_dir)`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

LTX = "{http://dlmf.nist.gov/LaTeXML}"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"

# Sectioning elements of LaTeXML's schema, outermost first.
SECTIONAL_UNITS = ("part", "chapter", "appendix", "section", "subsection", "subsubsection",
                   "paragraph", "subparagraph")
SECTIONAL_TAGS = {LTX + name for name in SECTIONAL_UNITS}

# Minimal stand-ins written after a commented-out \\usepackage, so that a paper using the package's
# commands still converts (the box or the unit formatting is lost; equation numbering is not).
PACKAGE_STUBS = {
    "tcolorbox": r"\providecommand{\tcbset}[1]{}\newenvironment{tcolorbox}[1][]{}{}",
    "siunitx": (r"\providecommand{\sisetup}[1]{}\providecommand{\SI}[3][]{#2\,#3}"
                r"\providecommand{\si}[2][]{#2}\providecommand{\num}[2][]{#2}"),
    "lipsum": r"\providecommand{\lipsum}[1][]{}",
}
EXPL3_PACKAGES = ("tcolorbox", "siunitx", "lipsum")
"""Packages whose LaTeXML 0.8.7 bindings load expl3 (over ten minutes of processing on TeX Live 2022)."""

DEFAULT_TIMEOUT = 900.0
"""Seconds before a LaTeXML run is abandoned (large papers that load expl3 take minutes)."""


class LatexmlMissing(RuntimeError):
    """LaTeXML is not installed (the `latexml` executable is not on PATH)."""


@dataclass(frozen=True)
class LatexmlRun:
    """One LaTeXML conversion of one paper."""

    paper_dir: Path
    """The paper directory that was copied and converted."""
    main: str
    """Main file, relative to the paper directory."""
    seconds: float
    """Wall time of the `latexml` process."""
    returncode: int | None
    """Exit status; None when the run timed out."""
    xml: str | None
    """The XML LaTeXML wrote (None when it wrote nothing)."""
    messages: str = ""
    """Last lines of LaTeXML's stderr (errors, warnings, the final status line)."""
    command: list[str] = field(default_factory=list)
    """The command line that was run (in the temporary copy of the paper directory)."""
    dropped: list[str] = field(default_factory=list)
    """`file:line` of each `\\usepackage` commented out in the copy (empty: the paper as published)."""

    @property
    def ok(self) -> bool:
        """LaTeXML produced a document (it exits non-zero on recoverable errors too)."""
        return self.xml is not None


def latexml_available() -> bool:
    """True when the `latexml` executable is on PATH."""
    return shutil.which("latexml") is not None


def latexml_version() -> str | None:
    """`0.8.7`, or None when LaTeXML is absent."""
    if not latexml_available():
        return None
    out = subprocess.run(["latexml", "--VERSION"], capture_output=True, text=True, timeout=60)
    match = re.search(r"version\s+([\w.\-]+)", out.stdout + out.stderr)
    return match.group(1) if match else (out.stdout + out.stderr).strip() or None


def find_main(paper_dir: Path) -> str | None:
    """The main .tex file of a paper directory: `\\documentclass` and `\\begin{document}`.

    Ties go to the conventional names (main.tex, ms.tex, paper.tex), then to the shortest path.
    """
    candidates = []
    for path in sorted(Path(paper_dir).rglob("*.tex")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        uncommented = re.sub(r"(?<!\\)%.*", "", text)
        if "\\documentclass" in uncommented and "\\begin{document}" in uncommented:
            candidates.append(path.relative_to(paper_dir).as_posix())
    if not candidates:
        return None
    preferred = ("main.tex", "ms.tex", "paper.tex", "paper2code_paper.tex")
    return min(candidates, key=lambda name: (name not in preferred, name.count("/"), len(name), name))


def _copy_paper(paper_dir: Path, into: Path) -> Path:
    """Copy the paper into a writable temporary tree (the corpus is read-only and must stay untouched)."""
    target = into / "src"
    shutil.copytree(paper_dir, target, copy_function=shutil.copyfile)
    for root, dirs, _files in os.walk(target):
        for name in dirs:
            os.chmod(Path(root) / name, 0o755)
    os.chmod(target, 0o755)
    return target


def _drop_packages(work: Path, packages: tuple[str, ...]) -> list[str]:
    """Comment out `\\usepackage{P}` / `\\RequirePackage{P}` in the copy; returns 'file:line' of each edit.

    For packages that are loaded but never used and that LaTeXML interprets very slowly: tcolorbox pulls
    in expl3, whose raw processing takes LaTeXML 0.8.7 over ten minutes on TeX Live 2022. Numbering is
    unaffected as long as the paper uses none of the package's commands.
    """
    edits = []
    if not packages:
        return edits
    names = "|".join(re.escape(p) for p in packages)
    pattern = re.compile(r"^([^%\n]*?)(\\(?:usepackage|RequirePackage)(?:\[[^\]]*\])?\{(" + names + r")\})",
                         re.MULTILINE)
    for path in sorted(work.rglob("*")):
        if path.suffix not in (".tex", ".sty", ".cls") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        new = pattern.sub(lambda m: m.group(1) + "%" + m.group(2) + "\n" + PACKAGE_STUBS.get(m.group(3), ""),
                          text)
        if new != text:
            for match in pattern.finditer(text):
                edits.append(f"{path.relative_to(work)}:{text.count(chr(10), 0, match.start()) + 1}")
            path.write_text(new, encoding="utf-8", errors="surrogateescape")
    return edits


def run_latexml(paper_dir: Path, main: str, *, timeout: float = DEFAULT_TIMEOUT,
                keep_xml: Path | None = None, drop_packages: tuple[str, ...] = ()) -> LatexmlRun:
    """Run `latexml --quiet --dest=OUT main.tex` in a temporary copy of `paper_dir` and time it.

    `keep_xml`, if given, receives a copy of the XML; `drop_packages` are commented out in the copy
    (see `_drop_packages`). Raises LatexmlMissing when LaTeXML is absent.
    """
    if not latexml_available():
        raise LatexmlMissing("latexml is not installed (Debian: apt-get install latexml)")
    paper_dir = Path(paper_dir).resolve()
    with tempfile.TemporaryDirectory(prefix="latexml-oracle-") as tmp:
        work = _copy_paper(paper_dir, Path(tmp))
        dropped = _drop_packages(work, tuple(drop_packages))
        dest = Path(tmp) / "out.xml"
        command = ["latexml", "--quiet", f"--dest={dest}", main]
        start = time.perf_counter()
        try:
            proc = subprocess.run(command, cwd=work, capture_output=True, text=True,
                                  timeout=timeout, errors="replace")
            returncode: int | None = proc.returncode
            stderr = proc.stderr
        except subprocess.TimeoutExpired as exc:
            returncode = None
            stderr = (exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes)
                      else (exc.stderr or "")) + f"\n(timed out after {timeout:.0f} s)"
        seconds = time.perf_counter() - start
        xml = dest.read_text(encoding="utf-8") if dest.exists() and dest.stat().st_size else None
        if xml is not None and keep_xml is not None:
            Path(keep_xml).parent.mkdir(parents=True, exist_ok=True)
            Path(keep_xml).write_text(xml, encoding="utf-8")
    tail = "\n".join(stderr.strip().splitlines()[-8:])
    return LatexmlRun(paper_dir, main, seconds, returncode, xml, tail, command, dropped)


def latexml_time(paper_dir: Path, main: str, *, timeout: float = DEFAULT_TIMEOUT) -> float | None:
    """Wall seconds of one LaTeXML conversion of the paper as published, or None when it failed or timed out."""
    run = run_latexml(paper_dir, main, timeout=timeout)
    return run.seconds if run.ok and run.returncode is not None else None


def _own_tags(element: ET.Element) -> dict[str, str]:
    """role → text of the element's own `<tags>` (not those of nested elements)."""
    tags = element.find(LTX + "tags")
    if tags is None:
        return {}
    found = {}
    for tag in tags.findall(LTX + "tag"):
        found.setdefault(tag.get("role", "display"), "".join(tag.itertext()).strip())
    return found


def _labels(element: ET.Element) -> list[str]:
    return [label.removeprefix("LABEL:") for label in (element.get("labels") or "").split()]


def _clean_tex(tex: str) -> str:
    tex = re.sub(r"(?<!\\)%\n", "", tex)  # LaTeXML breaks long tex= attributes with a TeX comment
    tex = re.sub(r"\\displaystyle\s*", "", tex)
    return re.sub(r"\s+", " ", tex).strip()


def _equation_tex(equation: ET.Element) -> str:
    """TeX of one equation row: the main branch of a MathFork, else its own Math children."""
    parts = []
    for child in equation:
        if child.tag == LTX + "MathFork":
            main = child.find(LTX + "Math")
            if main is not None and main.get("tex"):
                parts.append(main.get("tex"))
        elif child.tag == LTX + "Math" and child.get("tex"):
            parts.append(child.get("tex"))
    return _clean_tex(" ".join(parts))


def parse_equations(xml: str | Path) -> list[dict]:
    """Numbered equations of a LaTeXML document, in document order.

    Each is {number, label, labels, tex, section, section_title, id, group}. A numbered
    `equationgroup` (subequations' parent, or a display numbered as a whole) is listed only when none
    of its rows carries its own number.
    """
    text = Path(xml).read_text(encoding="utf-8") if isinstance(xml, Path) else xml
    root = ET.fromstring(text.encode("utf-8"))
    found: list[dict] = []

    def walk(element: ET.Element, sections: list[ET.Element], group: ET.Element | None) -> None:
        tag = element.tag
        if tag in SECTIONAL_TAGS:
            sections = sections + [element]
        if tag == LTX + "equation" or tag == LTX + "equationgroup":
            record(element, sections, group)
            if tag == LTX + "equationgroup":
                group = element
        for child in element:
            walk(child, sections, group)

    def record(element: ET.Element, sections: list[ET.Element], group: ET.Element | None) -> None:
        number = _own_tags(element).get("refnum")
        if not number:
            # `\tag{\ref{eq:x}}` (an equation repeated under an earlier number): latexml leaves the
            # <ref> unresolved (latexmlpost fills it), so resolve it below from the label map.
            number = _tag_reference(element)
        if not number:
            return
        if element.tag == LTX + "equationgroup":
            rows = list(element.iter(LTX + "equation"))
            if any(_own_tags(row).get("refnum") for row in rows):
                return
            tex = " \\\\ ".join(t for t in (_equation_tex(row) for row in rows) if t)
        else:
            tex = _equation_tex(element)
        labels = _labels(element)
        section, title = None, None
        for unit in reversed(sections):
            refnum = _own_tags(unit).get("refnum")
            if refnum:
                section = refnum
                heading = unit.find(LTX + "title")
                title = " ".join("".join(heading.itertext()).split()) if heading is not None else None
                if title and title.startswith(refnum):
                    title = title[len(refnum):].strip()
                break
        found.append({
            "number": number,
            "label": labels[0] if labels else None,
            "labels": labels,
            "tex": tex,
            "section": section,
            "section_title": title,
            "id": element.get(XML_ID),
            "group": group.get(XML_ID) if group is not None else None,
        })

    walk(root, [], None)
    numbers = {label: eq["number"] for eq in found if not eq["number"].startswith("\0") for label in eq["labels"]}
    for eq in found:
        if eq["number"].startswith("\0"):
            eq["number"] = numbers.get(eq["number"][1:], "?" + eq["number"][1:])
    return found


def _tag_reference(element: ET.Element) -> str | None:
    """'\\0LABEL' when the element's refnum tag is a bare `\\ref{LABEL}`, else None."""
    tags = element.find(LTX + "tags")
    if tags is None:
        return None
    for tag in tags.findall(LTX + "tag"):
        if tag.get("role") == "refnum":
            ref = tag.find(LTX + "ref")
            if ref is not None and ref.get("labelref"):
                return "\0" + ref.get("labelref").removeprefix("LABEL:")
    return None


def latexml_equations(paper_dir: Path, main: str, *, timeout: float = DEFAULT_TIMEOUT,
                      drop_packages: tuple[str, ...] = ()) -> list[dict]:
    """Run LaTeXML on the paper and return its numbered equations (see `parse_equations`).

    Raises LatexmlMissing when LaTeXML is absent, RuntimeError when it produced no document.
    """
    run = run_latexml(paper_dir, main, timeout=timeout, drop_packages=drop_packages)
    if not run.ok:
        raise RuntimeError(f"latexml produced no XML for {paper_dir}/{main}: {run.messages}")
    return parse_equations(run.xml)


def oracle_record(paper_dir: Path, main: str, *, timeout: float = DEFAULT_TIMEOUT,
                  keep_xml: Path | None = None, drop_packages: tuple[str, ...] = ()) -> dict:
    """Everything the benchmark needs about one paper, JSON-ready (timing, status, equations)."""
    run = run_latexml(paper_dir, main, timeout=timeout, keep_xml=keep_xml, drop_packages=drop_packages)
    equations = parse_equations(run.xml) if run.ok else []
    return {
        "paper": Path(paper_dir).name,
        "main": main,
        "latexml_version": latexml_version(),
        "command": " ".join(run.command[:1] + ["--quiet", "--dest=OUT.xml", main]),
        "seconds": round(run.seconds, 3),
        "returncode": run.returncode,
        "ok": run.ok,
        "messages": run.messages,
        "dropped_packages": run.dropped,
        "equations": equations,
    }


def _paper_dirs(args: argparse.Namespace) -> list[Path]:
    dirs = [Path(p) for p in args.paper_dirs]
    if args.corpus:
        corpus = Path(args.corpus)
        if not corpus.is_dir():
            sys.exit(f"latexml_oracle: corpus directory {corpus} does not exist")
        wanted = set(args.papers.split(",")) if args.papers else None
        dirs += [d for d in sorted(corpus.iterdir()) if d.is_dir() and (wanted is None or d.name in wanted)]
        if wanted:
            missing = wanted - {d.name for d in dirs}
            if missing:
                sys.exit(f"latexml_oracle: not in {corpus}: {', '.join(sorted(missing))}")
    return dirs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Extract the equation numbers pdflatex would print, via LaTeXML (an offline oracle).")
    parser.add_argument("paper_dirs", nargs="*", help="paper directories")
    parser.add_argument("--corpus", help="a directory of paper directories (with --papers to pick some)")
    parser.add_argument("--papers", help="comma-separated paper directory names inside --corpus")
    parser.add_argument("--main", help="main .tex file (default: found by \\documentclass + \\begin{document})")
    parser.add_argument("--out", help="write <out>/<paper>.json per paper (keep it outside the repository)")
    parser.add_argument("--keep-xml", action="store_true", help="also write <out>/<paper>.xml")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per paper")
    parser.add_argument("--quiet", action="store_true", help="print only the per-paper summary line")
    parser.add_argument("--drop-package", action="append", default=[], metavar="NAME",
                        help="comment out \\usepackage{NAME} in the temporary copy (a package loaded but never "
                             "used that LaTeXML processes very slowly, e.g. tcolorbox → expl3); repeatable")
    parser.add_argument("--drop-expl3", action="store_true",
                        help="--drop-package for each of " + ", ".join(EXPL3_PACKAGES) + " (stubs keep their "
                             "commands and environments parseable)")
    args = parser.parse_args(argv)

    if not latexml_available():
        print("latexml_oracle: LaTeXML is not installed (Debian package `latexml`); nothing to do.")
        return 0
    dirs = _paper_dirs(args)
    drop = tuple(args.drop_package) + (EXPL3_PACKAGES if args.drop_expl3 else ())
    if not dirs:
        parser.error("give paper directories or --corpus")
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    print(f"LaTeXML {latexml_version()}")
    for paper_dir in dirs:
        main_file = args.main or find_main(paper_dir)
        if main_file is None:
            print(f"{paper_dir.name}: no LaTeX main file (\\documentclass + \\begin{{document}}); skipped")
            continue
        keep = out / f"{paper_dir.name}.xml" if out and args.keep_xml else None
        record = oracle_record(paper_dir, main_file, timeout=args.timeout, keep_xml=keep,
                               drop_packages=drop)
        status = "ok" if record["ok"] else "FAILED"
        if record["returncode"] is None:
            status = "TIMEOUT"
        print(f"{paper_dir.name}: {main_file}  {record['seconds']:.1f} s  latexml exit "
              f"{record['returncode']}  {status}  {len(record['equations'])} numbered equations")
        if record["dropped_packages"]:
            print(f"    (packages commented out in the copy at {', '.join(record['dropped_packages'])})")
        if not record["ok"]:
            print("    " + record["messages"].replace("\n", "\n    "))
        if not args.quiet:
            for eq in record["equations"]:
                label = f"  [{eq['label']}]" if eq["label"] else ""
                print(f"    ({eq['number']})  §{eq['section'] or '-'}{label}  {eq['tex'][:70]}")
        if out:
            (out / f"{paper_dir.name}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                                                        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
