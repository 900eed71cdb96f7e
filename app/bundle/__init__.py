"""The corpus bundle: one SQLite file per course (schema, builder, read-only reader)."""
