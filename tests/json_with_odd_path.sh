#!/bin/sh
# Runs amg_solve --json on a copy of a Matrix Market file whose path holds a
# quote, a backslash and a tab, and checks with Python that the last line is
# valid JSON naming that path. Usage: json_with_odd_path.sh AMG_SOLVE DATA_FILE
set -eu
directory=$(mktemp -d)
odd="$directory/quote\"back\\slash	tab.mtx"
cp "$2" "$odd"
"$1" --matrix "$odd" --json | tail -n 1 |
  python3 -c 'import json, sys; r = json.loads(sys.stdin.read()); print("valid json, problem ends", repr(r["problem"][-22:]))'
rm -rf "$directory"
