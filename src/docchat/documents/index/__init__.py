"""The meaning side of the library: the vector index of the chunks and the embedders that make
its vectors (the bundled MiniLM on ONNX Runtime, or an OpenAI-compatible server's), the
question batcher, and the opening of both early, off the page's first run.

Nothing is imported here: `docchat.documents.index.onnx_embeddings` alone must not pull in the
vector engine's client (a command that only embeds pays for nothing else).
"""
