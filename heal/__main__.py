"""``python -m heal``: the same command line as ``heal-messages``."""

from heal.cli import main

# Guarded: ``migrate --workers N`` under the spawn or forkserver start method imports the main
# module in every worker, which must not run the command again.
if __name__ == "__main__":
    raise SystemExit(main())
