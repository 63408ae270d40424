#!/usr/bin/env python3
"""validate.py DIR...: check every --json document tests/schema/tee.sh kept
in DIR against the schema of its command, tests/schema/NAME.json (NAME:
the command, "profile-diff" for a subcommand, "sessions-log" and
"search-list" for those views, "help-command", "version"). A failure
printed nothing else than {"error": {...}}, checked against error.json.
Prints one line per problem; exit status 1 when there is any."""
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("schema: python3-jsonschema is missing (make check installs it with the test packages)")
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
VALUED_GLOBALS = {"--root", "--db"}
SUBCOMMANDS = {"profile", "boot"}
COMMANDS = {f[:-5].split("-")[0] for f in os.listdir(HERE) if f.endswith(".json")} | {"complete"}
VIEWS = {("sessions", "--log"): "sessions-log", ("search", "--list"): "search-list"}


def schema_name(args):
    words, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a in VALUED_GLOBALS:
            skip = True
        elif not a.startswith("-"):
            words.append(a)
    if not words:
        return "version" if "--version" in args else "help"
    # the command: the first word that names one (a command's valued option
    # may stand before it: --workload seqwrite history)
    cmd = next((w for w in words if w in COMMANDS), words[0])
    words = words[words.index(cmd):]
    for (c, flag), name in VIEWS.items():
        if cmd == c and flag in args:
            return name
    if cmd in SUBCOMMANDS and len(words) > 1:
        return cmd + "-" + words[1]
    if cmd == "help" and len(words) > 1:
        return "help-command"
    return cmd


_schemas = {}


def schema(name):
    if name not in _schemas:
        path = os.path.join(HERE, name + ".json")
        _schemas[name] = json.load(open(path)) if os.path.exists(path) else None
    return _schemas[name]


def check(out_path, problems):
    args = open(out_path + ".args").read().split("\n")[:-1]
    rc = open(out_path + ".rc").read().strip() if os.path.exists(out_path + ".rc") else "?"
    line = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(args))
    text = open(out_path, encoding="utf-8", errors="replace").read()
    if not text.strip():
        problems.append("%s: exit %s with nothing on stdout" % (line, rc))
        return
    try:
        doc = json.loads(text)
    except ValueError as e:
        problems.append("%s: not one JSON document (%s)" % (line, e))
        return
    is_error = isinstance(doc, dict) and list(doc) == ["error"]
    name = "error" if is_error else schema_name(args)
    s = schema(name)
    if s is None:
        problems.append("%s: no schema tests/schema/%s.json" % (line, name))
        return
    if is_error and str(doc["error"].get("code")) != rc:
        problems.append("%s: error code %s but exit %s" % (line, doc["error"].get("code"), rc))
    for err in sorted(jsonschema.Draft7Validator(s).iter_errors(doc), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in err.path) or "(top)"
        problems.append("%s: %s.json: %s: %s" % (line, name, where, err.message[:200]))


def main():
    problems = []
    for d in sys.argv[1:]:
        for out in sorted(glob.glob(os.path.join(d, "out.??????"))):
            check(out, problems)
    for p in problems:
        print("schema: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
