#!/usr/bin/env bash
# Edits one line of a file so that cargo sees a real change, as a developer's edit would:
# replaces the first line matching PATTERN (an extended regex, matched to the end of the line)
# with REPLACEMENT in which @N@ becomes a fresh number.
#   edit_line.sh FILE PATTERN REPLACEMENT
set -euo pipefail
file=$1 pattern=$2 replacement=${3//@N@/$((RANDOM % 9000 + 1000))}
python3 - "$file" "$pattern" "$replacement" <<'PY'
import re, sys
path, pattern, repl = sys.argv[1:4]
text = open(path).read()
new, n = re.subn(r"(?m)^" + pattern + r".*$", lambda m: repl, text, count=1)
if n != 1:
    sys.exit(f"edit_line.sh: no line of {path} matches {pattern!r}")
open(path, "w").write(new)
PY
