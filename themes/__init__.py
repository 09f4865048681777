"""lathe's colour themes: `themes/*.toml` beside this file, plus the user's own from
`$LATHE_CONFIG_DIR/themes/*.toml`, loaded into Textual `Theme` objects by `themes.loader`."""
