"""The warm preview of `build.py serve`: which blocks an edit makes stale (dataflow.py),
the interpreter kept alive per lesson to run them again (session.py, warmrunner.py), and
the preview page shown until the clean full run replaces it (previewpage.py). Nothing here
writes records/, the execution cache or the site folder."""
