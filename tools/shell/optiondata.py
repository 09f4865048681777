"""Per-command knowledge, as data: options that execute a program, write a file, or read a file
named by the option, and the read-only git subcommands with the forms they are read-only in.

Both the read-only set and rule matching use it: a prefix rule `Bash(git diff *)` names a command,
not what `--output=f` or `--ext-diff` makes it do, so a part using one of these needs its own
approval. Matching follows getopt: long options may be abbreviated (`--outp`), short ones glued
to other flags or to their value (`-ofile`, `-no`).
"""

from __future__ import annotations

# command -> options that run a program or write a file.
EXEC_OR_WRITE: dict[str, tuple[str, ...]] = {
    "find": (
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    ),
    "fd": ("-x", "-X", "--exec", "--exec-batch"),
    "sort": ("-o", "--output", "--compress-program", "-T", "--temporary-directory"),
    "tree": ("-o", "-R"),
    "rg": ("--pre", "--pre-glob", "--hostname-bin", "-z", "--search-zip"),
    "grep": ("--open-files-in-pager",),
    "file": ("-C", "--compile"),
    "date": ("-s", "--set"),
    "hostname": ("-F", "--file", "-b", "--boot"),
    "sed": ("-i", "--in-place", "-s", "--separate"),
    "split": ("--filter",),
    "tar": (
        "--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script",
        "-F", "--new-volume-script", "--rsh-command", "--rmt-command", "--index-file",
    ),
    "man": ("-P", "--pager", "-H", "--html", "--browser", "-p", "--preprocessor"),
    "less": ("-o", "--log-file", "-O", "--LOG-FILE", "-k", "--lesskey-file"),
    "more": (),
    "xargs": ("-a", "--arg-file"),
    "env": ("-S", "--split-string", "-C", "--chdir"),
    # -C is npm's alias of --prefix (the package whose scripts run); --cache and --logs-dir
    # write where they name; the others name programs npm starts.
    "npm": (
        "--node-options", "--script-shell", "-c", "--call", "--userconfig", "--globalconfig",
        "--prefix", "-C", "--shell", "--init-module", "--onload-script", "--cache",
        "--logs-dir", "--browser", "--editor", "--viewer", "--node-gyp", "--git",
    ),
    "npx": ("--node-options", "--script-shell", "-c", "--call", "--userconfig", "--shell",
            "--prefix", "-C", "--cache", "--logs-dir", "--globalconfig", "--node-gyp", "--git"),
    "pnpm": ("--node-options", "--script-shell", "-c", "--shell-emulator", "--config", "-C",
             "--dir", "--prefix", "--store-dir", "--cache-dir", "--global-dir", "--virtual-store-dir"),
    "yarn": ("--node-options", "--script-shell", "--use-yarnrc", "--rc-filename", "--cwd",
             "--cache-folder", "--modules-folder", "--global-folder", "--link-folder"),
    "bun": ("-r", "--preload", "--shell", "--cwd"),
    "node": ("-r", "--require", "--import", "--loader", "--experimental-loader", "-e", "-p"),
    "diff": ("--to-file", "--from-file"),
    "wc": ("--files0-from",),
    "du": ("--files0-from", "-X", "--exclude-from"),
    "jq": ("--rawfile", "--slurpfile", "-L", "--library-path"),
    "curl": ("-o", "--output", "-O", "--remote-name", "-K", "--config", "-T", "--upload-file"),
}  # fmt: skip

# Options that make a command read a file the option names (a path a Read deny rule must see,
# or, for `-`, names read from input: `sort --files0-from=-`).
READS_FILE: dict[str, tuple[str, ...]] = {
    "sort": ("--files0-from",),
    "wc": ("--files0-from",),
    "du": ("--files0-from",),
    "date": ("-f", "--file"),
    "grep": ("-f", "--file"),
    "rg": ("-f", "--file", "--ignore-file"),
    "jq": ("-f", "--from-file", "-L", "--library-path"),
}

# git options before the subcommand that are safe; every other one (`-c`, `--config-env`, `-C`,
# `--git-dir`, `--exec-path`, `-p`...) changes what git runs or where.
GIT_SAFE_GLOBAL = frozenset({"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs"})

