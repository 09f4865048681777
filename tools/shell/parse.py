"""Split a shell command into the simple commands bash would run, with a real parser (bashlex).

The analysis is deliberately pessimistic: anything the parser cannot represent faithfully (ANSI-C
quoting, arithmetic, `[[`, `case`, parameter expansions that hide a substitution, here-documents
whose body expands) is flagged so that no prefix rule can ever approve it. The permission system
and Bash's `is_read_only` both build on this one analysis, so they never disagree about what a
command contains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from tools.shell.fastparse import fast_split
from tools.shell.scan import bashlex_text, scan

MAX_COMMAND_CHARS = 10_000

# Tab and newline are ordinary shell whitespace; every other control character could hide part
# of the command in the approval dialog (carriage return, backspace, escape sequences...).
_CONTROL_RE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]"
)
# Syntax bashlex mangles or silently leaves unparsed. Its presence anywhere makes the command opaque.
_OPAQUE_SYNTAX = ("$'", '$"', "$((", "$[")
_SUBSTITUTION_SYNTAX = ("$(", "`", "<(", ">(")
_TIME_RE = re.compile(r"\s*time(\s+-p)?\s+")

WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
READ_REDIRECTS = frozenset({"<", "<>"})
# Targets a write redirect may name without writing any file.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


@dataclass(frozen=True)
class Redirect:
    """One redirection of a simple command. `target` is None for fd duplications and here-docs."""

    op: str
    target: str | None
    dynamic: bool = False

    @property
    def writes(self) -> bool:
        return self.op in WRITE_REDIRECTS or (self.op == ">&" and self.target is not None)

    @property
    def reads(self) -> bool:
        return self.op in READ_REDIRECTS


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: what a rule is matched against.

    `words` are the words after quote removal with leading assignments removed; `dynamic` holds the
    indices of words whose value is only known at run time (parameter expansion, substitution).
    """

    text: str
    words: tuple[str, ...]
    assignments: tuple[tuple[str, str], ...] = ()
    redirects: tuple[Redirect, ...] = ()
    dynamic: frozenset[int] = frozenset()
    has_substitution: bool = False
    nested: bool = False
    dynamic_assignment: bool = False

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def name_is_dynamic(self) -> bool:
        name = self.name
        braces = "{" in name and "}" in name and ("," in name or ".." in name)
        return (
            0 in self.dynamic
            or "*" in name
            or "?" in name
            or ("[" in name and "]" in name)
            or braces  # `{rm,f}` is brace-expanded to `rm f`
        )


@dataclass(frozen=True)
class ShellAnalysis:
    """The parts of one command line plus the reasons it can never be approved by a prefix."""

    command: str
    parts: tuple[SimpleCommand, ...] = ()
    nested: tuple[SimpleCommand, ...] = ()
    parsed: bool = True
    error: str = ""
    too_long: bool = False
    control_chars: bool = False
    # Syntax that hides commands the parser could not see (the raw text must be scanned).
    opaque: bool = False
    has_substitution: bool = False
    functions: tuple[str, ...] = field(default=())
    # From the strict lexer (scan.py): parameters the command expands, names it assigns itself,
    # and names read inside arithmetic (their values are evaluated as expressions).
    names: frozenset[str] = frozenset()
    assigned: frozenset[str] = frozenset()
    arith_names: frozenset[str] = frozenset()
    loop_words: tuple[str, ...] = ()  # `for NAME in WORDS`'s words (scan.py)

    @property
    def analysable(self) -> bool:
        return self.parsed and not self.too_long and not self.control_chars and not self.opaque


def has_control_chars(command: str) -> bool:
    return _CONTROL_RE.search(command) is not None


@lru_cache(maxsize=2048)
def analyze(command: str) -> ShellAnalysis:
    """Parse `command` into its simple commands (cached: the same call is judged several times)."""
    if has_control_chars(command):
        return ShellAnalysis(command, parsed=False, control_chars=True, error="control characters")
    if len(command) > MAX_COMMAND_CHARS:
        return ShellAnalysis(
            command, parsed=False, too_long=True, error=f"longer than {MAX_COMMAND_CHARS} chars"
        )
    has_subst_syntax = any(s in command for s in _SUBSTITUTION_SYNTAX)
    if not command.strip():
        return ShellAnalysis(command, parsed=True)
    fast = fast_split(command)
    if fast is not None:
        return ShellAnalysis(
            command,
            parts=tuple(
                SimpleCommand(
                    text=text,
                    words=tuple(words),
                    assignments=tuple(assignments),
                    redirects=tuple(Redirect(op, target) for op, target in redirects),
                )
                for text, assignments, words, redirects in fast
            ),
            parsed=True,
        )
    timed = _TIME_RE.match(command)
    if timed and timed.end() < len(command):
        # bashlex cannot parse the `time` keyword; it is a wrapper, so judge what it times.
        inner = analyze(command[timed.end() :])
        return replace(inner, command=command)
    return _parse_checked(command, has_subst_syntax)


