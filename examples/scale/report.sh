#!/bin/sh
# Checks the parts of a batch of runs (part.sh, job-array.sh) once all have ended:
# every run's exit code, every input's status in the manifests, and, when OUT/files.list
# is there, that every listed input is in a manifest. Prints a summary to stderr.
#
#   examples/scale/report.sh OUT
#
# Exits 0 when every run exited 0; 3 when some exited 3 (their inputs in error are
# named: rerun on them); 1 when a run failed (another exit code, or no exit code: it
# did not finish), when no run was found, or when inputs are missing from the manifests.
set -eu
out=$1
runs=0 partial=0 failed=0
for rcfile in "$out"/runs/part-*.rc; do
    [ -e "$rcfile" ] || break
    runs=$((runs + 1))
    name=${rcfile##*/}
    name=${name%.rc}
    rc=$(cat "$rcfile")
    case $rc in
        0) ;;
        3)
            partial=$((partial + 1))
            echo "$name: exit 3, inputs not read (rerun on them):" >&2
            grep '"status":"error: ' "$out/manifests/$name.jsonl" >&2 || :
            ;;
        *)
            failed=$((failed + 1))
            echo "$name: exit ${rc:-unknown (the run did not finish)}: rerun it" >&2
            ;;
    esac
done
# A run that never wrote its exit code (killed, or its node lost).
for list in "$out"/runs/part-*.list; do
    [ -e "$list" ] || break
    if [ ! -e "${list%.list}.rc" ]; then
        failed=$((failed + 1))
        echo "${list##*/}: no exit code: the run did not finish; rerun it" >&2
    fi
done
inputs=$(cat "$out"/manifests/*.jsonl 2>/dev/null | grep -c '' || :)
records=$(cat "$out"/parts/*.jsonl 2>/dev/null | grep -c '' || :)
errors=$(cat "$out"/manifests/*.jsonl 2>/dev/null | grep -c '"status":"error: ' || :)
missing=0
if [ -e "$out/files.list" ]; then
    listed=$(tr -cd '\0' < "$out/files.list" | wc -c)
    if [ "$listed" -ne "$inputs" ]; then
        missing=1
        echo "$out: $listed inputs listed, $inputs in the manifests" >&2
    fi
fi
echo "toolsift: $runs runs, $inputs inputs ($errors in error), $records records; $partial runs partial, $failed failed" >&2
if [ "$runs" -eq 0 ] || [ "$failed" -gt 0 ] || [ "$missing" -gt 0 ]; then
    exit 1
elif [ "$partial" -gt 0 ]; then
    exit 3
fi