# git long options, any subcommand, that run a program or write a file (git accepts any
# unambiguous abbreviation of a long option: `--outp=f`).
GIT_EXEC_OR_WRITE = (
    "--output", "--ext-diff", "--textconv", "--open-files-in-pager", "--exec-path",
    "--upload-pack", "--receive-pack", "--exec", "--config-env", "--config", "--run", "--tool",
    "--extcmd", "--output-directory", "--paginate", "--template",
)  # fmt: skip
# Short options of a subcommand that do the same (git clusters short flags: `-sO`).
GIT_SHORT_RISK: dict[str, str] = {
    "grep": "O",  # -O: open the matches in a pager
    "archive": "o",
    "format-patch": "o",
    "clone": "uc",
    "ls-remote": "u",
    "difftool": "xt",
    "mergetool": "t",
    "rebase": "x",
}

# Read-only git subcommands: (options allowed, whether non-option arguments are allowed).
# `branch`, `remote`, `tag`, `stash` and `config` are read-only only in their listing forms.
GIT_READ_ONLY = frozenset(
    {
        "status", "diff", "log", "show", "blame", "rev-parse", "ls-files", "describe", "shortlog",
        "reflog", "grep", "ls-tree", "cat-file", "merge-base", "rev-list", "whatchanged",
        "branch", "remote", "tag", "show-ref", "for-each-ref", "name-rev", "var", "version",
        "check-ignore", "check-attr", "count-objects", "stash",
    }
)  # fmt: skip
GIT_LIST_FORMS: dict[str, frozenset[str]] = {
    "branch": frozenset(
        {
            "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "-l",
            "--show-current", "--no-color", "--color", "--column", "--no-column",
            "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort",
            "--format", "-i", "--ignore-case", "--abbrev", "--no-abbrev",
        }
    ),
    "remote": frozenset({"-v", "--verbose"}),
    "tag": frozenset(
        {"-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged",
         "--points-at", "--sort", "--format", "-i", "--ignore-case", "--column", "--no-column"}
    ),
}  # fmt: skip
# Subcommand arguments allowed in the listing forms (`git remote get-url origin`, `stash list`).
GIT_LIST_ARGS: dict[str, frozenset[str]] = {
    "remote": frozenset({"get-url", "-v"}),
    "stash": frozenset({"list", "show"}),
}
# git builtins: a subcommand outside this set is an alias or a `git-NAME` program on PATH.
GIT_BUILTINS = GIT_READ_ONLY | frozenset(
    {
        "add", "am", "annotate", "apply", "archive", "bisect", "bundle", "checkout",
        "checkout-index", "cherry", "cherry-pick", "clean", "clone", "column", "commit",
        "commit-graph", "commit-tree", "config", "credential", "diff-files", "diff-index",
        "diff-tree", "difftool", "fast-export", "fast-import", "fetch", "fetch-pack",
        "filter-branch", "format-patch", "fsck", "gc", "hash-object", "help", "index-pack", "init",
        "interpret-trailers", "ls-remote", "mailinfo", "mailsplit", "maintenance", "merge",
        "merge-file", "merge-index", "merge-tree", "mktag", "mktree", "mv", "notes", "pack-objects",
        "pack-refs", "patch-id", "prune", "pull", "push", "range-diff", "read-tree", "rebase",
        "repack", "replace", "request-pull", "rerere", "reset", "restore", "revert", "rm",
        "send-email", "show-branch", "sparse-checkout", "submodule", "switch", "symbolic-ref",
        "unpack-objects", "update-index", "update-ref", "verify-commit", "verify-tag", "worktree",
        "write-tree", "lfs",
    }
)  # fmt: skip
# Subcommands that can print the content of files under other names (objects, other revisions,
# paths outside the repository): a Read deny rule cannot see what they print.
GIT_REVEALS = frozenset({"show", "cat-file", "grep", "log", "whatchanged", "reflog", "diff",
                         "blame", "stash"})  # fmt: skip
GIT_PATCH_OPTS = ("-p", "-u", "--patch", "-L", "--full-diff", "-G", "-S", "--word-diff",
                  "--patch-with-stat", "--cc", "-c", "--pickaxe-regex", "--find-object")  # fmt: skip

