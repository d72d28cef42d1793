_toolsift() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="toolsift"
                ;;
            toolsift,check)
                cmd="toolsift__subcmd__check"
                ;;
            toolsift,completions)
                cmd="toolsift__subcmd__completions"
                ;;
            toolsift,convert)
                cmd="toolsift__subcmd__convert"
                ;;
            toolsift,dialects)
                cmd="toolsift__subcmd__dialects"
                ;;
            toolsift,extract)
                cmd="toolsift__subcmd__extract"
                ;;
            toolsift,help)
                cmd="toolsift__subcmd__help"
                ;;
            toolsift,man)
                cmd="toolsift__subcmd__man"
                ;;
            toolsift,schema)
                cmd="toolsift__subcmd__schema"
                ;;
            toolsift,tools)
                cmd="toolsift__subcmd__tools"
                ;;
            toolsift__subcmd__help,check)
                cmd="toolsift__subcmd__help__subcmd__check"
                ;;
            toolsift__subcmd__help,completions)
                cmd="toolsift__subcmd__help__subcmd__completions"
                ;;
            toolsift__subcmd__help,convert)
                cmd="toolsift__subcmd__help__subcmd__convert"
                ;;
            toolsift__subcmd__help,dialects)
                cmd="toolsift__subcmd__help__subcmd__dialects"
                ;;
            toolsift__subcmd__help,extract)
                cmd="toolsift__subcmd__help__subcmd__extract"
                ;;
            toolsift__subcmd__help,help)
                cmd="toolsift__subcmd__help__subcmd__help"
                ;;
            toolsift__subcmd__help,man)
                cmd="toolsift__subcmd__help__subcmd__man"
                ;;
            toolsift__subcmd__help,schema)
                cmd="toolsift__subcmd__help__subcmd__schema"
                ;;
            toolsift__subcmd__help,tools)
                cmd="toolsift__subcmd__help__subcmd__tools"
                ;;
            toolsift__subcmd__help__subcmd__tools,render)
                cmd="toolsift__subcmd__help__subcmd__tools__subcmd__render"
                ;;
            toolsift__subcmd__tools,help)
                cmd="toolsift__subcmd__tools__subcmd__help"
                ;;
            toolsift__subcmd__tools,render)
                cmd="toolsift__subcmd__tools__subcmd__render"
                ;;
            toolsift__subcmd__tools__subcmd__help,help)
                cmd="toolsift__subcmd__tools__subcmd__help__subcmd__help"
                ;;
            toolsift__subcmd__tools__subcmd__help,render)
                cmd="toolsift__subcmd__tools__subcmd__help__subcmd__render"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        toolsift)
            opts="-h -V --help --version extract check tools dialects convert schema completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__check)
            opts="-f -L -0 -q -o -h --input --formats --all --roles --dialects --tools --dialect-file --schema-root --reasoning --strict --follow --exclude --files-from --null --shard --label --quiet --color --manifest --expect --forbid --max-calls --require-valid --allow-invalid --allow-unknown --allow-empty --format --output --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -W "auto text json jsonl sse yaml http" -- "${cur}"))
                    return 0
                    ;;
                --formats)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --roles)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dialects)
                    COMPREPLY=($(compgen -W "openai openai-function-call openai-custom openai-chat-stream openai-responses openai-responses-stream ollama anthropic anthropic-stream gemini gemini-stream gemini-interactions gemini-interactions-stream gemini-cli bedrock bedrock-stream cohere-stream xai langchain langchain-stream codex toolsift swe-agent-trajectory hermes mistral mistral-v11 llama3-python-tag functools functionary-v3.1 functionary-v3.2 granite granite-20b-fc internlm jamba minimax-m1 nemotron longcat apertus gigachat gigachat-3.1 command-r inkling laguna sarashina kimi-k2 deepseek-r1 deepseek-v3.1 harmony ksi ksi-event ikigai mandrake-json json-name-arguments xlam llama3-json openai-json llamacpp-generic uicp-batch uicp-call natural-tag natural-tool-call mandrake-xml seed-oss qwen3-coder glm minimax-m2 step3 deepseek-dsml deepseek-dsml-v4.1 gigachat-3.5 kimi-k3 muse-glimmer minimax-m3 cline-xml anthropic-xml anthropic-xml-legacy pythonic llama4-pythonic lfm2 olmo3 llama3-builtin functiongemma gemma4 wil swe-agent-command swe-agent-fence mini-swe-agent-action" -- "${cur}"))
                    return 0
                    ;;
                --tools)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dialect-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --schema-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reasoning)
                    COMPREPLY=($(compgen -W "include exclude fallback" -- "${cur}"))
                    return 0
                    ;;
                --exclude)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --files-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shard)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --manifest)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expect)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --forbid)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-calls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "human json github junit" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__completions)
            opts="-h --help bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__convert)
            opts="-o -u -L -0 -j -q -h --to --from --output --out-dir --in-place --backup --no-backup --force --update --verify --dry-run --manifest --rename-tools --unanswered --wrap --compact --dialects --tools --dialect-file --follow --exclude --files-from --null --shard --label --jobs --quiet --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --to)
                    COMPREPLY=($(compgen -W "json openai anthropic gemini responses mandrake-json xml" -- "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -W "json openai anthropic gemini responses mandrake-json xml" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --backup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --manifest)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rename-tools)
                    COMPREPLY=($(compgen -W "dots safe" -- "${cur}"))
                    return 0
                    ;;
                --unanswered)
                    COMPREPLY=($(compgen -W "keep placeholder" -- "${cur}"))
                    return 0
                    ;;
                --dialects)
                    COMPREPLY=($(compgen -W "openai openai-function-call openai-custom openai-chat-stream openai-responses openai-responses-stream ollama anthropic anthropic-stream gemini gemini-stream gemini-interactions gemini-interactions-stream gemini-cli bedrock bedrock-stream cohere-stream xai langchain langchain-stream codex toolsift swe-agent-trajectory hermes mistral mistral-v11 llama3-python-tag functools functionary-v3.1 functionary-v3.2 granite granite-20b-fc internlm jamba minimax-m1 nemotron longcat apertus gigachat gigachat-3.1 command-r inkling laguna sarashina kimi-k2 deepseek-r1 deepseek-v3.1 harmony ksi ksi-event ikigai mandrake-json json-name-arguments xlam llama3-json openai-json llamacpp-generic uicp-batch uicp-call natural-tag natural-tool-call mandrake-xml seed-oss qwen3-coder glm minimax-m2 step3 deepseek-dsml deepseek-dsml-v4.1 gigachat-3.5 kimi-k3 muse-glimmer minimax-m3 cline-xml anthropic-xml anthropic-xml-legacy pythonic llama4-pythonic lfm2 olmo3 llama3-builtin functiongemma gemma4 wil swe-agent-command swe-agent-fence mini-swe-agent-action" -- "${cur}"))
                    return 0
                    ;;
                --tools)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dialect-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --exclude)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --files-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shard)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__dialects)
            opts="-h --json --dialect-file --color --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dialect-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__extract)
            opts="-f -L -0 -q -o -j -h --input --formats --all --roles --dialects --tools --dialect-file --schema-root --reasoning --strict --follow --exclude --files-from --null --shard --label --quiet --color --manifest --with-results --with-text --stats --output --jobs --line-buffered --skip-unchanged --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --input)
                    COMPREPLY=($(compgen -W "auto text json jsonl sse yaml http" -- "${cur}"))
                    return 0
                    ;;
                --formats)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --roles)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dialects)
                    COMPREPLY=($(compgen -W "openai openai-function-call openai-custom openai-chat-stream openai-responses openai-responses-stream ollama anthropic anthropic-stream gemini gemini-stream gemini-interactions gemini-interactions-stream gemini-cli bedrock bedrock-stream cohere-stream xai langchain langchain-stream codex toolsift swe-agent-trajectory hermes mistral mistral-v11 llama3-python-tag functools functionary-v3.1 functionary-v3.2 granite granite-20b-fc internlm jamba minimax-m1 nemotron longcat apertus gigachat gigachat-3.1 command-r inkling laguna sarashina kimi-k2 deepseek-r1 deepseek-v3.1 harmony ksi ksi-event ikigai mandrake-json json-name-arguments xlam llama3-json openai-json llamacpp-generic uicp-batch uicp-call natural-tag natural-tool-call mandrake-xml seed-oss qwen3-coder glm minimax-m2 step3 deepseek-dsml deepseek-dsml-v4.1 gigachat-3.5 kimi-k3 muse-glimmer minimax-m3 cline-xml anthropic-xml anthropic-xml-legacy pythonic llama4-pythonic lfm2 olmo3 llama3-builtin functiongemma gemma4 wil swe-agent-command swe-agent-fence mini-swe-agent-action" -- "${cur}"))
                    return 0
                    ;;
                --tools)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dialect-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --schema-root)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reasoning)
                    COMPREPLY=($(compgen -W "include exclude fallback" -- "${cur}"))
                    return 0
                    ;;
                --exclude)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --files-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --shard)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --manifest)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-unchanged)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help)
            opts="extract check tools dialects convert schema completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__convert)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__dialects)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__extract)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__schema)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__tools)
            opts="render"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__help__subcmd__tools__subcmd__render)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__man)
            opts="-h --help check completions convert dialects extract man render schema tools"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__schema)
            opts="-h --help transcript"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__tools)
            opts="-h --help render help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__tools__subcmd__help)
            opts="render help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__tools__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__tools__subcmd__help__subcmd__render)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        toolsift__subcmd__tools__subcmd__render)
            opts="-h --style --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --style)
                    COMPREPLY=($(compgen -W "natural json xml" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _toolsift -o nosort -o bashdefault -o default toolsift
else
    complete -F _toolsift -o bashdefault -o default toolsift
fi
