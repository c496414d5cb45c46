"""file-batch: creates the benchmark's three files in the scratch folder (on the build's
file system), or removes them.

  written    1 GiB (256 MiB with --quick) of real data, synced and dropped from the page
             cache: O_DIRECT reads go to the device
  unwritten  1 GiB of unwritten extents (fallocate): an O_DIRECT read never reaches the
             device (the file system returns zeros), so it measures submission cost only
  cached     64 MiB, read once so it is page-cache hot (512 B buffered reads)

usage: prep.py DIR [--quick] | prep.py DIR --remove
"""
import os
import sys

MIB = 1 << 20
FILES = ("written", "unwritten", "cached")


def write_file(path, size):
    chunk = os.urandom(MIB)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for i in range(size // MIB):
            # vary each MiB a little so no two blocks are alike
            os.write(fd, i.to_bytes(8, "little") + chunk[8:])
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main():
    d = sys.argv[1]
    if "--remove" in sys.argv:
        for f in FILES:
            try:
                os.unlink(os.path.join(d, f))
            except FileNotFoundError:
                pass
        print("file-batch: scratch files removed", file=sys.stderr)
        return
    quick = "--quick" in sys.argv
    os.makedirs(d, exist_ok=True)
    st = os.statvfs(d)
    need = (256 if quick else 1024) * MIB + 1024 * MIB + 64 * MIB
    if st.f_bavail * st.f_frsize < need + 512 * MIB:
        print(f"file-batch: not enough room in {d} for {need // MIB} MiB of files", file=sys.stderr)
        sys.exit(77)
    write_file(os.path.join(d, "written"), (256 if quick else 1024) * MIB)
    fd = os.open(os.path.join(d, "unwritten"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.posix_fallocate(fd, 0, 1024 * MIB)
    os.close(fd)
    path = os.path.join(d, "cached")
    write_file(path, 64 * MIB)
    with open(path, "rb") as f:  # page-cache hot again
        while f.read(MIB):
            pass
    print(f"file-batch: files ready in {d}", file=sys.stderr)


main()
