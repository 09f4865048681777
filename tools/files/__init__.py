"""Helpers of the file tools (Read, Write, Edit): encodings, atomic writes, line windows, diffs."""
