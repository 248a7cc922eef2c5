"""`coursesite import`: notebooks (.ipynb, MyST) become lessons."""
