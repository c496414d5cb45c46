#!/usr/bin/env python3
"""Turns vigil's manual sources (man/pages/*.md) into man(7) roff pages.

Usage: mangen.py OUTDIR [SOURCE...]     (no SOURCE: every man/pages/*.md)

Writes OUTDIR/man3/NAME.3 and OUTDIR/man7/NAME.7, plus one ".so man3/NAME.3" stub per
name in a page's "links:" line, so `man` finds every function a page describes. Needs
only the Python 3 standard library.

The source format (one page per file, named NAME.SECTION.md):

    ---
    name: vigil_timer_start
    section: 3
    links: vigil_timer_stop vigil_timer_active       (optional: more names, stubs)
    summary: start, stop or query a timer
    ---
    # SYNOPSIS
    #include <vigil.h>                               (a header line)
    int vigil_timer_stop(vigil_loop *loop,           (a prototype, up to its ';':
                         vigil_timer *t);             bold, the parameter names italic)
    ```                                              (verbatim lines, e.g. a struct)
    ```
    # DESCRIPTION
    A paragraph: lines up to a blank line. **bold**, *italic*, `code` (bold, and a
    hyphen in it stays a minus sign); name(3) becomes a bold reference.
    - a bullet item (continued by the lines under it)
    : TERM                                           (a tagged paragraph: TERM, then
    its text                                          its text up to a blank line)
    ```
    code, verbatim
    ```
    + another paragraph of the bullet or tag above
    ## Subsection

The NAME section is made from name, links and summary. Sections appear in source order.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATE = "2026-11-24"         # the manual's date in every page footer (fixed: reproducible output)
SOURCE = "vigil 0.2"
MANUAL = "vigil Manual"


def esc(text):
    """Escapes text for roff: backslashes; a leading dot or quote is made harmless."""
    text = text.replace("\\", "\\e")
    return text


def line_safe(line):
    if line.startswith(".") or line.startswith("'"):
        return "\\&" + line
    return line


def inline(text):
    """Markdown-like inline markup to roff font escapes."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "`":
            j = text.find("`", i + 1)
            if j < 0:
                raise ValueError("unclosed ` in: " + text)
            code = esc(text[i + 1:j]).replace("-", "\\-")
            out.append("\\fB" + code + "\\fR")
            i = j + 1
        elif text.startswith("**", i):
            j = text.find("**", i + 2)
            if j < 0:
                raise ValueError("unclosed ** in: " + text)
            out.append("\\fB" + esc(text[i + 2:j]).replace("-", "\\-") + "\\fR")
            i = j + 2
        elif c == "*" and i + 1 < n and text[i + 1] not in " *":
            j = text.find("*", i + 1)
            if j < 0:
                raise ValueError("unclosed * in: " + text)
            out.append("\\fI" + esc(text[i + 1:j]) + "\\fR")
            i = j + 1
        else:
            m = re.match(r"([A-Za-z_][A-Za-z0-9_.]*)\(([0-9])\)", text[i:])
            if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
                out.append("\\fB" + esc(m.group(1)) + "\\fR(" + m.group(2) + ")")
                i += m.end()
            else:
                out.append(esc(c))
                i += 1
    return "".join(out)


def split_params(params):
    """Splits a parameter list at top-level commas."""
    parts, depth, cur = [], 0, ""
    for c in params:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def quote(s):
    return '"' + esc(s).replace('"', "\\(dq") + '"'


