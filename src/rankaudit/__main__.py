"""``python -m rankaudit``: the command line (:mod:`rankaudit.cli`)."""

from rankaudit.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
