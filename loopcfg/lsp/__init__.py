"""`loopcfg lsp`: a Language Server for OpenClaw configs (pygls; the `lsp` extra).

analysis.py knows what to say (the validate pipeline, fix, migrate, the key table); server.py
only speaks LSP. Nothing here implements a rule of its own.
"""
