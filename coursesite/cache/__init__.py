"""What the build keeps in .cache/: executions, parses, figures, the no-op fingerprint."""
