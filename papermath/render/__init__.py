"""Renderers: terminal text, Markdown, JSON. They only present; analysis happens elsewhere."""
