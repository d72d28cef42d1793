#!/bin/sh
# One run of toolsift on the files it is given, as one process of an engine (xargs -P,
# GNU parallel) runs it: its records, manifest, list and exit code go to a part of
# their own, so that runs at once never share an output.
#
#   examples/scale/part.sh OUT NAME FILE...     NAME "-": a new unique name
#
# Writes OUT/parts/part-NAME.jsonl (records), OUT/manifests/part-NAME.jsonl (one line
# per input), OUT/runs/part-NAME.list (the inputs, NUL-separated: rerun with
# `toolsift extract -0 --files-from OUT/runs/part-NAME.list`) and OUT/runs/part-NAME.rc
# (the exit code, written last: a run without it did not finish). Exits 0 when toolsift exited
# 0 or 3 (a partial run: the inputs in error are in the manifest), toolsift's code
# otherwise. TOOLSIFT names the binary (default: toolsift).
set -eu
out=$1 name=$2
shift 2
if [ "$name" = - ]; then
    # mktemp reserves the name: parallel runs never pick the same one.
    reserved=$(mktemp "$out/runs/part-XXXXXXXX")
    name=${reserved##*/part-}
fi
run=$out/runs/part-$name
printf '%s\0' "$@" > "$run.list"
rc=0
"${TOOLSIFT:-toolsift}" extract -q -j 1 --manifest "$out/manifests/part-$name.jsonl" \
    -o "$out/parts/part-$name.jsonl" -- "$@" || rc=$?
echo "$rc" > "$run.rc"
[ -z "${reserved:-}" ] || rm -f "$reserved"
case $rc in
    0 | 3) exit 0 ;;
    *) exit "$rc" ;;
esac
