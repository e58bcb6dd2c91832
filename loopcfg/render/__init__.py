"""Renderers: turn result values (diagnostics, resolved settings, replay reports) into text."""
