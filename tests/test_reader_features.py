"""The reader's features in headless Chromium (as tests/test_html_browser.py drives it): copy an equation's
LaTeX, preview a reference's target on hover, dark mode with readable maths, MathML for screen readers, find a
symbol's uses, maths rendered in the contents, reductions and search results, no command-line wording, no
sideways scrolling at 420 px; never a console error or a network request."""
from __future__ import annotations

import re
import threading

import pytest

playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install "
                                                              "'papermath[browser-test]')")
expect = playwright.expect

from test_html_browser import Watch, _build, _open, browser_context  # noqa: F401 - the fixture is used

PAPER = r"""\documentclass{article}
\newcommand{\vx}{\mathbf{x}}
\title{A reader test paper}
\begin{document}
\maketitle
\section{Setup with $\beta$ weights}\label{sec:setup}
Let $\vx_i \in \mathbb{R}^d$ denote the $i$-th input and $\beta$ the temperature. Figure~\ref{fig:one} shows
the inputs.
\begin{figure}
\caption{The inputs $\vx_i$ over time.}\label{fig:one}
\end{figure}
\begin{equation}\label{eq:score}
s = \sum_{i=1}^{n} \beta \vx_i
\end{equation}
where $s$ is the score. As \eqref{eq:score} shows, and Section~\ref{sec:setup} says, the score grows with
$\beta$.
\section{Loss}
\begin{equation}
L = -\log s + \beta \, \mathrm{averyveryverylongoperatorname}(\vx_1, \vx_2, \vx_3, \vx_4, \vx_5, \vx_6, \vx_7,
\vx_8, \vx_9, \vx_{10}, \vx_{11}, \vx_{12}, \vx_{13}, \vx_{14}, \vx_{15})
\end{equation}
where $L$ is the loss.
\end{document}
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    paper = tmp_path_factory.mktemp("paper")
    (paper / "main.tex").write_text(PAPER)
    return _build(paper, tmp_path_factory.mktemp("site") / "site")


def _luminance(rgb: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _colours(page) -> tuple[str, str]:
    return page.evaluate("""() => [getComputedStyle(document.body).backgroundColor,
        getComputedStyle(document.querySelector('[id="eq:1"] .katex')).color]""")


def test_copy_latex_puts_the_papers_latex_with_macros_expanded_on_the_clipboard(browser_context, site):
    from papermath.commands.serve import make_server
    server = make_server(str(site.parent), 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    page = browser_context.new_page()
    watch = Watch(page)
    try:
        browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
        page.goto(f"{origin}/index.html")
        page.wait_for_selector("body.pm-ready", timeout=30_000)
        buttons = page.locator(".pm-equation .pm-copy-tex")
        assert buttons.count() == page.locator(".pm-equation").count() == 2
        buttons.first.click()
        expect(buttons.first).to_have_text("Copied", timeout=5_000)
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == r"s = \sum_{i=1}^{n} \beta \mathbf{x}_i"
        assert "\\vx" not in copied
        assert all(url.startswith(origin) for url in watch.requests), watch.requests
        assert watch.dialogs == [] and watch.errors == []
    finally:
        page.close()
        server.shutdown()
        server.server_close()


def test_hovering_a_reference_previews_the_equation_figure_or_section(browser_context, site):
    page, watch = _open(browser_context, site)
    try:
        preview = page.locator("#pm-preview")
        page.locator('.pm-p a.pm-ref[data-ref="eq:1"]').first.hover()
        preview.wait_for(state="visible", timeout=5_000)
        assert preview.locator(".pm-preview-head").inner_text() == "Equation (1)"
        assert preview.locator(".katex").count() == 1
        assert "∑" in preview.locator(".katex-html").inner_text()
        page.locator("h1").hover()
        preview.wait_for(state="hidden", timeout=5_000)
        page.locator('.pm-p a.pm-ref[data-ref^="fig:"]').first.hover()
        expect(preview).to_contain_text("The inputs", timeout=5_000)
        assert preview.locator(".pm-preview-head").inner_text() == "Figure 1"
        assert preview.locator(".katex").count() >= 1
        page.locator('.pm-p a.pm-ref[data-ref^="sec:"]').first.hover()
        expect(preview).to_contain_text("Setup with", timeout=5_000)
        assert preview.locator(".pm-preview-head").inner_text() == "Section"
        # What the PDF prints: \eqref gives (1), \ref of the figure gives 1.
        assert page.locator('.pm-p a.pm-ref[data-ref="eq:1"]').first.inner_text() == "(1)"
        watch.assert_clean()
    finally:
        page.close()


def test_dark_mode_follows_the_system_and_the_toggle_and_keeps_maths_readable(browser_context, site):
    page, watch = _open(browser_context, site)
    try:
        page.emulate_media(color_scheme="light")
        background, ink = _colours(page)
        assert _luminance(background) > 0.8 and _contrast(background, ink) > 7
        page.emulate_media(color_scheme="dark")
        background, ink = _colours(page)
        assert _luminance(background) < 0.05 and _contrast(background, ink) > 7, (background, ink)
        toggle = page.locator("#pm-theme")
        toggle.click()  # system → dark
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        toggle.click()  # dark → light, whatever the system says
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        background, ink = _colours(page)
        assert _luminance(background) > 0.8 and _contrast(background, ink) > 7
        assert "light" in toggle.get_attribute("aria-label")
        toggle.click()  # back to the system's
        assert page.evaluate("document.documentElement.dataset.theme") is None
        watch.assert_clean()
    finally:
        page.emulate_media(color_scheme="light")
        page.close()


def test_katex_keeps_mathml_so_screen_readers_speak_the_maths(browser_context, site):
    page, watch = _open(browser_context, site)
    try:
        counts = page.evaluate("papermath.renderAll()")
        assert counts["failures"] == 0
        katex = page.locator(".katex").count()
        assert katex > 10
        assert page.locator(".katex .katex-mathml math").count() == katex
        assert page.locator(".katex .katex-html[aria-hidden='true']").count() == katex
        annotation = page.locator('[id="eq:1"] .pm-eqrow .katex-mathml annotation[encoding="application/x-tex"]').first
        assert "\\sum" in annotation.text_content()
        # The MathML is in the accessibility tree (visually hidden by clipping, not display: none).
        assert page.evaluate("""() => getComputedStyle(document.querySelector('.katex-mathml')).display""") != "none"
        watch.assert_clean()
    finally:
        page.close()


def test_find_this_symbol_highlights_its_uses_across_the_paper(browser_context, site):
    page, watch = _open(browser_context, site)
    try:
        beta = page.evaluate("JSON.parse(document.getElementById('pm-data').textContent).symbols"
                             ".findIndex(s => s.id === 'eq:1/sym:\\\\beta')")
        assert beta >= 0
        symbol = page.locator(f'[id="eq:1"] .pm-eqrow [data-pm="{beta}"]').first
        symbol.click()
        tooltip = page.locator("#pm-tooltip")
        tooltip.wait_for(state="visible", timeout=5_000)
        tooltip.locator(".pm-tt-find").click()
        found = page.locator(".pm-found")
        page.wait_for_selector("#pm-found")
        n = found.count()
        # β in (1), in (2) and in the prose (twice): every use, whichever equation or sentence holds it.
        assert n >= 4, n
        assert page.locator('[id="eq:1"] .pm-eqrow .pm-found').count() == 1
        assert page.locator('[id="eq:2"] .pm-eqrow .pm-found').count() == 1
        assert page.locator(".pm-p .pm-found").count() >= 2
        assert page.locator("#pm-found").inner_text().startswith(f"{n} uses highlighted")
        page.locator("#pm-found button", has_text="Next").click()
        assert f"(1/{n})" in page.locator("#pm-found").inner_text()
        page.keyboard.press("Escape")
        assert found.count() == 0 and page.locator("#pm-found").count() == 0
        watch.assert_clean()
    finally:
        page.close()


def test_contents_reductions_and_search_results_show_rendered_maths(browser_context, site):
    page, watch = _open(browser_context, site)
    try:
        toc = page.locator(".pm-toc a", has_text="Setup with")
        assert toc.locator(".katex").count() == 1 and "$" not in toc.inner_text()
        heading = page.locator("h2.pm-section", has_text="Setup with")
        assert heading.locator(".katex").count() == 1
        panel = page.locator('[id="eq:1"] details.pm-panel')
        panel.locator("summary").click()
        reductions = panel.locator("h4", has_text="Reductions").locator("xpath=following-sibling::table[1]")
        row = reductions.locator("tbody tr").first
        assert row.locator("td").nth(2).locator(".katex").count() == 1  # runs over: i
        assert row.locator("td").nth(3).locator(".katex").count() == 1  # limits: 1 … n
        page.locator("#pm-search").fill("beta")
        results = page.locator("#pm-results")
        results.wait_for(state="visible")
        assert results.locator(".pm-result").count() >= 3
        assert results.locator(".pm-result .katex").count() >= 1
        assert "$" not in results.inner_text() and "\\sum" not in results.inner_text()
        watch.assert_clean()
    finally:
        page.close()


def test_no_command_line_wording_in_the_page(browser_context, tmp_path):
    from conftest import EXAMPLE
    index = _build(EXAMPLE, tmp_path / "site")
    page, watch = _open(browser_context, index)
    try:
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.evaluate("papermath.renderAll()")
        text = page.locator("body").inner_text()
        for wording in ("--shape", "--set", "--fn", "give one with", "chosen: chosen:", "override with"):
            assert wording not in text, wording
        assert "chosen: small integers" in text or "chosen" in text
        watch.assert_clean()
    finally:
        page.close()


@pytest.mark.parametrize("which", ["test paper", "example"])
def test_no_sideways_scrolling_at_420_px(browser_context, site, tmp_path, which):
    from conftest import EXAMPLE
    index = site if which == "test paper" else _build(EXAMPLE, tmp_path / "site")
    page = browser_context.new_page()
    watch = Watch(page)
    try:
        page.set_viewport_size({"width": 420, "height": 800})
        page.goto(index.as_uri())
        page.wait_for_selector("body.pm-ready", timeout=30_000)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.evaluate("papermath.renderAll()")
        page.wait_for_timeout(100)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 420, width
        # The long equation scrolls inside its own box instead.
        box = page.locator('[id="eq:2"] .pm-display-math') if which == "test paper" else None
        if box is not None:
            assert page.evaluate("el => el.scrollWidth > el.clientWidth", box.element_handle())
        watch.assert_clean()
    finally:
        page.close()
