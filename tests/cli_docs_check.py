"""The options each command's --help lists and the options the docs list must be the same.

usage: cli_docs_check.py AXIBULK DOCS_DIR

For info, extract, kernel and repack the docs are their section of docs/cli.md (the heading, the
usage block, the bullets that start with an option and the first column of the option tables);
for mkdb, the parameter table of docs/mkdb.md. Both directions: an option in --help that the docs
do not list, and an option the docs list that --help does not know, are failures. Every command
of `axibulk --help` must have its section in docs/cli.md, and every example command in docs/*.md,
README.md and jobs/*.sh may use only options its command knows. Needs nothing but python3.
"""

import glob
import os
import re
import subprocess
import sys

axb, docs = sys.argv[1:3]
OPT = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
failures = []


# This checks text, not memory: under LeakSanitizer a singleton (no mpiexec) axibulk's exit check
# dies in its tracer here, as the cli tests' sanitizer pass found, so leaks are not checked.
env = dict(os.environ)
env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")


def help_text(*args):
    r = subprocess.run([axb, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env)
    if r.returncode != 0:
        failures.append("axibulk %s exited %d: %s" % (" ".join(args), r.returncode, r.stdout[-300:]))
    return r.stdout


def help_options(cmd):
    opts = set()
    for line in help_text(cmd, "--help").splitlines():
        m = re.match(r"^\s+(?:(-\w), )?(--[\w-]+)", line)
        if m:
            opts.update(o for o in m.groups() if o)
    return opts - {"-h", "--help"}


def section(text, start):
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(start):
            out = [line]
            for line2 in lines[i + 1:]:
                if line2.startswith("## "):
                    break
                out.append(line2)
            return out
    return None


def listed_options(lines):
    # where the docs declare options: heading, code blocks, "- `--x`" bullets, tables' first cells
    opts = set()
    in_code = False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
            continue
        if line.startswith("#"):
            opts.update(OPT.findall(line))
        elif in_code and "axibulk " in line:
            # usage lines and examples; what precedes axibulk is the launcher's (mpirun -np 2)
            opts.update(OPT.findall(line[line.index("axibulk "):]))
        elif line.startswith("- `"):
            opts.update(OPT.findall(line.split("`")[1]))
        elif line.startswith("|") and not line.startswith("|---"):
            opts.update(OPT.findall(line.split("|")[1]))
    return opts - {"-h", "--help"}


with open(docs + "/cli.md") as f:
    cli = f.read()
with open(docs + "/mkdb.md") as f:
    mkdb = f.read()

commands = re.findall(r"^  (\w+)\s{2,}", help_text("--help"), re.M)
if not commands:
    failures.append("no commands found in `axibulk --help`")
for cmd in commands:
    if cmd == "mkdb":
        lines = section(mkdb, "## Parameters and defaults")
        where = "docs/mkdb.md (Parameters and defaults)"
    else:
        lines = section(cli, "## `axibulk %s" % cmd)
        where = "docs/cli.md (axibulk %s)" % cmd
    if lines is None:
        failures.append("%s: no section %s" % (cmd, where))
        continue
    have = help_options(cmd)
    listed = listed_options(lines)
    if not have:
        failures.append("%s: no options found in --help" % cmd)
    for o in sorted(have - listed):
        failures.append("%s %s: in --help, not listed in %s" % (cmd, o, where))
    for o in sorted(listed - have):
        failures.append("%s %s: listed in %s, unknown to --help" % (cmd, o, where))
    print("%s: %d options in --help, %d listed in %s" % (cmd, len(have), len(listed), where))

# Every example command in the docs, the README and the job helpers uses only options its command
# knows (continued lines joined; an example's options end at a closing backtick, | ; or #).
root = os.path.dirname(os.path.abspath(docs))
known = {cmd: help_options(cmd) for cmd in commands}
pages = sorted(glob.glob(os.path.join(docs, "*.md"))) + [os.path.join(root, "README.md")]
pages += sorted(glob.glob(os.path.join(root, "jobs", "*.sh")))
example = re.compile(r"(?:axibulk|\$axb|\$AXB)\s+(%s)\b([^`|;#]*)" % "|".join(commands))
used = 0
for page in pages:
    with open(page) as f:
        text = f.read().replace("\\\n", " ")
    for line in text.splitlines():
        for m in example.finditer(line):
            for o in OPT.findall(m.group(2)):
                used += 1
                if o not in known[m.group(1)] | {"-h", "--help"}:
                    failures.append("%s: example `axibulk %s ... %s`: %s does not know %s"
                                    % (os.path.relpath(page, root), m.group(1), o, m.group(1), o))
print("%d options in example commands of %d pages checked" % (used, len(pages)))

for msg in failures:
    print("FAIL:", msg)
print("%d commands checked, %d failed" % (len(commands), len(failures)))
sys.exit(1 if failures else 0)
