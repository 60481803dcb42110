"""``python -m rankaudit.distributed``: see :mod:`rankaudit.distributed.cli`."""

from rankaudit.distributed.cli import main

__all__: list[str] = []

if __name__ == "__main__":
    raise SystemExit(main())
