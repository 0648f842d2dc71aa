"""The facade the UI, CLI and API call. Plain values in, domain objects out; no streamlit."""