# jq program text that reads files or the environment.
JQ_UNSAFE = ("import", "include", "input_filename", "$__loc__", "env", "$ENV", "getpath",
             "modulemeta", "input", "debug", "stderr")  # fmt: skip
# Builtins that evaluate a name argument as `name[subscript]`: the subscript is arithmetic, and
# arithmetic runs `$(...)` (`printf -v 'a[$(id)]' x`, `test -v 'a[$(id)]'`, `read -a`).
NAME_EVALUATORS = frozenset(
    {
        "test", "[", "printf", "declare", "typeset", "local", "export", "readonly", "read",
        "unset", "let", "mapfile", "readarray", "getopts", "wait", "shift", "return",
        "exit", "kill", "ulimit", "umask", "set",
    }
)  # fmt: skip

# Options whose value is a shell command the program runs (so deny rules must see it).
CMD_VALUE_OPTS: dict[str, tuple[str, ...]] = {
    "tar": ("--to-command", "--use-compress-program", "-I", "--checkpoint-action",
            "--info-script", "-F", "--new-volume-script", "--rsh-command", "--rmt-command"),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "sort": ("--compress-program",),
    "split": ("--filter",),
    "man": ("-P", "--pager", "--browser", "-H", "--html"),
    "zip": ("-TT", "--unzip-command"),
    "npm": ("-c", "--call", "--script-shell", "--shell"),
    "npx": ("-c", "--call", "--shell"),
    "pnpm": ("--script-shell", "-c"),
    "yarn": ("--script-shell",),
    "rg": ("--pre", "--hostname-bin"),
    "tcpdump": ("-z",),
    "flock": ("-c", "--command"),
    "su": ("-c", "--command", "--session-command"),
    "runuser": ("-c", "--command", "--session-command"),
    "script": ("-c", "--command"),
    "sg": ("-c",),
    "git": ("-x", "--exec", "--extcmd", "--upload-pack", "--receive-pack", "--tree-filter",
            "--index-filter", "--msg-filter", "--commit-filter", "--env-filter",
            "--parent-filter", "--tag-name-filter", "--subdirectory-filter"),
    "vim": ("-c", "--cmd"),
    "vi": ("-c", "--cmd"),
    "nvim": ("-c", "--cmd"),
    "ex": ("-c", "--cmd"),
    "gdb": ("-ex", "--ex", "-iex"),
    "ssh": ("-o",),
    "entr": (),
}  # fmt: skip
# git subcommands whose short options name a program (getopt clusters them: `clone -qu CMD`).
GIT_SHORT_CMD: dict[str, tuple[str, ...]] = {
    "clone": ("-u",),
    "ls-remote": ("-u",),
    "rebase": ("-x",),
}
# GNU tar letters that take a value (old-style `tar cIf CMD out.tar` takes them in order).
TAR_VALUE_LETTERS = frozenset("fIFTCbLNVXgHK")

# Programs that run another program named by their arguments, in forms too varied to strip
# reliably: with a Bash deny rule in force, bypassPermissions does not run them.
RUNNERS = frozenset(
    {
        "setsid", "ionice", "taskset", "chrt", "strace", "ltrace", "valgrind", "busybox",
        "unshare", "nsenter", "flock", "script", "su", "runuser", "catchsegv", "xvfb-run",
        "firejail", "proot", "fakeroot", "pkexec", "systemd-run", "unbuffer", "rlwrap",
        "torsocks", "proxychains", "proxychains4", "sg", "newgrp", "chpst", "tini", "dumb-init",
        "entr", "parallel", "at", "batch", "expect", "vim", "vi", "nvim", "ex", "emacs", "gdb",
        "lldb", "perf", "time", "caffeinate", "doas", "sudo", "chroot", "watch",
    }
)  # fmt: skip

