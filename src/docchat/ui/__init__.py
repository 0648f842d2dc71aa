"""Streamlit components shared by the pages. They call services only."""
