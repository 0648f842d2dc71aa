"""The README stays true where a machine can check it: its layout tree names what the repository
holds, its command table names exactly the commands `docchat --help` lists, and its links lead
somewhere.

The layout tree (the code block under "How it is built") is read as a tree: a name sits two
spaces in from the folder above it, several names on one line are separated by a space or a
comma, two spaces end the names and start the description, and a line indented further than a
name continues the description above it.
"""

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "docchat"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(heading: str) -> str:
    return README.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def _layout_names() -> set[str]:
    """Every path the layout tree names, relative to the repository, without a trailing slash."""
    block = _section("## How it is built").split("```", 2)[1]
    names, folders = set(), [(-2, "")]  # (indent, path) of the folders enclosing the next line
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        while folders[-1][0] >= indent:
            folders.pop()
        if indent != folders[-1][0] + 2:
            continue  # a description's next line
        column = re.split(r" {2,}", line.strip(), maxsplit=1)[0]
        named = [name for name in re.split(r"[,\s]+", column) if name]
        parent = folders[-1][1]
        names |= {(parent + name).rstrip("/") for name in named}
        if len(named) == 1 and named[0].endswith("/"):
            folders.append((indent, parent + named[0]))
    return names


def test_every_path_in_the_readme_layout_exists():
    missing = sorted(name for name in _layout_names() if not (ROOT / name).exists())
    assert not missing, f"the README's layout names what is not there: {missing}"


def test_the_readme_layout_names_every_package_and_top_level_module_of_docchat():
    packages = {f"src/docchat/{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    modules = {f"src/docchat/{p.name}" for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    missing = sorted((packages | modules) - _layout_names())
    assert not missing, f"the README's layout leaves out: {missing}"


def test_the_readme_layout_names_every_test_tier():
    tiers = {f"tests/{d.name}" for d in (ROOT / "tests").iterdir() if d.is_dir() and any(d.glob("test_*.py"))}
    missing = sorted(tiers - _layout_names())
    assert not missing, f"the README's layout leaves out: {missing}"


@cache
def _help(*words: str) -> str:
    result = subprocess.run([sys.executable, "-m", "docchat.cli", *words, "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=True,
                            env={**os.environ, "COLUMNS": "100"})
    return result.stdout


def _listed(help_text: str) -> list[str]:
    """The subcommands a --help lists: the names four spaces in, under its COMMAND, VERB or SUITE line."""
    block = re.search(r"^  [A-Z]+\n((?:    .*\n)+)", help_text, re.MULTILINE)
    return re.findall(r"^    (\S+)", block.group(1), re.MULTILINE) if block else []


def _commands_in_help() -> set[tuple[str, ...]]:
    """`docchat` commands as `--help` lists them: (command,) or, for a group, (group, verb)."""
    found = set()
    for command in _listed(_help()):
        verbs = _listed(_help(command))
        found |= {(command, verb) for verb in verbs} if verbs else {(command,)}
    return found


def _commands_in_readme(groups: set[str]) -> set[tuple[str, ...]]:
    """The commands the first column of the README's command table names."""
    found = set()
    for row in _section("## The `docchat` command").splitlines():
        if not row.startswith("| `docchat"):
            continue
        first_cell = re.split(r"(?<!\\)\|", row)[1]
        for call in re.findall(r"`docchat ([^`]+)`", first_cell):
            words = call.split()
            found.add(tuple(words[:2]) if words[0] in groups else (words[0],))
    return found


def test_the_readme_command_table_lists_exactly_the_commands_docchat_help_lists():
    listed = _commands_in_help()
    documented = _commands_in_readme({command[0] for command in listed if len(command) == 2})
    assert not listed - documented, f"not in the README's table: {sorted(listed - documented)}"
    assert not documented - listed, f"in the README's table, not in --help: {sorted(documented - listed)}"


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_in_the_readme_leads_to_a_file_or_heading_that_exists():
    outside_code = re.sub(r"```.*?```", "", README, flags=re.DOTALL)
    anchors = {_anchor(heading) for heading in re.findall(r"^#+ (.+)$", outside_code, re.MULTILINE)}
    prose = re.sub(r"`[^`\n]*`", "", outside_code)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, fragment = target.partition("#")
        if (ROOT / path).exists() if path else fragment in anchors:
            continue
        broken.append(target)
    assert not broken, f"the README links to what is not there: {broken}"
