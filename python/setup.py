"""Builds vigil._core: the extension's own C (csrc/) and libvigil's sources, compiled
into the one shared object, so libvigil is linked statically and its symbols stay hidden.
liburing is used when its headers are present (as the CMake build does).

libvigil's sources are the repository's src/ and include/ (../src, ../include) when
building from the tree, or libvigil/src and libvigil/include beside this file in an
sdist: `make wheel` (python/scripts/wheel.sh) copies them there in a staging copy of
python/, and MANIFEST.in puts them in the sdist."""
import glob
import os
import shutil
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
# libvigil's tree: the sdist's copy, else the repository around python/.
ROOT = next((d for d in (os.path.join(HERE, "libvigil"), os.path.dirname(HERE))
             if os.path.isdir(os.path.join(d, "src")) and os.path.isdir(os.path.join(d, "include"))),
            os.path.dirname(HERE))


def rel(p):
    return os.path.relpath(p, HERE)


# Not src/preload (a library of its own) nor src/tls (<vigil/tls.h>, on OpenSSL: the
# extension does not offer it -- Python has its own ssl module -- and would otherwise
# need libssl at import time).
lib_sources = sorted(p for p in glob.glob(os.path.join(ROOT, "src", "**", "*.c"), recursive=True)
                     if os.sep + "preload" + os.sep not in p and os.sep + "tls" + os.sep not in p)
if not lib_sources:
    raise SystemExit("vigil: libvigil's sources not found (../src in the repository, libvigil/src in an "
                     "sdist made by `make wheel`)")
sources = [rel(p) for p in sorted(glob.glob(os.path.join(HERE, "csrc", "*.c")))] + [rel(p) for p in lib_sources]

define_macros = [("_GNU_SOURCE", None), ("VIGIL_BUILDING", None)]
libraries = ["pthread", "rt"]
include_dirs = [os.path.join(ROOT, "include"), os.path.join(ROOT, "src"), os.path.join(HERE, "csrc")]


def have_liburing():
    if os.environ.get("VIGIL_NO_LIBURING"):
        return False
    if shutil.which("pkg-config"):
        r = subprocess.run(["pkg-config", "--exists", "liburing"], capture_output=True)
        if r.returncode == 0:
            return True
    return os.path.exists("/usr/include/liburing.h")


if have_liburing():
    define_macros.append(("VIGIL_HAVE_LIBURING", "1"))
    libraries.append("uring")

ext = Extension(
    "vigil._core",
    sources=sources,
    include_dirs=include_dirs,
    define_macros=define_macros,
    libraries=libraries,
    extra_compile_args=["-std=gnu11", "-O2", "-fvisibility=hidden", "-Wall", "-Wno-unused-parameter",
                        "-Wno-missing-field-initializers"],
)

setup(ext_modules=[ext])
