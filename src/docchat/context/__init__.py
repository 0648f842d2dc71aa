"""The context engine: budget planner, prefix-stable prompts, DSPy programs."""
