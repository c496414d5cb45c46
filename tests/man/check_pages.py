#!/usr/bin/env python3
"""The manual against the library: run by ctest (tests/man/CMakeLists.txt).

Usage: check_pages.py MANDIR SRCDIR

MANDIR holds the generated pages (man3/, man7/: the build's man/ directory), SRCDIR is
the source tree. Checks, each failure printed:
  1. every symbol exported by src/vigil.map has a page file man3/<symbol>.3, a page or a
     ".so man3/<page>.3" stub whose target exists, and `man -M MANDIR -w` finds it;
  2. every page renders without a warning: mandoc -Tlint, and groff -ww -z (each one
     that is installed; exit 77 when neither is);
  3. every prototype in a page's SYNOPSIS matches the header's declaration (return
     type, name and parameter list, whitespace normalized), names a function the
     headers declare, and every exported symbol appears in some SYNOPSIS.
"""
import os
import re
import shutil
import subprocess
import sys

mandir, srcdir = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL  " + msg)


def norm(s):
    """Whitespace-normalized C text: single spaces, none around * ( ) , ;"""
    s = " ".join(s.split())
    s = re.sub(r"\s*([*(),;])\s*", r"\1", s)
    return s


# ---------------------------------------------------------------- the headers
def header_decls():
    """name -> normalized declaration text "ret name(params)" from include/."""
    decls = {}
    inc = os.path.join(srcdir, "include")
    for root, _, files in os.walk(inc):
        for fn in files:
            if not fn.endswith(".h"):
                continue
            text = open(os.path.join(root, fn), encoding="utf-8").read()
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            text = re.sub(r"//[^\n]*", " ", text)
            text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
            flat = " ".join(text.split())
            for m in re.finditer(r"(?:VIGIL_EXPORT|VIGIL_MQ_EXPORT)\s+([^;{}]*?\))\s*;", flat):
                d = m.group(1)
                name = re.search(r"([A-Za-z_]\w*)\s*\(", d).group(1)
                decls[name] = norm(d)
            for m in re.finditer(r"(static inline\s+[^;{}]*?\))\s*\{", flat):
                d = m.group(1)
                name = re.search(r"([A-Za-z_]\w*)\s*\(", d).group(1)
                decls[name] = norm(d)
    return decls


def map_symbols():
    text = open(os.path.join(srcdir, "src", "vigil.map"), encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return sorted(set(re.findall(r"^\s*(vigil_\w+)\s*;", text, flags=re.M)))


# ------------------------------------------------------------------ the pages
def roff_words(line):
    """The arguments of a .B/.BI line, quotes removed, joined (BI alternates fonts with
    no space between arguments)."""
    args = re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', line.split(None, 1)[1] if " " in line else "")
    return "".join(a or b for a, b in args).replace("\\e", "\\").replace("\\(dq", '"').replace("\\-", "-")


def synopsis_protos(path):
    """Prototypes ('...;') written with .B/.BI in the page's SYNOPSIS."""
    text, insyn = "", False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith(".SH"):
            insyn = line.split(None, 1)[1].strip('"') == "SYNOPSIS"
            continue
        if insyn and (line.startswith(".B ") or line.startswith(".BI ")):
            w = roff_words(line)
            if w.startswith("#"):
                continue
            text += " " + w
    return [p.strip() + ";" for p in text.split(";") if p.strip()]


def pages():
    out = []
    for sec in ("3", "7"):
        d = os.path.join(mandir, "man" + sec)
        if os.path.isdir(d):
            out += [os.path.join("man" + sec, f) for f in sorted(os.listdir(d))]
    return out


def stub_target(rel):
    first = open(os.path.join(mandir, rel), encoding="utf-8").readline().strip()
    return first[4:] if first.startswith(".so ") else None


all_pages = pages()
if not all_pages:
    fail("no pages in %s (the build generates them: target man)" % mandir)
    sys.exit(1)

# 1. a page for every exported symbol
syms = map_symbols()
man = shutil.which("man")
for s in syms:
    rel = os.path.join("man3", s + ".3")
    if not os.path.isfile(os.path.join(mandir, rel)):
        fail("%s: exported (src/vigil.map) but no page %s" % (s, rel))
        continue
    t = stub_target(rel)
    if t and not os.path.isfile(os.path.join(mandir, t)):
        fail("%s: stub names %s, which does not exist" % (rel, t))
    if man:
        r = subprocess.run([man, "-M", mandir, "-w", "3", s], capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout.strip():
            fail("%s: `man -M %s -w 3 %s` does not find it: %s" % (s, mandir, s, r.stderr.strip()))
for rel in all_pages:
    t = stub_target(rel)
    if t is not None and not os.path.isfile(os.path.join(mandir, t)):
        fail("%s: stub names %s, which does not exist" % (rel, t))
print("checked: %d exported symbols, %d page files" % (len(syms), len(all_pages)))

# 2. lint
mandoc = shutil.which("mandoc")
groff = shutil.which("groff")
if not mandoc and not groff:
    print("SKIP: neither mandoc nor groff is installed (scripts/deps.sh test installs mandoc)")
    sys.exit(77)
for rel in all_pages:
    stub = stub_target(rel) is not None
    # mandoc warns about every .so ("fragile, better use ln(1)"): stubs are checked by
    # groff and by their target's own lint instead.
    if mandoc and not stub:
        r = subprocess.run([mandoc, "-Tlint", "-W", "style", rel], cwd=mandir, capture_output=True, text=True)
        msg = (r.stdout + r.stderr).strip()
        if r.returncode != 0 or msg:
            fail("%s: mandoc -Tlint:\n%s" % (rel, msg))
    if groff:
        r = subprocess.run([groff, "-ww", "-z", "-man", rel], cwd=mandir, capture_output=True, text=True)
        msg = (r.stdout + r.stderr).strip()
        if r.returncode != 0 or msg:
            fail("%s: groff -ww -z:\n%s" % (rel, msg))
print("linted: %d pages with %s" % (len(all_pages), " and ".join(x for x in (mandoc and "mandoc -Tlint",
                                                                          groff and "groff -ww -z") if x)))

# 3. SYNOPSIS against the headers
decls = header_decls()
seen = set()
nproto = 0
for rel in all_pages:
    if stub_target(rel) is not None:
        continue
    for p in synopsis_protos(os.path.join(mandir, rel)):
        m = re.search(r"([A-Za-z_]\w*)\s*\(", p)
        if not m:
            fail("%s: SYNOPSIS text is not a prototype: %s" % (rel, p))
            continue
        name = m.group(1)
        nproto += 1
        seen.add(name)
        if name not in decls:
            fail("%s: SYNOPSIS declares %s, which no header in include/ declares" % (rel, name))
        elif norm(p.rstrip(";")) != decls[name]:
            fail("%s: SYNOPSIS of %s differs from the header:\n      page:   %s\n      header: %s"
                 % (rel, name, norm(p.rstrip(";")), decls[name]))
for s in syms:
    if s not in seen:
        fail("%s: in no page's SYNOPSIS" % s)
print("compared: %d SYNOPSIS prototypes with the headers" % nproto)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("OK")