def _parse_checked(command: str, has_subst_syntax: bool) -> ShellAnalysis:
    """bashlex and the strict lexer together: any construct the lexer does not model, or any
    disagreement between the two on the simple commands, makes the command opaque."""
    lexed = scan(command)
    parsed = _parse_with_bashlex(
        command, bashlex_text(command, lexed) if not lexed.reason else command, has_subst_syntax
    )
    parsed = replace(
        parsed,
        names=frozenset(lexed.names),
        assigned=frozenset(lexed.assigned),
        arith_names=frozenset(lexed.arith_names),
        loop_words=tuple(lexed.loop_words),
    )
    if lexed.reason:
        return replace(parsed, opaque=True, error=parsed.error or lexed.reason)
    if parsed.parsed and not parsed.opaque:
        theirs = [p.words for p in parsed.parts if p.words]
        nested = sorted(p.words for p in parsed.nested if p.words)
        if lexed.commands != theirs or sorted(lexed.nested) != nested:
            return replace(
                parsed, opaque=True, error="the two shell parsers disagree on this command"
            )
    return parsed


def _parse_with_bashlex(command: str, text: str, has_subst_syntax: bool) -> ShellAnalysis:
    try:
        import bashlex  # ~0.15 s to import: paid on the first Bash command, not at start-up

        trees = bashlex.parse(text)
    except Exception as exc:  # bashlex raises several types, including NotImplementedError
        timed = _TIME_RE.match(command)
        if timed:
            # bashlex cannot parse the `time` keyword; it is a wrapper, so judge what it times.
            inner = analyze(command[timed.end() :])
            return ShellAnalysis(
                command,
                parts=inner.parts,
                nested=inner.nested,
                parsed=inner.parsed,
                error=inner.error,
                opaque=inner.opaque,
                has_substitution=inner.has_substitution,
                functions=inner.functions,
            )
        return ShellAnalysis(
            command, parsed=False, error=f"{type(exc).__name__}: {exc}", opaque=True
        )
    walker = _Walker(command, text)
    try:
        for tree in trees:
            walker.visit(tree, nested=False)
    except _Unsupported as exc:
        return ShellAnalysis(command, parsed=False, error=str(exc), opaque=True)
    return ShellAnalysis(
        command,
        parts=tuple(walker.parts),
        nested=tuple(walker.nested),
        parsed=True,
        opaque=walker.opaque,
        has_substitution=has_subst_syntax or walker.substitution,
        functions=tuple(walker.functions),
    )


def _literal_word(text: str, part: Any) -> str:
    """A word without expansions, its quotes removed as the shell does: bashlex drops the
    backslash of `"\\n"`, which inside double quotes escapes only $ ` " \\ and a newline, so
    `python3 -c "print('\\n')"` read as two different commands and was judged opaque (and
    destructive). Anything unusual keeps bashlex's word (the lexer comparison still applies)."""
    start, end = part.pos
    raw = text[start:end]
    if "$" in raw or "`" in raw:
        return str(part.word)
    unquoted = posix_unquote(raw)
    return str(part.word) if unquoted is None else unquoted


def posix_unquote(raw: str) -> str | None:
    """Quote removal of a word with no expansions; None: an unterminated quote."""
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "'":
            j = raw.find("'", i + 1)
            if j < 0:
                return None
            out.append(raw[i + 1 : j])
            i = j + 1
        elif c == '"':
            i += 1
            while i < n and raw[i] != '"':
                if raw[i] == "\\" and i + 1 < n and raw[i + 1] in '$`"\\\n':
                    if raw[i + 1] != "\n":
                        out.append(raw[i + 1])
                    i += 2
                else:
                    out.append(raw[i])
                    i += 1
            if i >= n:
                return None
            i += 1
        elif c == "\\":
            if i + 1 < n and raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _Unsupported(Exception):
    pass


