"""The LLM: vLLM's OpenAI-compatible server, its discovery, launch and the streaming gateway."""
