#!/usr/bin/env bash
# After ctest: each skipped test with the reason it printed (its "SKIP: ..." line), so a
# skip is never mistaken for a pass. Usage: scripts/test-skips.sh <ctest build dir>
log="$1/Testing/Temporary/LastTest.log"
[ -f "$log" ] || exit 0
awk '
  /^[0-9]+\/[0-9]+ Test: / { name = $3 }
  /^SKIP: / { sub(/^SKIP: /, ""); why[name] = $0 }
  END { for (t in why) printf "  %-45s %s\n", t, why[t] }
' "$log" | sort > "$1/skips.txt"
if [ -s "$1/skips.txt" ]; then
  echo "Skipped, with their reasons:"
  cat "$1/skips.txt"
fi
# The run's closing line is ctest's summary again, after the list above.
[ -f "$1/ctest-summary.txt" ] && cat "$1/ctest-summary.txt"
exit 0
