"""Lesson block kinds (`:::{step}`, ...): the registry plugins extend, and the built-in ones."""
