# bash completion for fastlink(8)                                    -*- shell-script -*-
# Installed as share/bash-completion/completions/fastlink. The words come from the fastlink
# binary itself (`fastlink help-complete WORDS...`, see docs/CLI.md "Shell"): objects, verbs and
# options from its usage texts, device names from the kernel (in the namespace of a `-n NETNS`
# on the line), namespace names from /run/netns. Nothing here lists words by hand.

_fastlink() {
  local cur words cword
  if declare -F _get_comp_words_by_ref >/dev/null; then
    # bash-completion loaded: keep 00:11:22:33:44:55 and 2001:db8::1 one word (COMP_WORDBREAKS
    # splits them at ':').
    _get_comp_words_by_ref -n := cur words cword
  else
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
    cur=${COMP_WORDS[COMP_CWORD]}
  fi
  local cmd=${words[0]}
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
  done < <("$cmd" help-complete "${words[@]:1:cword}" 2>/dev/null)
  declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
  return 0
}

complete -F _fastlink fastlink
