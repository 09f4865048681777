"""Running shell commands: process groups, bounded output capture, background shells."""