def prototype(text, width=78):
    """A C prototype as .BI lines: bold, the parameter names italic, as many parameters
    on a line as fit in width columns, continuation lines aligned after the '('."""
    text = " ".join(text.split())
    m = re.match(r"^(.*?)\b([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*;$", text)
    if not m:
        raise ValueError("not a prototype: " + text)
    ret, name, params = m.group(1), m.group(2), m.group(3)
    head = ret + name + "("
    parts = split_params(params)
    if not parts:
        return [".B " + quote(head + ");")]
    indent = " " * len(head)
    lines = []
    args, col = [], 0           # the current line's .BI arguments (bold, italic, ...)
    for k, p in enumerate(parts):
        tail = ");" if k == len(parts) - 1 else ","
        pm = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)$", p)
        if p in ("void", "...") or not pm or pm.group(1).strip() == "":
            typ, nm = p, ""
        else:
            typ, nm = pm.group(1), pm.group(2)
        piece = len(typ) + len(nm) + len(tail) + (1 if args else 0)
        if args and col + piece > width:
            lines.append(args)
            args, col = [], 0
        if not args:
            lead = head if not lines else indent
            args = [lead + typ, nm, tail]
            col = len(lead) + len(typ) + len(nm) + len(tail)
        else:
            args[-1] += " " + typ
            args += [nm, tail]
            col += piece
    lines.append(args)
    out = []
    for a in lines:
        # .BI alternates bold and italic; an empty italic name (void, ...) merges.
        merged = [a[0]]
        for i in range(1, len(a), 2):
            if a[i] == "":
                merged[-1] += a[i + 1]
            else:
                merged += [a[i], a[i + 1]]
        if len(merged) == 1:
            out.append(".B " + quote(merged[0]))
        else:
            out.append(".BI " + " ".join(quote(x) if j % 2 == 0 else x for j, x in enumerate(merged)))
    return out


