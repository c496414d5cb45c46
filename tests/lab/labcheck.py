"""What the lab's checks share: the source tree (argv[1]) with lab/ on sys.path, and the
tally of checks, each printed as it runs, the exit status from the failures."""
import os
import sys

src = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(src, "lab"))

fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


def finish(passed):
    """Print the tally (`passed` when nothing failed) and exit with its status."""
    print(f"{len(fails)} failed" if fails else passed)
    sys.exit(1 if fails else 0)
