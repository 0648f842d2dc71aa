"""Source code and Jupyter notebooks, in sections a citation can name: a definition and its
lines ("def parse (lines 56-90)"), or a notebook's cell ("cell 4: code").

Invariants (beside docchat.documents.parsing's, which hold here too):
- Code is text: it is decoded with the checks text files get (UTF-8, no binary), and every
  line of it is in exactly one section, as written.
- Python: each top-level function and class is a section (`def name`, `async def name`,
  `class Name`), from its decorators and the comments just above it to its last line, found
  by the standard library's `ast`; the lines between them are `module`. A class longer than
  code_blocks.SPLIT_CHARS is cited by its methods ("class Reader › def parse").
- Brace languages and Ruby: the same, found by docchat.documents.code_blocks; the lines
  between definitions are `top level`.
- A file that cannot be split (Python that does not parse, a file with no definition) is
  sections of runs of lines (`lines 1-80`), cut at blank lines past SECTION_CHARS, as are
  long runs between definitions.
- A notebook (.ipynb, nbformat 4, or 3's worksheets) is one section per cell, `cell N: markdown`
  or `cell N: code`, N counting every cell from 1; a code cell's text outputs (streams,
  text/plain results, errors' name and value) follow its source, cut at OUTPUT_CHARS. Anything
  else in the JSON is refused as not a notebook.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from docchat.documents import code_blocks
from docchat.documents.code_blocks import Part
from docchat.documents.kinds import Kind
from docchat.documents.text_reading import decode
from docchat.domain import Section
from docchat.errors import InvalidInput

if TYPE_CHECKING:
    import ast

# As plain text's (kinds.text): a long run of lines outside definitions is cut at about this size.
SECTION_CHARS = 4000
OUTPUT_CHARS = 1000
MODULE = "module"
TOP_LEVEL = "top level"
LANGUAGES = {
    "js": code_blocks.C_LIKE, "ts": code_blocks.C_LIKE, "java": code_blocks.C_LIKE, "go": code_blocks.C_LIKE,
    "rust": code_blocks.RUST, "c": code_blocks.C_LIKE, "cpp": code_blocks.C_LIKE, "csharp": code_blocks.C_LIKE,
    "php": code_blocks.PHP, "swift": code_blocks.C_LIKE, "kotlin": code_blocks.C_LIKE, "scala": code_blocks.C_LIKE,
    "shell": code_blocks.SHELL,
}  # fmt: skip
WORDS = ("source code and notebooks (Python, JavaScript, TypeScript, Java, Go, Rust, C, C++ and more; "
         "IPYNB)")
SUFFIXES = {
    ".py": "python", ".ipynb": "notebook", ".rb": "ruby",
    ".js": "js", ".mjs": "js", ".cjs": "js", ".jsx": "js", ".ts": "ts", ".tsx": "ts", ".java": "java", ".go": "go",
    ".rs": "rust", ".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".cs": "csharp", ".php": "php", ".swift": "swift", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala",
    ".sh": "shell", ".bash": "shell",
}  # fmt: skip


def read_python(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    import ast

    lines = _lines(shown, data)
    try:
        tree = ast.parse("\n".join(lines).replace("\x00", ""))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # Not Python 3 (or too deeply nested for ast, whose parser then raises MemoryError for its
        # own stack, not the heap's): cited by its lines instead.
        return _sections(lines, [Part(0, len(lines) - 1, "", False)])
    definitions = _python_definitions(lines, tree.body, "", 0)
    return _sections(lines, code_blocks.cover(0, len(lines) - 1, definitions, MODULE))


def _python_definitions(lines: list[str], body: list[ast.stmt], prefix: str, floor: int) -> list[Part]:
    import ast

    parts: list[Part] = []
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list]) - 1
        while first > (parts[-1].last + 1 if parts else floor) and lines[first - 1].lstrip().startswith("#"):
            first -= 1
        keyword = "class" if isinstance(node, ast.ClassDef) else "def"
        keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else keyword
        label = f"{prefix}{keyword} {node.name}"
        last = (node.end_lineno or node.lineno) - 1
        members = []
        if keyword == "class" and prefix.count("›") < code_blocks.MAX_NESTING - 1 and (
                sum(len(line) + 1 for line in lines[first: last + 1]) > code_blocks.SPLIT_CHARS):
            members = _python_definitions(lines, node.body, label + " › ", first + 1)
        parts += code_blocks.cover(first, last, members, label) if members else [Part(first, last, label, True)]
    return parts


def read_code(language: code_blocks.Language, shown: str, data: bytes, max_bytes: int) -> list[Section]:
    lines = _lines(shown, data)
    return _sections(lines, code_blocks.brace_parts(lines, language, TOP_LEVEL))


def read_ruby(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    lines = _lines(shown, data)
    return _sections(lines, code_blocks.ruby_parts(lines, TOP_LEVEL))


def _lines(shown: str, data: bytes) -> list[str]:
    # Lines as Python and editors count them: not str.splitlines, which also breaks at form feeds
    # and other separators, and would put every later line number out.
    return decode(shown, data).replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _sections(lines: list[str], parts: list[Part]) -> list[Section]:
    """A section per definition; free lines in runs cut at blank lines past SECTION_CHARS."""
    sections = []
    for part in parts:
        runs = [(part.first, part.last)] if part.definition else _runs(lines, part.first, part.last)
        for first, last in runs:
            where = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
            label = f"{part.label} ({where})" if part.label else where
            sections.append(Section(label, None, "\n".join(lines[first: last + 1])))
    return sections


def _runs(lines: list[str], first: int, last: int) -> list[tuple[int, int]]:
    """Runs of the lines first..last, cut at blank lines past SECTION_CHARS, without the blank
    lines at their ends (a run of blank lines only is no run)."""
    runs, start, size = [], first, 0
    for number in range(first, last + 1):
        size += len(lines[number]) + 1
        if number == last or (not lines[number].strip() and size >= SECTION_CHARS):
            runs.append((start, number))
            start, size = number + 1, 0
    return [trimmed for run in runs if (trimmed := _without_blank_ends(lines, *run))]


def _without_blank_ends(lines: list[str], first: int, last: int) -> tuple[int, int] | None:
    while first <= last and not lines[first].strip():
        first += 1
    while last >= first and not lines[last].strip():
        last -= 1
    return (first, last) if first <= last else None


def read_notebook(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    import json

    text = decode(shown, data)
    try:
        notebook = json.loads(text)
        return [_cell(number, cell) for number, cell in enumerate(_cells(notebook), start=1)]
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        raise InvalidInput(f"{shown} is not a readable Jupyter notebook (.ipynb)") from None


# Any: the JSON as json.loads gives it; a shape it is not raises what read_notebook catches.
def _cells(notebook: Any) -> list[dict[str, Any]]:
    cells = notebook["cells"] if "cells" in notebook else notebook["worksheets"][0]["cells"]
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise ValueError("not a list of cells")
    return cells


def _cell(number: int, cell: dict[str, Any]) -> Section:
    kind = cell["cell_type"]
    if not isinstance(kind, str):
        raise ValueError("a cell type is not a string")
    source = _joined(cell.get("source", cell.get("input", "")))
    outputs = "\n".join(_output(output) for output in cell.get("outputs") or [])
    if outputs.strip():
        cut = outputs[:OUTPUT_CHARS] + ("…" if len(outputs) > OUTPUT_CHARS else "")
        source += "\n\nOutput:\n" + cut
    return Section(f"cell {number}: {re.sub(r'[^a-z_]', '', kind.lower())[:20] or 'cell'}", None, source)


def _output(output: dict[str, Any]) -> str:
    kind = output["output_type"]
    if kind == "stream":
        return _joined(output.get("text", ""))
    if kind in ("execute_result", "display_data", "pyout"):
        return _joined((output.get("data") or output).get("text/plain", output.get("text", "")))
    if kind in ("error", "pyerr"):
        return f"{_joined(output.get('ename', ''))}: {_joined(output.get('evalue', ''))}"
    return ""


def _joined(text: object) -> str:
    """A notebook's text: a string, or a list of strings (its lines)."""
    if isinstance(text, str):
        return text
    if isinstance(text, list) and all(isinstance(line, str) for line in text):
        return "".join(text)
    raise ValueError("text that is neither a string nor a list of strings")


_PARSERS: dict[str, Callable[[str, bytes, int], list[Section]]] = {
    "python": read_python,
    "notebook": read_notebook,
    "ruby": read_ruby,
    **{kind: partial(read_code, language) for kind, language in LANGUAGES.items()},
}
KINDS = tuple(Kind(name, tuple(suffix for suffix, of in SUFFIXES.items() if of == name), parse)
              for name, parse in _PARSERS.items())
