
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
            cand dialects 'List the dialects toolsift recognizes, with their channel and an example'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'toolsift;extract'= {
            cand --input 'How the input is framed; auto decides per source from its first bytes'
            cand -f 'Channels to try per turn, in priority order'
            cand --formats 'Channels to try per turn, in priority order'
            cand --roles 'Message roles whose text is scanned for calls'
            cand --dialects 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL'
            cand --tools 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map): tag-named text calls must use a declared name, and raw-text values (XML parameters) are typed by the schema'
            cand --dialect-file 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see README, "Your own dialects"). Repeatable'
            cand --reasoning 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call'
            cand -o 'Write records to FILE instead of standard output'
            cand --output 'Write records to FILE instead of standard output'
            cand --all 'Report the calls of every enabled channel, not only the first that yields one'
            cand --with-results 'Also emit tool results ("type":"result" records)'
            cand --with-text 'Also emit the text around calls ("type":"text" records), in message order'
            cand --strict 'No repairs: a call that would need one is reported invalid with its raw text'
            cand --stats 'Print counts per channel and dialect to stderr after the run'
            cand --line-buffered 'Flush after every record (for `tail -f ... | toolsift extract`); the default when standard output is a terminal'
            cand -q 'Do not print warnings about malformed input (errors are still printed)'
            cand --quiet 'Do not print warnings about malformed input (errors are still printed)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'toolsift;dialects'= {
            cand --dialect-file 'Also list the dialects of these dialect files'
            cand --json 'Print one JSON object per dialect instead of a table'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'toolsift;help'= {
            cand extract 'Extract tool calls as JSON Lines'
            cand dialects 'List the dialects toolsift recognizes, with their channel and an example'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'toolsift;help;extract'= {
        }
        &'toolsift;help;dialects'= {
        }
        &'toolsift;help;help'= {
        }
    ]
    $completions[$command]
}
