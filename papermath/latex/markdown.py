"""Papers that arrive as Markdown with LaTeX math (OCR'd PDFs): headings, paragraphs, `$$` displays."""
from __future__ import annotations

import re

from ..errors import Diagnostic
from ..spans import SourceMap
from .document import Document, Equation, InlineMath, PaperInfo, Paragraph, Section, Sentence
from .plain import collapse
from .sentences import split_sentences

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_NUMBERED = re.compile(r"^((?:[A-Z]|\d+)(?:\.\d+)*)\.?\s+(.*)$")
_INLINE = re.compile(r"(?<!\$)\$(?!\$)((?:\\.|[^$\\])+)\$")
_TAG = re.compile(r"\\tag\*?\{([^}]*)\}")


def build_markdown_document(smap: SourceMap, paper: PaperInfo, diagnostics: list[Diagnostic]) -> Document:
    text = smap.text
    sections: list[Section] = []
    paragraphs: list[Paragraph] = []
    equations: list[Equation] = []
    inline: list[InlineMath] = []
    title = None
    current_id = None
    current_number = None
    pending_after: list[int] = []
    unnumbered = 0
    block: list[tuple[int, str]] = []

    def flush():
        nonlocal block, pending_after
        if not block:
            return
        start = block[0][0]
        body = collapse(" ".join(line for _, line in block))
        block = []
        if not body:
            return
        pid = f"p:{len(paragraphs)}"
        sentences = tuple(Sentence(collapse(body[a:b]), smap.span(start, start + 1)) for a, b in split_sentences(body))
        paragraphs.append(Paragraph(pid, current_id, body, sentences, smap.span(start, start + 1)))
        for m in _INLINE.finditer(body):
            inline.append(InlineMath(m.group(1).strip(), pid, smap.span(start, start + 1)))
        for k in pending_after:
            from dataclasses import replace
            equations[k] = replace(equations[k], paragraph_after=pid)
        pending_after = []

    lines = text.split("\n")
    offsets = []
    pos = 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    i = 0
    while i < len(lines):
        line = lines[i]
        start = offsets[i]
        stripped = line.strip()
        m = _HEADING.match(line)
        if m:
            flush()
            heading = m.group(2).strip()
            level = len(m.group(1))
            if title is None and level == 1 and not sections:
                title = heading
                i += 1
                continue
            num = _NUMBERED.match(heading)
            number = num.group(1) if num else None
            name = num.group(2) if num else heading
            depth = number.count(".") + 1 if number else level
            sid = f"sec:{number}" if number else f"sec:u{len(sections)}"
            if any(s.id == sid for s in sections):
                sid = f"sec:u{len(sections)}"
            sections.append(Section(sid, depth, number, name, smap.span(start, start + 1)))
            current_id = sid
            current_number = number
            i += 1
            continue
        if stripped.startswith("$$"):
            flush()
            body_lines = [stripped[2:]]
            j = i
            if stripped.endswith("$$") and len(stripped) > 4:
                body_lines = [stripped[2:-2]]
            else:
                j = i + 1
                while j < len(lines) and "$$" not in lines[j]:
                    body_lines.append(lines[j])
                    j += 1
                if j < len(lines):
                    body_lines.append(lines[j].split("$$")[0])
                else:
                    diagnostics.append(Diagnostic("error", "$$ without a closing $$", smap.locate(start)))
            latex = collapse(" ".join(body_lines))
            tag = _TAG.search(latex)
            number = tag.group(1) if tag else None
            latex = _TAG.sub("", latex).strip()
            if number:
                eid = f"eq:{number}"
            else:
                unnumbered += 1
                eid = f"eq:u{unnumbered}"
            before = f"p:{len(paragraphs) - 1}" if paragraphs else None
            equations.append(Equation(eid, number, latex, "$$", current_number, current_id, None,
                                      smap.span(offsets[min(i + 1, len(lines) - 1)], offsets[min(i + 1, len(lines) - 1)] + 1),
                                      paragraph_before=before, group=len(equations)))
            pending_after.append(len(equations) - 1)
            i = j + 1
            continue
        if not stripped:
            flush()
        else:
            block.append((start, line))
        i += 1
    flush()
    abstract = None
    for k, sec in enumerate(sections):
        if sec.title.lower().strip() == "abstract":
            body = [p.text for p in paragraphs if p.section == sec.id]
            abstract = " ".join(body) or None
            break
    info = PaperInfo(title, paper.source, paper.arxiv_id, paper.version, paper.main_file, paper.format)
    authors = _authors(paragraphs, sections)
    from .build import clean_link
    links = tuple(dict.fromkeys(clean_link(x) for x in re.findall(r"https?://(?:www\.)?github\.com/[^\s)\]]+", text)))
    return Document(info, authors, abstract, tuple(sections), tuple(paragraphs), tuple(equations), tuple(inline),
                    (), (), (), {}, (), {}, (), links, tuple(diagnostics))


def _authors(paragraphs: list[Paragraph], sections: list[Section]) -> tuple[str, ...]:
    """The byline: the first paragraph between the title and the first heading, when it reads as a list of
    people (OCR keeps their affiliation marks as math: `Ziming Zhang ${ }^{1}$, …`)."""
    from .frontmatter import _split_names
    first = paragraphs[0] if paragraphs else None
    if first is None or first.section is not None or (sections and sections[0].span.start < first.span.start):
        return ()
    line = re.split(r"<br\s*/?>", _INLINE.sub(" ", first.text))[0]  # the names' line; affiliations follow
    if "@" in line or "http" in line:
        return ()
    return tuple(dict.fromkeys(_split_names(line)))
