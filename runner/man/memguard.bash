# bash completion for memguard. The words come from memguard's own help
# (`memguard help`, `memguard help COMMAND`), so they are what this
# memguard knows: commands, each command's --options, the adapters.
_memguard()
{
	local cur prev cmd w i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$(memguard help 2>/dev/null | awk '/^  [a-z]/{print $1}')" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	# after --: the host and its arguments
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
			return
		fi
	done
	case $cmd in
	help)
		COMPREPLY=($(compgen -W "$(memguard help 2>/dev/null | awk '/^  [a-z]/{print $1}')" -- "$cur"))
		return
		;;
	esac
	case $prev in
	--adapter)
		w=$(memguard help report 2>/dev/null | awk '/^adapters/{a=1; next} a && /^  [a-z]/{print $1} a && /^[^ ]/{exit}')
		COMPREPLY=($(compgen -W "$w" -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		w=$(memguard help "$cmd" 2>/dev/null | grep -oE -- '(^|[ [(,|])--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+' | sort -u)
		COMPREPLY=($(compgen -W "$w" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _memguard memguard
