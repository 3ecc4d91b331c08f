"""``python -m heal``: the same command line as ``heal-messages``."""

from heal.cli import main

raise SystemExit(main())
