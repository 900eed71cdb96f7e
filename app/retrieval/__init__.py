"""Find the chunks that answer a question: BM25 + embeddings, fused, gated, budgeted."""
