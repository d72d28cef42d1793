#!/bin/sh
# xargs -P over a NUL-separated list: PROCS runs of toolsift at once, BATCH files each,
# each run writing a part of its own (several runs writing one pipe would interleave
# and split records). Then every run's exit code is checked.
#
#   examples/scale/xargs.sh SRC OUT [PROCS] [BATCH]     (defaults: 2 runs, 500 files)
#
# OUT gets files.list (what is read: examples/scale/list.sh SRC) and, per run, what
# part.sh writes: parts/part-*.jsonl (records), manifests/part-*.jsonl, runs/part-*.list
# and runs/part-*.rc.
# The records of all parts are those of one `toolsift extract SRC`. TOOLSIFT names the
# binary (default: toolsift). Exit code: report.sh's (0; 3 with inputs in error named;
# 1 when a run failed).
set -eu
here=$(dirname "$0")
[ $# -ge 2 ] || { echo "usage: $0 SRC OUT [PROCS] [BATCH]" >&2; exit 2; }
src=$1 out=$2 procs=${3:-2} batch=${4:-500}
mkdir -p "$out/parts" "$out/manifests" "$out/runs"
if [ -n "$(find "$out/parts" "$out/manifests" "$out/runs" -mindepth 1 -print)" ]; then
    echo "$0: $out holds parts of an earlier run" >&2
    exit 2
fi
"$here/list.sh" "$src" > "$out/files.list"
# xargs goes on past a failed run; report.sh tells which failed from its .rc.
xargs -0 -P "$procs" -n "$batch" "$here/part.sh" "$out" - < "$out/files.list" || :
exec "$here/report.sh" "$out"
