# bash completion for kscen(1): commands, each command's options (from its
# --help, which kscen generates from its option table), workload names,
# job ids (with their parameter names) after --filter and --job, scenario
# files and result files.

_kscen_words() {
	local IFS=$'\n'
	COMPREPLY=($(compgen -W "$1" -- "$2"))
}

_kscen() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local kscen=${COMP_WORDS[0]} cmd="" scenario="" i w

	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		-*) ;;
		*.yaml) [ -n "$cmd" ] && [ -z "$scenario" ] && scenario=$w ;;
		*) [ -z "$cmd" ] && cmd=$w ;;
		esac
	done
	if [ -z "$cmd" ]; then
		_kscen_words "$("$kscen" --help 2>/dev/null |
			awk '/^commands:/ { f = 1; next } f && NF == 0 { exit } f { print $1 }')
--help
--version" "$cur"
		return
	fi
	case $prev in
	--format)
		_kscen_words $'text\nmarkdown\njson\ncsv' "$cur"; return ;;
	--noise)
		_kscen_words $'flag\nretake\ndrop' "$cur"; return ;;
	-o|--results)
		[ "$cmd" = plot ] && { COMPREPLY=($(compgen -f -- "$cur")); return; }
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--filter|--job)
		# the job ids of the scenario on the line: name/param=value,...
		[ -n "$scenario" ] &&
			_kscen_words "$("$kscen" plan "$scenario" 2>/dev/null | sed '$d')" "$cur"
		return ;;
	--compare)
		COMPREPLY=($(compgen -W 'last none label:' -- "$cur") $(compgen -f -- "$cur"))
		return ;;
	--kernel|--modules|--resume|--output)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		_kscen_words "$("$kscen" "$cmd" --help 2>/dev/null |
			grep -o -- '--[a-z][a-z-]*' | sort -u)" "$cur"
		return
	fi
	case $cmd in
	list)
		_kscen_words "$("$kscen" list 2>/dev/null | awk '{ print $1 }')" "$cur" ;;
	system)
		_kscen_words check "$cur" ;;
	run|plan|validate|calibrate|history|ab)
		COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _kscen kscen
