"""Build a static course website from executable Markdown lessons.

The pipeline, one module per stage:
manifest (lessons.yaml -> Course) -> parse (lesson .md -> Lesson) ->
execute (Lesson -> ExecutionRecord) -> render (-> pages) -> write (-> site/).
"""
