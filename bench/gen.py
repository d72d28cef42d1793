#!/usr/bin/env python3
"""Deterministic benchmark inputs for toolsift (fixed seed; SIZE like 10M, 1G, 500K).

    bench/gen.py KIND SIZE OUT     writes OUT and OUT.calls (the true number of calls)

KIND:
    openai      OpenAI chat-completion responses, one per line (JSONL); about 30% of
                them with 1-3 tool calls whose argument strings hold nested JSON,
                multi-line code, unicode and escapes
    anthropic   Anthropic Messages responses, one per line: text, thinking and
                tool_use blocks
    sse         an OpenAI chat-completion stream capture: many small chunk objects,
                argument deltas of 1-12 characters, parallel calls
    mixed       long assistant text: prose, code blocks full of braces, calls in
                Hermes, fenced-JSON and KSI form, and decoys (`<tool_call>` named in
                prose, JSON configs)
    prose       assistant prose with decoys in 30% of paragraphs and no tool call
    plain       the same prose without decoys
    english     real English with no tool call: paragraphs of the GPL-3 text that
                Debian ships (/usr/share/common-licenses/GPL-3), full of "will" and
                of a few `<` and `[`

Records are drawn from a pool of distinct ones built from the seed, so generating a
gigabyte costs about what writing it does; the counts are exact.
"""
import json
import random
import sys

WORDS = ("the model writes code and prose about json tools when asked to explain how "
         "a function works in rust or python with examples").split()
DECOYS = [
    '```rust\nfn main() { let v = vec![1, 2, 3]; for x in &v { println!("{}", x); } }\n```\n',
    '```json\n{"name": "my-app", "version": "1.0.0", "scripts": {"build": "cargo build"}}\n```\n',
    'Some <b>html</b>, a [link](http://example.com) and an array [1, 2, 3].\n',
    'A config object {"retries": 3, "timeout": {"ms": 500}} inline, and the <tool_call> tag named in prose.\n',
]
TOOLS = ["get_weather", "read_file", "write_file", "run_shell", "search_web", "create_ticket"]
CITIES = ["Zürich", "東京", "São Paulo", "Kraków", "Reykjavík", "New York", "Αθήνα"]
CODE = [
    'fn main() {\n    let v: Vec<i32> = vec![1, 2, 3];\n    println!("{:?}", v);\n}\n',
    'def f(x):\n    return {"k": [x, "a { b"]}  # naïve ☃\n',
    'for f in *.rs; do\n  grep -n "TODO" "$f" | sed \'s/\\t/ /g\'\ndone\n',
    '{\n  "name": "demo",\n  "deps": {"serde": "1.0"}\n}\n',
]
POOL = 4096


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def arguments(rng):
    """Argument objects with nested JSON, multi-line code, unicode and escapes."""
    kind = rng.randrange(4)
    if kind == 0:
        return {"city": rng.choice(CITIES), "days": rng.randint(1, 7),
                "options": {"unit": "celsius", "hourly": rng.random() < 0.5,
                            "fields": ["temp", "wind", "rain"][: rng.randint(1, 3)]}}
    if kind == 1:
        return {"path": f"src/{words(rng, 1)}/{rng.randrange(1000)}.rs",
                "content": rng.choice(CODE) * rng.randint(1, 3),
                "meta": {"tags": ["a\tb", "quote \"q\"", "slash \\ x"], "overwrite": True}}
    if kind == 2:
        return {"command": f"grep -rn \"{words(rng, 2)}\" src/ | head -n {rng.randint(1, 50)}",
                "env": {"LANG": "C.UTF-8"}, "timeout": rng.randint(1, 120)}
    return {"query": words(rng, rng.randint(3, 12)) + " " + rng.choice(CITIES),
            "filters": {"site": "docs.rs", "nested": {"deep": [1, 2, {"x": None}]}}}


# Ids carry this mark, replaced by a running number as records are written: records
# drawn twice from the pool stay distinct (toolsift drops a call id seen before).
MARK = "#########"


def call_id(rng, prefix):
    return prefix + MARK + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(15))


def openai_record(rng, n):
    calls = rng.randint(1, 3) if rng.random() < 0.3 else 0
    message = {"role": "assistant", "content": None if calls else words(rng, rng.randint(20, 120)),
               "refusal": None}
    if calls:
        message["tool_calls"] = [
            {"id": call_id(rng, "call_"), "type": "function",
             "function": {"name": rng.choice(TOOLS),
                          "arguments": json.dumps(arguments(rng), ensure_ascii=rng.random() < 0.5)}}
            for _ in range(calls)]
    record = {"id": f"chatcmpl-{MARK}{n:05d}", "object": "chat.completion", "created": 1760000000 + n,
              "model": "gpt-4o-2024-08-06",
              "choices": [{"index": 0, "message": message, "logprobs": None,
                           "finish_reason": "tool_calls" if calls else "stop"}],
              "usage": {"prompt_tokens": rng.randint(100, 4000), "completion_tokens": rng.randint(5, 500),
                        "total_tokens": 0}}
    return json.dumps(record, ensure_ascii=False) + "\n", calls


