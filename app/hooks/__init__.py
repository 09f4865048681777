"""Claude Code-compatible command hooks (DESIGN.md section 6).

- `app.config.hooks.parse_hook_sources(sources, trusted)`: raw `hooks` tables -> HookConfig (+
  problems): the hooks' settings grammar, below the settings loader that vets every file with it;
  `hook_sources_from_settings(loaded)` builds the sources from `app.config.load_settings`;
  `list_hooks(config)` lists them by source for the UI.
- `runner.CommandHookRunner`: the pipeline's HookRunner plus UserPromptSubmit, Stop, SessionStart
  and SessionEnd for the engine.
- `translate`: raw outputs -> the unions of `results`; it never decides.
- `calls`: HookToolCall and the HookRunner protocol the call pipeline consults (below it).

Nothing is imported here, so importing one module of the package loads only what it needs.
"""
