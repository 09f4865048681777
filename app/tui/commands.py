"""Slash commands, and the same commands in Textual's command palette.

The App owns one SlashCommands: the built-in commands (`/context` and `/compact` are in
context_commands.py), the session's custom commands, and the palette's entries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from textual.app import SystemCommand

from app.engine.api import SessionPort
from app.tui.context_commands import ContextCommands
from app.tui.screens.resume import ResumeScreen
from widgets.prompt_input import SlashCommand
from widgets.status_bar import human_tokens

if TYPE_CHECKING:
    from app.tui.app import LatheApp

COMMANDS = (
    SlashCommand("help", "Show the keys and commands"),
    SlashCommand("clear", "Start over: clear the conversation and the model's context"),
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

HELP_TEXT = """Keys: Enter send · \\+Enter, Alt+Enter, Shift+Enter or Ctrl+J new line · Up/Down history
Tab complete: /commands, @files, earlier prompts (Up/Down choose · Tab or Enter accept · Esc close)
PgUp/PgDn scroll the conversation · Home/End too when the prompt is empty (Ctrl+Home/Ctrl+End always)
Ctrl+O full view of everything, searchable (/ or Ctrl+F search · n/N next/previous · Esc back)
Ctrl+C interrupt (idle: clear the prompt; empty: twice to quit) · Esc interrupt
Shift+Tab permission mode (default → acceptEdits → plan) · F2 mouse capture on/off (off: select
and copy with the terminal) · Ctrl+P command palette
Commands: """ + " ".join(f"/{c.name}" for c in COMMANDS)

# The keys the palette lists as commands too (Ctrl+P, then type "full" or "keys").
FULL_VIEW_HELP = "The whole conversation and every tool's output, searchable (Ctrl+O)"


# What /clear did, on the screen it leaves: the model forgot too, not only the view.
CLEARED_TEXT = (
    "Conversation cleared: the model's context is empty too; the next prompt starts afresh."
)


class SlashCommands:
    def __init__(self, app: LatheApp) -> None:
        self.app = app
        self.custom: list[SlashCommand] = []
        self.refused: dict[str, str] = {}
        self.context = ContextCommands(app)
        self._handlers: dict[str, Callable[[str], None]] = {
            "help": self.cmd_help,
            "clear": self.cmd_clear,
            "model": self.cmd_model,
            "permissions": self.cmd_permissions,
            "resume": self.cmd_resume,
            "theme": self.cmd_theme,
            "cost": self.cmd_cost,
            "context": self.context.cmd_context,
            "compact": self.context.cmd_compact,
            "tools": self.cmd_tools,
            "mcp": self.cmd_mcp,
            "quit": self.cmd_quit,
        }

    def notice(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None:
        self.app.notice(text, level)

    # -- custom commands (.claude/commands; app/commands/loader.py) ------------------------------
    def add_custom(self, session: SessionPort) -> None:
        """Offer the session's custom commands in `/` completion and the palette."""
        listed = session.custom_commands()
        self.custom = [SlashCommand(c.name, c.help) for c in listed if not c.refusal]
        # A model-only skill typed as /name: Claude Code's words, not "Unknown command".
        self.refused = {c.name: c.refusal for c in listed if c.refusal}
        prompt = self.app.main.prompt
        builtin = [c for c in prompt.commands if c.name in {b.name for b in COMMANDS}]
        prompt.commands = builtin + self.custom

    def is_custom(self, text: str) -> bool:
        name = text.strip().lstrip("/").partition(" ")[0]
        return any(c.name == name for c in self.custom)

    def run(self, text: str) -> None:
        name, _, arg = text.lstrip("/").partition(" ")
        handler = self._handlers.get(name)
        if handler is None:
            refusal = self.refused.get(name)
            if refusal:
                self.notice(refusal, "warning")
                return
            self.notice(f"Unknown command /{name}. Type /help for the list.", "warning")
            return
        handler(arg.strip())

    def cmd_help(self, arg: str) -> None:
        self.notice(HELP_TEXT)

    def cmd_clear(self, arg: str) -> None:
        """Start a fresh conversation: the model forgets it too (the transcript keeps it)."""
        session = self.app.session
        if session is not None and not session.clear():
            self.notice("A turn is running: interrupt it first (Esc), then /clear.", "warning")
            return
        self.app.main.conversation.clear_blocks()
        self.notice(CLEARED_TEXT)

    def cmd_model(self, arg: str) -> None:
        session = self.app.session
        current = session.model if session else self.app.config.model
        if not arg:
            self.notice(f"Model: {current or 'none'}")
            return
        if session is None:
            self.notice("Switching models needs a running session.", "warning")
            return
        session.set_model(arg)
        self.app.main.status_bar.set(model=arg)
        self.notice(f"Model set to {arg}")

    def cmd_permissions(self, arg: str) -> None:
        lines = [f"Permission mode: {self.app.permission_mode} (Shift+Tab cycles)"]
        session = self.app.session
        lines.append(session.describe_permissions() if session else "No rules loaded.")
        self.notice("\n".join(lines))

    def cmd_resume(self, arg: str) -> None:
        lister = self.app.config.list_sessions
        if lister is None:
            self.notice("No saved sessions to resume.", "warning")
            return
        self.app.push_screen(ResumeScreen(list(lister())), self._resume_picked)

    def _resume_picked(self, session_id: str | None) -> None:
        # The new session says "Resumed session ..." itself, once its history is shown.
        if session_id and self.app.config.on_resume is not None:
            self.app.config.on_resume(session_id)

    def pick_session_first(self) -> None:
        """`lathe -r`: the one picker, before any session exists; Esc quits."""
        lister = self.app.config.list_sessions
        sessions = list(lister()) if lister is not None else []

        def picked(session_id: str | None) -> None:
            if session_id and self.app.config.on_resume is not None:
                self.app.config.on_resume(session_id)
            else:
                self.app.exit(0)

        self.app.push_screen(ResumeScreen(sessions), picked)

    def cmd_theme(self, arg: str) -> None:
        if not arg:
            names = ", ".join(self.app.themes.names())
            self.notice(f"Theme: {self.app.theme}. Available: {names}")
            return
        if self.app.apply_theme(arg):
            saved = self.app.choices.saved_to
            self.notice(f"Theme set to {arg}" + (f" (saved in {saved})" if saved else ""))

    def cmd_cost(self, arg: str) -> None:
        u = self.app.usage
        if u is None:
            self.notice("No requests yet: $0.0000")
            return
        self.notice(
            f"Input {human_tokens(u.input_tokens)} · output {human_tokens(u.output_tokens)} · "
            f"cache read {human_tokens(u.cache_read_tokens)} · cache write "
            f"{human_tokens(u.cache_creation_tokens)} · cost ${u.cost_usd:.4f}"
        )

    def cmd_tools(self, arg: str) -> None:
        session = self.app.session
        names = list(session.tool_names) if session else []
        self.notice("Tools: " + (", ".join(names) if names else "none (no session yet)"))

    def cmd_mcp(self, arg: str) -> None:
        """`/mcp` lists the servers and their state; `/mcp reconnect NAME` connects one again."""
        words = arg.split()
        session = self.app.session
        if words[:1] == ["reconnect"] and len(words) == 2:
            if session is None:
                self.notice("No session yet.", "warning")
                return
            self.app.run_worker(self._reconnect(session, words[1]), exit_on_error=False)
            return
        servers = [(s["name"], s["status"]) for s in session.mcp_status()] if session else []
        if not servers and self.app.config.mcp_servers:
            servers = list(self.app.config.mcp_servers())
        if not servers:
            self.notice("No MCP servers configured.")
            return
        self.notice(
            "MCP servers: "
            + ", ".join(f"{n} ({s})" for n, s in servers)
            + "\n/mcp reconnect NAME connects one again."
        )

    async def _reconnect(self, session: SessionPort, name: str) -> None:
        self.notice(f"Reconnecting {name}…")
        try:
            self.notice(await session.reconnect_mcp(name))
        except Exception as exc:
            self.notice(f"Could not reconnect {name}: {exc}", "error")

    def cmd_quit(self, arg: str) -> None:
        self.app.exit(0)

    def system_commands(self) -> Iterable[SystemCommand]:
        """The palette's entries: the full view and the keys, the built-in commands, then the
        custom ones."""
        yield SystemCommand("Full view", FULL_VIEW_HELP, self.app.main.action_full_view)
        yield SystemCommand(
            "Keys of the prompt", "Sending, new lines, completion, scrolling", self._keys
        )
        for command in COMMANDS:
            yield SystemCommand(f"/{command.name}", command.help, self._palette(command.name))
        for command in self.custom:
            # A custom command is a prompt: the palette sends it (arguments: type it instead).
            yield SystemCommand(
                f"/{command.name}", command.help, self._palette_prompt(command.name)
            )

    def _keys(self) -> None:
        self.notice(HELP_TEXT.partition("\nCommands: ")[0])

    def _palette_prompt(self, name: str) -> Callable[[], None]:
        return lambda: self.app.submit_prompt(f"/{name}")

    def _palette(self, name: str) -> Callable[[], None]:
        return lambda: self.run(f"/{name}")
