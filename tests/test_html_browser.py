"""The HTML reader in a real browser: headless Chromium (Debian's /usr/bin/chromium) driven by Playwright.

Never downloads a browser. Skips with a clear reason when Chromium or Playwright is missing, except in CI
(CI=true), where `.ci/run` installs both and a missing one is a failure.
"""
from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from conftest import corpus_paper
from papermath.cli import main

CHROMIUM = os.environ.get("PAPERMATH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _missing(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run the browser test: .ci/run installs chromium and playwright)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory):
    """A fresh headless Chromium profile; yields a Playwright BrowserContext."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install 'papermath[browser-test]')")
    if not Path(CHROMIUM).is_file():
        _missing(f"Chromium not found at {CHROMIUM} (apt-get install chromium chromium-driver)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900})
        try:
            yield context
        finally:
            context.close()


class Watch:
    """What a page did that it must not: dialogs, script errors, CSP violations, non-file requests."""

    def __init__(self, page) -> None:
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        page.on("request", lambda request: self.requests.append(request.url))

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def assert_clean(self) -> None:
        assert self.dialogs == []
        assert self.errors == []
        outside = [url for url in self.requests if not url.startswith("file://")]
        assert outside == []


def _build(source: Path, out: Path) -> Path:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["html", str(source), "-o", str(out)]) == 0
    return out / "index.html"


def _open(context, index: Path, fragment: str = ""):
    page = context.new_page()
    watch = Watch(page)
    page.goto(index.as_uri() + fragment)
    page.wait_for_selector("body.pm-ready", timeout=30_000)
    return page, watch


def _symbol_index(page, symbol_id: str) -> int:
    index = page.evaluate("""id => JSON.parse(document.getElementById('pm-data').textContent)
                                  .symbols.findIndex(s => s.id === id)""", symbol_id)
    assert index >= 0, f"{symbol_id} not on the page"
    return index


def test_deepseek_v3_hover_shows_the_quoted_definition(browser_context, tmp_path):
    try:
        import papermath.analysis.read  # noqa: F401
    except ImportError as error:
        pytest.skip(f"papermath.analysis.read is not available yet ({error}): no hover definitions to test")
    paper = corpus_paper("deepseek-v3-2412.19437")
    index = _build(paper, tmp_path / "site")
    page, watch = _open(browser_context, index, "#eq:15")
    try:
        # The text is rendered first; panels when opened, the glossary in batches. Force the rest, then count.
        first = int(page.locator("body").get_attribute("data-rendered"))
        counts = page.evaluate("papermath.renderAll()")
        assert 100 < first < counts["rendered"], (first, counts)
        assert counts["rendered"] > 1000 and counts["failures"] == 0 and counts["tagFallbacks"] == 0, counts
        equation = page.locator('[id="eq:15"]')
        assert equation.locator(".pm-eqnum").inner_text() == "(15)"
        assert equation.locator(".pm-display-math .katex").count() == 1

        target = equation.locator(f'.pm-display-math [data-pm="{_symbol_index(page, "eq:15/sym:s_{i,t}")}"]')
        assert target.count() == 1
        assert "pm-sym" in target.get_attribute("class")
        target.hover()
        tooltip = page.locator("#pm-tooltip")
        tooltip.wait_for(state="visible", timeout=5_000)
        text = tooltip.inner_text()
        assert "is the token-to-expert affinity" in text
        assert "defined here" in text
        assert "main.tex:" in text
        link = tooltip.locator("a.pm-tt-link")
        assert link.get_attribute("href") == "#p:33"

        shots = Path(tempfile.mkdtemp(prefix="papermath-reader-"))
        shot = shots / "deepseek-v3-eq15-hover.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        assert shot.stat().st_size > 20_000

        # Prose symbols are hoverable too: $s_{i,t}$ in the "where" paragraph after (15).
        prose = page.locator('[id="p:33"] .pm-sym').first
        prose.hover()
        page.wait_for_function("!document.getElementById('pm-tooltip').hidden")
        assert page.locator("#pm-tooltip").inner_text().strip()

        # Symbols the reading lists as undefined are visibly marked (red dashed underline) and say so.
        undefined = page.locator(".pm-display-math .pm-sym.pm-undefined")
        assert undefined.count() > 0
        assert page.evaluate("""() => getComputedStyle(document.querySelector('.pm-sym.pm-undefined'))
                                       .borderBottomStyle""") == "dashed"
        undefined.first.hover()
        page.wait_for_function("document.getElementById('pm-tooltip').innerText"
                               ".includes('Not defined in the paper \u2014 do not guess.')")

        # The panel under (15) is open (its anchor was the target) and lists the symbol table.
        panel = equation.locator("details.pm-panel")
        assert panel.get_attribute("open") is not None
        assert "token-to-expert affinity" in panel.inner_text()

        # Clicking a symbol pins its tooltip; its link opens the closed panel of (16) at the symbol's row.
        sixteen = page.locator('[id="eq:16"]')
        assert sixteen.locator("details.pm-panel").get_attribute("open") is None
        sixteen.locator(".pm-display-math .pm-sym").first.click()
        tooltip.locator("a.pm-tt-eq").click()
        page.wait_for_function("document.querySelector('[id=\"eq:16\"] details.pm-panel').open")
        row_id = page.evaluate("decodeURIComponent(location.hash.slice(1))")
        assert row_id.startswith("eq:16/sym:")
        assert page.evaluate("id => document.getElementById(id).matches(':target')", row_id)
        assert sixteen.locator("details.pm-panel .katex").count() > 5

        # The index bound under the sum in (17) is hoverable (not covered by KaTeX's limit boxes).
        page.locator('[id="eq:17"] .pm-display-math .pm-bound').first.hover(timeout=5_000)
        page.wait_for_function("document.getElementById('pm-tooltip').innerText.includes('Bound variable of')")

        # Keyboard: Escape closes the tooltip; j moves to the next equation and updates the anchor.
        page.keyboard.press("Escape")
        assert tooltip.is_hidden()
        page.locator("h1").click()
        page.evaluate("location.hash = '#eq:15'")
        page.keyboard.press("j")
        assert page.evaluate("location.hash") == "#eq:16"
        page.keyboard.press("k")
        assert page.evaluate("location.hash") == "#eq:15"

        # Search: "/" focuses the box; results list equations and paragraphs; glossary rows filter.
        page.keyboard.press("/")
        page.keyboard.type("affinity")
        results = page.locator("#pm-results")
        results.wait_for(state="visible")
        assert page.locator("#pm-results .pm-result").count() >= 3
        visible_rows = page.evaluate("""() => [...document.querySelectorAll('.pm-glossary tbody tr')]
                                              .filter(r => !r.hidden).length""")
        all_rows = page.locator(".pm-glossary tbody tr").count()
        assert 0 < visible_rows < all_rows
        watch.assert_clean()
    finally:
        page.close()


XSS_PAPER = r"""\documentclass{article}
\title{Title <script>alert(1)</script> here}
\begin{document}
\maketitle
\section{Method}
Let $x$ denote the input <img src=x onerror=alert(2)>.
\begin{equation}
y = x + \text{<script>alert(1)</script>}
\end{equation}
where $y$ is the output.
\end{document}
"""


def test_script_in_title_and_text_renders_as_text(browser_context, tmp_path):
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(XSS_PAPER)
    index = _build(paper, tmp_path / "site")
    html = index.read_text()
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html
    page, watch = _open(browser_context, index)
    try:
        assert page.locator("h1").inner_text() == "Title <script>alert(1)</script> here"
        assert page.title().startswith("Title <script>alert(1)</script> here")
        equation = page.locator('[id="eq:1"] .pm-display-math')
        assert equation.locator(".katex").count() == 1
        assert "<script>alert(1)</script>" in equation.locator(".katex-html").inner_text().replace("\n", "")
        prose = page.locator(".pm-p", has_text="denote the input")
        assert "<img src=x onerror=alert(2)>" in prose.inner_text()
        # The definition quoted in a tooltip is text too.
        equation.locator(f'[data-pm="{_symbol_index(page, "eq:1/sym:x")}"]').hover()
        tooltip = page.locator("#pm-tooltip")
        tooltip.wait_for(state="visible", timeout=5_000)
        assert "denote the input <img src=x onerror=alert(2)>" in tooltip.inner_text()
        assert page.locator("script").count() == 3
        assert page.locator("img").count() == 0
        page.wait_for_timeout(300)
        watch.assert_clean()
    finally:
        page.close()


def test_served_page_copies_generated_code(browser_context, tmp_path):
    """Over `papermath serve`'s server (CSP also sent as a header): the Copy button puts the code on the
    clipboard, exactly as shown."""
    import threading
    from conftest import EXAMPLE
    from papermath.commands.serve import make_server
    _build(EXAMPLE, tmp_path / "site")
    server = make_server(str(tmp_path / "site"), 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    page = browser_context.new_page()
    watch = Watch(page)
    try:
        browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
        page.goto(f"{origin}/index.html#eq:1")
        page.wait_for_selector("body.pm-ready", timeout=30_000)
        code = page.locator('[id="eq:1"] .pm-code').first
        assert code.locator(".pm-code-head span").inner_text() == "NumPy"
        shown = code.locator("code").inner_text()
        assert "def " in shown and "import numpy as np" in shown
        code.locator("button.pm-copy").click()
        page.wait_for_function("document.querySelector('[id=\"eq:1\"] .pm-copy').textContent === 'Copied'")
        assert page.evaluate("navigator.clipboard.readText()") == shown
        assert all(url.startswith(origin) for url in watch.requests), watch.requests
        assert watch.dialogs == [] and watch.errors == []
    finally:
        page.close()
        server.shutdown()
        server.server_close()
