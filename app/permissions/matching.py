"""Matching one rule specifier against one call: shell command parts, paths, domains, MCP names."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit

from app.config.rules import Rule
from tools.web.urls import UrlError, canonical_host, host_of

# --- Bash ------------------------------------------------------------------------------------

_SHELL_SPECIAL = re.compile(r"[\s;&|<>()$`\"'\\]")


def quote_word(word: str) -> str:
    """Quote a word only when it needs it, so globs written in rules still compare equal."""
    if not word or _SHELL_SPECIAL.search(word):
        return shlex.quote(word)
    return word


def canonical(words: tuple[str, ...]) -> str:
    return " ".join(quote_word(w) for w in words)


@dataclass(frozen=True)
class BashPattern:
    kind: Literal["any", "exact", "prefix", "wildcard"]
    exact: str = ""
    prefix: tuple[str, ...] = ()
    regex: re.Pattern[str] | None = None


def _split(text: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError:
        return tuple(text.split())


@lru_cache(maxsize=4096)
def bash_pattern(spec: str | None) -> BashPattern:
    if spec is None:
        return BashPattern("any")
    spec = spec.strip()
    body = None
    if spec.endswith(":*") or spec.endswith(" *"):
        body = spec[:-2]
    if body is not None and "*" not in body:
        return BashPattern("prefix", prefix=_split(body))
    if "*" in spec:
        parts = []
        tail = ""
        core = spec
        if core.endswith(" *") or core.endswith(":*"):
            core, tail = core[:-2], "(?: .*)?"
        for i, chunk in enumerate(core.split("*")):
            if i:
                parts.append(".*")
            parts.append(re.escape(chunk))
        return BashPattern("wildcard", regex=re.compile("".join(parts) + tail + r"\Z", re.S))
    return BashPattern("exact", exact=canonical(_split(spec)))


def bash_matches(pattern: BashPattern, words: tuple[str, ...], text: str) -> bool:
    """Does `pattern` match the command `words` (canonical form `text`)?"""
    if pattern.kind == "any":
        return True
    if pattern.kind == "exact":
        return text == pattern.exact
    if pattern.kind == "prefix":
        n = len(pattern.prefix)
        return n > 0 and words[:n] == pattern.prefix
    assert pattern.regex is not None
    return pattern.regex.match(text) is not None


# --- Paths -----------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _spec(pattern: str) -> tuple[tuple[re.Pattern[str], bool], ...]:
    """The pattern compiled once by pathspec (gitignore semantics), kept as bare regexes.
    pathspec loads with the first path rule judged, not before a session's first request."""
    import pathspec

    spec: Any = pathspec.PathSpec.from_lines("gitignore", [pattern])
    return tuple((p.regex, bool(p.include)) for p in spec.patterns if p.include is not None)


@lru_cache(maxsize=8192)
def path_rule_root(rule: Rule, project_dir: str, home: str) -> tuple[str, str]:
    """(root folder, gitignore pattern relative to it) for a path rule's specifier."""
    spec = rule.specifier or ""
    if spec.startswith("//"):
        root, pattern = "/", "/" + spec[2:].lstrip("/")
    elif spec == "~" or spec.startswith("~/"):
        root, pattern = home, ("/" + spec[2:] if len(spec) > 2 else "/**")
    elif spec.startswith("/"):
        root, pattern = rule.base_dir or project_dir, spec
    elif spec.startswith("./"):
        root, pattern = project_dir, "/" + spec[2:]
    else:
        root, pattern = project_dir, spec
    return os.path.normpath(root), pattern


@dataclass(frozen=True)
class CompiledPathRule:
    """A path rule with its root and regexes resolved once per permission context, so checking a
    path is a prefix test and a few regex searches (no hashing of the rule per call)."""

    rule: Rule
    root: str
    pattern: str
    regexes: tuple[tuple[re.Pattern[str], bool], ...]


def compile_path_rule(rule: Rule, project_dir: str, home: str) -> CompiledPathRule:
    root, pattern = path_rule_root(rule, project_dir, home)
    return CompiledPathRule(rule, root, pattern, _spec(pattern))


def relative_to_root(root: str, path: str) -> str | None:
    """`path` relative to a rule's root ("." for the root itself), or None when outside it."""
    if root == "/":
        return path.lstrip("/")
    if path == root:
        return "."
    if path.startswith(root) and path[len(root) : len(root) + 1] == os.sep:
        return path[len(root) + 1 :]
    return None