# Options whose value is a file holding the NAMES of files the program then reads (`-` or no
# value: names read from input). What those files are is known only at run time, so under a
# Read deny rule no check can see them: such a part is never auto-allowed (bypassPermissions
# included). The file named by the option is itself a path read (see `_path_args`).
LIST_FILE_OPTS: dict[str, tuple[str, ...]] = {
    "sort": ("--files0-from",),
    "wc": ("--files0-from",),
    "du": ("--files0-from",),
    "tar": ("-T", "--files-from"),
    "gtar": ("-T", "--files-from"),
    "bsdtar": ("-T", "--files-from"),
    "rsync": ("--files-from",),
    "xargs": ("-a", "--arg-file"),
    "parallel": ("-a", "--arg-file"),
    "file": ("-f", "--files-from"),
    "find": ("-files0-from",),
    "md5sum": ("-c", "--check"),
    "sha1sum": ("-c", "--check"),
    "sha224sum": ("-c", "--check"),
    "sha256sum": ("-c", "--check"),
    "sha384sum": ("-c", "--check"),
    "sha512sum": ("-c", "--check"),
    "b2sum": ("-c", "--check"),
    "cksum": ("-c", "--check"),
    "wget": ("-i", "--input-file"),
    "7z": ("-i@", "-x@"),
    "git": ("--pathspec-from-file",),
    "xz": ("--files", "--files0"),
    "unxz": ("--files", "--files0"),
    "xzcat": ("--files", "--files0"),
    "lzma": ("--files", "--files0"),
    "zstd": ("--filelist",),
    "unzstd": ("--filelist",),
}
# Programs that read the names of the files they read from standard input, in the forms given
# (`zip -@ out.zip < list`, `find . | cpio -o`).
STDIN_LIST_READERS: dict[str, tuple[str, ...]] = {
    "zip": ("-@", "--names-stdin"),
    "cpio": ("-o", "--create", "-p", "--pass-through"),
    "pax": ("-w",),
    "afio": ("-o",),
}

# bypassPermissions with a Bash deny rule: the deny rules can only hold for programs known to
# start no other program. A part may run there only if every program it runs is in this set, or
# is a wrapper whose inner command the analysis extracts and checks (MODELLED_WRAPPERS). Anything
# else (an unknown program, anything that may exec its arguments: prlimit, setpriv, ld.so,
# tmux, ssh-agent, run-parts, cmake -E env...) is refused there. Some of these run a program
# when given an option: those options are in RUNS_WITH_OPTION (or CMD_VALUE_OPTS, whose value
# the deny rules see), and make the part unprovable.
RUNS_NOTHING_ELSE = frozenset(
    {
        # read-only set
        "ls", "cat", "head", "tail", "wc", "diff", "cmp", "stat", "du", "df", "file", "tree",
        "realpath", "readlink", "grep", "egrep", "fgrep", "rg", "nl", "od", "hexdump", "cut",
        "tr", "column", "sha256sum", "sha1sum", "sha224sum", "sha384sum", "sha512sum", "md5sum",
        "cksum", "b2sum", "strings", "comm", "fmt", "fold", "rev", "tac", "paste", "expand",
        "unexpand", "look", "lsof", "ps", "free", "uptime", "jq", "sort", "uniq", "sed", "date",
        "awk", "gawk", "mawk", "nawk", "echo", "printf", "pwd", "true", "false", "whoami", "id",
        "uname", "hostname", "which", "type", "basename", "dirname", "seq", "sleep", "nproc",
        "tty", "groups", "arch", "locale", "test", "[", "printenv", "getconf", "join", "shuf",
        "tsort", "numfmt", "factor", "yes", "base64", "base32", "basenc", "xxd", "iconv",
        "dircolors",
        # file commands
        "mkdir", "rmdir", "rm", "mv", "cp", "ln", "touch", "chmod", "chown", "chgrp", "tee",
        "truncate", "mktemp", "split", "csplit", "dd", "shred", "sync", "unlink", "link",
        "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat", "xz", "unxz", "xzcat", "zstd",
        "unzstd", "lz4", "unzip", "zip", "tar",
        # shell builtins that start nothing
        "cd", "pushd", "popd", "dirs", "export", "unset", "set", "read", "local", "declare",
        "typeset", "readonly", "shift", "exit", "return", "wait", "jobs", "kill", "umask",
        "ulimit", "times", "getopts", "let", ":", "break", "continue", "history", "help",
        "disown", "caller",
        # network clients that only transfer
        "curl",
        # linters and formatters that load no plugin code
        "ruff", "black", "isort", "gofmt", "rustfmt", "shellcheck",
        # no shell escape (unlike dc and some bc: `!` runs a command)
        "expr", "cal",
    }
)  # fmt: skip
# Wrappers whose inner command commands.deny_forms extracts (so the deny rules and this check
# see it): the wrapper itself starts only that command.
MODELLED_WRAPPERS = frozenset(
    {"timeout", "nice", "nohup", "stdbuf", "command", "time", "xargs", "find", "fd", "git", "env"}
)
# Options with which a program of RUNS_NOTHING_ELSE does start another program.
RUNS_WITH_OPTION: dict[str, tuple[str, ...]] = {
    "awk": ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"),
    "gawk": ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"),
    "tar": ("--to-command", "--use-compress-program", "-I", "--checkpoint-action",
            "--info-script", "-F", "--new-volume-script", "--rsh-command", "--rmt-command"),
    "zip": ("-TT", "--unzip-command"),
    "rg": ("--pre", "--hostname-bin"),
    "sort": ("--compress-program",),
    "split": ("--filter",),
    "curl": ("-K", "--config", "--engine"),
}  # fmt: skip
# A program given only one of these arguments prints its version or help and starts nothing.
VERSION_QUERIES = frozenset({"--version", "-V", "--help", "-h"})


