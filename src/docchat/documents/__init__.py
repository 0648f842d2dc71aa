"""Documents: parsing, chunking, embeddings, the Qdrant index, retrieval with citations."""
