# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_toolsift_global_optspecs
    string join \n h/help V/version
end

function __fish_toolsift_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_toolsift_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_toolsift_using_subcommand
    set -l cmd (__fish_toolsift_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c toolsift -n "__fish_toolsift_needs_command" -s h -l help -d 'Print help'
complete -c toolsift -n "__fish_toolsift_needs_command" -s V -l version -d 'Print version'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "extract" -d 'Extract tool calls as JSON Lines'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "check" -d 'Check recorded transcripts against tool contracts and scenario assertions (the CI gate): exit 1 on any finding'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "tools" -d 'Work with tool contracts'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "dialects" -d 'List the dialects toolsift recognizes, with their channel and an example'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "convert" -d 'Convert whole transcripts between formats: XML tool-call histories to JSON, and between OpenAI, Anthropic, Gemini, Responses and toolsift\'s own form'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "schema" -d 'Print a JSON Schema of toolsift\'s formats'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "completions" -d 'Print the completion script for a shell (as shipped in completions/)'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "man" -d 'Print a man page (as shipped in man/): toolsift\'s, or a subcommand\'s'
complete -c toolsift -n "__fish_toolsift_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l input -d 'How the input is framed; auto decides per source from its first bytes' -r -f -a "auto\t'Decide from the first non-blank bytes'
text\t'Plain text: one assistant turn'
json\t'One JSON document (object or array)'
jsonl\t'One JSON value per line'
sse\t'Server-Sent Events (data: lines)'
yaml\t'A VCR cassette (YAML with interactions)'
http\t'Saved HTTP messages (`curl -i` output, an httprr trace)'"
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -s f -l formats -d 'Channels to try per turn, in priority order' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l roles -d 'Message roles whose text is scanned for calls' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l dialects -d 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l tools -d 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map; repeatable): every call is validated against its tool\'s JSON Schema, tag-named text calls must use a declared name, and raw-text values are typed by the schema' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l dialect-file -d 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see README, "Your own dialects"). Repeatable' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l schema-root -d 'A `$ref` to a file in a contract is read only under DIR (default: the directory of the contract that names it)' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l reasoning -d 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call' -r -f -a "include\t'Report calls inside reasoning like any other'
exclude\t'Never report calls inside reasoning'
fallback\t'Report them only when the turn has no call outside reasoning'"
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l color -d 'Colour in human-readable output (`check`\'s report, `--stats`): auto colours a terminal unless NO_COLOR is set, or anything when CLICOLOR_FORCE is' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -s o -l output -d 'Write records to FILE instead of standard output: they replace FILE when the run ends, never half written; FILE may not be one of the inputs' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -s j -l jobs -d 'Files read at once (default: the number of CPUs); records still come out in the order of the files. With 2 or more and a single JSON Lines file, one thread reads and parses it while another walks its records; with a single long text file, one thread reads and sweeps the next piece while another scans' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l all -d 'Report the calls of every enabled channel, not only the first that yields one'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l strict -d 'No repairs: a call that would need one is reported invalid with its raw text'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -s L -l follow -d 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -s q -l quiet -d 'Do not print warnings about malformed input (errors are still printed)'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l with-results -d 'Also emit tool results ("type":"result" records)'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l with-text -d 'Also emit the text around calls ("type":"text" records), in message order'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l stats -d 'Print counts per channel and dialect to stderr after the run'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -l line-buffered -d 'Flush after every record (for `tail -f ... | toolsift extract`); the default when standard output is a terminal'
complete -c toolsift -n "__fish_toolsift_using_subcommand extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l input -d 'How the input is framed; auto decides per source from its first bytes' -r -f -a "auto\t'Decide from the first non-blank bytes'
text\t'Plain text: one assistant turn'
json\t'One JSON document (object or array)'
jsonl\t'One JSON value per line'
sse\t'Server-Sent Events (data: lines)'
yaml\t'A VCR cassette (YAML with interactions)'
http\t'Saved HTTP messages (`curl -i` output, an httprr trace)'"
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -s f -l formats -d 'Channels to try per turn, in priority order' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l roles -d 'Message roles whose text is scanned for calls' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l dialects -d 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l tools -d 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map; repeatable): every call is validated against its tool\'s JSON Schema, tag-named text calls must use a declared name, and raw-text values are typed by the schema' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l dialect-file -d 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see README, "Your own dialects"). Repeatable' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l schema-root -d 'A `$ref` to a file in a contract is read only under DIR (default: the directory of the contract that names it)' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l reasoning -d 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call' -r -f -a "include\t'Report calls inside reasoning like any other'
exclude\t'Never report calls inside reasoning'
fallback\t'Report them only when the turn has no call outside reasoning'"
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l color -d 'Colour in human-readable output (`check`\'s report, `--stats`): auto colours a terminal unless NO_COLOR is set, or anything when CLICOLOR_FORCE is' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l expect -d 'Each file must call NAME at least once (repeatable)' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l forbid -d 'No file may call NAME (repeatable)' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l max-calls -d 'No file may make more than N calls' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l format -d 'How findings are written' -r -f -a "human\t'`FILE:LINE: tool NAME: PATH: message` lines and a summary'
json\t'One JSON object per finding'
github\t'GitHub Actions workflow annotations (`::error file=F,line=L::message`)'
junit\t'A JUnit XML report: a test suite per file, a test case per call and assertion'"
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -s o -l output -d 'Write the report to FILE instead of standard output: it replaces FILE when the run ends, never half written; FILE may not be one of the inputs' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l all -d 'Report the calls of every enabled channel, not only the first that yields one'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l strict -d 'No repairs: a call that would need one is reported invalid with its raw text'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -s L -l follow -d 'Follow symbolic links inside directory arguments (skipped by default); a link that loops back is reported once and not followed, and a file reached by two paths is read once'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -s q -l quiet -d 'Do not print warnings about malformed input (errors are still printed)'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l require-valid -d 'Invalid calls are findings (the default)'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l allow-invalid -d 'Invalid calls are counted but are not findings'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l allow-unknown -d 'Calls to tools the contracts do not declare are not findings'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -l allow-empty -d 'A file in which no transcript is recognised (no message, call or result: an empty file, JSON of another kind), or a path that holds no file, is not a finding. Input passed over unread (binary data, a line over the limit) still is'
complete -c toolsift -n "__fish_toolsift_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolsift -n "__fish_toolsift_using_subcommand tools; and not __fish_seen_subcommand_from render help" -s h -l help -d 'Print help'
complete -c toolsift -n "__fish_toolsift_using_subcommand tools; and not __fish_seen_subcommand_from render help" -f -a "render" -d 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema'
complete -c toolsift -n "__fish_toolsift_using_subcommand tools; and not __fish_seen_subcommand_from render help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c toolsift -n "__fish_toolsift_using_subcommand tools; and __fish_seen_subcommand_from render" -l style -d 'How the example call is written: <Name> + fenced JSON, a {"name", "arguments"} object, or the Mandrake XML block' -r -f -a "natural\t'`<Name>` + a fenced JSON block + `</Name>`'
json\t'`{"name": ..., "arguments": ...}`'
xml\t'`<tool_call>` with `<server>`, `<method>` and `<arguments>`'"
complete -c toolsift -n "__fish_toolsift_using_subcommand tools; and __fish_seen_subcommand_from render" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolsift -n "__fish_toolsift_using_subcommand tools; and __fish_seen_subcommand_from help" -f -a "render" -d 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema'
complete -c toolsift -n "__fish_toolsift_using_subcommand tools; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c toolsift -n "__fish_toolsift_using_subcommand dialects" -l dialect-file -d 'Also list the dialects of these dialect files' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand dialects" -l color -d 'Colour in the table: auto colours a terminal unless NO_COLOR is set' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c toolsift -n "__fish_toolsift_using_subcommand dialects" -l json -d 'Print one JSON object per dialect instead of a table'
complete -c toolsift -n "__fish_toolsift_using_subcommand dialects" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l to -d 'The format to write' -r -f -a "json\t'toolsift\'s canonical transcript (`toolsift schema transcript`)'
openai\t'OpenAI Chat messages: tool_calls with string arguments, role "tool" results'
anthropic\t'Anthropic Messages: tool_use blocks, tool_result in the next user message'
gemini\t'Gemini contents: functionCall and functionResponse parts'
responses\t'OpenAI Responses input items: function_call and function_call_output'
mandrake-json\t'Mandrake\'s JSON calls in text: {"name":"server.method","arguments":…}'
xml\t'Mandrake\'s XML calls in text: <tool_call><server>…</server><method>…</method>'"
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l from -d 'The format to read (default: detected per file)' -r -f -a "json\t'toolsift\'s canonical transcript (`toolsift schema transcript`)'
openai\t'OpenAI Chat messages: tool_calls with string arguments, role "tool" results'
anthropic\t'Anthropic Messages: tool_use blocks, tool_result in the next user message'
gemini\t'Gemini contents: functionCall and functionResponse parts'
responses\t'OpenAI Responses input items: function_call and function_call_output'
mandrake-json\t'Mandrake\'s JSON calls in text: {"name":"server.method","arguments":…}'
xml\t'Mandrake\'s XML calls in text: <tool_call><server>…</server><method>…</method>'"
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -s o -l output -d 'Write the output to FILE (one input only)' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l out-dir -d 'Write one output per input under DIR, keeping paths relative to each directory argument' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l backup -d 'With --in-place: keep each original as FILE + SUFFIX' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l dialects -d 'Only these dialects find calls in text (names from `toolsift dialects`)' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l tools -d 'Tool contracts: their names are read as Cline-style tags too, and raw-text values are typed by their schemas' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l dialect-file -d 'Extra dialects (see `toolsift extract --help`)' -r -F
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -s j -l jobs -d 'Files converted at once (default: the number of CPUs)' -r
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l in-place -d 'Replace each input with its conversion (needs --backup or --no-backup)'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l no-backup -d 'With --in-place: keep no copy of the originals'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l force -d 'With --out-dir: replace outputs that exist already'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l verify -d 'Read each output back, convert it to the source\'s form and compare: every difference in text, calls, results or pairing is reported, and the exit code is 1 if anything would be lost'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l dry-run -d 'Say what would be written, and write nothing'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l wrap -d 'mandrake-json: wrap calls and results as {"tool_calls":[…]} and {"tool_results":[…]}'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -l compact -d 'Write documents on one line (JSON Lines inputs are always written one conversation per line)'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -s L -l follow -d 'Follow symbolic links inside directory arguments (loops are reported, not followed)'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -s q -l quiet -d 'No warnings (errors and the summary are still printed)'
complete -c toolsift -n "__fish_toolsift_using_subcommand convert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolsift -n "__fish_toolsift_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c toolsift -n "__fish_toolsift_using_subcommand completions" -s h -l help -d 'Print help'
complete -c toolsift -n "__fish_toolsift_using_subcommand man" -s h -l help -d 'Print help'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "extract" -d 'Extract tool calls as JSON Lines'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "check" -d 'Check recorded transcripts against tool contracts and scenario assertions (the CI gate): exit 1 on any finding'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "tools" -d 'Work with tool contracts'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "dialects" -d 'List the dialects toolsift recognizes, with their channel and an example'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "convert" -d 'Convert whole transcripts between formats: XML tool-call histories to JSON, and between OpenAI, Anthropic, Gemini, Responses and toolsift\'s own form'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "schema" -d 'Print a JSON Schema of toolsift\'s formats'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "completions" -d 'Print the completion script for a shell (as shipped in completions/)'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "man" -d 'Print a man page (as shipped in man/): toolsift\'s, or a subcommand\'s'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and not __fish_seen_subcommand_from extract check tools dialects convert schema completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c toolsift -n "__fish_toolsift_using_subcommand help; and __fish_seen_subcommand_from tools" -f -a "render" -d 'Render tool contracts as Markdown for a system prompt, with an example call generated from each schema'
