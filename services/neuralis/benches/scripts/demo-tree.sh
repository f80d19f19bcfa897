#!/usr/bin/env bash
# Issue 31: from a new source to its first answer. For ROUNDS rounds, alternating the
# order, runs `rg -uuu` reading every file of the tree and `neuralis demo TREE --exit`
# (a fresh data directory each round) for each binary given, and prints per round the
# wall seconds, the ratio to rg in the same round, the peak resident KB (`/usr/bin/time
# %M`) and the KB per indexed row; then the medians.
#
# (/usr/bin/time prefixes a failing exit status, such as rg finding nothing, as a line
# of its own: the figures are the last line.)
# Usage: [TREE=/tmp/demo-tree] [FILES=100000] [ROUNDS=5] demo-tree.sh [BIN...]
#   BIN defaults to target/release/neuralis (build: cargo build --release --offline -p neuralis).
# The tree is made once (tests/support/make-tree.py) when TREE does not exist.
# DEMO_ARGS=--timings (binaries that know the flag) has the demo report its phases on
# stderr (start-up, seed, sync, first listing: seconds, resident and peak KB); each
# round's stdout and stderr are kept in $OUT/<binary>-<round>.out and .err.
set -euo pipefail

TREE=${TREE:-/tmp/demo-tree}
FILES=${FILES:-100000}
ROUNDS=${ROUNDS:-5}
OUT=${OUT:-$(mktemp -d /tmp/demo-tree-out.XXXXXX)}
mkdir -p "$OUT"
NOWHERE=zzqqxx-found-nowhere-31
repo=$(cd "$(dirname "$0")/../../../.." && pwd)
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=("$repo/target/release/neuralis")

if [ ! -d "$TREE" ]; then
    python3 "$repo/tests/support/make-tree.py" "$TREE" "$FILES"
fi

# One timed command: prints "seconds peak_kb"; its stdout goes to $2, stderr to $3.
timed() {
    local out=$1 err=$2
    shift 2
    /usr/bin/time -o "$OUT/time" -f '%e %M' "$@" >"$out" 2>"$err" || {
        echo "failed: $* (see $err)" >&2
        return 1
    }
    tail -n 1 "$OUT/time"
}

run_rg() {
    # rg exits 1 when nothing matches, which is the point here.
    /usr/bin/time -o "$OUT/time" -f '%e %M' rg -uuu --count --no-messages "$NOWHERE" "$TREE" \
        >/dev/null 2>&1 || true
    tail -n 1 "$OUT/time" | cut -d' ' -f1
}

run_demo() {
    local bin=$1 tag=$2 data
    data=$(mktemp -d /tmp/demo-tree-data.XXXXXX)
    timed "$OUT/$tag.out" "$OUT/$tag.err" "$bin" demo "$TREE" --exit \
        --listen 127.0.0.1:0 --data-dir "$data/d" ${DEMO_ARGS:-}
    rm -rf "$data"
}

# Rows indexed, from the demo's "3. synced: N files seen, M indexed" line.
indexed() {
    sed -n 's/.*synced: [0-9]* files seen, \([0-9]*\) indexed.*/\1/p' "$1"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "tree $TREE, $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg), out $OUT"
run_rg >/dev/null # warm the page cache
printf '%-5s %-24s %7s %7s %6s %9s %7s\n' round binary rg_s demo_s ratio peak_KB KB/row
for round in $(seq 1 "$ROUNDS"); do
    order=("${bins[@]}")
    if [ $((round % 2)) -eq 0 ]; then
        order=()
        for ((i = ${#bins[@]} - 1; i >= 0; i--)); do order+=("${bins[$i]}"); done
    fi
    rg_s=$(run_rg)
    for bin in "${order[@]}"; do
        name=$(basename "$(dirname "$bin")")-$(basename "$bin")
        tag="$name-$round"
        read -r demo_s peak_kb < <(run_demo "$bin" "$tag")
        rows=$(indexed "$OUT/$tag.out")
        ratio=$(awk -v d="$demo_s" -v r="$rg_s" 'BEGIN {printf "%.2f", d / r}')
        per_row=$(awk -v k="$peak_kb" -v n="$rows" 'BEGIN {printf "%.2f", (n > 0 ? k / n : 0)}')
        printf '%-5s %-24s %7s %7s %6s %9s %7s\n' "$round" "$name" "$rg_s" "$demo_s" "$ratio" \
            "$peak_kb" "$per_row"
        echo "$name $rg_s $demo_s $ratio $peak_kb $per_row" >>"$OUT/rounds"
    done
done
echo "medians (load $(cut -d' ' -f1-3 /proc/loadavg)):"
for bin in "${bins[@]}"; do
    name=$(basename "$(dirname "$bin")")-$(basename "$bin")
    col() { awk -v n="$name" -v c="$1" '$1 == n {print $c}' "$OUT/rounds" | median; }
    printf '%-24s rg %ss demo %ss ratio %sx peak %s KB, %s KB/row\n' "$name" "$(col 2)" \
        "$(col 3)" "$(col 4)" "$(col 5)" "$(col 6)"
done
