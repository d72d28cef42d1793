#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the fixtures (files up to 64 KiB, so that inputs stay
# small and runs fast) and from tests/data for the dialect-file and contract targets.
# The corpora are not committed; run this once before fuzzing. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
max=65536

seed() { # seed TARGET FILE...
    local target=$1
    shift
    mkdir -p "fuzz/corpus/$target"
    for f in "$@"; do
        [ -f "$f" ] && [ "$(wc -c <"$f")" -le "$max" ] || continue
        cp "$f" "fuzz/corpus/$target/$(echo "$f" | tr '/' '_')"
    done
}

mapfile -t all < <(find fixtures -type f ! -name '*.md' ! -name '*.py' | sort)
by_ext() { printf '%s\n' "${all[@]}" | grep -E "\.($1)\$" || true; }
mapfile -t json < <(by_ext 'json|traj|ipynb')
mapfile -t jsonl < <(by_ext 'jsonl')
mapfile -t sse < <(by_ext 'sse')
mapfile -t yaml < <(by_ext 'yaml|yml')
mapfile -t http < <(by_ext 'httprr|yaml')
mapfile -t txt < <(by_ext 'txt')

seed extract_text "${all[@]}"
seed extract_json "${json[@]}"
seed extract_jsonl "${jsonl[@]}" tests/data/check/*.jsonl
seed extract_sse "${sse[@]}"
seed extract_yaml "${yaml[@]}"
seed extract_http "${http[@]}"
seed with_text "${txt[@]}"
seed windows "${txt[@]}"
seed threads "${txt[@]}" "${jsonl[@]}"
seed convert "${json[@]}" "${jsonl[@]}" "${txt[@]}"
seed dialect_file tests/data/acme-dialects.json
seed tools tests/data/contracts/*.json tests/data/fidelity/*.json
for d in fuzz/corpus/*/; do echo "$d: $(ls "$d" | wc -l) files"; done
