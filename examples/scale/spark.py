#!/usr/bin/env python3
"""toolsift under Spark: each task runs one toolsift on its partition of the files.

    examples/scale/spark.py SRC OUT [--master local[2]] [--partitions N]

The driver lists the files under SRC as `toolsift extract SRC` reads them (list_files)
and spreads them over N partitions. Each task runs

    toolsift extract -q -j 1 -0 --files-from - --manifest OUT/manifests/part-I.jsonl \\
        -o OUT/parts/part-I.jsonl

with its paths on standard input (a partition's paths can exceed a command line) and
returns its exit code, manifest lines and the end of its stderr. A task that Spark
reruns (a lost executor, speculation) writes the same part again. The driver collects
the statuses and fails loudly: any exit code but 0 or 3 stops it with the partitions
named, every listed input must be in exactly one manifest, and inputs in error (exit 3)
are listed for a rerun. SRC and OUT must be on a file system the driver and every
executor see (the same path on each).

Not RDD.pipe: it ignores a command's exit code by default, and with checkCode=True a
single failure throws away every record of the stage.

TOOLSIFT names the binary (default: toolsift, looked up on each executor's PATH).
Exit code: 0; 3 when inputs could not be read (named); 1 when a task failed.
"""
import argparse
import json
import os
import subprocess
import sys


def list_files(src):
    """The files toolsift reads under src, in its order: depth first, each directory
    sorted by name (bytes), names starting with "." left out, regular files only (no
    symbolic link), each file once (of two hard links, the first)."""
    out, seen = [], set()

    def walk(directory):
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: os.fsencode(e.name))
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path)
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    out.append(entry.path)

    walk(src)
    return out


def run_part(toolsift, out, index, paths):
    """One toolsift run on paths; returns its exit code, manifest lines and stderr."""
    name = "part-%05d" % index
    manifest = os.path.join(out, "manifests", name + ".jsonl")
    proc = subprocess.run(
        [toolsift, "extract", "-q", "-j", "1", "-0", "--files-from", "-",
         "--manifest", manifest, "-o", os.path.join(out, "parts", name + ".jsonl")],
        input=b"".join(os.fsencode(p) + b"\0" for p in paths),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    try:
        with open(manifest, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    return {"part": name, "code": proc.returncode, "inputs": len(paths),
            "manifest": lines, "stderr": proc.stderr.decode("utf-8", "replace")[-2000:]}


def report(results, listed):
    """Checks the runs' statuses; returns the exit code (0, 3 or 1)."""
    failed = [r for r in results if r["code"] not in (0, 3)]
    for r in failed:
        print(f"toolsift: {r['part']}: exit {r['code']} ({r['inputs']} inputs, none "
              f"taken as read): {r['stderr'].strip()}", file=sys.stderr)
    seen = {}
    errors = []
    for r in results:
        for line in r["manifest"]:
            entry = json.loads(line)
            seen[entry["path"]] = seen.get(entry["path"], 0) + 1
            if entry["status"].startswith("error:"):
                errors.append(entry)
    for entry in errors:
        print(f"toolsift: {entry['path']}: {entry['status']}", file=sys.stderr)
    missing = [p for p in listed if p not in seen]
    twice = [p for p, n in seen.items() if n > 1]
    if not failed and (missing or twice):
        print(f"toolsift: {len(missing)} inputs in no manifest, {len(twice)} in more "
              f"than one", file=sys.stderr)
    records = sum(json.loads(l)["records"] for r in results for l in r["manifest"])
    print(f"toolsift: {len(results)} runs, {len(seen)} inputs ({len(errors)} in error), "
          f"{records} records; {len(failed)} runs failed", file=sys.stderr)
    if failed or missing or twice:
        return 1
    return 3 if errors else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src")
    parser.add_argument("out")
    parser.add_argument("--master", default=None, help="e.g. local[2]; default: spark-submit's")
    parser.add_argument("--partitions", type=int, default=None,
                        help="default: the default parallelism, 4 partitions a core")
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.appName("toolsift")
               .config("spark.ui.showConsoleProgress", "false"))
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    toolsift = os.environ.get("TOOLSIFT", "toolsift")
    out = os.path.abspath(args.out)
    for sub in ("parts", "manifests"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    paths = list_files(args.src)
    if not paths:
        print(f"toolsift: {args.src}: no file to read", file=sys.stderr)
        sys.exit(0)
    partitions = args.partitions or 4 * sc.defaultParallelism
    partitions = max(1, min(partitions, len(paths)))
    results = (sc.parallelize(paths, partitions)
               .mapPartitionsWithIndex(lambda i, it: [run_part(toolsift, out, i, list(it))])
               .collect())
    spark.stop()
    sys.exit(report(results, paths))


if __name__ == "__main__":
    main()
