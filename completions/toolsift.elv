
use builtin;
use str;

set edit:completion:arg-completer[toolsift] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'toolsift'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'toolsift'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand extract 'Extract tool calls as JSON Lines'
            cand check 'Check recorded transcripts against tool contracts and scenario assertions (the CI gate): exit 1 on any finding'
            cand tools 'Work with tool contracts'
            cand dialects 'List the dialects toolsift recognizes, with their channel and an example'
            cand convert 'Convert whole transcripts between formats: XML tool-call histories to JSON, and between OpenAI, Anthropic, Gemini, Responses and toolsift''s own form'
            cand schema 'Print a JSON Schema of toolsift''s formats'
            cand completions 'Print the completion script for a shell (as shipped in completions/)'
            cand man 'Print a man page (as shipped in man/): toolsift''s, or a subcommand''s'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'toolsift;extract'= {
            cand --input 'How the input is framed; auto decides per source from its first bytes'
            cand -f 'Channels to try per turn, in priority order'
            cand --formats 'Channels to try per turn, in priority order'
            cand --roles 'Message roles whose text is scanned for calls'
            cand --dialects 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL'
            cand --tools 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map; repeatable): every call is validated against its tool''s JSON Schema, tag-named text calls must use a declared name, and raw-text values are typed by the schema'
            cand --dialect-file 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see docs/dialects.md, "Your own dialects"). Repeatable'
            cand --schema-root 'A `$ref` to a file in a contract is read only under DIR (default: the directory of the contract that names it)'
            cand --reasoning 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call'
            cand --exclude 'Files and directories found inside directory arguments whose name (or path relative to the argument, for a pattern with a `/`) matches GLOB are not read, as fd''s --exclude (repeatable; `--exclude ''*.orig''`). Files named as arguments are always read'
            cand --files-from 'Also read the paths listed in LIST ("-": standard input), one a line, as if they were arguments (a directory is walked); empty lines are skipped. A file reached twice, named or listed or found, is read once'
            cand --shard 'Read only shard I of N (1 ≤ I ≤ N): the files whose path, relative to the directory argument it was found in (as given, for a file named or listed), hashes to it. The same files on every machine; the N shards together read every file once'
            cand --label 'The name of standard input in records and messages (`s3://bucket/key.jsonl`) instead of "-"; only when standard input is read'
            cand --color 'Colour in human-readable output (`check`''s report, `--stats`): auto colours a terminal unless NO_COLOR is set, or anything when CLICOLOR_FORCE is'
            cand --manifest 'Write a manifest to FILE: one JSON line per input, in input order, with its path, size, mtime, xxh3 hash, status (read, read in part, skipped, error, unchanged), framing, dialects and records (see docs/records.md, "Manifest lines"). Written whole when the run ends, as -o is'
            cand -o 'Write records to FILE instead of standard output: they replace FILE when the run ends, never half written; FILE may not be one of the inputs'
            cand --output 'Write records to FILE instead of standard output: they replace FILE when the run ends, never half written; FILE may not be one of the inputs'
            cand -j 'Files read at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core); records still come out in the order of the files. With 2 or more and a single JSON Lines file, one thread reads and parses it while another walks its records; with a single long text file, one thread reads and sweeps the next piece while another scans'
            cand --jobs 'Files read at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core); records still come out in the order of the files. With 2 or more and a single JSON Lines file, one thread reads and parses it while another walks its records; with a single long text file, one thread reads and sweeps the next piece while another scans'
            cand --skip-unchanged 'Skip the inputs that MANIFEST (an earlier --manifest) lists with the same size, mtime and hash: they give no records, and are in --manifest as "unchanged". A missing MANIFEST skips nothing'
            cand --all 'Report the calls of every enabled channel, not only the first that yields one'
            cand --strict 'No repairs: a call that would need one is reported invalid with its raw text'
            cand -L 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once'
            cand --follow 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once'
            cand -0 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break'
            cand --null 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break'
            cand -q 'Do not print warnings about malformed input (errors are still printed)'
            cand --quiet 'Do not print warnings about malformed input (errors are still printed)'
            cand --with-results 'Also emit tool results ("type":"result" records)'
            cand --with-text 'Also emit the text around calls ("type":"text" records), in message order'
            cand --stats 'Print counts per channel and dialect to stderr after the run'
            cand --line-buffered 'Flush after every record (for `tail -f ... | toolsift extract`); the default when standard output is a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'toolsift;check'= {
            cand --input 'How the input is framed; auto decides per source from its first bytes'
            cand -f 'Channels to try per turn, in priority order'
            cand --formats 'Channels to try per turn, in priority order'
            cand --roles 'Message roles whose text is scanned for calls'
            cand --dialects 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL'
            cand --tools 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map; repeatable): every call is validated against its tool''s JSON Schema, tag-named text calls must use a declared name, and raw-text values are typed by the schema'
            cand --dialect-file 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see docs/dialects.md, "Your own dialects"). Repeatable'
            cand --schema-root 'A `$ref` to a file in a contract is read only under DIR (default: the directory of the contract that names it)'
            cand --reasoning 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call'
            cand --exclude 'Files and directories found inside directory arguments whose name (or path relative to the argument, for a pattern with a `/`) matches GLOB are not read, as fd''s --exclude (repeatable; `--exclude ''*.orig''`). Files named as arguments are always read'
            cand --files-from 'Also read the paths listed in LIST ("-": standard input), one a line, as if they were arguments (a directory is walked); empty lines are skipped. A file reached twice, named or listed or found, is read once'
            cand --shard 'Read only shard I of N (1 ≤ I ≤ N): the files whose path, relative to the directory argument it was found in (as given, for a file named or listed), hashes to it. The same files on every machine; the N shards together read every file once'
            cand --label 'The name of standard input in records and messages (`s3://bucket/key.jsonl`) instead of "-"; only when standard input is read'
            cand --color 'Colour in human-readable output (`check`''s report, `--stats`): auto colours a terminal unless NO_COLOR is set, or anything when CLICOLOR_FORCE is'
            cand --manifest 'Write a manifest to FILE: one JSON line per input, in input order, with its path, size, mtime, xxh3 hash, status (read, read in part, skipped, error, unchanged), framing, dialects and records (see docs/records.md, "Manifest lines"). Written whole when the run ends, as -o is'
            cand --expect 'Each file must call NAME at least once (repeatable)'
            cand --forbid 'No file may call NAME (repeatable)'
            cand --max-calls 'No file may make more than N calls'
            cand --format 'How findings are written'
            cand -o 'Write the report to FILE instead of standard output: it replaces FILE when the run ends, never half written; FILE may not be one of the inputs'
            cand --output 'Write the report to FILE instead of standard output: it replaces FILE when the run ends, never half written; FILE may not be one of the inputs'
            cand --all 'Report the calls of every enabled channel, not only the first that yields one'
            cand --strict 'No repairs: a call that would need one is reported invalid with its raw text'
            cand -L 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once'
            cand --follow 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once'
            cand -0 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break'
            cand --null 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break'
            cand -q 'Do not print warnings about malformed input (errors are still printed)'
            cand --quiet 'Do not print warnings about malformed input (errors are still printed)'
            cand --require-valid 'Invalid calls are findings (the default)'
            cand --allow-invalid 'Invalid calls are counted but are not findings'
            cand --allow-unknown 'Calls to tools the contracts do not declare are not findings'
            cand --allow-empty 'A file in which no transcript is recognised (no message, call or result: an empty file, JSON of another kind), or a path that holds no file, is not a finding. Input passed over unread (binary data, a line over the limit) still is'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'toolsift;tools'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand render 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'toolsift;tools;render'= {
            cand --style 'How the example call is written: <Name> + fenced JSON, a {"name", "arguments"} object, or the Mandrake XML block'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'toolsift;tools;help'= {
            cand render 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'toolsift;tools;help;render'= {
        }
        &'toolsift;tools;help;help'= {
        }
        &'toolsift;dialects'= {
            cand --dialect-file 'Also list the dialects of these dialect files'
            cand --color 'Colour in the table: auto colours a terminal unless NO_COLOR is set'
            cand --json 'Print one JSON object per dialect instead of a table'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'toolsift;convert'= {
            cand --to 'The format to write'
            cand --from 'The format to read, forced for every file: one of the --to formats. By default it is detected per file, and more are read than can be forced: besides the --to formats, single API responses (OpenAI, Anthropic, Gemini, Responses), Claude Code and Codex session logs, Gemini CLI sessions, SWE-agent trajectories, and anything else `toolsift extract` reads (streams, cassettes, notebooks, OpenHands logs, model output with calls)'
            cand -o 'Write the output to FILE (one input only)'
            cand --output 'Write the output to FILE (one input only)'
            cand --out-dir 'Write one output per input under DIR, keeping paths relative to each directory argument'
            cand --backup 'With --in-place: keep each original as FILE + SUFFIX'
            cand --manifest 'Write a manifest to FILE: one JSON line per input, in input order, with its path, size, mtime, xxh3 hash, status (written, unchanged, kept, skipped, failed, error, not started), output, and its conversations, calls and results (see docs/records.md, "Manifest lines"). Written whole when the run ends, as the outputs are; a dry run writes none'
            cand --rename-tools 'API targets: rename tool names the API refuses, the same way on every call and result, and list the mapping in the notes. Not done when it could not be undone (two names mapped to one, or onto a name already used)'
            cand --unanswered 'API targets: a native call that no result answers before the model''s last turn (the APIs refuse it) is written unanswered and said (`keep`), or gets a result saying none was recorded, marked as an error (`placeholder`)'
            cand --dialects 'Only these dialects find calls in text (names from `toolsift dialects`)'
            cand --tools 'Tool contracts: their names are read as Cline-style tags too, and raw-text values are typed by their schemas'
            cand --dialect-file 'Extra dialects (see `toolsift extract --help`)'
            cand --exclude 'Files and directories found inside directory arguments whose name (or path relative to the argument, for a pattern with a `/`) matches GLOB are not read, as fd''s --exclude (repeatable; `--exclude ''*.orig''`). Files named as arguments are always read'
            cand --files-from 'Also read the paths listed in LIST ("-": standard input), one a line, as if they were arguments (a directory is walked); empty lines are skipped. A file reached twice, named or listed or found, is read once'
            cand --shard 'Read only shard I of N (1 ≤ I ≤ N): the files whose path, relative to the directory argument it was found in (as given, for a file named or listed), hashes to it. The same files on every machine; the N shards together read every file once'
            cand --label 'The name of standard input in records and messages (`s3://bucket/key.jsonl`) instead of "-"; only when standard input is read'
            cand -j 'Files converted at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core)'
            cand --jobs 'Files converted at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core)'
            cand --in-place 'Replace each input with its conversion (needs --backup or --no-backup)'
            cand --no-backup 'With --in-place: keep no copy of the originals'
            cand --force 'With --out-dir: replace outputs that exist already'
            cand -u 'With --out-dir: replace an output that exists only when its input is newer (as `cp -u`); others are kept'
            cand --update 'With --out-dir: replace an output that exists only when its input is newer (as `cp -u`); others are kept'
            cand --verify 'Read each output back, convert it to the source''s form and compare: every difference in text, calls, results or pairing is reported, and the exit code is 1 if anything would be lost'
            cand --dry-run 'Say what would be written, and write nothing (not even to standard output)'
            cand --wrap 'mandrake-json: wrap calls and results as {"tool_calls":[…]} and {"tool_results":[…]}'
            cand --compact 'Write documents on one line (JSON Lines inputs are always written one conversation per line)'
            cand -L 'Follow symbolic links inside directory arguments (loops are reported, not followed)'
            cand --follow 'Follow symbolic links inside directory arguments (loops are reported, not followed)'
            cand -0 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break'
            cand --null 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break'
            cand -q 'No warnings (errors and the summary are still printed)'
            cand --quiet 'No warnings (errors and the summary are still printed)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'toolsift;schema'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'toolsift;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'toolsift;man'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'toolsift;help'= {
            cand extract 'Extract tool calls as JSON Lines'
            cand check 'Check recorded transcripts against tool contracts and scenario assertions (the CI gate): exit 1 on any finding'
            cand tools 'Work with tool contracts'
            cand dialects 'List the dialects toolsift recognizes, with their channel and an example'
            cand convert 'Convert whole transcripts between formats: XML tool-call histories to JSON, and between OpenAI, Anthropic, Gemini, Responses and toolsift''s own form'
            cand schema 'Print a JSON Schema of toolsift''s formats'
            cand completions 'Print the completion script for a shell (as shipped in completions/)'
            cand man 'Print a man page (as shipped in man/): toolsift''s, or a subcommand''s'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'toolsift;help;extract'= {
        }
        &'toolsift;help;check'= {
        }
        &'toolsift;help;tools'= {
            cand render 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema'
        }
        &'toolsift;help;tools;render'= {
        }
        &'toolsift;help;dialects'= {
        }
        &'toolsift;help;convert'= {
        }
        &'toolsift;help;schema'= {
        }
        &'toolsift;help;completions'= {
        }
        &'toolsift;help;man'= {
        }
        &'toolsift;help;help'= {
        }
    ]
    $completions[$command]
}
