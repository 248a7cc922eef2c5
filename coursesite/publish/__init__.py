"""Writing the site: the folder swapped whole, the search index, its state, strict checks."""
