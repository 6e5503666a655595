#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a man page from a program's own --help (and its commands' --help), so that the page
follows the tool: fabricbench(1) and fabricbench-analyze(1) are made at build time
(CMakeLists.txt). Sections that --help does not hold (FILES, SEE ALSO, ...) come from an
include file in help2man's format: "[SECTION]" lines, each followed by roff text.

    manpage.py -o OUT.1 --name NAME --source "NAME 1.2" --date YYYY-MM-DD
               [--include FILE.h2m] -- COMMAND [ARG...]

The help is read as plain text, line by line: an indented line starting with '-' is an
option (the text after two or more spaces, and the more indented lines after it, describe
it); an indented "word  text" line is an entry of a list (commands, kernels); anything else
is running text. Every line of the help reaches the page, so a new option, kernel or command
is in the page without editing anything here."""
import argparse
import os
import re
import subprocess
import sys

# an indented entry: its name, then after two or more spaces (or one before "[default:")
# what it is
ENTRY = re.compile(r"^(\s+)(\S.*?)(?:(?:\s{2,}|\s(?=\[default))(\S.*))?$")


def esc(text):
    """Roff text: backslashes, dashes (\\- so that options copy and search as typed) and a
    leading dot or quote (which would start a request). After a comma inside a word (a kernel
    list such as a family's) roff may break the line (\\: prints nothing)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = re.sub(r",(?=\S)", ",\\:", text)
    if text[:1] in (".", "'"):
        text = "\\&" + text
    return text


def tag(text):
    """An option or entry name: words starting with '-' bold, placeholders italic."""
    out = []
    for word in re.split(r"(\s+|,\s*|\[|\]|=)", text):
        if not word or re.fullmatch(r"\s+|,\s*|\[|\]|=", word):
            out.append(esc(word))
        elif word.startswith("-") or re.fullmatch(r"[a-z][\w.-]*", word):
            out.append("\\fB%s\\fR" % esc(word))
        else:
            out.append("\\fI%s\\fR" % esc(word))
    return "".join(out)


def run_help(cmd):
    env = dict(os.environ, COLUMNS="80", PYTHONDONTWRITEBYTECODE="1", LC_ALL="C.UTF-8")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    return p.returncode, p.stdout


def split_usage(text):
    """(the usage block's lines, the rest's lines): the usage block runs from the line that
    starts with 'usage:' to the first blank line."""
    lines = text.rstrip("\n").split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.lower().startswith("usage:")), None)
    if start is None:
        return [], lines[:], []
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[:start], lines[start:end], lines[end:]


def usage_entries(block):
    """The usage block as [synopsis, description] entries. A two-column block (a synopsis,
    then after two or more spaces what it does, in one column) gives descriptions;
    argparse's gives none. Lines indented less than that column continue the synopsis."""
    col = None
    for ln in block:
        m = re.match(r"^(?:usage:)?\s{0,8}\S.*?\s{2,}(?=\S)", ln, flags=re.I)
        if m:
            col = m.end() if col is None else min(col, m.end())
    entries = []
    for ln in block:
        lead = len(ln) - len(ln.lstrip())
        if entries and col is not None and lead >= col:
            entries[-1][1] = (entries[-1][1] + " " + ln.strip()).strip()
            continue
        split = col is not None and len(ln) > col and ln[col - 2:col] == "  " and \
            ln[col] != " "
        body = ln[:col] if split else ln
        desc = ln[col:].strip() if split else ""
        syn = re.sub(r"^usage:\s*", "", body.strip(), flags=re.I).strip()
        if not entries or lead <= 8:
            entries.append([syn, desc])
        else:
            entries[-1][0] += " " + syn
            entries[-1][1] = (entries[-1][1] + " " + desc).strip()
    return entries


