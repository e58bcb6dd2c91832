"""The commands other than `validate`, one module each, loaded when named (loopcfg/cli.py)."""
