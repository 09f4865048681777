"""The Textual front end: the App, its screens (each with its .tcss beside it) and launching."""
