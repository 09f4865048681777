"""lathe's benchmarks: `uv run python -m bench` prints every measured value beside its target."""
