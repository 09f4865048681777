"""A hook that prints 5,000-deep JSON: a notice naming the problem, never a crash or an allow."""

from __future__ import annotations

from tests.integration.hooks.support import HookEnv, on
from tests.integration.hooks.test_misbehaving_hooks import notices, pre


async def test_deeply_nested_hook_output_is_refused(hk: HookEnv) -> None:
    deep = hk.py(
        "deep",
        'sys.stdin.read()\nsys.stdout.write(\'{"hookSpecificOutput": \' + "[" * 5000 + "]" * 5000'
        " + '}')\n",
    )
    out = await pre(hk, {"PreToolUse": [on("*", deep)]})
    assert "nested deeper than 100 levels" in notices(out)
    assert not out.ran and out.permission_denial is not None
