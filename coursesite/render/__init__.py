"""Pages from the lesson model and its record, through the theme's Jinja templates."""