# Files that define what a runner runs by name (`npm run test` runs package.json's scripts.test):
# looked for in the folder the runner starts in and each one above it up to the project. A name
# with `*` is a pattern over that folder's files.
_NODE_BIN = ("node_modules/.bin", "node_modules/.bin/*")
_VENV_BIN = (".venv/bin", ".venv/bin/*")
SCRIPT_FILES: dict[str, tuple[str, ...]] = {
    # node_modules/.bin comes first on the PATH of every script these run (`node` in a script
    # may be a file put there), and .venv/bin first for `uv run`/`poetry run`/...: the folder
    # itself counts (a new entry changes it) and every file in it.
    "npm": ("package.json", ".npmrc", *_NODE_BIN), "npx": ("package.json", ".npmrc", *_NODE_BIN),
    "yarn": ("package.json", ".yarnrc", ".yarnrc.yml", ".pnp.cjs", *_NODE_BIN),
    "pnpm": ("package.json", ".npmrc", "pnpm-workspace.yaml", ".pnpmfile.cjs", *_NODE_BIN),
    "pnpx": ("package.json", ".npmrc", *_NODE_BIN),
    "bun": ("package.json", "bunfig.toml", *_NODE_BIN),
    "bunx": ("package.json", "bunfig.toml", *_NODE_BIN),
    "make": ("Makefile", "makefile", "GNUmakefile", "*.mk"),
    "gmake": ("Makefile", "makefile", "GNUmakefile", "*.mk"),
    "bmake": ("Makefile", "makefile", "BSDmakefile", "*.mk"),
    "just": ("justfile", "Justfile", ".justfile", "*.just"),
    "rake": ("Rakefile", "rakefile", "Rakefile.rb", "*.rake"),
    "uv": ("pyproject.toml", "uv.toml", *_VENV_BIN), "poetry": ("pyproject.toml", *_VENV_BIN),
    "pdm": ("pyproject.toml", "pdm.toml", *_VENV_BIN),
    "hatch": ("pyproject.toml", "hatch.toml"),
    "pipenv": ("Pipfile",), "tox": ("tox.ini", "pyproject.toml", "setup.cfg"),
    "nox": ("noxfile.py",), "invoke": ("tasks.py", "invoke.yaml", "invoke.yml"),
    "task": ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"),
    "composer": ("composer.json",), "deno": ("deno.json", "deno.jsonc"),
    "cargo": ("Cargo.toml", "build.rs", ".cargo/config.toml", ".cargo/config"), "gradle": ("build.gradle", "build.gradle.kts",
    "settings.gradle", "settings.gradle.kts"), "gradlew": ("gradlew", "build.gradle",
    "build.gradle.kts", "settings.gradle", "settings.gradle.kts"), "mvn": ("pom.xml", ".mvn/maven.config", ".mvn/extensions.xml"),
    "sbt": ("build.sbt",), "ant": ("build.xml",), "meson": ("meson.build",),
    "scons": ("SConstruct", "SConscript"), "bundle": ("Gemfile",),
    "dotnet": ("*.csproj", "*.fsproj", "*.sln", "Directory.Build.props"),
}  # fmt: skip
