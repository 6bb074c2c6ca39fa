"""`python -m curator`: the same command line as `curator`."""

from curator.cli import main

raise SystemExit(main())
