"""`lathe --acp`: lathe as an Agent Client Protocol agent over stdio (editors, Toad, Zed).

server.py runs the connection; agent.py answers the protocol's methods; session.py maps one ACP
session onto one engine Session; updates.py turns engine events into session/update notifications;
permission.py asks the client what the TUI's dialog would ask; client_fs.py and client_terminal.py
are the client's files and terminals as the session's TextFiles and Terminals, which the real
Read, Edit, Write and Bash go through when the client offers them.
"""
