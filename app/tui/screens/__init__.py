"""The App's screens; each keeps its stylesheet in a .tcss file beside it."""
