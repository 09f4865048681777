"""Fetching web pages for WebFetch: URL rules, bounded HTTP, HTML to Markdown."""
