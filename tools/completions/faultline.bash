# bash completion for faultline: commands, each command's options, and values where they are few.
# Installed to share/bash-completion/completions/faultline by `cmake --install`.
_faultline() {
  local cur prev words cword
  _init_completion 2>/dev/null || {
    COMPREPLY=()
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  }
  local commands="diagnose scan merge preflight repro rules explain help"
  local rules_commands="list test check patterns docs suggest"
  case "$prev" in
    --format) COMPREPLY=($(compgen -W "text json jsonl markdown html sarif" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    --backend) COMPREPLY=($(compgen -W "cpu cuda" -- "$cur")); return ;;
    --job-by) COMPREPLY=($(compgen -W "run dir file archive" -- "$cur")); return ;;
    --gpus) COMPREPLY=($(compgen -W "auto" -- "$cur") $(compgen -f -- "$cur")); return ;;
    --rules | --corpus | --include | --exclude) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --config | --baseline) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --tp | --pp | --heads | --kv-heads | --hidden | --ffn | --vocab | --layers | -j | --jobs | --shard) return ;;
  esac
  local command="" i
  for ((i = 1; i < cword; i++)); do
    case "${words[i]}" in
      -*) ;;
      rules) command="rules"; [[ $((i + 1)) -lt $cword ]] && command="rules ${words[i + 1]}"; break ;;
      *) command="${words[i]}"; break ;;
    esac
  done
  if [[ -z "$command" ]]; then
    COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
    return
  fi
  if [[ "$command" == "rules" ]]; then
    COMPREPLY=($(compgen -W "$rules_commands" -- "$cur"))
    return
  fi
  if [[ "$command" == "help" ]]; then
    COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    return
  fi
  if [[ "$command" == "explain" && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "$(faultline rules list 2>/dev/null | awk 'NF > 1 {print $1}')" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    # Each command's options, from its own --help (the command table).
    local options
    options=$(faultline $command --help 2>/dev/null | grep -oE -- '--[a-z-]+' | sort -u)
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _faultline faultline faultline-cuda
