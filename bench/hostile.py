#!/usr/bin/env python3
"""Hostile inputs: each case of "bounded under any input", generated and timed.

    bench/hostile.py BIN WORKDIR [CASE ...]

For each case: wall time at 1 MB and at 4 MB (linear means about 4x), and the peak RSS
at the size where a bad reader blows up (the "large" column). Every run has a time limit
(TIMEOUT seconds) and its exit code is checked: a crash, an abort or a time-out is printed
as such, never as a time. Inputs are written once to WORKDIR.
"""

import os
import resource
import subprocess
import sys
import time

TIMEOUT = 120
# Address space per run: a blow-up ends that run (an abort is printed as such) instead of
# taking the machine's memory.
MEMORY_LIMIT = 4 << 30
MB = 1_000_000


def repeat(path, unit, size, head=""):
    """HEAD, then UNIT repeated to about SIZE bytes."""
    unit = unit.encode()
    n = max(1, size // len(unit))
    with open(path, "wb") as f:
        f.write(head.encode())
        while n:
            k = min(n, 1 << 16)
            f.write(unit * k)
            n -= k


def lines(path, make, size):
    with open(path, "w") as f:
        total, i = 0, 0
        while total < size:
            s = make(i)
            f.write(s)
            total += len(s)
            i += 1


def chat_line(i):
    return (
        '{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c%d","type":"function",'
        '"function":{"name":"get_weather","arguments":"{\\"city\\":\\"P%d\\"}"}}]}}]}\n' % (i, i)
    )


def gen(case, size, path, work):
    """Writes the input of CASE at SIZE bytes; returns the argument list after `toolsift`."""
    if case == "gemini-partial-index":
        with open(path, "w") as f:
            f.write('data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f",'
                    '"partialArgs":[{"jsonPath":"$.a[50000000]","stringValue":"x"}],'
                    '"willContinue":true}}]}}]}\n\n' * max(1, size // 170))
        return ["extract", path]
    if case == "gemini-partial-depth":
        with open(path, "w") as f:
            for _ in range(max(1, size // 60_200)):
                f.write('data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f",'
                        '"partialArgs":[{"jsonPath":"$' + ".a" * 30_000 + '","stringValue":"x"}],'
                        '"willContinue":true}}]}}]}\n\n')
        return ["extract", path]
    if case == "sse-one-long-event":
        repeat(path, 'data: {"a":1},\n', size, head="data: [\n")
        return ["extract", path]
    xml = {
        "seed-oss-cut": "<seed:tool_call><function=f><parameter=a>vvv \n",
        "qwen3-coder-cut": "<tool_call>\n<function=f>\n<parameter=a>\nvvv \n",
        "glm-cut": "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>vvv \n",
        "minimax-m2-cut": '<minimax:tool_call>\n<invoke name="f">\n<parameter name="a">vvv \n',
        "step3-cut": "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
                     '<steptml:invoke name="f"><steptml:parameter name="a">vvv \n',
        "deepseek-dsml-cut": '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n'
                             '<｜DSML｜parameter name="a" string="true">vvv \n',
        "function-open": "<function=f>\n",
        "blank-lines": "\n",
        "bracket-lines": "[\n",
        "bracket-log": "[2026-11-25 12:00:00] INFO something happened here ok\n",
    }
    if case in xml:
        repeat(path, xml[case], size)
        return ["extract", path]
    if case == "bad-jsonl":
        repeat(path, "not json at all\n", size)
        return ["extract", "--input", "jsonl", path]
    if case == "chat-stream-no-index":
        head = ('data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
                '{"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"f",'
                '"arguments":""}}]}}]}\n\n')
        frag = ('data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
                '{"tool_calls":[{"function":{"arguments":"ab"}}]}}]}\n\n')
        lines(path, lambda i: head % i if i % 4 == 0 else frag, size)
        return ["extract", path]
    if case == "responses-deltas":
        lines(path, lambda i: (
            'data: {"type":"response.output_item.added","output_index":%d,"item":{"type":'
            '"function_call","id":"fc_%d","call_id":"c%d","name":"f","arguments":""}}\n\n'
            'data: {"type":"response.function_call_arguments.delta","item_id":"fc_%d",'
            '"output_index":%d,"delta":"{}"}\n\n' % (i, i, i, i, i)), size)
        return ["extract", path]
    if case == "chat-stream-unfinished":
        lines(path, lambda i: (
            'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
            '{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"f",'
            '"arguments":"{\\"a\\""}}]}}]}\n\n' % (i, i)), size)
        return ["extract", path]
    if case == "one-message-id":
        lines(path, lambda i: (
            '{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":'
            '"tool_use","id":"tu_%d","name":"f","input":{"i":%d}}]}}\n' % (i, i)), size)
        return ["extract", path]
    if case in ("check-calls", "with-results"):
        lines(path, chat_line, size)
        return (["check", path] if case == "check-calls"
                else ["extract", "--with-results", path])
    if case == "json-dense-value":
        # One JSON object of nothing but small numbers: a tape slot for every 2 bytes.
        with open(path, "w") as f:
            f.write('{"a":[' + "1," * max(1, size // 2 - 8) + "1]}\n")
        return ["extract", "--input", "json", path]
    if case == "json-document":
        with open(path, "w") as f:
            f.write("[")
            total, i = 1, 0
            while total < size:
                s = ("," if i else "") + chat_line(i)[len('{"choices":[{"message":'):-len("}]}\n")]
                f.write(s)
                total += len(s)
                i += 1
            f.write("]")
        return ["extract", path]
    if case == "unknown-tool-name":
        tools = os.path.join(work, "tools.json")
        with open(tools, "w") as f:
            f.write('[{"type":"function","function":{"name":"get_weather","parameters":'
                    '{"type":"object"}}}]')
        with open(path, "w") as f:
            f.write('{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"x",'
                    '"type":"function","function":{"name":"' + "a" * size +
                    '","arguments":"{}"}}]}}]}\n')
        return ["extract", "--tools", tools, path]
    if case == "binary":
        with open(path, "wb") as f:
            f.write(os.urandom(size))
        return ["extract", path]
    if case == "two-files-head":
        lines(path, chat_line, size)
        small = os.path.join(work, "small.jsonl")
        with open(small, "w") as f:
            f.write(chat_line(0))
        return ["extract", path, small]
    raise SystemExit(f"unknown case {case}")


CASES = [
    # (case, size at which peak RSS is measured)
    ("gemini-partial-index", 4 * MB),
    ("gemini-partial-depth", 4 * MB),
    ("sse-one-long-event", 16 * MB),
    ("seed-oss-cut", 16 * MB),
    ("qwen3-coder-cut", 16 * MB),
    ("glm-cut", 16 * MB),
    ("minimax-m2-cut", 16 * MB),
    ("step3-cut", 16 * MB),
    ("deepseek-dsml-cut", 16 * MB),
    ("chat-stream-no-index", 13 * MB),
    ("responses-deltas", 18 * MB),
    ("bad-jsonl", 20 * MB),
    ("bracket-log", 128 * MB),
    ("bracket-lines", 128 * MB),
    ("blank-lines", 40 * MB),
    ("binary", 50 * MB),
    ("function-open", 40 * MB),
    ("two-files-head", 159 * MB),
    ("with-results", 167 * MB),
    ("check-calls", 167 * MB),
    ("chat-stream-unfinished", 79 * MB),
    ("one-message-id", 72 * MB),
    ("json-document", 42 * MB),
    ("json-dense-value", 15 * MB),
    ("unknown-tool-name", 4 * MB),
]

# Devices and directories: not sized, run once.
SPECIAL = [
    ("/dev/zero as text", ["extract", "/dev/zero"]),
    ("/dev/zero as JSONL", ["extract", "--input", "jsonl", "/dev/zero"]),
    ("--tools /dev/zero", ["extract", "--tools", "/dev/zero", "/dev/null"]),
    ("--dialect-file /dev/zero", ["extract", "--dialect-file", "/dev/zero", "/dev/null"]),
]


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(bin_, args, head=False):
    """(seconds, peak KiB, outcome) of one run."""
    t = time.perf_counter()
    try:
        if head:
            # `| head -1`: how long until the first record, and the process ends.
            p = subprocess.Popen([bin_] + args, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, preexec_fn=limit)
            p.stdout.readline()
            p.stdout.close()
            try:
                code = p.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                raise
        else:
            code = subprocess.run([bin_] + args, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, timeout=TIMEOUT,
                                  preexec_fn=limit).returncode
        outcome = "ok" if code in (0, 1, 2) or (head and code < 0) else f"exit {code}"
    except subprocess.TimeoutExpired:
        outcome = f"> {TIMEOUT} s"
    elapsed = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, peak, outcome


def measured(bin_, args, head=False):
    """Runs in a fresh python child so that ru_maxrss is this run's alone."""
    out = subprocess.run(
        [sys.executable, __file__, "--one", bin_, "1" if head else "0", "--"] + args,
        capture_output=True, text=True, check=True)
    secs, peak, outcome = out.stdout.split("\t")
    return float(secs), int(peak), outcome.strip()


def main():
    if sys.argv[1] == "--one":
        bin_, head, args = sys.argv[2], sys.argv[3] == "1", sys.argv[5:]
        secs, peak, outcome = run(bin_, args, head)
        print(f"{secs:.4f}\t{peak}\t{outcome}")
        return
    bin_, work = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    os.makedirs(work, exist_ok=True)
    print("| input | 1 MB | 4 MB | 4 MB / 1 MB | large | peak RSS at large |")
    print("| --- | --- | --- | --- | --- | --- |")
    for case, large in CASES:
        if only and case not in only:
            continue
        cells = []
        times = []
        for size in (MB, 4 * MB):
            path = os.path.join(work, f"{case}.{size}")
            args = gen(case, size, path, work)
            secs, _, outcome = measured(bin_, args, head=case == "two-files-head")
            times.append(secs)
            cells.append(f"{secs * 1000:.0f} ms" if outcome == "ok" else outcome)
        path = os.path.join(work, f"{case}.{large}")
        args = gen(case, large, path, work)
        secs, peak, outcome = measured(bin_, args, head=case == "two-files-head")
        big = f"{large // MB} MB: " + (f"{secs:.2f} s" if outcome == "ok" else outcome)
        ratio = f"{times[1] / max(times[0], 1e-4):.1f}x"
        print(f"| {case} | {cells[0]} | {cells[1]} | {ratio} | {big} | {peak / 1024:.0f} MB |")
        for p in (os.path.join(work, f"{case}.{s}") for s in (MB, 4 * MB, large)):
            if os.path.exists(p):
                os.remove(p)
    for name, args in SPECIAL:
        if only and name not in only:
            continue
        secs, peak, outcome = measured(bin_, args)
        shown = f"{secs:.2f} s" if outcome == "ok" else outcome
        print(f"| {name} | | | | {shown} | {peak / 1024:.0f} MB |")
    # A directory that links back to itself and its parent: each file read once.
    loop = os.path.join(work, "loop")
    os.makedirs(os.path.join(loop, "d"), exist_ok=True)
    with open(os.path.join(loop, "d", "a.jsonl"), "w") as f:
        f.write(chat_line(0))
    for name, target in (("self", "."), ("up", "..")):
        link = os.path.join(loop, "d", name)
        if not os.path.lexists(link):
            os.symlink(target, link)
    fifo = os.path.join(loop, "d", "pipe")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    if not only or "directory loops and a FIFO" in only:
        for flags in ([], ["-L"]):
            secs, peak, outcome = measured(bin_, ["extract"] + flags + [loop])
            shown = f"{secs:.2f} s" if outcome == "ok" else outcome
            print(f"| directory loops and a FIFO {' '.join(flags)} | | | | {shown} | "
                  f"{peak / 1024:.0f} MB |")


if __name__ == "__main__":
    main()