def body_roff(lines):
    """Running text, lists and options as roff: .PP paragraphs and .TP entries."""
    out, para, entry, entry_indent, text_col = [], [], None, 0, None

    def flush():
        nonlocal para, entry
        if para:
            out.append(".PP")
            out.append(esc(" ".join(para)))
            para = []
        if entry is not None:
            out.append(".TP")
            out.append(tag(entry[0]))
            out.append("\n.br\n".join(esc(" ".join(p)) for p in entry[1]) if entry[1]
                       else "\\&")
            entry = None

    for ln in lines:
        if not ln.strip():
            flush()
            continue
        lead = len(ln) - len(ln.lstrip())
        m = ENTRY.match(ln)
        if entry is not None and lead > entry_indent and not ln.lstrip().startswith("-"):
            # aligned with the entry's text: the same paragraph; else a line of its own
            if entry[1] and lead == text_col:
                entry[1][-1].append(ln.strip())
            else:
                entry[1].append([ln.strip()])
                text_col = lead
            continue
        is_option = lead > 0 and ln.lstrip().startswith("-")
        is_item = lead > 0 and m and m.group(3) and re.fullmatch(r"[\w.{},-]+", m.group(2))
        is_bare = lead > 0 and re.fullmatch(r"[A-Z][\w.]*|\{[\w,-]+\}", ln.strip())
        if is_bare:  # a list's heading (argparse's COMMAND): its entries follow
            flush()
            out += [".PP", tag(ln.strip())]
            continue
        if is_option or is_item:
            flush()
            entry = [m.group(2), [[m.group(3)]] if m.group(3) else []]
            entry_indent, text_col = lead, m.start(3) if m.group(3) else None
            continue
        if entry is not None:
            flush()
        para.append(ln.strip())
    flush()
    return out


def command_candidates(name, text):
    """Words that may be commands: after the program's name, or first on an indented line."""
    found = re.findall(r"\b%s ([a-z][\w-]*)" % re.escape(name), text)
    # [ \t], not \s: a gap must not run over the line's end and swallow the next line's
    # indentation (a description ending in one word hid the command below it)
    found += re.findall(r"^[ \t]{2,}([a-z][\w-]*)(?:[ \t]{2,}|$)", text, flags=re.M)
    seen = []
    for w in found:
        if w not in seen:
            seen.append(w)
    return seen


def includes(path):
    sections, cur = {}, None
    if not path:
        return sections
    with open(path, encoding="utf-8") as f:
        for ln in f:
            m = re.match(r"^\[([^\]]+)\]\s*$", ln)
            if m:
                cur = m.group(1).strip().upper()
                sections[cur] = []
            elif cur is not None:
                sections[cur].append(ln.rstrip("\n"))
    return {k: "\n".join(v).strip("\n") for k, v in sections.items()}


def page(args):
    cmd = args.command
    rc, text = run_help(cmd + ["--help"])
    if rc != 0 or not text.strip():
        sys.exit("manpage.py: '%s --help' failed (exit %d)" % (" ".join(cmd), rc))
    before, usage, rest = split_usage(text)
    first = " ".join(ln.strip() for ln in before if ln.strip())
    m = re.match(r"^%s [\w.+-]+: (.*)$" % re.escape(args.name), first)
    desc = m.group(1) if m else ""
    if not desc:  # argparse: the description is the paragraph after the usage
        paras = "\n".join(rest).strip().split("\n\n")
        desc = " ".join(paras[0].split()) if paras and paras[0].strip() else args.name
        rest = "\n".join(rest).strip().split("\n")[len(paras[0].split("\n")):]
    desc = desc.rstrip(".")
    inc = includes(args.include)
    out = ['.\\" Made by cmake/manpage.py from "%s --help": do not edit.' % args.name,
           '.TH "%s" "1" "%s" "%s" "User Commands"' % (args.name.upper(), args.date,
                                                     esc(args.source)),
           ".nh", ".ad l",
           ".SH NAME", "%s \\- %s" % (esc(args.name), esc(desc)),
           ".SH SYNOPSIS"]
    entries = usage_entries(usage)
    for syn, _ in entries:
        out += [".br", tag(syn)]
    out += [".SH DESCRIPTION"] + body_roff(rest)
    if any(d for _, d in entries):
        out.append(".SH COMMANDS")
        for syn, d in entries:
            if d:
                out += [".TP", tag(syn), esc(d)]
    for word in command_candidates(args.name, text):
        rc, sub = run_help(cmd + [word, "--help"])
        if rc != 0 or not re.match(r"^usage:.*\b%s\b" % re.escape(word), sub.lstrip(), re.I):
            continue
        _, sub_usage, sub_rest = split_usage(sub)
        out.append('.SH "%s %s"' % (esc(args.name), esc(word)))
        for syn, d in usage_entries(sub_usage):
            out += [".br", tag(syn)]
            if d:
                out += [".br", "\\h'4n'" + esc(d)]
        out += body_roff(sub_rest)
    for sec, roff in inc.items():
        out += ['.SH "%s"' % sec, roff]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--source", required=True, help="the page's footer: NAME VERSION")
    ap.add_argument("--date", required=True)
    ap.add_argument("--include", help="sections in help2man's format: [SECTION] then roff")
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()
    text = page(args)
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