def anthropic_record(rng, n):
    calls = rng.randint(1, 3) if rng.random() < 0.3 else 0
    content = []
    if rng.random() < 0.5:
        content.append({"type": "thinking", "thinking": words(rng, rng.randint(20, 80)),
                        "signature": "".join(rng.choice("ABCDEFabcdef0123456789+/") for _ in range(64))})
    content.append({"type": "text", "text": words(rng, rng.randint(10, 100))})
    for _ in range(calls):
        content.append({"type": "tool_use", "id": call_id(rng, "toolu_"), "name": rng.choice(TOOLS),
                        "input": arguments(rng)})
    record = {"id": f"msg_{MARK}{n:05d}", "type": "message", "role": "assistant",
              "model": "claude-sonnet-4-5", "content": content,
              "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
              "usage": {"input_tokens": rng.randint(100, 4000), "output_tokens": rng.randint(5, 500)}}
    return json.dumps(record, ensure_ascii=False) + "\n", calls


def sse_record(rng, n):
    """One streamed response: a role chunk, then content or parallel tool-call deltas."""
    rid = f"chatcmpl-{MARK}{n:05d}"

    def chunk(delta, finish=None):
        c = {"id": rid, "object": "chat.completion.chunk", "created": 1760000000 + n,
             "model": "gpt-4o-2024-08-06",
             "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return "data: " + json.dumps(c, ensure_ascii=False) + "\n\n"

    out = [chunk({"role": "assistant", "content": None if rng.random() < 0.5 else ""})]
    calls = rng.randint(1, 3) if rng.random() < 0.5 else 0
    if calls:
        pieces = []
        for i in range(calls):
            args = json.dumps(arguments(rng), ensure_ascii=rng.random() < 0.5)
            out.append(chunk({"tool_calls": [{"index": i, "id": call_id(rng, "call_"), "type": "function",
                                              "function": {"name": rng.choice(TOOLS), "arguments": ""}}]}))
            at = 0
            while at < len(args):
                step = rng.randint(1, 12)
                pieces.append((i, args[at:at + step]))
                at += step
        # Parallel calls: deltas of different calls interleave, each in order.
        queues = {i: [p for j, p in pieces if j == i] for i in range(calls)}
        while any(queues.values()):
            i = rng.choice([k for k, q in queues.items() if q])
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": queues[i].pop(0)}}]}))
        out.append(chunk({}, "tool_calls"))
    else:
        for w in words(rng, rng.randint(5, 40)).split():
            out.append(chunk({"content": w + " "}))
        out.append(chunk({}, "stop"))
    out.append("data: [DONE]\n\n")
    return "".join(out), calls


def mixed_record(rng, n):
    """A paragraph of assistant text, sometimes with a call (Hermes, fenced JSON, KSI)."""
    para = words(rng, rng.randint(30, 90)) + ".\n\n"
    if rng.random() < 0.3:
        para += rng.choice(DECOYS)
    if rng.random() < 0.2:
        para += "```python\n" + rng.choice(CODE) + "```\n\n"
    calls = 0
    if rng.random() < 0.15:
        calls = 1
        name = rng.choice(TOOLS)
        args = arguments(rng)
        form = rng.randrange(3)
        if form == 0:
            para += "<tool_call>\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False) + "\n</tool_call>\n\n"
        elif form == 1:
            para += "```json\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False, indent=2) + "\n```\n\n"
        else:
            para += json.dumps({"type": "ksi_tool_use", "id": call_id(rng, "ksiu_"), "name": name,
                                "input": args}, ensure_ascii=False) + "\n\n"
    return para, calls


def prose_record(rng, n, decoys=True):
    para = words(rng, 60) + ".\n\n"
    if decoys and rng.random() < 0.3:
        para += rng.choice(DECOYS)
    return para, 0


def english_record(rng, n):
    global PARAGRAPHS
    if not PARAGRAPHS:
        with open("/usr/share/common-licenses/GPL-3", encoding="utf-8") as f:
            PARAGRAPHS = [p.strip() + "\n\n" for p in f.read().split("\n\n") if p.strip()]
    return rng.choice(PARAGRAPHS), 0


PARAGRAPHS = []

KINDS = {
    "openai": openai_record,
    "anthropic": anthropic_record,
    "sse": sse_record,
    "mixed": mixed_record,
    "prose": prose_record,
    "plain": lambda rng, n: prose_record(rng, n, decoys=False),
    "english": english_record,
}


def parse_size(text):
    units = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}
    unit = text[-1].upper()
    return int(float(text[:-1]) * units[unit]) if unit in units else int(text)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    kind, size, path = sys.argv[1], parse_size(sys.argv[2]), sys.argv[3]
    rng = random.Random(7)
    make = KINDS[kind]
    pool = [make(rng, n) for n in range(POOL)]
    pool = [(text.encode(), calls) for text, calls in pool]
    written = calls = serial = 0
    mark = MARK.encode()
    with open(path, "wb", buffering=1 << 20) as out:
        while written < size:
            text, n = pool[rng.randrange(POOL)]
            serial += 1
            if mark in text:
                text = text.replace(mark, b"%09d" % serial)
            out.write(text)
            written += len(text)
            calls += n
    with open(path + ".calls", "w") as f:
        f.write(f"{calls}\n")


if __name__ == "__main__":
    main()
