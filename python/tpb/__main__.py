"""``python -m tpb``: the ``tpb`` command line (python/tpb/_cli.py)."""

from tpb._cli import console

if __name__ == "__main__":
    console()
