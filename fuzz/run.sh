#!/usr/bin/env bash
# Runs every fuzz target (or those named) one after another for SECONDS each (default
# 120), with a memory limit and a time limit per input, so that blow-ups are findings.
# Findings land in fuzz/artifacts/<target>/; each run's log in fuzz/logs/<target>.log.
#   fuzz/run.sh [-t SECONDS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")"
seconds=120
if [ "${1:-}" = -t ]; then seconds=$2; shift 2; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
mkdir -p logs
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    # Dialect files are leaked on purpose (they live for the whole run): no leak check.
    # `threads` starts reading threads in a scope, which ends before each thread has run
    # its thread-local destructors (glibc's list of them included): LeakSanitizer, when
    # it looks in between, reports what the exiting thread frees a moment later.
    leaks=1
    case $t in dialect_file | threads) leaks=0 ;; esac
    ASAN_OPTIONS="detect_leaks=$leaks" nice -n 10 cargo +nightly fuzz run "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -malloc_limit_mb=2048 -rss_limit_mb=2048 -timeout=10 \
        -detect_leaks=$leaks -print_final_stats=1 >"logs/$t.log" 2>&1
    code=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' | tail -1)
    found=$(ls "artifacts/$t" 2>/dev/null | wc -l)
    echo "$t: exit $code, ${runs:-?} executions, $found findings"
done
