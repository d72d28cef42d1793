#!/bin/sh
# One task of a job array: a Slurm array, a Kubernetes indexed Job, a CI matrix. Each
# task reads its own stable shard of SRC (by the XXH3 of each file's path inside SRC,
# so the shard does not depend on where SRC is mounted), and the COUNT tasks together
# read every file once, as one `toolsift extract SRC` does.
#
#   TASK=I COUNT=N examples/scale/job-array.sh SRC OUT      (I from 1 to N)
#
# TASK is 1-based. Where the engine numbers tasks from 0, add one:
#   Kubernetes indexed Job:  TASK=$((JOB_COMPLETION_INDEX + 1)) COUNT=<completions>
#   Slurm (--array=0-15):    TASK=$((SLURM_ARRAY_TASK_ID + 1)) COUNT=$SLURM_ARRAY_TASK_COUNT
#   GitHub matrix (task: [1, 2, 3, 4]): TASK=${{ matrix.task }} COUNT=4
# Without TASK, the Slurm and Kubernetes variables are read (Slurm ids taken from
# SLURM_ARRAY_TASK_MIN, so --array=1-16 and --array=0-15 both work).
#
# Writes OUT/parts/part-I.jsonl, OUT/manifests/part-I.jsonl and OUT/runs/part-I.rc (the
# exit code), the layout of part.sh: once every task has ended, `examples/scale/report.sh OUT`
# checks them all (a dependent job: sbatch --dependency=afterany:JOBID). The task
# exits 0 when toolsift exited 0 or 3, toolsift's code otherwise; a task uses the CPUs
# it is given (TOOLSIFT_THREADS=1 when it shares them). TOOLSIFT names the binary.
set -eu
[ $# -eq 2 ] || { echo "usage: TASK=I COUNT=N $0 SRC OUT" >&2; exit 2; }
src=$1 out=$2
if [ -z "${TASK:-}" ]; then
    if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
        TASK=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
        COUNT=${COUNT:-$SLURM_ARRAY_TASK_COUNT}
    elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
        TASK=$((JOB_COMPLETION_INDEX + 1))
    fi
fi
: "${TASK:?TASK is not set (1 to COUNT)}" "${COUNT:?COUNT is not set (the number of tasks)}"
mkdir -p "$out/parts" "$out/manifests" "$out/runs"
rc=0
"${TOOLSIFT:-toolsift}" extract -q --shard "$TASK/$COUNT" --manifest "$out/manifests/part-$TASK.jsonl" \
    -o "$out/parts/part-$TASK.jsonl" -- "$src" || rc=$?
echo "$rc" > "$out/runs/part-$TASK.rc"
case $rc in
    0 | 3) exit 0 ;;
    *) exit "$rc" ;;
esac
