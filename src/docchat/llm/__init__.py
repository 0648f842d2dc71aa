"""The LLM: an OpenAI-compatible server (vLLM by default), its discovery, launch and the streaming gateway."""