def rel_matches(c: CompiledPathRule, rel: str) -> bool:
    if rel in ("", "."):
        return c.pattern in ("/**", "**", "/")
    matched = False
    for regex, include in c.regexes:
        if regex.search(rel):
            matched = include
    return matched


def compiled_matches(c: CompiledPathRule, path: str) -> bool:
    """Gitignore semantics, anchored at the rule's root; `path` is absolute and normalised."""
    rel = relative_to_root(c.root, path)
    return rel is not None and rel_matches(c, rel)


# --- WebFetch --------------------------------------------------------------------------------


def url_hosts(url: str) -> tuple[str, ...]:
    """Every host a URL could be read as reaching, the one it reaches first, in canonical form
    (tools.web.urls: every IPv4 spelling, IPv6-mapped, case, IDNA, trailing dot). Empty when it
    cannot be trusted to one host; see url_host_normalised for a first host that is not."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ()
    netloc = parts.netloc
    if parts.scheme.lower() not in ("http", "https") or not netloc:
        return ()
    hosts = []
    hostname = host_of(url.strip()) or (parts.hostname or "").rstrip(".").lower()
    if hostname:
        hosts.append(hostname)
    # `http://a.com\@b.com` and userinfo: also consider what a lenient client could read.
    for piece in re.split(r"[@\\/]", netloc):
        raw = piece if piece.startswith("[") else piece.rsplit(":", 1)[0]
        try:
            h = canonical_host(raw)
        except UrlError:
            h = raw.strip("[]").rstrip(".").lower()
        if h and h not in hosts:
            hosts.append(h)
    return tuple(hosts)


def url_host_normalised(url: str) -> bool:
    """Whether the URL's host has one canonical form (the form WebFetch connects to)."""
    return bool(host_of(url.strip()))


def url_is_plain(url: str) -> bool:
    """No userinfo, backslashes, percent-escapes, spaces or non-ASCII in the authority (no host
    tricks: an allow rule names one host as the user typed it)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    netloc = parts.netloc
    return (
        bool(netloc)
        and netloc.isascii()
        and not any(c in netloc for c in "@\\% \t")
        and parts.scheme.lower()
        in (
            "http",
            "https",
        )
    )


def _canonical_rule_host(text: str) -> str:
    """A rule's host in the form hosts are compared in (`domain:0x7f.1` is 127.0.0.1)."""
    want = text.strip()
    wild = want.startswith("*.")
    try:
        name = canonical_host(want.removeprefix("*."))
    except UrlError:
        name = want.removeprefix("*.").rstrip(".").lower()
    return "*." + name if wild else name


def domain_matches(spec: str, host: str, subdomains: bool = False) -> bool:
    """`domain:example.com` matches that host exactly; `domain:*.example.com` its subdomains.

    `subdomains` (deny and ask rules): `domain:evil.com` also covers `x.evil.com`.
    """
    want = _canonical_rule_host(spec[len("domain:") :])
    host = host.rstrip(".").lower()
    if subdomains and host.endswith("." + want.removeprefix("*.")):
        return True
    if want.startswith("*."):
        return host.endswith(want[1:]) and len(host) > len(want) - 1
    return host == want


# --- MCP -------------------------------------------------------------------------------------


def mcp_matches(rule: Rule, tool_name: str, strict: bool = False) -> bool:
    """`mcp__s` and `mcp__s__*` match every tool of server s; `mcp__s__t` only that tool.

    `strict` (for allow rules): a name that could also be read as another server's tool
    (`mcp__s__x__y` is server s or server `s__x`) is not matched by a server-wide rule.
    """
    server, tool = rule.mcp_parts()
    if not server:
        return False
    if not strict:
        # Deny and ask: a server's name may itself hold `__` (`a__b`), so `mcp__a__b` is also the
        # whole of server `a__b`. Reading the rule as a prefix covers every split; it can only
        # cover more (server a's tool `b__x`, itself ambiguous), which for a deny fails closed.
        base = rule.tool[: -len("__*")] if rule.tool.endswith("__*") else rule.tool
        if tool_name == base and not rule.tool.endswith("__*"):
            return True
        return tool_name.startswith(base + "__") and len(tool_name) > len(base) + 2
    if tool is None:
        prefix = f"mcp__{server}__"
        rest = tool_name[len(prefix) :]
        if not tool_name.startswith(prefix) or not rest:
            return False
        # `mcp__gh___x` is tool `_x` of gh or tool `x` of a server named `gh_` (`gh.` normalised):
        # a leading `_` is as ambiguous as an inner `__`.
        return not (strict and ("__" in rest or rest.startswith("_")))
    return tool_name == f"mcp__{server}__{tool}"
