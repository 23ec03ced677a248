"""``python3 -m llverify.gpu ...``: the ``llverify gpu`` group without the rest of the CLI (no z3 needed)."""

from llverify.gpu.cli import gpu

if __name__ == "__main__":
    gpu(prog_name="python3 -m llverify.gpu")
