"""Replay recorded sessions (loopcfg traces, OpenClaw transcripts) through the engine.

`events` is the neutral event stream both readers produce; `runner` drives the engine with it.
"""
