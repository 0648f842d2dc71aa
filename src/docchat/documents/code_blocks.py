"""Where the definitions of a source file begin and end, for languages whose blocks are braces
(C, C++, C#, Java, JavaScript, TypeScript, Go, Rust, PHP, Swift, Kotlin, shell) or `end`
(Ruby), without a grammar: a scanner that follows braces outside strings and comments.

Invariants:
- `Part`s cover the lines they are asked about, each line once, in order.
- A definition is a run of lines from the comments and annotations just above it to the line
  that closes its block; the lines between definitions are free parts.
- A container (class, struct, namespace, impl...) longer than SPLIT_CHARS is split into its own
  members, labelled "class Reader › fn parse", down to MAX_NESTING containers.
- Any input gives parts, in time linear in its size: where the braces do not balance (a string
  or comment the scanner misread), the lines from there on are free. tree-sitter grammars
  would be exact, but tree-sitter-language-pack 1.x downloads its grammars when first used
  (nothing may be fetched here) and 0.13, the last to bundle them, installs 190 MB; a citation
  needs the lines of a definition, not a syntax tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Containers longer than this (in characters) are cited by their members.
SPLIT_CHARS = 4000
MAX_NESTING = 3
SIGNATURE_CHARS = 1000
CONTAINERS = {"class", "struct", "interface", "trait", "impl", "module", "namespace", "object", "enum", "record",
              "protocol", "extension", "union"}
_DEFINED = re.compile(
    r"\b(class|struct|enum|union|interface|trait|fn|func|function|fun|def|module|namespace|object|record|protocol"
    r"|extension|const|let|var|type)\s+(?:\([^)]*\)\s*)?[*&]?\s*([A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)*)")
_IMPL = re.compile(r"\bimpl\b(?:\s*<[^{]*?>)?\s+(.+?)(?:\s+where\b.*)?$")
_CALLED = re.compile(r"([A-Za-z_$~][\w$]*(?:::~?[A-Za-z_$][\w$]*)*)\s*(?:<[^()]*>)?\s*\(")
_NOT_NAMES = {"if", "for", "while", "switch", "catch", "return", "sizeof", "function", "fn", "func", "fun", "using"}
_ANNOTATION = re.compile(r"^\s*(?:@[\w.]+(?:\(.*\))?|#\[.*\]|\[[\w.]+(?:\(.*\))?\])\s*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/")
_CLOSING_ONLY = re.compile(r"^\s*[})\];,]*\s*$")
# Statements: they end a definition's head without a semicolon, and their braces (`import { a }
# from "b"`) open no block.
_STATEMENT = re.compile(r"<\?php|#\s*include|#\s*import|export\s*\{|(?:import|package|using|use|require|from)\b")


@dataclass(frozen=True)
class Language:
    line_comments: tuple[str, ...] = ("//",)
    block_comments: bool = True
    char_literals: bool = False  # Rust: 'a is a lifetime, not the start of a string
    backticks: bool = True  # template literals and raw strings may span lines


C_LIKE = Language()
RUST = Language(char_literals=True, backticks=False)
PHP = Language(line_comments=("//", "#"))
SHELL = Language(line_comments=("#",), block_comments=False)


@dataclass(frozen=True)
class Part:
    first: int  # line indexes, from 0
    last: int
    label: str  # the definition's, or for free lines the container's (or the file's) name
    definition: bool


def cover(lo: int, hi: int, definitions: list[Part], label: str) -> list[Part]:
    """The definitions, with the lines between them as free parts labelled `label`."""
    parts, line = [], lo
    for definition in definitions:
        if definition.first > line:
            parts.append(Part(line, definition.first - 1, label, False))
        parts.append(definition)
        line = definition.last + 1
    if line <= hi:
        parts.append(Part(line, hi, label, False))
    return parts


def brace_parts(lines: list[str], language: Language, free_label: str) -> list[Part]:
    depths = _depths(lines, _token_pattern(language), language)
    return _level(lines, depths, 0, len(lines) - 1, 0, "", free_label)


def _level(lines, depths, lo: int, hi: int, level: int, prefix: str, free_label: str) -> list[Part]:
    definitions: list[Part] = []
    head = None
    line = lo
    while line <= hi:
        start, _, peak = depths[line]
        text = lines[line].strip()
        if start == level and peak > level and not (depths[line][1] == level and _STATEMENT.match(text)):
            end = line
            while end < hi and depths[end][1] > level:
                end += 1
            if depths[end][1] > level:
                break  # it never closes: the braces were misread, so the rest is free lines
            first = line if head is None else head
            definitions.extend(_definition(lines, depths, first, line, end, level, prefix))
            head, line = None, end + 1
            continue
        if not text or text.endswith((";", "}")) or _STATEMENT.match(text):
            head = None
        elif head is None:
            head = line
        line += 1
    return cover(lo, hi, definitions, free_label)


def _definition(lines, depths, first: int, opening: int, last: int, level: int, prefix: str) -> list[Part]:
    """The definition as one part, or a large container as its members."""
    keyword, name = _name(lines[first: opening + 1])
    label = prefix + name
    whole = [Part(first, last, label, True)]
    size = sum(len(line) + 1 for line in lines[first: last + 1])
    if keyword not in CONTAINERS or size <= SPLIT_CHARS or last - opening < 2 or prefix.count("›") >= MAX_NESTING - 1:
        return whole
    members = _level(lines, depths, opening + 1, last - 1, level + 1, label + " › ", label)
    if not any(part.definition for part in members):
        return whole
    if members[0].definition:
        members = [Part(first, opening, label, False)] + members
    else:  # the container's own head and the fields after it
        members[0] = Part(first, members[0].last, label, False)
    if not members[-1].definition and all(_CLOSING_ONLY.match(line) for line in lines[members[-1].first: last]):
        members.pop()  # only the closing brace was left after the last member: it goes with it
    ending = members[-1]
    return members[:-1] + [Part(ending.first, last, ending.label, ending.definition)]


def _name(head: list[str]) -> tuple[str, str]:
    """(keyword, label) of a definition from its lines up to its opening brace."""
    kept = [line for line in head if not _ANNOTATION.fullmatch(line) and not _is_comment(line)]
    # Cut short before any pattern runs: a minified file's head can be a megabyte on one line.
    signature = " ".join(line.strip() for line in kept or head).split("{", 1)[0][:SIGNATURE_CHARS]
    signature = " ".join(_BLOCK_COMMENT.sub(" ", signature).split())
    impl = _IMPL.search(signature)
    if impl:
        return "impl", f"impl {impl.group(1)}"
    defined = _DEFINED.search(signature)
    if defined:
        return defined.group(1), f"{defined.group(1)} {defined.group(2)}"
    called = next((match.group(1) for match in _CALLED.finditer(signature) if match.group(1) not in _NOT_NAMES), None)
    return "", called or signature[:60] or "block"


def _is_comment(line: str) -> bool:
    return line.strip().startswith(("//", "/*", "*", "#", "--")) and not line.strip().startswith("#[")


def _token_pattern(language: Language) -> re.Pattern[str]:
    single = r"'(?:[^'\\\n]|\\.){1,10}'" if language.char_literals else r"'(?:[^'\\\n]|\\.)*'?"
    tokens = [r'"(?:[^"\\\n]|\\.)*"?', single, r"[{}]"]
    tokens += [re.escape(mark) for mark in language.line_comments]
    if language.block_comments:
        tokens.append(r"/\*")
    if language.backticks:
        tokens.append("`")
    return re.compile("|".join(tokens))


def _depths(lines: list[str], tokens: re.Pattern[str], language: Language) -> list[tuple[int, int, int]]:
    """Per line: the brace depth before it, after it, and the deepest it reaches."""
    depth, closing = 0, None  # closing: the "*/" or "`" that ends what a line left open
    result = []
    for line in lines:
        start = peak = depth
        position = 0
        if closing is not None:
            found = line.find(closing)
            position = len(line) if found < 0 else found + len(closing)
            closing = None if found >= 0 else closing
        match = tokens.search(line, position)
        while match:
            token, position = match.group(), match.end()
            if token == "{":
                depth += 1
                peak = max(peak, depth)
            elif token == "}":
                depth = max(0, depth - 1)
            elif token in ("/*", "`"):
                end_mark = "*/" if token == "/*" else "`"
                found = line.find(end_mark, position)
                if found < 0:
                    closing = end_mark
                    break
                position = found + len(end_mark)
            elif token in language.line_comments:
                if token != "#" or match.start() == 0 or line[match.start() - 1].isspace():
                    break
            # else a string, skipped whole by the match
            match = tokens.search(line, position)
        result.append((start, depth, peak))
    return result


_RUBY_START = re.compile(r"(def|class|module)\s+([\w.:]+[?!=]?)")


def ruby_parts(lines: list[str], free_label: str) -> list[Part]:
    """Top-level `def`, `class` and `module` blocks, each ending at an `end` in the first column."""
    definitions, line = [], 0
    while line < len(lines):
        started = _RUBY_START.match(lines[line])
        if not started:
            line += 1
            continue
        last = line
        if not re.search(r"\bend\s*$", lines[line]):
            last = next((n for n in range(line + 1, len(lines)) if re.match(r"end\b", lines[n])), -1)
            if last < 0:
                break  # never closed: the rest is free lines
        first = line
        while first > (definitions[-1].last + 1 if definitions else 0) and lines[first - 1].lstrip().startswith("#"):
            first -= 1
        definitions.append(Part(first, last, f"{started.group(1)} {started.group(2)}", True))
        line = last + 1
    return cover(0, len(lines) - 1, definitions, free_label)
