
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'toolsift' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'toolsift'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'toolsift' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Extract tool calls as JSON Lines')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check recorded transcripts against tool contracts and scenario assertions (the CI gate): exit 1 on any finding')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'Work with tool contracts')
            [CompletionResult]::new('dialects', 'dialects', [CompletionResultType]::ParameterValue, 'List the dialects toolsift recognizes, with their channel and an example')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Convert whole transcripts between formats: XML tool-call histories to JSON, and between OpenAI, Anthropic, Gemini, Responses and toolsift''s own form')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print a JSON Schema of toolsift''s formats')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell (as shipped in completions/)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print a man page (as shipped in man/): toolsift''s, or a subcommand''s')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'toolsift;extract' {
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'How the input is framed; auto decides per source from its first bytes')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Channels to try per turn, in priority order')
            [CompletionResult]::new('--formats', '--formats', [CompletionResultType]::ParameterName, 'Channels to try per turn, in priority order')
            [CompletionResult]::new('--roles', '--roles', [CompletionResultType]::ParameterName, 'Message roles whose text is scanned for calls')
            [CompletionResult]::new('--dialects', '--dialects', [CompletionResultType]::ParameterName, 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map; repeatable): every call is validated against its tool''s JSON Schema, tag-named text calls must use a declared name, and raw-text values are typed by the schema')
            [CompletionResult]::new('--dialect-file', '--dialect-file', [CompletionResultType]::ParameterName, 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see docs/dialects.md, "Your own dialects"). Repeatable')
            [CompletionResult]::new('--schema-root', '--schema-root', [CompletionResultType]::ParameterName, 'A `$ref` to a file in a contract is read only under DIR (default: the directory of the contract that names it)')
            [CompletionResult]::new('--reasoning', '--reasoning', [CompletionResultType]::ParameterName, 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Files and directories found inside directory arguments whose name (or path relative to the argument, for a pattern with a `/`) matches GLOB are not read, as fd''s --exclude (repeatable; `--exclude ''*.orig''`). Files named as arguments are always read')
            [CompletionResult]::new('--files-from', '--files-from', [CompletionResultType]::ParameterName, 'Also read the paths listed in LIST ("-": standard input), one a line, as if they were arguments (a directory is walked); empty lines are skipped. A file reached twice, named or listed or found, is read once')
            [CompletionResult]::new('--shard', '--shard', [CompletionResultType]::ParameterName, 'Read only shard I of N (1 ≤ I ≤ N): the files whose path, relative to the directory argument it was found in (as given, for a file named or listed), hashes to it. The same files on every machine; the N shards together read every file once')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The name of standard input in records and messages (`s3://bucket/key.jsonl`) instead of "-"; only when standard input is read')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour in human-readable output (`check`''s report, `--stats`): auto colours a terminal unless NO_COLOR is set, or anything when CLICOLOR_FORCE is')
            [CompletionResult]::new('--manifest', '--manifest', [CompletionResultType]::ParameterName, 'Write a manifest to FILE: one JSON line per input, in input order, with its path, size, mtime, xxh3 hash, status (read, read in part, skipped, error, unchanged), framing, dialects and records (see docs/records.md, "Manifest lines"). Written whole when the run ends, as -o is')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write records to FILE instead of standard output: they replace FILE when the run ends, never half written; FILE may not be one of the inputs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write records to FILE instead of standard output: they replace FILE when the run ends, never half written; FILE may not be one of the inputs')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Files read at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core); records still come out in the order of the files. With 2 or more and a single JSON Lines file, one thread reads and parses it while another walks its records; with a single long text file, one thread reads and sweeps the next piece while another scans')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Files read at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core); records still come out in the order of the files. With 2 or more and a single JSON Lines file, one thread reads and parses it while another walks its records; with a single long text file, one thread reads and sweeps the next piece while another scans')
            [CompletionResult]::new('--skip-unchanged', '--skip-unchanged', [CompletionResultType]::ParameterName, 'Skip the inputs that MANIFEST (an earlier --manifest) lists with the same size, mtime and hash: they give no records, and are in --manifest as "unchanged". A missing MANIFEST skips nothing')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Report the calls of every enabled channel, not only the first that yields one')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'No repairs: a call that would need one is reported invalid with its raw text')
            [CompletionResult]::new('-L', '-L ', [CompletionResultType]::ParameterName, 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Do not print warnings about malformed input (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Do not print warnings about malformed input (errors are still printed)')
            [CompletionResult]::new('--with-results', '--with-results', [CompletionResultType]::ParameterName, 'Also emit tool results ("type":"result" records)')
            [CompletionResult]::new('--with-text', '--with-text', [CompletionResultType]::ParameterName, 'Also emit the text around calls ("type":"text" records), in message order')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print counts per channel and dialect to stderr after the run')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record (for `tail -f ... | toolsift extract`); the default when standard output is a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'toolsift;check' {
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'How the input is framed; auto decides per source from its first bytes')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Channels to try per turn, in priority order')
            [CompletionResult]::new('--formats', '--formats', [CompletionResultType]::ParameterName, 'Channels to try per turn, in priority order')
            [CompletionResult]::new('--roles', '--roles', [CompletionResultType]::ParameterName, 'Message roles whose text is scanned for calls')
            [CompletionResult]::new('--dialects', '--dialects', [CompletionResultType]::ParameterName, 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map; repeatable): every call is validated against its tool''s JSON Schema, tag-named text calls must use a declared name, and raw-text values are typed by the schema')
            [CompletionResult]::new('--dialect-file', '--dialect-file', [CompletionResultType]::ParameterName, 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see docs/dialects.md, "Your own dialects"). Repeatable')
            [CompletionResult]::new('--schema-root', '--schema-root', [CompletionResultType]::ParameterName, 'A `$ref` to a file in a contract is read only under DIR (default: the directory of the contract that names it)')
            [CompletionResult]::new('--reasoning', '--reasoning', [CompletionResultType]::ParameterName, 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Files and directories found inside directory arguments whose name (or path relative to the argument, for a pattern with a `/`) matches GLOB are not read, as fd''s --exclude (repeatable; `--exclude ''*.orig''`). Files named as arguments are always read')
            [CompletionResult]::new('--files-from', '--files-from', [CompletionResultType]::ParameterName, 'Also read the paths listed in LIST ("-": standard input), one a line, as if they were arguments (a directory is walked); empty lines are skipped. A file reached twice, named or listed or found, is read once')
            [CompletionResult]::new('--shard', '--shard', [CompletionResultType]::ParameterName, 'Read only shard I of N (1 ≤ I ≤ N): the files whose path, relative to the directory argument it was found in (as given, for a file named or listed), hashes to it. The same files on every machine; the N shards together read every file once')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The name of standard input in records and messages (`s3://bucket/key.jsonl`) instead of "-"; only when standard input is read')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour in human-readable output (`check`''s report, `--stats`): auto colours a terminal unless NO_COLOR is set, or anything when CLICOLOR_FORCE is')
            [CompletionResult]::new('--manifest', '--manifest', [CompletionResultType]::ParameterName, 'Write a manifest to FILE: one JSON line per input, in input order, with its path, size, mtime, xxh3 hash, status (read, read in part, skipped, error, unchanged), framing, dialects and records (see docs/records.md, "Manifest lines"). Written whole when the run ends, as -o is')
            [CompletionResult]::new('--expect', '--expect', [CompletionResultType]::ParameterName, 'Each file must call NAME at least once (repeatable)')
            [CompletionResult]::new('--forbid', '--forbid', [CompletionResultType]::ParameterName, 'No file may call NAME (repeatable)')
            [CompletionResult]::new('--max-calls', '--max-calls', [CompletionResultType]::ParameterName, 'No file may make more than N calls')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How findings are written')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output: it replaces FILE when the run ends, never half written; FILE may not be one of the inputs')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output: it replaces FILE when the run ends, never half written; FILE may not be one of the inputs')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Report the calls of every enabled channel, not only the first that yields one')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'No repairs: a call that would need one is reported invalid with its raw text')
            [CompletionResult]::new('-L', '-L ', [CompletionResultType]::ParameterName, 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Do not print warnings about malformed input (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Do not print warnings about malformed input (errors are still printed)')
            [CompletionResult]::new('--require-valid', '--require-valid', [CompletionResultType]::ParameterName, 'Invalid calls are findings (the default)')
            [CompletionResult]::new('--allow-invalid', '--allow-invalid', [CompletionResultType]::ParameterName, 'Invalid calls are counted but are not findings')
            [CompletionResult]::new('--allow-unknown', '--allow-unknown', [CompletionResultType]::ParameterName, 'Calls to tools the contracts do not declare are not findings')
            [CompletionResult]::new('--allow-empty', '--allow-empty', [CompletionResultType]::ParameterName, 'A file in which no transcript is recognised (no message, call or result: an empty file, JSON of another kind), or a path that holds no file, is not a finding. Input passed over unread (binary data, a line over the limit) still is')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'toolsift;tools' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'toolsift;tools;render' {
            [CompletionResult]::new('--style', '--style', [CompletionResultType]::ParameterName, 'How the example call is written: <Name> + fenced JSON, a {"name", "arguments"} object, or the Mandrake XML block')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'toolsift;tools;help' {
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'toolsift;tools;help;render' {
            break
        }
        'toolsift;tools;help;help' {
            break
        }
        'toolsift;dialects' {
            [CompletionResult]::new('--dialect-file', '--dialect-file', [CompletionResultType]::ParameterName, 'Also list the dialects of these dialect files')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour in the table: auto colours a terminal unless NO_COLOR is set')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object per dialect instead of a table')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'toolsift;convert' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The format to write')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'The format to read, forced for every file: one of the --to formats. By default it is detected per file, and more are read than can be forced: besides the --to formats, single API responses (OpenAI, Anthropic, Gemini, Responses), Claude Code and Codex session logs, Gemini CLI sessions, SWE-agent trajectories, and anything else `toolsift extract` reads (streams, cassettes, notebooks, OpenHands logs, model output with calls)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the output to FILE (one input only)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the output to FILE (one input only)')
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write one output per input under DIR, keeping paths relative to each directory argument')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'With --in-place: keep each original as FILE + SUFFIX')
            [CompletionResult]::new('--manifest', '--manifest', [CompletionResultType]::ParameterName, 'Write a manifest to FILE: one JSON line per input, in input order, with its path, size, mtime, xxh3 hash, status (written, unchanged, kept, skipped, failed, error, not started), output, and its conversations, calls and results (see docs/records.md, "Manifest lines"). Written whole when the run ends, as the outputs are; a dry run writes none')
            [CompletionResult]::new('--rename-tools', '--rename-tools', [CompletionResultType]::ParameterName, 'API targets: rename tool names the API refuses, the same way on every call and result, and list the mapping in the notes. Not done when it could not be undone (two names mapped to one, or onto a name already used)')
            [CompletionResult]::new('--unanswered', '--unanswered', [CompletionResultType]::ParameterName, 'API targets: a native call that no result answers before the model''s last turn (the APIs refuse it) is written unanswered and said (`keep`), or gets a result saying none was recorded, marked as an error (`placeholder`)')
            [CompletionResult]::new('--dialects', '--dialects', [CompletionResultType]::ParameterName, 'Only these dialects find calls in text (names from `toolsift dialects`)')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Tool contracts: their names are read as Cline-style tags too, and raw-text values are typed by their schemas')
            [CompletionResult]::new('--dialect-file', '--dialect-file', [CompletionResultType]::ParameterName, 'Extra dialects (see `toolsift extract --help`)')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Files and directories found inside directory arguments whose name (or path relative to the argument, for a pattern with a `/`) matches GLOB are not read, as fd''s --exclude (repeatable; `--exclude ''*.orig''`). Files named as arguments are always read')
            [CompletionResult]::new('--files-from', '--files-from', [CompletionResultType]::ParameterName, 'Also read the paths listed in LIST ("-": standard input), one a line, as if they were arguments (a directory is walked); empty lines are skipped. A file reached twice, named or listed or found, is read once')
            [CompletionResult]::new('--shard', '--shard', [CompletionResultType]::ParameterName, 'Read only shard I of N (1 ≤ I ≤ N): the files whose path, relative to the directory argument it was found in (as given, for a file named or listed), hashes to it. The same files on every machine; the N shards together read every file once')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'The name of standard input in records and messages (`s3://bucket/key.jsonl`) instead of "-"; only when standard input is read')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Files converted at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Files converted at once (default: TOOLSIFT_THREADS, else the CPUs this process may use, cgroup quotas counted; `-j 1` under an engine that runs one toolsift per core)')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Replace each input with its conversion (needs --backup or --no-backup)')
            [CompletionResult]::new('--no-backup', '--no-backup', [CompletionResultType]::ParameterName, 'With --in-place: keep no copy of the originals')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'With --out-dir: replace outputs that exist already')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'With --out-dir: replace an output that exists only when its input is newer (as `cp -u`); others are kept')
            [CompletionResult]::new('--update', '--update', [CompletionResultType]::ParameterName, 'With --out-dir: replace an output that exists only when its input is newer (as `cp -u`); others are kept')
            [CompletionResult]::new('--verify', '--verify', [CompletionResultType]::ParameterName, 'Read each output back, convert it to the source''s form and compare: every difference in text, calls, results or pairing is reported, and the exit code is 1 if anything would be lost')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Say what would be written, and write nothing (not even to standard output)')
            [CompletionResult]::new('--wrap', '--wrap', [CompletionResultType]::ParameterName, 'mandrake-json: wrap calls and results as {"tool_calls":[…]} and {"tool_results":[…]}')
            [CompletionResult]::new('--compact', '--compact', [CompletionResultType]::ParameterName, 'Write documents on one line (JSON Lines inputs are always written one conversation per line)')
            [CompletionResult]::new('-L', '-L ', [CompletionResultType]::ParameterName, 'Follow symbolic links inside directory arguments (loops are reported, not followed)')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Follow symbolic links inside directory arguments (loops are reported, not followed)')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'The paths of --files-from are separated by NUL bytes (as `find -print0`, `xargs -0`), so a name may hold a line break')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings (errors and the summary are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings (errors and the summary are still printed)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'toolsift;schema' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'toolsift;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'toolsift;man' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'toolsift;help' {
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Extract tool calls as JSON Lines')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check recorded transcripts against tool contracts and scenario assertions (the CI gate): exit 1 on any finding')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'Work with tool contracts')
            [CompletionResult]::new('dialects', 'dialects', [CompletionResultType]::ParameterValue, 'List the dialects toolsift recognizes, with their channel and an example')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Convert whole transcripts between formats: XML tool-call histories to JSON, and between OpenAI, Anthropic, Gemini, Responses and toolsift''s own form')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print a JSON Schema of toolsift''s formats')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script for a shell (as shipped in completions/)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print a man page (as shipped in man/): toolsift''s, or a subcommand''s')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'toolsift;help;extract' {
            break
        }
        'toolsift;help;check' {
            break
        }
        'toolsift;help;tools' {
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema')
            break
        }
        'toolsift;help;tools;render' {
            break
        }
        'toolsift;help;dialects' {
            break
        }
        'toolsift;help;convert' {
            break
        }
        'toolsift;help;schema' {
            break
        }
        'toolsift;help;completions' {
            break
        }
        'toolsift;help;man' {
            break
        }
        'toolsift;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
