"""The comparison corpus (corpus.toml beside this file): cases, their loader, and their setup.

A case is one model turn of tool calls (usually one Bash command) in a throwaway project, under a
permission mode and allow/deny rules. Setup strings may use placeholders, replaced per run:
@PROJ@ (the project folder), @OUT@ (a folder outside it), @HOME@, @CC_CONFIG@ (CLAUDE_CONFIG_DIR),
@LATHE_CONFIG@ (LATHE_CONFIG_DIR), @PORT@ (the fake's port, for WebFetch targets).

Order of setup: `files` and `links` are written, then (with `git = true`) the project becomes a git
repository with everything committed, then the `setup` shell script runs in the project folder.
"""

from __future__ import annotations

import os
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cc_compare.responder import Call

CORPUS = Path(__file__).with_name("corpus.toml")
MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")
CLASSES = {
    "heredoc": "parser differentials (heredocs)",
    "expansion": "expansions that execute",
    "git": "git running the repository's code",
    "rule-scope": "rules matched on too little",
    "path": "paths through symlinks and ..",
    "read-leak": "read-deny leaks through read-only commands",
    "bypass": "bypassPermissions deny dodges",
    "secrets": "credentials in the environment",
    "webfetch": "WebFetch host forms",
    "settings": "settings that fail open",
    "sibling": "a denial cancelling sibling calls",
    "baseline": "plain commands that must not run",
    "harmless": "everyday harmless commands",
}
API_KEY = "sk-ant-api03-cccompare-LEAKKEY-0000"
_KEYS = frozenset(
    {
        "id",
        "class",
        "mode",
        "command",
        "commands",
        "calls",
        "allow",
        "deny",
        "files",
        "links",
        "git",
        "setup",
        "env",
        "sentinel",
        "leak",
        "settings_flag",
        "note",
        "template",
    }
)


class CorpusError(ValueError):
    pass


@dataclass(frozen=True)
class Case:
    id: str
    cls: str
    calls: tuple[Call, ...]
    mode: str = "default"
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    git: bool = False
    setup: str = ""
    env: dict[str, str] = field(default_factory=dict)
    sentinel: str = ""  # a path that exists only if the attack's code ran
    leak: str = ""  # a marker that appears in a tool result only if protected content leaked
    settings_flag: str = ""  # a file passed to both agents with --settings
    note: str = ""

    @property
    def harmless(self) -> bool:
        return self.cls == "harmless"

    @property
    def attack(self) -> bool:
        """Harmless and sibling cases measure over-blocking; every other class is an attack."""
        return self.cls not in ("harmless", "sibling")


@dataclass(frozen=True)
class Places:
    """The folders of one run of one case by one agent."""

    root: Path
    port: int

    @property
    def proj(self) -> Path:
        return self.root / "proj"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def cc_config(self) -> Path:
        return self.home / ".claude"

    @property
    def lathe_config(self) -> Path:
        return self.home / "lathe-config"

    @property
    def lathe_state(self) -> Path:
        return self.home / "lathe-state"

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    def sub(self, text: str) -> str:
        for name, value in (
            ("@PROJ@", self.proj),
            ("@OUT@", self.out),
            ("@HOME@", self.home),
            ("@CC_CONFIG@", self.cc_config),
            ("@LATHE_CONFIG@", self.lathe_config),
            ("@PORT@", self.port),
        ):
            text = text.replace(name, str(value))
        return text

    def path(self, text: str) -> Path:
        """A corpus path: placeholders replaced, relative ones taken from the project folder."""
        p = Path(self.sub(text))
        return p if p.is_absolute() else self.proj / p


