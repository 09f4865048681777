"""Which repository hooks a git command may run (githooks(5)), as data.

Hooks are programs in the repository's hooks folder (`.git/hooks`, or `core.hooksPath`); git
runs them on its own, so an auto-allowed git command that triggers one runs code nobody checked.
Measured with git 2.4x: `git status` and `git diff` write the index when file times changed and so
run `post-index-change`; `git log`, `git show`, `git branch` (listing) and the like run none.
A subcommand missing from these tables may run any hook (fail closed).
"""

from __future__ import annotations

ALL = frozenset({"*"})

_INDEX = frozenset({"post-index-change"})
_REFS = frozenset({"reference-transaction"})
_GC = frozenset({"pre-auto-gc"})
_COMMIT = frozenset({"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit",
                     "post-rewrite"}) | _INDEX | _REFS | _GC  # fmt: skip
_CHECKOUT = frozenset({"post-checkout"}) | _INDEX | _REFS
_RECEIVE = frozenset({"pre-receive", "update", "proc-receive", "post-receive", "post-update",
                      "push-to-checkout"})  # fmt: skip

# Subcommands that never run a hook, whatever their arguments.
NO_HOOKS = frozenset(
    {"log", "show", "blame", "annotate", "grep", "shortlog", "ls-files", "ls-tree", "cat-file",
     "rev-parse", "rev-list", "for-each-ref", "show-ref", "name-rev", "merge-base", "cherry",
     "range-diff", "whatchanged", "diff-files", "diff-index", "diff-tree", "check-ignore",
     "check-attr", "check-ref-format", "count-objects", "fsck", "archive", "format-patch",
     "help", "version", "var", "config", "ls-remote", "verify-commit", "verify-tag",
     "show-branch", "get-tar-commit-id", "patch-id", "stripspace", "column", "hash-object",
     "init", "--version", "--help", "bundle"}
)  # fmt: skip

# Subcommands whose listing forms run none, and what their other forms may run.
_LISTING = {
    "branch": _REFS, "tag": _REFS, "stash": _INDEX | _REFS, "worktree": _CHECKOUT,
    "notes": _REFS, "reflog": _REFS, "remote": _REFS | _GC, "describe": _INDEX,
}  # fmt: skip

BY_SUBCOMMAND: dict[str, frozenset[str]] = {
    "status": _INDEX, "diff": _INDEX, "add": _INDEX, "rm": _INDEX, "mv": _INDEX,
    "restore": _INDEX, "apply": _INDEX, "update-index": _INDEX, "read-tree": _INDEX,
    "sparse-checkout": _INDEX, "reset": _INDEX | _REFS, "update-ref": _REFS,
    "symbolic-ref": _REFS, "replace": _REFS, "pack-refs": _REFS, "fetch": _REFS | _GC,
    "gc": _GC | _REFS, "maintenance": _GC | _REFS, "commit": _COMMIT,
    "merge": _COMMIT | {"pre-merge-commit", "post-merge"},
    "pull": _COMMIT | _CHECKOUT | {"pre-merge-commit", "post-merge", "pre-rebase"},
    "checkout": _CHECKOUT, "switch": _CHECKOUT, "bisect": _CHECKOUT,
    "rebase": _COMMIT | _CHECKOUT | {"pre-rebase"},
    "cherry-pick": _COMMIT, "revert": _COMMIT,
    "am": _COMMIT | {"applypatch-msg", "pre-applypatch", "post-applypatch"},
    "push": frozenset({"pre-push"}) | _REFS | _RECEIVE,
    "send-email": frozenset({"sendemail-validate"}),
}  # fmt: skip

_LIST_WORDS = {
    "stash": ("list", "show"), "worktree": ("list",), "notes": ("list", "show"),
    "reflog": ("show",), "remote": ("show", "get-url", "-v", "--verbose"),
}  # fmt: skip
# `git branch`/`git tag` list only with these options and no name.
_BRANCH_LIST_OPTS = ("-a", "--all", "-r", "--remotes", "-l", "--list", "-v", "-vv", "--verbose",
                     "--show-current", "--contains", "--no-contains", "--merged", "--no-merged",
                     "--sort", "--format", "--points-at", "--color", "--no-color", "--column",
                     "--no-column", "-n", "--ignore-case", "-i", "--omit-empty")  # fmt: skip


def hooks_run_by(sub: str, args: tuple[str, ...]) -> frozenset[str]:
    """The hooks `git SUB ARGS` may run (ALL: any of them)."""
    if sub in NO_HOOKS:
        return frozenset()
    if sub == "diff" and any(a in ("--cached", "--staged", "--no-index") for a in args):
        return frozenset()
    listing = _LISTING.get(sub)
    if listing is not None:
        if _lists(sub, args):
            return frozenset()
        return listing
    return BY_SUBCOMMAND.get(sub, ALL)


def _lists(sub: str, args: tuple[str, ...]) -> bool:
    if sub == "describe":
        return not any(a.startswith(("--dirty", "--broken")) for a in args)
    if sub in ("branch", "tag"):
        if sub == "tag" and any(a in ("-l", "--list") for a in args):
            return True
        names = [a for a in args if not a.startswith("-")]
        opts = [a.split("=", 1)[0] for a in args if a.startswith("-")]
        if sub == "branch" and any(o in ("--contains", "--merged", "--no-merged", "--sort",
                                         "--format", "--points-at") for o in opts):  # fmt: skip
            return all(o in _BRANCH_LIST_OPTS for o in opts)
        return not names and all(o in _BRANCH_LIST_OPTS for o in opts)
    words = _LIST_WORDS.get(sub, ())
    first = next((a for a in args if not a.startswith("-")), "")
    if sub == "remote" and not first:
        return all(a in ("-v", "--verbose") for a in args)
    if sub == "reflog" and not first:
        return True
    return first in words
