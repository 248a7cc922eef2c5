"""The themes that come with the generator: templates and static files, as package data."""
