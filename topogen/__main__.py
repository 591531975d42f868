"""``python -m topogen``: the same as the ``topogen`` command."""

from topogen.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