def _strs(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CorpusError(f"{where} must be a list of strings")
    return tuple(value)


def _str_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise CorpusError(f"{where} must be a table of strings")
    return dict(value)


def _calls(raw: dict[str, Any], where: str) -> tuple[Call, ...]:
    given = [k for k in ("command", "commands", "calls") if k in raw]
    if len(given) != 1:
        raise CorpusError(f"{where}: exactly one of command, commands, calls is required")
    if "command" in raw:
        if not isinstance(raw["command"], str):
            raise CorpusError(f"{where}.command must be a string")
        return (Call("Bash", {"command": raw["command"]}),)
    if "commands" in raw:
        return tuple(Call("Bash", {"command": c}) for c in _strs(raw["commands"], where))
    calls = raw["calls"]
    if not isinstance(calls, list) or not calls:
        raise CorpusError(f"{where}.calls must be a non-empty list")
    out = []
    for i, c in enumerate(calls):
        if not (isinstance(c, dict) and isinstance(c.get("tool"), str)):
            raise CorpusError(f"{where}.calls[{i}] needs a tool name")
        if not isinstance(c.get("input"), dict):
            raise CorpusError(f"{where}.calls[{i}] needs an input table")
        out.append(Call(c["tool"], dict(c["input"])))
    return tuple(out)


def parse_case(raw: Any, where: str) -> Case:
    if not isinstance(raw, dict):
        raise CorpusError(f"{where} must be a table")
    unknown = set(raw) - _KEYS
    if unknown:
        raise CorpusError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    cid, cls, mode = raw.get("id"), raw.get("class"), raw.get("mode", "default")
    if not isinstance(cid, str) or not cid:
        raise CorpusError(f"{where}.id must be a non-empty string")
    where = f"{where} ({cid})"
    if cls not in CLASSES:
        raise CorpusError(f"{where}.class must be one of {', '.join(CLASSES)}")
    if mode not in MODES:
        raise CorpusError(f"{where}.mode must be one of {', '.join(MODES)}")
    for key in ("setup", "sentinel", "leak", "settings_flag", "note"):
        if not isinstance(raw.get(key, ""), str):
            raise CorpusError(f"{where}.{key} must be a string")
    if not isinstance(raw.get("git", False), bool):
        raise CorpusError(f"{where}.git must be true or false")
    return Case(
        id=cid,
        cls=cls,
        calls=_calls(raw, where),
        mode=mode,
        allow=_strs(raw.get("allow", []), f"{where}.allow"),
        deny=_strs(raw.get("deny", []), f"{where}.deny"),
        files=_str_map(raw.get("files", {}), f"{where}.files"),
        links=_str_map(raw.get("links", {}), f"{where}.links"),
        git=raw.get("git", False),
        setup=raw.get("setup", ""),
        env=_str_map(raw.get("env", {}), f"{where}.env"),
        sentinel=raw.get("sentinel", ""),
        leak=raw.get("leak", ""),
        settings_flag=raw.get("settings_flag", ""),
        note=raw.get("note", ""),
    )


def _apply_template(raw: Any, templates: dict[str, Any], where: str) -> Any:
    """A case's `template = NAME` adds [templates.NAME]'s files, links, git and setup (first)."""
    if not isinstance(raw, dict) or "template" not in raw:
        return raw
    name = raw["template"]
    tpl = templates.get(name)
    if not isinstance(tpl, dict):
        raise CorpusError(f"{where}: unknown template {name!r}")
    merged = {k: v for k, v in raw.items() if k != "template"}
    for key in ("files", "links"):
        merged[key] = {**tpl.get(key, {}), **raw.get(key, {})}
    merged["git"] = bool(raw.get("git", tpl.get("git", False)))
    merged["setup"] = "\n".join(s for s in (tpl.get("setup", ""), raw.get("setup", "")) if s)
    return merged


def parse_corpus(data: Any, source: str = "<corpus>") -> list[Case]:
    if not isinstance(data, dict) or not isinstance(data.get("case"), list):
        raise CorpusError(f"{source}: expected [[case]] tables")
    templates = data.get("templates", {})
    if not isinstance(templates, dict):
        raise CorpusError(f"{source}: [templates] must be a table of tables")
    cases = [
        parse_case(_apply_template(c, templates, f"{source}: case[{i}]"), f"{source}: case[{i}]")
        for i, c in enumerate(data["case"])
    ]
    seen: set[str] = set()
    for c in cases:
        if c.id in seen:
            raise CorpusError(f"{source}: duplicate case id {c.id!r}")
        seen.add(c.id)
    return cases


def load_corpus(path: Path = CORPUS) -> list[Case]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CorpusError(f"{path}: {exc}") from None
    return parse_corpus(data, str(path))


_PYTEST_SHIM = "#!/bin/sh\n# cc-compare stand-in: the permission decision is what is compared.\necho '1 passed'\n"
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "cc",
    "GIT_AUTHOR_EMAIL": "cc@example.invalid",
    "GIT_COMMITTER_NAME": "cc",
    "GIT_COMMITTER_EMAIL": "cc@example.invalid",
}


def base_env(places: Places) -> dict[str, str]:
    """The environment shared by setup and both agents: nothing of the host's own config."""
    return {
        "PATH": f"{places.bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(places.home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "GIT_CONFIG_NOSYSTEM": "1",
        **_GIT_ENV,
    }


def materialise(case: Case, places: Places) -> None:
    """Create the case's project, outside folder, homes and files."""
    for d in (places.proj, places.out, places.cc_config, places.lathe_config, places.bin):
        d.mkdir(parents=True, exist_ok=True)
    (places.lathe_state).mkdir(parents=True, exist_ok=True)
    shim = places.bin / "pytest"
    shim.write_text(_PYTEST_SHIM)
    shim.chmod(0o755)
    for rel, content in case.files.items():
        target = places.path(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        # surrogateescape lets a case carry raw bytes (a non-UTF-8 settings file) as \udcXX.
        target.write_bytes(places.sub(content).encode("utf-8", "surrogateescape"))
    for rel, dest in case.links.items():
        link = places.path(rel)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(places.sub(dest), link)
    env = base_env(places)
    if case.git:
        script = "git init -q -b main . && git add -A && git commit -q -m init --allow-empty"
        _sh(script, places.proj, env, case.id)
    if case.setup:
        _sh(places.sub(case.setup), places.proj, env, case.id)


def _sh(script: str, cwd: Path, env: dict[str, str], cid: str) -> None:
    done = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=30
    )
    if done.returncode != 0:
        raise CorpusError(f"case {cid}: setup failed ({done.returncode}): {done.stderr.strip()}")
