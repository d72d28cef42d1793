
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
            [CompletionResult]::new('dialects', 'dialects', [CompletionResultType]::ParameterValue, 'List the dialects toolsift recognizes, with their channel and an example')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'toolsift;extract' {
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'How the input is framed; auto decides per source from its first bytes')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Channels to try per turn, in priority order')
            [CompletionResult]::new('--formats', '--formats', [CompletionResultType]::ParameterName, 'Channels to try per turn, in priority order')
            [CompletionResult]::new('--roles', '--roles', [CompletionResultType]::ParameterName, 'Message roles whose text is scanned for calls')
            [CompletionResult]::new('--dialects', '--dialects', [CompletionResultType]::ParameterName, 'Only these dialects (see `toolsift dialects`); `wil` also reads text outside BEGIN WIL … END WIL')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Tool contracts (OpenAI, Anthropic, MCP or Gemini tool lists, or a name→schema map): tag-named text calls must use a declared name, and raw-text values (XML parameters) are typed by the schema')
            [CompletionResult]::new('--dialect-file', '--dialect-file', [CompletionResultType]::ParameterName, 'Extra dialects of the marker, XML-parameter and pythonic families, described in a JSON file (see README, "Your own dialects"). Repeatable')
            [CompletionResult]::new('--reasoning', '--reasoning', [CompletionResultType]::ParameterName, 'Calls found inside reasoning (<think>, thinking blocks): reported always, never, or only when the turn has no other call')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write records to FILE instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write records to FILE instead of standard output')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Report the calls of every enabled channel, not only the first that yields one')
            [CompletionResult]::new('--with-results', '--with-results', [CompletionResultType]::ParameterName, 'Also emit tool results ("type":"result" records)')
            [CompletionResult]::new('--with-text', '--with-text', [CompletionResultType]::ParameterName, 'Also emit the text around calls ("type":"text" records), in message order')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'No repairs: a call that would need one is reported invalid with its raw text')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print counts per channel and dialect to stderr after the run')
            [CompletionResult]::new('--line-buffered', '--line-buffered', [CompletionResultType]::ParameterName, 'Flush after every record (for `tail -f ... | toolsift extract`); the default when standard output is a terminal')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Do not print warnings about malformed input (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Do not print warnings about malformed input (errors are still printed)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'toolsift;dialects' {
            [CompletionResult]::new('--dialect-file', '--dialect-file', [CompletionResultType]::ParameterName, 'Also list the dialects of these dialect files')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON object per dialect instead of a table')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'toolsift;help' {
            [CompletionResult]::new('extract', 'extract', [CompletionResultType]::ParameterValue, 'Extract tool calls as JSON Lines')
            [CompletionResult]::new('dialects', 'dialects', [CompletionResultType]::ParameterValue, 'List the dialects toolsift recognizes, with their channel and an example')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'toolsift;help;extract' {
            break
        }
        'toolsift;help;dialects' {
            break
        }
        'toolsift;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
