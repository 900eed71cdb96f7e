"""Turn retrieved passages into a short, cited answer (or an honest refusal)."""
