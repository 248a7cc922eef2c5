"""Markdown, MyST, math and SVG made into markup a page may hold, and the allowlists for it."""
