"""A `user-invocable: false` skill typed as /name in the TUI, on a real Session: Claude Code
2.1.332's words (the same as `lathe -p` gets), not "Unknown command", and no request sent."""

from __future__ import annotations

from app.tui.app import LatheApp
from tests.tui.conftest import SIZE
from tests.tui.test_dialog_on_real_session import real_app, wait_until
from widgets.message_blocks import NoticeBlock


def _notices(app: LatheApp) -> list[str]:
    return [n.text for n in app.main.conversation.query(NoticeBlock)]


async def test_a_model_only_skill_typed_as_slash_gets_claude_codes_words(fake_api, project):
    skill = project / ".claude" / "skills" / "noinv"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: d\nuser-invocable: false\n---\nBODY\n")
    fake_api.load([])
    app = real_app(fake_api, project, [])
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        await wait_until(pilot, lambda: "noinv" in app.commands.refused)
        assert all(c.name != "noinv" for c in app.main.prompt.commands)  # not offered
        await pilot.press(*"/noinv", "enter")
        expected = (
            "This skill can only be invoked by Claude, not directly by users. "
            'Ask Claude to use the "noinv" skill for you.'
        )
        await wait_until(pilot, lambda: expected in _notices(app))
        assert not any("Unknown command" in n for n in _notices(app))
        await pilot.press(*"/nosuch", "enter")
        await wait_until(pilot, lambda: any("Unknown command /nosuch" in n for n in _notices(app)))
    assert fake_api.bodies() == []
