"""`python -m loopcfg` runs the command line."""

from loopcfg.cli import main

main()
