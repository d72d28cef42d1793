#!/bin/sh
# GNU parallel over a NUL-separated list: PROCS runs of toolsift at once, each given as
# many names as fit on its command line (-X), each writing a part of its own, numbered
# by its job number. Then every run's exit code is checked.
#
#   examples/scale/parallel.sh SRC OUT [PROCS]     (default: 2 runs at once)
#
# OUT gets what xargs.sh writes, with parts numbered part-1, part-2, ... TOOLSIFT names the
# binary (default: toolsift). Exit code: report.sh's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: $0 SRC OUT [PROCS]" >&2; exit 2; }
src=$1 out=$2 procs=${3:-2}
mkdir -p "$out/parts" "$out/manifests" "$out/runs"
if [ -n "$(find "$out/parts" "$out/manifests" "$out/runs" -mindepth 1 -print)" ]; then
    echo "$0: $out holds parts of an earlier run" >&2
    exit 2
fi
"$here/list.sh" "$src" > "$out/files.list"
# parallel hands the command to a shell: paths go in through the environment, quoted
# there; the names are quoted by parallel.
RECIPES=$here OUT=$out
export RECIPES OUT
parallel -0 -X -j "$procs" --halt never '"$RECIPES/part.sh" "$OUT" {#} {}' < "$out/files.list" || :
exec "$here/report.sh" "$out"
