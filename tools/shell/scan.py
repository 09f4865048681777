"""A strict lexer for the part of bash the permission analysis models, run beside bashlex.

bashlex is a good parser with known differentials: it ends a here-document at a line equal to the
delimiter *as written* (`'X'`) where bash ends it at the delimiter after quote removal (`X`), it
reads `(( x = 1 ))` as a command named `x`, it passes `${!x}`, `${x@P}` and `a[$(cmd)]` through as
plain text. This lexer knows exactly the constructs the analysis models and names the first one it
does not (`reason`); its simple commands must agree with bashlex's word for word, or the command is
opaque. It also finds the exact extent of every here-document, so that bashlex can be handed a text
whose here-documents it cannot misread (same length, so every offset stays valid).

Modelled: plain, single- and double-quoted words, backslash escapes, `$NAME`, `${NAME}`, the
special parameters, `$(...)`, backquotes and `<(...)`/`>(...)` (scanned recursively), arithmetic
`$((...))` over literals and plain names, the operators, redirections (fd numbers included), here-
documents with a plain delimiter (`EOF`, `'EOF'`, `"EOF"`, `\\EOF`), here-strings, comments, `(...)`,
`{ ...; }`, `if`, `while`, `until`, `for NAME in WORDS`, `!`. Everything else is a reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_META = frozenset(" \t\n;&|()<>")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = frozenset("?#$!@*-0123456789")
_ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")
_ARRAY_ASSIGN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[")
_ARITH_OK = re.compile(r"[\sA-Za-z0-9_+\-*/%()<>=!&|^~?:,]*")
_DELIM_RE = re.compile(r"[A-Za-z0-9_.\-]+")
# Reserved words the lexer models at command position (they start no simple command).
_RESERVED = frozenset({"if", "then", "elif", "else", "fi", "do", "done", "while", "until", "!"})
_UNMODELLED_WORDS = frozenset(
    {"case", "esac", "select", "function", "coproc", "time", "[[", "]]", "((", "))"}
)
_REDIR_OPS = ("&>>", "<<<", "<<-", "<<", ">>", ">|", "<>", ">&", "<&", "&>", ">", "<")


class Unmodelled(Exception):
    """A construct the analysis does not model; the message names it."""


@dataclass
class Heredoc:
    """One here-document: the delimiter word's span, the body's span, and whether it expands."""

    op_end: int
    delim_start: int
    delim_end: int
    delim: str
    strip_tabs: bool
    quoted: bool
    body_start: int = 0
    body_end: int = 0


@dataclass
class Scan:
    reason: str = ""
    # Simple commands (words after quote removal), top level and inside compound commands.
    commands: list[tuple[str, ...]] = field(default_factory=list)
    # Simple commands inside substitutions.
    nested: list[tuple[str, ...]] = field(default_factory=list)
    heredocs: list[Heredoc] = field(default_factory=list)
    names: set[str] = field(default_factory=set)  # parameters the command expands
    assigned: set[str] = field(default_factory=set)  # names it sets (assignments, `for NAME`)
    arith_names: set[str] = field(default_factory=set)  # names read inside `$((...))`
    arith_spans: list[tuple[int, int]] = field(default_factory=list)
    # The words of `for NAME in WORDS`: bash expands their globs, which lists folders.
    loop_words: list[str] = field(default_factory=list)


def scan(text: str) -> Scan:
    out = Scan()
    try:
        lexer = _Lexer(text, out)
        lexer.commands(0, nested=False, until=None)
        if lexer.pending:
            raise Unmodelled("a here-document without a body")
    except Unmodelled as exc:
        out.reason = str(exc)
    except IndexError:
        out.reason = "the command ends in the middle of a construct"
    return out


class _Lexer:
    def __init__(self, text: str, out: Scan) -> None:
        self.text = text
        self.out = out
        self.i = 0
        self.pending: list[Heredoc] = []

    # -- commands -----------------------------------------------------------------------------

    def commands(self, depth: int, nested: bool, until: str | None) -> None:
        """Lex commands until end of text, or an unmatched `until` (`)` or a backquote)."""
        if depth > 8:
            raise Unmodelled("substitutions nested too deeply")
        t = self.text
        words: list[str] = []
        at_start = True  # the next word is in command position
        for_state = ""  # "" / "name" (after `for`) / "words" (after `in`)
        while True:
            self._blanks()
            if self.i >= len(t):
                break
            c = t[self.i]
            if until is not None and c == until:
                break
            if c == "#" and self._word_start():
                while self.i < len(t) and t[self.i] != "\n":
                    self.i += 1
                continue
            if c == "\n":
                self.i += 1
                self._flush(words, nested)
                words, at_start, for_state = [], True, ""
                self._read_heredoc_bodies()
                continue
            op = self._operator()
            if op is not None:
                if op in (";;", ";&", ";;&"):
                    raise Unmodelled("`case` syntax")
                if op == "(":
                    if words:
                        raise Unmodelled("a function definition or `(` inside a command")
                    if t.startswith("(", self.i):
                        raise Unmodelled("arithmetic command `((`")
                    self._flush(words, nested)
                    self.commands(depth + 1, nested, ")")
                    if self.i >= len(t):
                        raise Unmodelled("an unclosed `(`")
                    self.i += 1
                    words, at_start = [], False
                    continue
                if op == ")":
                    raise Unmodelled("an unmatched `)`")
                self._flush(words, nested)
                words, at_start, for_state = [], True, ""
                continue
            redir = self._redirect_op()
            if redir is not None:
                self._redirect(redir, depth)
                continue
            start = self.i
            word, raw = self._word(depth)
            if for_state == "name":
                if not _NAME_RE.fullmatch(word):
                    raise Unmodelled("`for` with a form other than `for NAME in WORDS`")
                self.out.assigned.add(word)
                for_state = "after-name"
                continue
            if for_state == "after-name":
                if word != "in":
                    raise Unmodelled("`for` with a form other than `for NAME in WORDS`")
                for_state = "words"
                continue
            if for_state == "words":
                if word == "do":  # `for x in a b do` is not valid bash; be strict
                    raise Unmodelled("`for` without `;` before `do`")
                self.out.loop_words.append(word)
                continue  # the loop's words are data, not a command
            if at_start and not words and raw == word:
                if word in _RESERVED:
                    continue
                if word in ("{", "}"):
                    continue
                if word == "for":
                    for_state = "name"
                    continue
                if word in _UNMODELLED_WORDS or word.startswith("(("):
                    raise Unmodelled(f"`{word}`")
            if not words:
                m = _ASSIGN_RE.match(raw)
                if _ARRAY_ASSIGN_RE.match(raw):
                    raise Unmodelled("an array assignment (its subscript is arithmetic)")
                if m is not None:
                    self.out.assigned.add(m.group(1))
                    continue  # an assignment: not part of the command's words
            if word == "}" and not words:
                continue
            del start
            words.append(word)
            at_start = False
        self._flush(words, nested)

    def _flush(self, words: list[str], nested: bool) -> None:
        if words:
            (self.out.nested if nested else self.out.commands).append(tuple(words))

    def _word_start(self) -> bool:
        return self.i == 0 or self.text[self.i - 1] in _META

    def _blanks(self) -> None:
        t = self.text
        while self.i < len(t):
            if t[self.i] in " \t":
                self.i += 1
            elif t.startswith("\\\n", self.i):
                self.i += 2
            else:
                break

    def _operator(self) -> str | None:
        t = self.text
        for op in (";;&", ";;", ";&", "&&", "||", "|&", ";", "|", "(", ")"):
            if t.startswith(op, self.i):
                self.i += len(op)
                return op
        if t.startswith("&", self.i) and not t.startswith("&>", self.i):
            self.i += 1
            return "&"
        return None

    def _redirect_op(self) -> str | None:
        t = self.text
        j = self.i
        while j < len(t) and t[j].isdigit():
            j += 1
        if t.startswith("{", self.i) and re.match(r"\{[A-Za-z_][A-Za-z0-9_]*\}[<>]", t[self.i :]):
            raise Unmodelled("a redirection to a named file descriptor")
        for op in _REDIR_OPS:
            if t.startswith(op, j):
                if j > self.i and op.startswith("&"):
                    return None
                if op in ("<", ">") and t.startswith("(", j + 1):
                    return None  # a process substitution, lexed as a word
                self.i = j + len(op)
                return op
        return None

    def _redirect(self, op: str, depth: int) -> None:
        self._blanks()
        if op in ("<<", "<<-"):
            start = self.i
            word, raw = self._word(depth)
            end = self.i
            quoted = raw != word
            if not _DELIM_RE.fullmatch(word) or (
                quoted and raw not in (f"'{word}'", f'"{word}"', f"\\{word}")
            ):
                raise Unmodelled("a here-document delimiter quoted in an unusual way")
            self.pending.append(Heredoc(start, start, end, word, op == "<<-", quoted))
            return
        if op in (">&", "<&"):
            m = re.match(r"[0-9]+-?|-", self.text[self.i :])
            if m is not None:
                self.i += m.end()
                return
        if self.i >= len(self.text) or self.text[self.i] in _META:
            raise Unmodelled("a redirection without a target")
        self._word(depth)

    def _read_heredoc_bodies(self) -> None:
        """After a newline: the bodies of the here-documents started on the line just ended."""
        t = self.text
        for doc in self.pending:
            doc.body_start = self.i
            while True:
                if self.i >= len(t):
                    raise Unmodelled(f"a here-document not ended by {doc.delim}")
                nl = t.find("\n", self.i)
                line_end = len(t) if nl == -1 else nl
                line = t[self.i : line_end]
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line == doc.delim:
                    doc.body_end = self.i
                    self.i = line_end + 1 if nl != -1 else line_end
                    break
                body_line = t[self.i : line_end]
                if not doc.quoted:
                    self._check_expanding_body(body_line)
                self.i = line_end + 1
                if nl == -1:
                    raise Unmodelled(f"a here-document not ended by {doc.delim}")
            self.out.heredocs.append(doc)
        self.pending = []

    def _check_expanding_body(self, line: str) -> None:
        """An unquoted delimiter: the body expands `$` and backquotes. Only plain names pass."""
        if "`" in line or "\\" in line:
            raise Unmodelled("a here-document body that expands (backquote or backslash)")
        for m in re.finditer(r"\$(\{)?([A-Za-z_][A-Za-z0-9_]*|.)?", line):
            name = m.group(2) or ""
            if m.group(1):
                if not line.startswith("}", m.end()) or not _NAME_RE.fullmatch(name):
                    raise Unmodelled("a parameter expansion in a here-document body")
            elif name and name in "('\"[":
                raise Unmodelled("a substitution in a here-document body")
            if _NAME_RE.fullmatch(name):
                self.out.names.add(name)

    # -- words --------------------------------------------------------------------------------

    def _word(self, depth: int) -> tuple[str, str]:
        """(value after quote removal, raw text) of the word at the cursor."""
        t = self.text
        start = self.i
        value: list[str] = []
        while self.i < len(t):
            c = t[self.i]
            if c in _META:
                if c in "<>" and t.startswith("(", self.i + 1) and self.i == start:
                    value.append(self._subst(depth, self.i + 2))  # process substitution
                    continue
                break
            if c == "'":
                end = t.index("'", self.i + 1)
                value.append(t[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                value.append(self._double(depth))
            elif c == "\\":
                if t.startswith("\\\n", self.i):
                    self.i += 2
                    continue
                value.append(t[self.i + 1])
                self.i += 2
            elif c == "$":
                value.append(self._dollar(depth, quoted=False))
            elif c == "`":
                value.append(self._backquote(depth))
            else:
                value.append(c)
                self.i += 1
        if self.i == start:
            raise Unmodelled(f"unexpected {t[self.i]!r}")
        return "".join(value), t[start : self.i]

    def _double(self, depth: int) -> str:
        t = self.text
        self.i += 1
        value: list[str] = []
        while True:
            c = t[self.i]
            if c == '"':
                self.i += 1
                return "".join(value)
            if c == "\\":
                nxt = t[self.i + 1]
                if nxt == "\n":
                    self.i += 2
                    continue
                value.append(nxt if nxt in '$`"\\' else "\\" + nxt)
                self.i += 2
            elif c == "$":
                value.append(self._dollar(depth, quoted=True))
            elif c == "`":
                value.append(self._backquote(depth))
            else:
                value.append(c)
                self.i += 1

    def _dollar(self, depth: int, quoted: bool) -> str:
        t = self.text
        start = self.i
        nxt = t[self.i + 1] if self.i + 1 < len(t) else ""
        if nxt == "(":
            if t.startswith("((", self.i + 1):
                return self._arith()
            return self._subst(depth, self.i + 2)
        if nxt == "{":
            end = t.find("}", self.i + 2)
            body = t[self.i + 2 : end] if end != -1 else ""
            if end == -1 or not (_NAME_RE.fullmatch(body) or body in _SPECIAL):
                raise Unmodelled(f"the parameter expansion ${{{body[:20]}...}}")
            if _NAME_RE.fullmatch(body):
                self.out.names.add(body)
            self.i = end + 1
            return t[start : self.i]
        if nxt in ("'", '"') and not quoted:
            raise Unmodelled("ANSI-C or locale quoting ($'...' / $\"...\")")
        if nxt == "[":
            raise Unmodelled("arithmetic `$[...]`")
        m = _NAME_RE.match(t, self.i + 1)
        if m is not None:
            self.out.names.add(m.group())
            self.i = m.end()
            return t[start : self.i]
        if nxt and nxt in _SPECIAL:
            self.i += 2
            return t[start : self.i]
        self.i += 1
        return "$"  # a lone `$` is literal

    def _arith(self) -> str:
        t = self.text
        start = self.i
        end, depth = -1, 0
        for k in range(self.i + 3, len(t)):
            if t[k] == "(":
                depth += 1
            elif t[k] == ")":
                if depth == 0:
                    end = k if t.startswith("))", k) else -1
                    break
                depth -= 1
        body = t[self.i + 3 : end] if end != -1 else ""
        if end == -1 or not _ARITH_OK.fullmatch(body):
            raise Unmodelled("arithmetic with something other than literals and plain names")
        self.out.arith_names.update(_NAME_RE.findall(body))
        self.i = end + 2
        self.out.arith_spans.append((start, self.i))
        return arith_placeholder(self.i - start)

    def _subst(self, depth: int, inner_start: int) -> str:
        start = self.i
        self.i = inner_start
        self.commands(depth + 1, nested=True, until=")")
        if self.i >= len(self.text):
            raise Unmodelled("an unclosed substitution")
        self.i += 1
        return self.text[start : self.i]

    def _backquote(self, depth: int) -> str:
        t = self.text
        start = self.i
        j = self.i + 1
        inner: list[str] = []
        while t[j] != "`":
            if t[j] == "\\" and t[j + 1] in "`$\\":
                inner.append(t[j + 1])
                j += 2
            else:
                inner.append(t[j])
                j += 1
        sub = Scan()
        lexer = _Lexer("".join(inner), sub)
        lexer.commands(depth + 1, nested=True, until=None)
        if sub.reason or lexer.pending or sub.arith_spans:
            raise Unmodelled(sub.reason or "a here-document inside backquotes")
        self.out.nested.extend(sub.commands + sub.nested)
        self.out.names |= sub.names
        self.out.assigned |= sub.assigned
        self.out.loop_words += sub.loop_words
        self.out.arith_names |= sub.arith_names
        self.i = j + 1
        return t[start : self.i]


def arith_placeholder(width: int) -> str:
    """What an arithmetic expansion is shown to bashlex as (it cannot parse one): a parameter of
    the same width, so the word stays dynamic and every offset stays valid."""
    return "$" + "_" * (width - 1)


def bashlex_text(text: str, result: Scan) -> str:
    """`text` with every here-document rewritten so bashlex ends it where bash does: the delimiter
    unquoted (padded to the same length) and the body blanked (its content is data); arithmetic
    expansions become placeholders."""
    if not result.heredocs and not result.arith_spans:
        return text
    chars = list(text)
    for start, end in result.arith_spans:
        chars[start:end] = list(arith_placeholder(end - start))
    for doc in result.heredocs:
        width = doc.delim_end - doc.delim_start
        chars[doc.delim_start : doc.delim_end] = list(doc.delim.ljust(width))
        for k in range(doc.body_start, doc.body_end):
            if chars[k] != "\n":
                chars[k] = " "
    return "".join(chars)
