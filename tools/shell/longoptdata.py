"""The long options of the commands whose options the analysis knows, as data.

Generated from each program's `--help` (GNU coreutils 9, grep 3, diff 3, tar 1.35, sed 4, findutils,
file, man-db, xz `--long-help`) on the machine lathe is developed on: every `--name` the help text
shows. A long option a newer version adds is not here, so using it asks (fail closed).
tools/shell/longopts.py expands abbreviations against these lists.
"""

from __future__ import annotations

# command -> its long options (space-separated, each with its leading `--`).
_TEXT: dict[str, str] = {
    "grep": (
        "--after-context --basic-regexp --before-context --binary --binary-files --byte-offset "
        "--color --colour --context --count --dereference-recursive --devices --directories "
        "--exclude --exclude-dir --exclude-from --extended-regexp --file --files-with-matches "
        "--files-without-match --fixed-strings --group-separator --help --ignore-case --include "
        "--initial-tab --invert-match --label --line-buffered --line-number --line-regexp "
        "--max-count --no-filename --no-group-separator --no-ignore-case --no-messages --null "
        "--null-data --only-matching --perl-regexp --quiet --recursive --regexp --silent --text "
        "--version --with-filename --word-regexp"
    ),
    "diff": (
        "--binary --brief --changed-group-format --color --context --ed --exclude --exclude-from "
        "--expand-tabs --from-file --help --horizon-lines --ifdef --ignore-all-space "
        "--ignore-blank-lines --ignore-case --ignore-file-name-case --ignore-matching-lines "
        "--ignore-space-change --ignore-tab-expansion --ignore-trailing-space --initial-tab "
        "--label --left-column --line-format --minimal --new-file --new-group-format "
        "--new-line-format --no-dereference --no-ignore-file-name-case --normal "
        "--old-group-format --old-line-format --paginate --palette --rcs --recursive "
        "--report-identical-files --show-c-function --show-function-line --side-by-side "
        "--speed-large-files --starting-file --strip-trailing-cr --suppress-blank-empty "
        "--suppress-common-lines --tabsize --text --to-file --unchanged-group-format "
        "--unchanged-line-format --unidirectional-new-file --unified --version --width"
    ),
    "sort": (
        "--batch-size --buffer-size --check --compress-program --debug --dictionary-order "
        "--field-separator --files0-from --general-numeric-sort --help --human-numeric-sort "
        "--ignore-case --ignore-leading-blanks --ignore-nonprinting --key --merge --month-sort "
        "--numeric-sort --output --parallel --random-sort --random-source --reverse --sort "
        "--stable --temporary-directory --unique --version --version-sort --zero-terminated"
    ),
    "tar": (
        "--absolute-names --acls --add-file --after-date --anchored --append --atime-preserve "
        "--auto-compress --backup --block-number --blocking-factor --bzip2 --catenate "
        "--check-device --check-links --checkpoint --checkpoint-action --clamp-mtime --compare "
        "--compress --concatenate --confirmation --create --delay-directory-restore --delete "
        "--dereference --diff --directory --exclude --exclude-backups --exclude-caches "
        "--exclude-caches-all --exclude-caches-under --exclude-from --exclude-ignore "
        "--exclude-ignore-recursive --exclude-tag --exclude-tag-all --exclude-tag-under "
        "--exclude-vcs --exclude-vcs-ignores --extract --file --files-from --force-local --format "
        "--full-time --get --group --group-map --gunzip --gzip --hard-dereference --help "
        "--hole-detection --ignore-case --ignore-command-error --ignore-failed-read "
        "--ignore-zeros --incremental --index-file --info-script --interactive "
        "--keep-directory-symlink --keep-newer-files --keep-old-files --label --level --list "
        "--listed-incremental --lzip --lzma --lzop --mode --mtime --multi-volume "
        "--new-volume-script --newer --newer-mtime --no-acls --no-anchored --no-auto-compress "
        "--no-check-device --no-delay-directory-restore --no-ignore-case "
        "--no-ignore-command-error --no-null --no-overwrite-dir --no-quote-chars --no-recursion "
        "--no-same-owner --no-same-permissions --no-seek --no-selinux --no-unquote "
        "--no-verbatim-files-from --no-wildcards --no-wildcards-match-slash --no-xattrs --null "
        "--numeric-owner --occurrence --old-archive --one-file-system --one-top-level --overwrite "
        "--overwrite-dir --owner --owner-map --pax-option --portability --posix --preserve-order "
        "--preserve-permissions --quote-chars --quoting-style --read-full-records --record-size "
        "--recursion --recursive-unlink --remove-files --restrict --rmt-command --rsh-command "
        "--same-order --same-owner --same-permissions --seek --selinux --show-defaults "
        "--show-omitted-dirs --show-snapshot-field-ranges --show-stored-names "
        "--show-transformed-names --skip-old-files --sort --sparse --sparse-version "
        "--starting-file --strip-components --suffix --tape-length --test-label --to-command "
        "--to-stdout --totals --touch --transform --uncompress --ungzip --unlink-first --unquote "
        "--update --usage --use-compress-program --utc --verbatim-files-from --verbose --verify "
        "--version --volno-file --warning --wildcards --wildcards-match-slash --xattrs "
        "--xattrs-exclude --xattrs-include --xform --xz --zstd"
    ),
    "sed": (
        "--debug --expression --file --follow-symlinks --help --in-place --line-length "
        "--null-data --posix --quiet --regexp-extended --sandbox --separate --silent --unbuffered "
        "--version"
    ),
    "split": (
        "--additional-suffix --bytes --elide-empty-files --filter --help --hex-suffixes "
        "--line-bytes --lines --number --numeric-suffixes --separator --suffix-length "
        "--unbuffered --verbose --version"
    ),
    "date": (
        "--date --debug --file --help --iso-8601 --reference --resolution --rfc-3339 --rfc-email "
        "--set --universal --utc --version"
    ),
    "wc": "--bytes --chars --files0-from --help --lines --max-line-length --version --words",
    "du": (
        "--all --apparent-size --block-size --bytes --count-links --dereference "
        "--dereference-args --exclude --exclude-from --files0-from --help --human-readable "
        "--inodes --max-depth --no-dereference --null --one-file-system --separate-dirs --si "
        "--summarize --threshold --time --time-style --total --version"
    ),
    "env": (
        "--block-signal --chdir --debug --default-signal --help --ignore-environment "
        "--ignore-signal --list-signal-handling --null --split-string --unset --version"
    ),
    "xargs": (
        "--arg-file --delimiter --eof --exit --help --interactive --max-args --max-chars "
        "--max-lines --max-procs --no-run-if-empty --null --open-tty --process-slot-var --replace "
        "--show-limits --verbose --version"
    ),
    "file": (
        "--apple --brief --checking-printout --compile --debug --dereference --exclude "
        "--exclude-quiet --extension --files-from --help --keep-going --list --magic-file --mime "
        "--mime-encoding --mime-type --no-buffer --no-dereference --no-pad --no-sandbox "
        "--parameter --preserve-date --print0 --raw --separator --special-files --uncompress "
        "--uncompress-noreport --version"
    ),
    "hostname": (
        "--alias --all-fqdns --all-ip-addresses --boot --domain --file --fqdn --help --ip-address "
        "--long --nis --short --version --yp"
    ),
    "man": (
        "--all --apropos --ascii --catman --config-file --debug --default --ditroff --encoding "
        "--extension --global-apropos --gxditview --help --html --ignore-case --local-file "
        "--locale --location --location-cat --manpath --match-case --names-only --nh --nj "
        "--no-hyphenation --no-justification --no-subpages --pager --path --preprocessor --prompt "
        "--recode --regex --sections --systems --troff --troff-device --update --usage --version "
        "--warnings --whatis --where --where-cat --wildcard"
    ),
    "ls": (
        "--all --almost-all --author --block-size --classify --color --context --dereference "
        "--dereference-command-line --dereference-command-line-symlink-to-dir --directory --dired "
        "--escape --file-type --format --full-time --group-directories-first --help --hide "
        "--hide-control-chars --human-readable --hyperlink --ignore --ignore-backups "
        "--indicator-style --inode --kibibytes --literal --no-group --numeric-uid-gid "
        "--quote-name --quoting-style --recursive --reverse --show-control-chars --si --size "
        "--sort --tabsize --time --time-style --version --width --zero"
    ),
    "cat": (
        "--help --number --number-nonblank --show-all --show-ends --show-nonprinting --show-tabs "
        "--squeeze-blank --version"
    ),
    "head": "--bytes --help --lines --quiet --silent --verbose --version --zero-terminated",
    "tail": (
        "--bytes --follow --help --lines --max-unchanged-stats --pid --quiet --retry --silent "
        "--sleep-interval --verbose --version --zero-terminated"
    ),
    "cut": (
        "--bytes --characters --complement --delimiter --fields --help --only-delimited "
        "--output-delimiter --version --zero-terminated"
    ),
    "tr": "--complement --delete --help --squeeze-repeats --truncate-set1 --version",
    "nl": (
        "--body-numbering --footer-numbering --header-numbering --help --join-blank-lines "
        "--line-increment --no-renumber --number-format --number-separator --number-width "
        "--section-delimiter --starting-line-number --version"
    ),
    "od": (
        "--address-radix --endian --format --help --output-duplicates --read-bytes --skip-bytes "
        "--strings --traditional --version --width"
    ),
    "stat": "--cached --dereference --file-system --format --help --printf --terse --version",
    "cp": (
        "--archive --attributes-only --backup --context --copy-contents --dereference --force "
        "--help --interactive --link --no-clobber --no-dereference --no-preserve "
        "--no-target-directory --one-file-system --parents --preserve --recursive --reflink "
        "--remove-destination --sparse --strip-trailing-slashes --suffix --symbolic-link "
        "--target-directory --update --verbose --version"
    ),
    "mv": (
        "--backup --context --force --help --interactive --no-clobber --no-target-directory "
        "--strip-trailing-slashes --suffix --target-directory --update --verbose --version"
    ),
    "ln": (
        "--backup --directory --force --help --interactive --logical --no-dereference "
        "--no-target-directory --physical --relative --suffix --symbolic --target-directory "
        "--verbose --version"
    ),
    "mkdir": "--context --help --mode --parents --verbose --version",
    "touch": "--date --help --no-create --no-dereference --reference --time --version",
    "chmod": (
        "--changes --help --no-preserve-root --preserve-root --quiet --recursive --reference "
        "--silent --verbose --version"
    ),
    "tee": "--append --help --ignore-interrupts --output-error --version",
    "gzip": (
        "--best --decompress --fast --force --help --keep --license --list --name --no-name "
        "--quiet --recursive --rsyncable --stdout --suffix --synchronous --test --verbose "
        "--version"
    ),
    "xz": (
        "--arm --arm64 --armthumb --block-list --block-size --check --compress --decompress "
        "--delta --extreme --files --files0 --flush-timeout --force --format --help --ia64 "
        "--ignore-check --info-memory --keep --list --long-help --lzma1 --lzma2 --memlimit "
        "--memlimit-compress --memlimit-decompress --memlimit-mt-decompress --no-adjust "
        "--no-sparse --no-warn --powerpc --quiet --robot --single-stream --sparc --stdout "
        "--suffix --test --threads --verbose --version --x86"
    ),
    "uniq": (
        "--all-repeated --check-chars --count --group --help --ignore-case --repeated "
        "--skip-chars --skip-fields --unique --version --zero-terminated"
    ),
    "comm": (
        "--check-order --help --nocheck-order --output-delimiter --total --version "
        "--zero-terminated"
    ),
    "paste": "--delimiters --help --serial --version --zero-terminated",
    "readlink": (
        "--canonicalize --canonicalize-existing --canonicalize-missing --help --no-newline "
        "--quiet --silent --verbose --version --zero"
    ),
    "realpath": (
        "--canonicalize-existing --canonicalize-missing --help --logical --no-symlinks --physical "
        "--quiet --relative-base --relative-to --strip --version --zero"
    ),
    "cmp": "--bytes --help --ignore-initial --print-bytes --quiet --silent --verbose --version",
    "shuf": (
        "--echo --head-count --help --input-range --output --random-source --repeat --version "
        "--zero-terminated"
    ),
    "base64": "--decode --help --ignore-garbage --version --wrap",
    "sha256sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero"
    ),
    "sha1sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero"
    ),
    "md5sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero"
    ),
    "b2sum": (
        "--binary --check --help --ignore-missing --length --quiet --status --strict --tag --text "
        "--version --warn --zero"
    ),
    "cksum": (
        "--algorithm --check --debug --help --ignore-missing --length --quiet --status --strict "
        "--tag --untagged --version --warn --zero"
    ),
    "df": (
        "--all --block-size --exclude-type --help --human-readable --inodes --local --no-sync "
        "--output --portability --print-type --si --sync --total --type --version"
    ),
    "tac": "--before --help --regex --separator --version",
    "fold": "--bytes --help --spaces --version --width",
    "fmt": (
        "--crown-margin --goal --help --prefix --split-only --tagged-paragraph --uniform-spacing "
        "--version --width"
    ),
    "expand": "--help --initial --tabs --version",
    "unexpand": "--all --first-only --help --tabs --version",
    "join": "--check-order --header --help --ignore-case --nocheck-order --version --zero-terminated",
    "numfmt": (
        "--debug --delimiter --field --format --from --from-unit --grouping --header --help "
        "--invalid --padding --round --suffix --to --to-unit --version --zero-terminated"
    ),
    "truncate": "--help --io-blocks --no-create --reference --size --version",
    "rm": (
        "--dir --force --help --interactive --no-preserve-root --one-file-system --preserve-root "
        "--recursive --verbose --version"
    ),
    "rmdir": "--help --ignore-fail-on-non-empty --parents --verbose --version",
    "chown": (
        "--changes --dereference --from --help --no-dereference --no-preserve-root "
        "--preserve-root --quiet --recursive --reference --silent --verbose --version"
    ),
    "chgrp": (
        "--changes --dereference --help --no-dereference --no-preserve-root --preserve-root "
        "--quiet --recursive --reference --silent --verbose --version"
    ),
    "install": (
        "--backup --compare --context --directory --group --help --mode --no-target-directory "
        "--owner --preserve-context --preserve-timestamps --strip --strip-program --suffix "
        "--target-directory --verbose --version"
    ),
    "csplit": (
        "--digits --elide-empty-files --help --keep-files --prefix --quiet --silent "
        "--suffix-format --suppress-matched --version"
    ),
    "basename": "--help --multiple --suffix --version --zero",
    "dirname": "--help --version --zero",
    "seq": "--equal-width --format --help --separator --version",
    "mktemp": "--directory --dry-run --help --quiet --suffix --tmpdir --version",
    "shred": (
        "--exact --force --help --iterations --random-source --remove --size --verbose --version "
        "--zero"
    ),
    "sha512sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero"
    ),
    "sha224sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero"
    ),
    "sha384sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero"
    ),
    "base32": "--decode --help --ignore-garbage --version --wrap",
    "basenc": (
        "--base16 --base2lsbf --base2msbf --base32 --base32hex --base64 --base64url --decode "
        "--help --ignore-garbage --version --wrap --z85"
    ),
}
_ALIASES = {
    "egrep": "grep",
    "fgrep": "grep",
    "rgrep": "grep",
    "gtar": "tar",
    "gsed": "sed",
    "gdiff": "diff",
}

LONG_OPTIONS: dict[str, frozenset[str]] = {
    name: frozenset(text.split()) for name, text in _TEXT.items()
}
LONG_OPTIONS.update({alias: LONG_OPTIONS[name] for alias, name in _ALIASES.items()})
