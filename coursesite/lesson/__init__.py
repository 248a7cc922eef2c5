"""A lesson as the build knows it: its Markdown parsed into a typed model, and its build."""