class _Walker:
    def __init__(self, source: str, parsed_text: str) -> None:
        self.source = source
        self.parsed_text = parsed_text
        self.parts: list[SimpleCommand] = []
        self.nested: list[SimpleCommand] = []
        self.functions: list[str] = []
        self.opaque = False
        self.substitution = False
        self.subst_count = 0

    def visit(self, node: Any, nested: bool) -> None:
        kind = node.kind
        if kind == "command":
            self._command(node, nested)
        elif kind == "compound":
            # `{ echo hi; } > f` and `for ...; done > f`: the compound's redirects apply to every
            # command inside it, so each of them carries them.
            before = (len(self.parts), len(self.nested))
            for child in _children(node):
                self.visit(child, nested)
            extra = tuple(self._redirect(r) for r in getattr(node, "redirects", []) or [])
            if extra:
                for target, start in ((self.parts, before[0]), (self.nested, before[1])):
                    for k in range(start, len(target)):
                        target[k] = replace(target[k], redirects=target[k].redirects + extra)
        elif kind in ("list", "pipeline", "if", "for", "while", "until"):
            for child in _children(node):
                self.visit(child, nested)
        elif kind == "function":
            self.functions.append(node.parts[0].word)
            for child in node.parts[1:]:
                self.visit(child, nested)
        elif kind in ("operator", "pipe", "reservedword"):
            return
        elif kind in ("word", "assignment"):
            self._scan_word(node)
        elif kind in ("commandsubstitution", "processsubstitution"):
            self.substitution = True
            self.subst_count += 1
            self.visit(node.command, nested=True)
        elif kind == "redirect":
            self._redirect(node)
        else:
            raise _Unsupported(f"unsupported shell syntax: {kind}")

    def _scan_word(self, node: Any) -> bool:
        """Visit substitutions inside a word; True when its value is only known at run time."""
        dynamic = False
        for part in getattr(node, "parts", []) or []:
            if part.kind in ("commandsubstitution", "processsubstitution"):
                dynamic = True
                self.substitution = True
                self.subst_count += 1
                self.visit(part.command, nested=True)
            elif part.kind == "parameter":
                dynamic = True
                value = getattr(part, "value", "") or ""
                if any(s in value for s in _SUBSTITUTION_SYNTAX) or not value:
                    # bashlex leaves `${x:-$(cmd)}` unparsed: the hidden command is invisible.
                    self.opaque = True
                    self.substitution = True
                    self.subst_count += 1
            elif part.kind == "tilde":
                continue
        return dynamic

    def _redirect(self, node: Any) -> Redirect:
        op = node.type
        target = node.output
        if op in ("<<", "<<-"):
            heredoc = getattr(node, "heredoc", None)
            delim = self.source[target.pos[0] : target.pos[1]] if hasattr(target, "pos") else ""
            quoted = any(q in delim for q in "'\"\\")
            body = getattr(heredoc, "value", "") if heredoc is not None else ""
            if not quoted and ("$" in body or "`" in body):
                # An unquoted here-document expands `$(...)` and backticks in its body.
                self.opaque = True
                self.substitution = True
                self.subst_count += 1
            return Redirect(op, None)
        if op == "<<<":
            return Redirect(op, None, dynamic=self._scan_word(target))
        if isinstance(target, int) or target is None:
            return Redirect(op, None)
        dynamic = self._scan_word(target)
        return Redirect(op, target.word, dynamic=dynamic)

    def _command(self, node: Any, nested: bool) -> None:
        words: list[str] = []
        dynamic: set[int] = set()
        assignments: list[tuple[str, str]] = []
        redirects: list[Redirect] = []
        dynamic_assignment = False
        before = self.subst_count
        for part in node.parts:
            if part.kind == "assignment" and not words:
                if self._scan_word(part):
                    dynamic_assignment = True
                name, _, value = part.word.partition("=")
                assignments.append((name.rstrip("+"), value))
            elif part.kind in ("word", "assignment"):
                if self._scan_word(part):
                    dynamic.add(len(words))
                    words.append(part.word)
                else:
                    words.append(_literal_word(self.parsed_text, part))
            elif part.kind == "redirect":
                redirects.append(self._redirect(part))
            elif part.kind in ("compound", "list", "pipeline"):
                self.visit(part, nested)
            else:
                raise _Unsupported(f"unsupported shell syntax in a command: {part.kind}")
        has_subst = self.subst_count > before
        start, end = node.pos
        cmd = SimpleCommand(
            text=self.source[start:end],
            words=tuple(words),
            assignments=tuple(assignments),
            redirects=tuple(redirects),
            dynamic=frozenset(dynamic),
            has_substitution=has_subst,
            nested=nested,
            dynamic_assignment=dynamic_assignment,
        )
        (self.nested if nested else self.parts).append(cmd)


def _children(node: Any) -> list[Any]:
    if node.kind == "compound":
        return list(node.list)
    return list(getattr(node, "parts", []))
