"""The course's configuration: lessons.yaml as a typed, validated Course; the build options."""
