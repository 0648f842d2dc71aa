"""What an answer's documents and citations are worth, all pure code (text and numbers in and
out): whether the documents in scope hold the answer (`evidence`: found, weak or not found), and
whether each cited sentence is what its passage says (`citation_check`, over the claims' words
and numbers, `claim_signals`, and their categories, `claim_categories`). What they find is kept
with the answer as domain values (docchat.domain.grounding); the service that runs the check
with the loaded embedder is docchat.services.grounding."""
