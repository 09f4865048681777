"""Search for Glob and Grep: ripgrep when it is there, a pure-Python walker when it is not."""
