"""Finding skills: folders holding a `SKILL.md`, as Claude Code 2.1 reads them (measured).

Folders, lowest precedence first (a later one replaces an earlier skill of the same name, as
custom commands do): `<project>/.claude/skills`, `<project>/.lathe/skills`, `~/.claude/skills`
(or `$CLAUDE_CONFIG_DIR/skills`), `$LATHE_CONFIG_DIR/skills`: the user's win, as in Claude Code. A skill is
named by its folder (`skills/pdf/SKILL.md` is `pdf`); a frontmatter `name` that differs is shown
beside it (`folder (name)`) and also reaches it. Frontmatter read: `description` (else the first
line of the body), `allowed-tools`, `model`, `argument-hint`, `disable-model-invocation` (not
offered to the model, the Skill tool refuses it, `/name` still works), `user-invocable: false`
(no `/name`). A SKILL.md whose frontmatter does not parse is skipped with a notice naming the file
and line: Claude Code would use it without its frontmatter, which could drop a
`disable-model-invocation` the author meant; skipping fails closed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.commands.loader import (
    CommandSet,
    CustomCommand,
    command_folders,
    command_from,
    first_line,
    read_markdown,
)
from app.memory.frontmatter import FrontmatterError, FrontValue, as_list, as_text
from app.memory.yaml_block import YamlBlockError, nested_block, parse_block
from app.permissions.project_links import ProjectConfinement

# Each description is cut here in the listing: the Agent Skills spec caps a description at 1024
# characters, and the listing is sent with every request.
MAX_DESCRIPTION = 1024
LISTING_HEADER = "The following skills are available for use with the Skill tool:"
LISTING_BUDGET = 30_000  # characters of the listing's entries (SkillSet.listing)
# Claude Code loads a folder whose name has spaces (reached through the Skill tool only: no
# `/name` can hold a space).
_NAME = re.compile(r"^[\w.-]+(?: [\w.-]+)*$")


@dataclass(frozen=True)
class Skill:
    name: str  # the folder's name
    path: Path  # its SKILL.md
    source: str  # "user" or "project"
    body: str
    description: str = ""
    display_name: str = ""  # the frontmatter `name`, when it differs from the folder's
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str = ""
    model_invocable: bool = True
    user_invocable: bool = True
    # A custom command offered through the Skill tool (Claude Code lists commands with the
    # skills): `/name` already runs it as a command, and it has no folder of its own to name.
    is_command: bool = False
    # `context: fork`: the agent type it runs as (its `agent`, else general-purpose); "" inline.
    fork_agent: str = ""
    # `when_to_use`: listed after the description (Claude Code 2.1.332, measured, ext-r4 F17).
    when_to_use: str = ""
    # Frontmatter `paths`: globs (from the session's folder); such a skill is left out of the
    # listing until a file matching one is worked on, then announced (SkillSet.reveal_for).
    paths: tuple[str, ...] = ()
    # `arguments:`: named arguments (app/commands/arguments.py substitute).
    arguments: tuple[str, ...] = ()
    # The frontmatter `hooks:` (settings files' shape) as JSON text, "" without: they run while
    # the skill is in scope, and such a skill asks before it loads, as in Claude Code.
    hooks_json: str = ""

    @property
    def hooks(self) -> dict[str, Any] | None:
        return json.loads(self.hooks_json) if self.hooks_json else None

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def listing_line(self) -> str:
        # A plugin's `ecc:accessibility` named `accessibility` says nothing new in brackets.
        redundant = self.name.endswith(f":{self.display_name}")
        shown = (
            f"{self.name} ({self.display_name})"
            if self.display_name and not redundant
            else self.name
        )
        desc = self.description or first_line(self.body) or "skill"
        if self.when_to_use:
            desc = f"{desc} - {self.when_to_use}"
        if len(desc) > MAX_DESCRIPTION:
            desc = desc[: MAX_DESCRIPTION - 1] + "…"
        return f"- {shown}: {desc}"

    def as_command(self) -> CustomCommand:
        return CustomCommand(
            name=self.name,
            path=self.path,
            source=self.source,
            body=self.body,
            description=self.description,
            argument_hint=self.argument_hint,
            allowed_tools=self.allowed_tools,
            model=self.model,
            base_dir=str(self.base_dir),
            arguments=self.arguments,
        )


@dataclass
class SkillSet:
    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # The `paths:` skills announced so far (their listing lines now go with the others).
    revealed: set[str] = field(default_factory=set)

    def get(self, name: str) -> Skill | None:
        found = self.skills.get(name.strip().lstrip("/"))
        if found is not None:
            return found
        # The frontmatter name reaches the skill too, as in Claude Code.
        return next((s for s in self.skills.values() if s.display_name == name), None)

    def sorted(self) -> list[Skill]:
        return [self.skills[k] for k in sorted(self.skills)]

    def listing(self) -> str:
        """The text offered to the model (empty when no skill may be invoked by it)."""
        listed = [s for s in self.sorted() if self._listed(s)]
        if not listed:
            return ""
        full = [s.listing_line() for s in listed]
        bare = [f"- {s.name}" for s in listed]
        # Within LISTING_BUDGET characters, as Claude Code 2.1.332 keeps its listing (about
        # 30,000 with 314 skills, measured, ext-r4 F5): every skill is named, the first ones
        # with their descriptions, the rest by name only (each is still one Skill call away).
        keep = len(full)
        size = sum(len(line) + 1 for line in full)
        while keep and size > LISTING_BUDGET:
            keep -= 1
            size -= len(full[keep]) - len(bare[keep])
        return f"{LISTING_HEADER}\n\n" + "\n".join(full[:keep] + bare[keep:])

    def _listed(self, skill: Skill) -> bool:
        return skill.model_invocable and (not skill.paths or skill.name in self.revealed)

    def has_conditional(self) -> bool:
        """True when a `paths:` skill may still be announced (so the Skill tool stays)."""
        return any(s.model_invocable and s.paths for s in self.skills.values())

    def reveal_for(self, start: Path, touched: Path) -> list[str]:
        """The announcement of the `paths:` skills a glob of which matches `touched` (relative
        to the session's folder `start`), each once: Claude Code 2.1.332 lists such a skill
        only after a matching file is read (measured, ext-r4 F17)."""
        from app.memory.nested import glob_matches

        try:
            rel = touched.relative_to(start).as_posix()
        except ValueError:
            return []
        new = [
            s
            for s in self.sorted()
            if s.paths
            and s.model_invocable
            and s.name not in self.revealed
            and any(glob_matches(g.removeprefix("./"), rel) for g in s.paths)
        ]
        if not new:
            return []
        self.revealed.update(s.name for s in new)
        lines = "\n".join(s.listing_line() for s in new)
        return [f"<system-reminder>\n{LISTING_HEADER}\n\n{lines}\n</system-reminder>"]


def _flag(value: object, default: bool) -> bool:
    text = as_text(value if isinstance(value, str | list) else None).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    return default


def parse_skill(path: Path, name: str, source: str) -> Skill:
    """One SKILL.md; raises FrontmatterError or OSError with the reason it is unusable."""
    fields, body = read_markdown(path)
    shared = command_from(fields, body, path, name, source)
    shown = as_text(fields.get("name")).strip()
    hooks_json = _skill_hooks(path)
    return Skill(
        name=name,
        path=path,
        source=source,
        body=body,
        description=shared.description,
        display_name=shown if shown and shown != name else "",
        argument_hint=shared.argument_hint,
        # `${CLAUDE_SKILL_DIR}` in a rule is the skill's folder, as Claude Code 2.1.332 fills it
        # (measured, ext-r3 F1b): `Bash(${CLAUDE_SKILL_DIR}/scripts/run.sh:*)` covers its script.
        allowed_tools=tuple(
            rule.replace("${CLAUDE_SKILL_DIR}", str(path.parent)) for rule in shared.allowed_tools
        ),
        model=shared.model,
        model_invocable=not _flag(fields.get("disable-model-invocation"), False),
        user_invocable=_flag(fields.get("user-invocable"), True),
        fork_agent=_fork_agent(fields),
        hooks_json=hooks_json,
        when_to_use=" ".join(as_text(fields.get("when_to_use")).split()),
        arguments=shared.arguments,
        paths=tuple(as_list(fields.get("paths"))),
    )


def _fork_agent(fields: Mapping[str, FrontValue]) -> str:
    """Claude Code runs a `context: fork` skill as a subagent of its `agent` type."""
    if as_text(fields.get("context")).strip().lower() != "fork":
        return ""
    return as_text(fields.get("agent")).strip() or "general-purpose"


def _skill_hooks(path: Path) -> str:
    """The skill's `hooks:` checked as a settings file's hooks would be; raises FrontmatterError
    (the skill is skipped: a guard that cannot be read must not be dropped silently)."""
    from app.config.hooks import HookSource, parse_hook_sources

    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        block = nested_block(text, "hooks")
        hooks = parse_block(block) if block is not None else None
    except YamlBlockError as exc:
        raise FrontmatterError(f"hooks: {exc}") from None
    if hooks is None:
        return ""
    config = parse_hook_sources([HookSource("skill", str(path), hooks)], trusted=True)
    errors = [p for p in config.problems if p.severity == "error"]
    if errors:
        raise FrontmatterError(f"hooks: {errors[0].message}")
    return json.dumps(hooks)


def load_skills(
    project_root: Path,
    config_dir: Path | None,
    env: Mapping[str, str] | None = None,
    plugins: Sequence[Any] = (),
    extra_dirs: Sequence[str] = (),
    sources: Collection[str] | None = None,
) -> SkillSet:
    out = SkillSet()
    folders = command_folders(project_root, config_dir, env, "skills", sources)
    # `--add-dir` folders' skills first: the session's own folders win a name clash.
    added = [(Path(d) / ".claude" / "skills", "project") for d in extra_dirs]
    folders = [*added, *(f for f in folders if f not in added)]
    # A plugin's skills (app/config/plugins.py) are `PLUGIN:NAME`, as Claude Code names them.
    # Its manifest's `skills` paths too: a folder of skill folders, or one skill's own folder.
    plugged = [
        (folder, "plugin", f"{p.name}:")
        for p in plugins
        for folder in (p.root / "skills", *getattr(p, "skill_paths", ()))
    ]
    # The session's own project is confined to itself until trusted; an `--add-dir` folder is
    # the user's choice of folder, confined to itself the same way.
    confinements = {Path(d): ProjectConfinement(Path(d), env) for d in extra_dirs}
    confinements[project_root] = ProjectConfinement(project_root, env)
    for folder, source, prefix in [*((f, s, "") for f, s in folders), *plugged]:
        confinement = next(
            (c for root, c in confinements.items() if folder.parent.parent == root), None
        )
        try:
            if source == "plugin" and (folder / "SKILL.md").is_file():
                found = [folder / "SKILL.md"]
            else:
                found = sorted(folder.glob("*/SKILL.md")) if folder.is_dir() else []
        except OSError as exc:
            out.problems.append(f"skills folder {folder} unreadable: {exc}")
            continue
        for path in found:
            name = path.parent.name
            if not _NAME.match(name):
                out.problems.append(f"skill {path} skipped: {name!r} is not a skill name")
                continue
            name = prefix + name
            refused = confinement.refusal(path) if source == "project" and confinement else ""
            if refused:
                out.problems.append(f"skill {path} skipped: {refused}")
                continue
            try:
                out.skills[name] = parse_skill(path, name, source)
            except (OSError, FrontmatterError) as exc:
                out.problems.append(f"skill {path} skipped: {exc}")
    return out


def add_skill_commands(commands: CommandSet, builtins: Collection[str] = ()) -> None:
    """Each skill a user may invoke becomes `/name` too, in place of a custom command of that
    name (but for a plugin's own command of the same name)."""
    skills = commands.skills
    if not isinstance(skills, SkillSet):
        return
    commands.problems.extend(skills.problems)
    for skill in skills.sorted():
        if not skill.user_invocable or " " in skill.name:
            continue
        if skill.name in builtins:
            commands.problems.append(
                f"skill /{skill.name} ({skill.path}) is not a slash command: "
                f"/{skill.name} is a built-in command"
            )
            continue
        command = commands.commands.get(skill.name)
        if command is not None and command.source == "plugin" and skill.source == "plugin":
            # One plugin's `commands/x.md` and `skills/x/`: Claude Code 2.1.332 runs the
            # command (measured on everything-claude-code, ext-r4 F12).
            continue
        # Elsewhere the skill wins, whatever folder the command is in (Claude Code 2.1.332,
        # measured, ext-r4 F12; its docs: "the skill takes precedence").
        commands.commands[skill.name] = skill.as_command()


def add_command_skills(commands: CommandSet) -> None:
    """Each custom command the model may invoke is offered through the Skill tool too, as in
    Claude Code (`Skill {"skill": "name"}` runs it); a skill of the same name wins. One with
    `disable-model-invocation: true` is not listed, and the tool refuses it in Claude Code's
    words (ext-r3 F11), not as an unknown skill."""
    skills = commands.skills
    if not isinstance(skills, SkillSet):
        return
    every = {**commands.commands, **commands.skill_only}
    for name, command in sorted(every.items()):
        if command.base_dir or name in skills.skills:
            continue
        skills.skills[name] = Skill(
            name=name,
            path=command.path,
            source=command.source,
            body=command.body,
            description=command.description,
            argument_hint=command.argument_hint,
            allowed_tools=command.allowed_tools,
            model=command.model,
            arguments=command.arguments,
            model_invocable=command.model_invocable,
            user_invocable=False,  # `/name` is the command itself
            is_command=True,
        )
