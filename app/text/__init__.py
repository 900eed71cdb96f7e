"""Text rules that are part of the bundle contract, below both ``bundle/`` and ``retrieval/``:
the tokenizer (:mod:`app.text.tokenize`, versioned as ``TOKENIZER_VERSION``) and the BM25 index
format stored in a bundle (:mod:`app.text.lexical`). A bundle built with one version is read and
searched with the same rules, so ``bundle/`` and ``retrieval/`` both import from here."""
