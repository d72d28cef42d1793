#!/usr/bin/env python3
"""Deterministic benchmark inputs for toolsift (fixed seed, size in bytes).

    bench/gen.py prose SIZE > file    assistant prose with code blocks full of braces,
                                      JSON configs, HTML, links and `<tool_call>` named in
                                      prose (decoys in 30% of paragraphs), and no tool call
    bench/gen.py plain SIZE > file    the same prose without decoys
"""
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


def prose(size, rng, out, decoys=True):
    written = 0
    while written < size:
        para = " ".join(rng.choice(WORDS) for _ in range(60)) + ".\n\n"
        if decoys and rng.random() < 0.3:
            para += rng.choice(DECOYS)
        out.write(para)
        written += len(para.encode())


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("prose", "plain"):
        sys.exit(__doc__)
    size = int(sys.argv[2].rstrip("MmKk")) * (1_000_000 if sys.argv[2][-1] in "Mm" else 1_000 if sys.argv[2][-1] in "Kk" else 1)
    rng = random.Random(7)
    prose(size, rng, sys.stdout, decoys=sys.argv[1] == "prose")


if __name__ == "__main__":
    main()
