# bash completion for fastlink(8)                                    -*- shell-script -*-
# Installed as share/bash-completion/completions/fastlink. The words come from the fastlink
# binary itself (`fastlink help-complete WORDS...`, see docs/CLI.md "Shell"): objects, verbs and
# options from its usage texts, device names from the kernel (in the namespace of a `-n NETNS`
# on the line), namespace names from /run/netns. Nothing here lists words by hand.

_fastlink() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local cmd=${COMP_WORDS[0]}
  # The binary being completed; the one on PATH if the word is not a runnable path.
  [[ $cmd == */* && -x $cmd ]] || cmd=fastlink
  local line
  COMPREPLY=()
  while IFS= read -r line; do
    if [[ $line == :files ]]; then
      compopt -o filenames 2>/dev/null
      local f
      while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "$cur")
    else
      COMPREPLY+=("$line")
    fi
  done < <("$cmd" help-complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}

complete -F _fastlink fastlink
