"""Command line parsing and dispatch: the TUI, or the headless runner with -p.

Kept free of Textual and the anthropic SDK so that `lathe --version` and `lathe --help` answer at
once; the heavy modules are imported only on the path that needs them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from app import __version__
from app.protocol.flags import (
    MODE_ALIASES,
    LatheParser,
    ProtocolOptions,
    ProtocolUsageError,
    add_protocol_flags,
    protocol_options,
    settings_value,
)

PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto")

OUTPUT_FORMATS = ("text", "json", "stream-json")


@dataclass
class CliOptions:
    prompt: str | None = None
    print_mode: bool = False
    output_format: str = "text"
    include_partial_messages: bool = False
    model: str | None = None
    model_script: str | None = None
    permission_mode: str | None = None
    allowed_tools: list[str] = field(default_factory=list)
    disallowed_tools: list[str] = field(default_factory=list)
    settings: str | None = None
    add_dirs: list[str] = field(default_factory=list)
    max_turns: int | None = None
    continue_session: bool = False
    resume: str | None = None
    resume_picker: bool = False
    # Set by the TUI's picker only: a conversation a /clear ended resumes forked at its last line.
    resume_at: str | None = None
    fork_session: bool = False
    bare: bool = False
    # The Claude Agent SDK's flags (app/protocol/flags.py).
    sdk: ProtocolOptions = field(default_factory=ProtocolOptions)
    acp: bool = False


class UsageError(Exception):
    """Bad usage: exit code 2 with the message."""


def build_parser() -> argparse.ArgumentParser:
    parser = LatheParser(
        prog="lathe",
        description="A full-screen terminal coding agent. Without -p it starts the TUI in the "
        "current folder (on the offline demo model when no API key is set).",
    )
    parser.add_argument("prompt_args", nargs="*", metavar="PROMPT", help="prompt to send first")
    parser.add_argument(
        "-p",
        "--print",
        dest="print_prompt",
        nargs="?",
        const="",
        default=None,
        metavar="PROMPT",
        help="headless: run one request to the end, print, exit",
    )
    parser.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default=None,
        help="with -p: text (default), json or stream-json",
    )
    parser.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="with stream-json: also emit the raw stream events",
    )
    parser.add_argument(
        "--model", metavar="NAME", help='model id; "demo" selects the built-in offline demo model'
    )
    parser.add_argument(
        "--model-script",
        metavar="FILE",
        help="replay a scripted model from FILE instead of calling any API",
    )
    parser.add_argument(
        "--permission-mode",
        choices=PERMISSION_MODES,
        metavar="MODE",
        help="default | acceptEdits | plan | bypassPermissions | dontAsk (auto runs as default)",
    )
    parser.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed_tools",
        nargs="+",
        action="extend",
        metavar="RULE",
        help="extra allow rules (Claude Code rule syntax; also comma-separated)",
    )
    parser.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_tools",
        nargs="+",
        action="extend",
        metavar="RULE",
        help="extra deny rules, same syntax",
    )
    parser.add_argument(
        "--settings",
        metavar="FILE",
        help="one more settings file (TOML, or JSON in Claude Code's shape)",
    )
    parser.add_argument(
        "--add-dir",
        dest="add_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="an additional working folder (repeatable)",
    )
    parser.add_argument("--max-turns", type=int, metavar="N", help="stop after N model turns")
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the most recent session of this folder",
    )
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="SESSION_ID",
        help="resume a session; without an id the TUI shows a picker",
    )
    parser.add_argument(
        "--bare",
        action="store_true",
        help="simple mode: only the Bash, Read and Edit tools (like LATHE_SIMPLE=1)",
    )
    add_protocol_flags(parser)
    parser.add_argument(
        "--acp", action="store_true", help="speak the Agent Client Protocol on stdin/stdout"
    )
    parser.add_argument("--version", action="version", version=f"lathe {__version__}")
    return parser


def _launch_mode(mode: str | None, sdk: ProtocolOptions) -> str | None:
    """--permission-mode with "auto" read as default; --dangerously-skip-permissions alone is
    bypassPermissions (as in Claude Code), and launching in bypass allows switching back to it."""
    mode = MODE_ALIASES.get(mode, mode) if mode is not None else None
    if mode is None and sdk.skip_permissions:
        mode = "bypassPermissions"
    if mode == "bypassPermissions":
        sdk.allow_bypass = True
    return mode


def parse_args(argv: Sequence[str]) -> CliOptions:
    parser = build_parser()
    ns = parser.parse_args(list(argv))
    positional = " ".join(ns.prompt_args) if ns.prompt_args else None
    try:
        sdk = protocol_options(ns)
        ns.settings = settings_value(ns.settings)
    except ProtocolUsageError as exc:
        raise UsageError(str(exc)) from None
    if sdk.streaming_input and ns.print_prompt is None:
        # The SDK never passes -p: messages on stdin are a headless run (as in Claude Code).
        ns.print_prompt = positional or ""
    opts = CliOptions(
        sdk=sdk,
        model=ns.model,
        model_script=ns.model_script,
        permission_mode=_launch_mode(ns.permission_mode, sdk),
        # Kept as given: the permission layer splits comma-separated rules (one parser for both).
        allowed_tools=list(ns.allowed_tools or ()),
        disallowed_tools=list(ns.disallowed_tools or ()),
        settings=ns.settings,
        add_dirs=list(ns.add_dirs),
        max_turns=ns.max_turns,
        continue_session=ns.continue_session,
        include_partial_messages=ns.include_partial_messages,
        bare=ns.bare,
        acp=ns.acp,
    )
    if opts.acp and (ns.print_prompt is not None or positional):
        raise UsageError("--acp takes no prompt: the client sends prompts over the protocol")
    if ns.print_prompt is not None:
        opts.print_mode = True
        opts.prompt = ns.print_prompt or positional
        if not opts.prompt and not sys.stdin.isatty() and not sdk.streaming_input:
            opts.prompt = sys.stdin.read()
        if not opts.prompt and not sdk.streaming_input:
            raise UsageError("-p needs a prompt: lathe -p 'PROMPT' (or on standard input)")
    else:
        opts.prompt = positional
    if ns.output_format is not None:
        if not opts.print_mode:
            raise UsageError("--output-format goes with -p")
        opts.output_format = ns.output_format
    if sdk.streaming_input and opts.output_format != "stream-json":
        raise UsageError("--input-format stream-json needs --output-format stream-json")
    if opts.include_partial_messages and opts.output_format != "stream-json":
        raise UsageError("--include-partial-messages goes with -p --output-format stream-json")
    if opts.max_turns is not None and opts.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if ns.resume is not None:
        if ns.resume:
            opts.resume = ns.resume
        elif opts.print_mode:
            raise UsageError(
                "--resume without a session id needs the TUI (its picker); give an id with -p"
            )
        else:
            opts.resume_picker = True
    return opts


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        opts = parse_args(args)
    except UsageError as exc:
        print(f"lathe: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # argparse: --help, --version, or bad usage
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    if argv is None:
        # A real run (not a test calling main): dataclasses' generated methods and regular
        # expressions come compiled from the last run (app/dataclass_code.py,
        # app/regex_code.py), before the modules that define them load.
        from app import dataclass_code, regex_code

        dataclass_code.install()
        regex_code.install()
        # Programs lathe starts cannot read its credentials out of /proc/PID/environ or its
        # memory.
        from tools.process.child_env import protect_own_process

        protect_own_process()
        if not (opts.acp or opts.sdk.streaming_input or opts.output_format == "stream-json"):
            # -p and the TUI resume it once the session is built or the first frame painted;
            # the protocol front ends build sessions at their clients' pace, so they keep it.
            from app import startup_gc
            from app.model.client import DEMO_MODEL, has_credentials

            startup_gc.pause()
            if has_credentials() and opts.model != DEMO_MODEL and not opts.model_script:
                from app.model import tls_prefetch

                tls_prefetch.start()  # the API client's TLS context, on the other core
    from app.model import lazy_sdk

    lazy_sdk.install()  # before anything imports the SDK: see app/model/lazy_sdk.py
    if opts.acp:
        from app.acp.server import run_acp

        return run_acp(opts)
    if opts.sdk.streaming_input or (opts.output_format == "stream-json" and opts.sdk.verbose):
        from app.protocol.run import run_protocol

        return run_protocol(opts)
    if opts.print_mode:
        from app.compose_print import run_print

        return run_print(opts)
    from app.compose_tui import run_tui

    return run_tui(opts)


if __name__ == "__main__":
    sys.exit(main())
