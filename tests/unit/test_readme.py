"""The README documents every CLI command, and its set-up is the two make targets."""

import argparse
import re
from pathlib import Path

from docchat.cli import _parser

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def _commands(parser: argparse.ArgumentParser, prefix: str = "docchat") -> list[str]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append(f"{prefix} {name}")
                found += _commands(sub, f"{prefix} {name}")
    return found


def test_every_cli_command_is_documented_in_the_readme():
    missing = [command for command in _commands(_parser()) if command not in README]
    assert missing == []


def test_the_readme_sets_up_with_exactly_make_run_and_make_test():
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^make \w+$", setup, re.MULTILINE) == ["make run", "make test"]
