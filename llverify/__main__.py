"""``python -m llverify ...``: the same command line as the ``llverify`` script."""

from llverify.cli import main

if __name__ == "__main__":
    main()
