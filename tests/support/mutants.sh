#!/usr/bin/env bash
# Mutation testing of the pure crates (TESTING.md), one crate at a time.
#
#   tests/support/mutants.sh [CRATE...]     (default: access layout inventory assembly manifest)
#
# Installs cargo-mutants 27 when it is missing, runs it on libs/<crate> with that crate's own
# tests (configuration: .cargo/mutants.toml), keeps each run's mutants.out under
# target/mutants/<crate>/, and prints per crate: tried, caught, missed, unviable, timeouts
# and the score, (caught + timeouts) / (caught + timeouts + missed): a mutant that makes the
# tests hang is detected. Exits non-zero when any crate has a missed mutant (every remaining
# miss must be excluded as proven equivalent) or cargo-mutants fails otherwise.
#
# Environment: MUTANTS_JOBS (default 2; the machine is shared, use no more),
# MUTANTS_ARGS (extra cargo-mutants arguments, e.g. "--iterate" or "--re pattern").
set -uo pipefail

cd "$(dirname "$0")/../.."
crates=("$@")
[ ${#crates[@]} -gt 0 ] || crates=(access layout inventory assembly manifest)
jobs="${MUTANTS_JOBS:-2}"

if ! cargo mutants --version 2>/dev/null | grep -q '^cargo-mutants 27\.'; then
  echo "mutants: installing cargo-mutants 27" >&2
  cargo install --locked cargo-mutants --version '^27' || exit 1
fi

count() { # $1 file: its number of lines, 0 when absent
  if [ -f "$1" ]; then grep -c . "$1"; else echo 0; fi
}

summary=()
status=0
for crate in "${crates[@]}"; do
  out="target/mutants/$crate"
  mkdir -p "$out"
  echo "mutants: libs/$crate (tests: neuralis-$crate)" >&2
  # shellcheck disable=SC2086 # MUTANTS_ARGS is a list of arguments
  cargo mutants --package "neuralis-$crate" --test-package "neuralis-$crate" \
    --jobs "$jobs" --output "$out" ${MUTANTS_ARGS:-}
  code=$?
  dir="$out/mutants.out"
  caught=$(count "$dir/caught.txt")
  missed=$(count "$dir/missed.txt")
  unviable=$(count "$dir/unviable.txt")
  timeouts=$(count "$dir/timeout.txt")
  tried=$((caught + missed + unviable + timeouts))
  score=$(awk -v c="$caught" -v m="$missed" -v t="$timeouts" \
    'BEGIN { if (c + m + t == 0) print "n/a"; else printf "%.3f", (c + t) / (c + m + t) }')
  summary+=("$(printf '%-10s %6s %7s %7s %9s %9s %6s' "$crate" "$tried" "$caught" "$missed" "$unviable" "$timeouts" "$score")")
  # cargo-mutants exits 2 for missed mutants, 3 for timeouts, other codes for failures
  # (a baseline whose tests fail, a bad configuration).
  case "$code" in 0 | 2 | 3) ;; *) status=1 ;; esac
  [ "$missed" -eq 0 ] || status=1
  if [ "$timeouts" -gt 0 ]; then
    echo "mutants: libs/$crate timeouts (counted as detected):" >&2
    sed 's/^/  /' "$dir/timeout.txt" >&2
  fi
  if [ "$missed" -gt 0 ]; then
    echo "mutants: libs/$crate missed:" >&2
    sed 's/^/  /' "$dir/missed.txt" >&2
  fi
done

printf '%-10s %6s %7s %7s %9s %9s %6s\n' crate tried caught missed unviable timeouts score
printf '%s\n' "${summary[@]}"
exit "$status"