def parse(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines[0] != "---":
        raise ValueError(path + ": no front matter")
    meta = {}
    i = 1
    while lines[i] != "---":
        k, _, v = lines[i].partition(":")
        meta[k.strip()] = v.strip()
        i += 1
    return meta, lines[i + 1:]


def render_synopsis(body):
    out = [".nf"]
    buf = ""
    i = 0
    first = True
    while i < len(body):
        ln = body[i]
        s = ln.strip()
        i += 1
        if s.startswith("```"):
            out.append(".PP") if not first else None
            while i < len(body) and not body[i].strip().startswith("```"):
                out.append(line_safe(esc(body[i])))
                i += 1
            i += 1
            first = False
            continue
        if buf == "" and s == "":
            if not first:
                out.append(".PP")
                first = True
            continue
        if buf == "" and (s.startswith("#include") or s.startswith("#define")):
            out.append(".B " + quote(s))
            first = False
            continue
        if buf == "" and s.startswith("/*"):
            out.append(line_safe(esc(s)))
            first = False
            continue
        buf += " " + s
        if buf.rstrip().endswith(";"):
            out.extend(prototype(buf.strip()))
            buf = ""
            first = False
    if buf.strip():
        raise ValueError("unterminated prototype: " + buf)
    while out and out[-1] == ".PP":
        out.pop()
    out.append(".fi")
    return out


def wrap(text, width=78):
    """Breaks a filled paragraph's roff text into lines of at most width bytes."""
    words = text.split(" ")
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = cur + " " + w if cur else w
    if cur:
        lines.append(cur)
    return [line_safe(x) for x in lines]


def blocks(body):
    """Groups body lines into blocks: (kind, lines) with kind one of para, bullet, tag,
    code, sub. A bullet or tag starts at its marker; a blank line ends any block."""
    out = []
    cur = None
    i = 0
    while i < len(body):
        ln = body[i]
        s = ln.strip()
        i += 1
        if s.startswith("```"):
            code = []
            while i < len(body) and not body[i].strip().startswith("```"):
                code.append(body[i])
                i += 1
            i += 1
            out.append(("code", code))
            cur = None
        elif s == "":
            cur = None
        elif s.startswith("## "):
            out.append(("sub", [s[3:]]))
            cur = None
        elif ln.startswith("- "):
            cur = ("bullet", [ln[2:]])
            out.append(cur)
        elif ln.startswith(": "):
            cur = ("tag", [ln[2:]])
            out.append(cur)
        elif cur is None:
            cur = ("para", [s])
            out.append(cur)
        else:
            cur[1].append(s)
    return out


def render_body(body):
    out = []
    fresh = True       # right after .SH/.SS: no paragraph macro needed
    indented = False   # after a bullet or tag: a following paragraph or code nests
    prev = None
    for kind, lines in blocks(body):
        if kind == "sub":
            out.append(".SS " + quote(lines[0]))
            fresh, indented = True, False
        elif kind == "code":
            if indented:
                out.append(".IP")
            else:
                if not fresh:
                    out.append(".PP")
                out.append(".RS 4")
            out.append(".EX")
            for b in lines:
                out.append(line_safe(esc(b).replace("-", "\\-")) if b.strip() else "")
            out.append(".EE")
            if not indented:
                out.append(".RE")
            fresh = False
        elif kind == "bullet":
            out.append(".IP \\(bu 2")
            out.extend(wrap(inline(" ".join(x.strip() for x in lines))))
            fresh, indented = False, True
        elif kind == "tag":
            out.append(".TP")
            out.append(line_safe(inline(lines[0].strip())))
            if len(lines) > 1:
                out.extend(wrap(inline(" ".join(x.strip() for x in lines[1:]))))
            fresh, indented = False, True
        else:
            text = " ".join(lines)
            if text.startswith("+ ") and indented:
                # "+ " continues the bullet or tag above with another paragraph
                out.append(".IP")
                text = text[2:]
            else:
                if not fresh:
                    out.append(".PP")
                indented = False
            out.extend(wrap(inline(text)))
            fresh = False
        prev = kind
    return out


def render(meta, lines):
    name, sec = meta["name"], meta["section"]
    links = meta.get("links", "").split()
    out = ['.\\" Generated by man/mangen.py from man/pages/%s.%s.md: edit that file.' % (name, sec),
           '.TH %s %s %s %s %s' % (name.upper(), sec, quote(DATE), quote(SOURCE), quote(MANUAL)),
           ".SH NAME",
           ] + wrap(esc(", ".join([name] + links)) + " \\- " + esc(meta["summary"]))
    sections = []
    cur = None
    for ln in lines:
        if ln.startswith("# "):
            cur = (ln[2:].strip(), [])
            sections.append(cur)
        elif cur is not None:
            cur[1].append(ln)
        elif ln.strip():
            raise ValueError("text before the first section: " + ln)
    for title, body in sections:
        out.append(".SH " + (quote(title) if " " in title else title))
        if title == "SYNOPSIS":
            out.extend(render_synopsis(body))
        else:
            out.extend(render_body(body))
    return "\n".join(out) + "\n", name, sec, links


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().split("\n")[2], file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    srcs = sys.argv[2:]
    if not srcs:
        pd = os.path.join(HERE, "pages")
        srcs = sorted(os.path.join(pd, f) for f in os.listdir(pd) if f.endswith(".md"))
    seen = {}
    for src in srcs:
        meta, lines = parse(src)
        try:
            text, name, sec, links = render(meta, lines)
        except ValueError as e:
            print("mangen: %s: %s" % (src, e), file=sys.stderr)
            return 1
        if os.path.basename(src) != "%s.%s.md" % (name, sec):
            print("mangen: %s: name/section do not match the file name" % src, file=sys.stderr)
            return 1
        d = os.path.join(outdir, "man" + sec)
        os.makedirs(d, exist_ok=True)
        for n in [name] + links:
            if n in seen:
                print("mangen: %s: %s already has a page (%s)" % (src, n, seen[n]), file=sys.stderr)
                return 1
            seen[n] = src
        with open(os.path.join(d, name + "." + sec), "w", encoding="utf-8") as f:
            f.write(text)
        for n in links:
            with open(os.path.join(d, n + "." + sec), "w", encoding="utf-8") as f:
                f.write(".so man%s/%s.%s\n" % (sec, name, sec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
