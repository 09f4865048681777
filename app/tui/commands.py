"""Slash commands, and the same commands in Textual's command palette."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Literal

from textual.app import SystemCommand
from textual.screen import Screen

from app.engine.events import Notice
from app.tui.app_base import AppBase
from app.tui.screens.resume import ResumeScreen
from themes.loader import ThemeError, ThemeSet, lathe_themes
from widgets.prompt_input import SlashCommand
from widgets.status_bar import human_tokens

COMMANDS = (
    SlashCommand("help", "Show the keys and commands"),
    SlashCommand("clear", "Clear the conversation view"),
    SlashCommand("model", "Show the model (or /model NAME to switch)"),
    SlashCommand("permissions", "Show the permission mode and rules"),
    SlashCommand("resume", "Resume an earlier session of this folder"),
    SlashCommand("theme", "List themes, or /theme NAME to switch"),
    SlashCommand("cost", "Tokens, cache hits and cost of this session"),
    SlashCommand("context", "What fills the model's context window"),
    SlashCommand("compact", "Summarise the conversation to free context: /compact [instructions]"),
    SlashCommand("tools", "The tools the model can use"),
    SlashCommand("mcp", "MCP servers and their status"),
    SlashCommand("quit", "Quit lathe"),
)

HELP_TEXT = """Keys: Enter send · Shift+Enter/Ctrl+J new line · Up/Down history · Tab complete /commands
Ctrl+C interrupt (idle: clear the prompt; empty: twice to quit) · Esc interrupt
Shift+Tab permission mode (default → acceptEdits → plan) · F2 mouse capture on/off (off: select
and copy with the terminal) · Ctrl+P command palette
Commands: """ + " ".join(f"/{c.name}" for c in COMMANDS)


class SlashCommands(AppBase):
    themes: ThemeSet

    def load_themes(self) -> None:
        folder = self.config.user_theme_dir
        self.themes = lathe_themes(Path(folder) if folder else None)
        for theme in self.themes.themes.values():
            self.register_theme(theme)
        for error in self.themes.errors:
            self.notice(f"Theme file skipped: {error}", "warning")

    def apply_theme(self, name: str) -> bool:
        try:
            self.themes.get(name)
        except ThemeError as exc:
            self.notice(str(exc), "error")
            return False
        self.theme = name
        return True

    def notice(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None:
        self.handle_engine_event(Notice(text, level))

    # -- custom commands (.claude/commands; app/commands/loader.py) ------------------------------
    def add_custom_commands(self) -> None:
        """Offer the session's custom commands in `/` completion and the palette."""
        # Through the session port (the parts' `extra` dict it once read is gone): custom
        # commands and skills alike.
        listing = getattr(self.session, "custom_commands", None)
        if not callable(listing):
            return
        self.custom_commands = [SlashCommand(c.name, c.help) for c in listing()]
        builtin = [c for c in self.main.prompt.commands if c.name in {b.name for b in COMMANDS}]
        self.main.prompt.commands = builtin + self.custom_commands

    def is_custom_command(self, text: str) -> bool:
        name = text.strip().lstrip("/").partition(" ")[0]
        return any(c.name == name for c in getattr(self, "custom_commands", ()))

    def run_slash_command(self, text: str) -> None:
        name, _, arg = text.lstrip("/").partition(" ")
        arg = arg.strip()
        handler = getattr(self, f"cmd_{name}", None)
        if name not in {c.name for c in COMMANDS} or handler is None:
            self.notice(f"Unknown command /{name}. Type /help for the list.", "warning")
            return
        handler(arg)

    def cmd_help(self, arg: str) -> None:
        self.notice(HELP_TEXT)

    def cmd_clear(self, arg: str) -> None:
        """Start a fresh conversation: the model forgets it too (the transcript keeps it)."""
        forget = getattr(self.session, "clear", None)
        if callable(forget) and forget() is False:
            self.notice("A turn is running: interrupt it first (Esc), then /clear.", "warning")
            return
        self.main.conversation.clear_blocks()

    def cmd_model(self, arg: str) -> None:
        current = self.session.model if self.session else self.config.model
        if not arg:
            self.notice(f"Model: {current or 'none'}")
            return
        setter = getattr(self.session, "set_model", None)
        if not callable(setter):
            self.notice("Switching models needs a running session.", "warning")
            return
        setter(arg)
        self.main.status_bar.set(model=arg)
        self.notice(f"Model set to {arg}")

    def cmd_permissions(self, arg: str) -> None:
        lines = [f"Permission mode: {self.permission_mode} (Shift+Tab cycles)"]
        describe = getattr(self.session, "describe_permissions", None)
        if callable(describe):
            lines.append(str(describe()))
        else:
            lines.append("No rules loaded.")
        self.notice("\n".join(lines))

    def cmd_resume(self, arg: str) -> None:
        lister = self.config.list_sessions
        if lister is None:
            self.notice("No saved sessions to resume.", "warning")
            return
        self.push_screen(ResumeScreen(list(lister())), self._resume_picked)

    def _resume_picked(self, session_id: str | None) -> None:
        if session_id and self.config.on_resume is not None:
            self.config.on_resume(session_id)
            self.notice(f"Resumed session {session_id}")

    def cmd_theme(self, arg: str) -> None:
        if not arg:
            self.notice(f"Theme: {self.theme}. Available: {', '.join(self.themes.names())}")
            return
        if self.apply_theme(arg):
            self.notice(f"Theme set to {arg}")

    def cmd_cost(self, arg: str) -> None:
        u = self.usage
        if u is None:
            self.notice("No requests yet: $0.0000")
            return
        self.notice(
            f"Input {human_tokens(u.input_tokens)} · output {human_tokens(u.output_tokens)} · "
            f"cache read {human_tokens(u.cache_read_tokens)} · cache write "
            f"{human_tokens(u.cache_creation_tokens)} · cost ${u.cost_usd:.4f}"
        )

    def cmd_tools(self, arg: str) -> None:
        names = list(self.session.tool_names) if self.session else []
        self.notice("Tools: " + (", ".join(names) if names else "none (no session yet)"))

    def cmd_mcp(self, arg: str) -> None:
        """`/mcp` lists the servers and their state; `/mcp reconnect NAME` connects one again."""
        words = arg.split()
        if words[:1] == ["reconnect"] and len(words) == 2:
            reconnect = getattr(self.session, "reconnect_mcp", None)
            if not callable(reconnect):
                self.notice("No session yet.", "warning")
                return
            self.run_worker(self._reconnect(reconnect, words[1]), exit_on_error=False)
            return
        status = getattr(self.session, "mcp_status", None)
        servers = [(s["name"], s["status"]) for s in status()] if callable(status) else []
        if not servers and self.config.mcp_servers:
            servers = list(self.config.mcp_servers())
        if not servers:
            self.notice("No MCP servers configured.")
            return
        self.notice(
            "MCP servers: "
            + ", ".join(f"{n} ({s})" for n, s in servers)
            + "\n/mcp reconnect NAME connects one again."
        )

    async def _reconnect(self, reconnect: Callable[[str], Awaitable[str]], name: str) -> None:
        self.notice(f"Reconnecting {name}…")
        try:
            self.notice(await reconnect(name))
        except Exception as exc:
            self.notice(f"Could not reconnect {name}: {exc}", "error")

    def cmd_quit(self, arg: str) -> None:
        self.exit(0)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for command in COMMANDS:
            yield SystemCommand(f"/{command.name}", command.help, self._palette(command.name))
        for command in getattr(self, "custom_commands", ()):
            # A custom command is a prompt: the palette sends it (arguments: type it instead).
            yield SystemCommand(
                f"/{command.name}", command.help, self._palette_prompt(command.name)
            )

    def _palette_prompt(self, name: str) -> Callable[[], None]:
        submit = getattr(self, "submit_prompt", None)
        return lambda: submit(f"/{name}") if callable(submit) else None

    def _palette(self, name: str) -> Callable[[], None]:
        return lambda: self.run_slash_command(f"/{name}")
