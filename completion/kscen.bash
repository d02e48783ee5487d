# bash completion for kscen(1): commands, each command's options (from its
# --help, which kscen generates from its option table), workload names,
# report formats, job ids (with their parameter names) after --filter and
# --job, the labels of stored runs after label:, the profiled jobs of a
# result after plot --flame, scenario files and result files.
#
# Job ids hold '=' and ',', and label:NAME a ':', which bash splits words
# at (COMP_WORDBREAKS): the words are joined back where no blank separated
# them (COMP_LINE), candidates are matched against the whole word, and only
# what follows its last break character is offered, as bash replaces that.
# Candidates are matched here, never by compgen -W, which would expand a
# '$(...)' in a job id.

# _kscen_join: _kw, the words of the line joined back where bash split them
# with no blank between, and _kc, the index of the one being completed
# (of which _kw holds what precedes the cursor).
_kscen_join() {
	local line=$COMP_LINE i w rest pos=0
	_kw=() _kc=-1
	if [ -z "${COMP_LINE+set}" ]; then	# called by hand: words, no line
		_kw=("${COMP_WORDS[@]}") _kc=$COMP_CWORD
		return
	fi
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		rest=${line#"${line%%[![:space:]]*}"}
		pos=$((pos + ${#line} - ${#rest}))
		if ((i > 0)) && [ ${#rest} = ${#line} ] && [ -n "$w" ]; then
			_kw[_kc]+=$w		# glued to the word before
		else
			_kw[++_kc]=$w
		fi
		if ((i == COMP_CWORD)); then
			_kw[_kc]=${_kw[_kc]:0:${#_kw[_kc]} - ${#w} + COMP_POINT - pos}
			local cword=$_kc
		fi
		line=${rest:${#w}}
		pos=$((pos + ${#w}))
	done
	_kc=${cword:-$((_kc + 1))}
}

# _kscen_offer CUR CANDIDATE...: COMPREPLY, the candidates that start with
# CUR, each without what precedes CUR's last break character.
_kscen_offer() {
	local cur=$1 pre="" i c q=""
	shift
	# In an open quote bash splits nothing, and readline completes what
	# follows the quote.
	if [[ $cur == [\'\"]* ]]; then
		q=${cur:0:1} cur=${cur:1}
	else	# a\ b is "a b", as a previous completion quoted it
		for ((i = 0; i < ${#cur}; i++)); do
			[ "${cur:i:1}" = '\' ] && cur=${cur:0:i}${cur:i+1}
		done
	fi
	for ((i = ${#cur} - 1; i >= 0 && !${#q}; i--)); do
		# a blank inside a word was quoted: bash did not split there
		if [[ ${cur:i:1} != [[:space:]] && $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
			pre=${cur:0:i+1}
			break
		fi
	done
	COMPREPLY=()
	for c in "$@"; do
		[[ $c == "$cur"* ]] || continue
		c=${c:${#pre}}
		[ -z "$q" ] &&
			[[ $c == *[[:space:]\'\"\\\$\`\(\)\<\>\;\&\|\*\?\[\]\#\~\!\{\}]* ]] &&
			c=$(printf '%q' "$c")
		COMPREPLY+=("$c")
	done
}

# _kscen_lines TEXT: the lines of TEXT into the array _kl (no globbing).
_kscen_lines() {
	mapfile -t _kl < <(printf '%s' "$1")
}

# The labels of the stored runs under the results directory $1 and the
# directories of runs on the line ($2...): a file ...-HOST+LABEL.yaml.
_kscen_labels() {
	local d f l
	for d in "$1"/*/ "${@:2}"; do
		for f in "$d"/*+*.yaml; do
			[ -f "$f" ] || continue
			l=${f##*+}
			echo "label:${l%.yaml}"
		done
	done | sort -u
}

# The jobs with a profile in result $1 (a file, or the newest run of a
# directory), or in every run under results directory $2 without one: the
# files of <run>.profiles/, their names the ids with %XX escapes.
_kscen_profiled() {
	local r=$1 f p
	if [ -d "$r" ]; then
		f=$(ls "$r"/*.yaml 2>/dev/null | sort | tail -n1)
		r=$f
	fi
	if [ -n "$r" ]; then
		set -- "${r%.yaml}.profiles"
	else
		set -- "$2"/*/*.profiles
	fi
	for p in "$@"; do
		for f in "$p"/*.folded; do
			[ -f "$f" ] || continue
			f=${f##*/}
			f=${f%.folded}
			printf '%b\n' "${f//%/\\x}"
		done
	done | sort -u
}

_kscen() {
	local _kw _kc _kl
	_kscen_join
	local cur=${_kw[_kc]} prev=${_kw[_kc - 1]}
	local kscen=${COMP_WORDS[0]} cmd="" scenario="" results=results result="" i w
	local dirs=()

	for ((i = 1; i < ${#_kw[@]}; i++)); do
		((i == _kc)) && continue
		w=${_kw[i]}
		case ${_kw[i - 1]} in
		-o|--results) results=$w; continue ;;
		--filter|--job|--flame|--history|--compare|--format|--label|--output) continue ;;
		esac
		case $w in
		-*) ;;
		*.yaml) [ -n "$cmd" ] && [ -z "$scenario" ] && scenario=$w
			[ -z "$result" ] && result=$w ;;
		*) if [ -z "$cmd" ]; then cmd=$w
		   elif [ -d "$w" ]; then dirs+=("$w"); [ -z "$result" ] && result=$w
		   fi ;;
		esac
	done
	if [ -z "$cmd" ]; then
		_kscen_lines "$("$kscen" --help 2>/dev/null |
			awk '/^commands:/ { f = 1; next } f && NF == 0 { exit } f { print $1 }')"
		_kscen_offer "$cur" "${_kl[@]}" --help --version
		return
	fi
	case $prev in
	--format)
		_kscen_offer "$cur" text mail markdown json csv; return ;;
	--noise)
		_kscen_offer "$cur" flag retake drop; return ;;
	-o|--results|--output)
		[ "$cmd" = plot ] && [ "$prev" != --results ] &&
			{ COMPREPLY=($(compgen -f -- "$cur")); return; }
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--filter|--job|--history)
		# the job ids of the scenario on the line: name/param=value,...
		if [ -n "$scenario" ]; then
			_kscen_lines "$("$kscen" plan "$scenario" 2>/dev/null | sed '$d')"
			_kscen_offer "$cur" "${_kl[@]}"
		fi
		return ;;
	--flame)
		_kscen_lines "$(_kscen_profiled "$result" "$results")"
		_kscen_offer "$cur" "${_kl[@]}"
		return ;;
	--compare)
		if [[ $cur == label:* ]]; then
			_kscen_lines "$(_kscen_labels "$results" "${dirs[@]}")"
			_kscen_offer "$cur" "${_kl[@]}"
			return
		fi
		_kscen_offer "$cur" last none label:
		[[ ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
		COMPREPLY+=($(compgen -f -- "$cur"))
		return ;;
	--kernel|--modules|--resume|--prepare)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		_kscen_lines "$("$kscen" "$cmd" --help 2>/dev/null |
			grep -o -- '--[a-z][a-z-]*' | sort -u)"
		_kscen_offer "$cur" "${_kl[@]}"
		return
	fi
	case $cmd in
	list)
		_kscen_lines "$("$kscen" list 2>/dev/null | awk '{ print $1 }')"
		_kscen_offer "$cur" "${_kl[@]}" ;;
	compare)
		if [[ $cur == label:* ]]; then
			_kscen_lines "$(_kscen_labels "$results" "${dirs[@]}")"
			_kscen_offer "$cur" "${_kl[@]}"
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	system)
		_kscen_offer "$cur" check ;;
	run|plan|validate|calibrate|history|ab)
		COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur")) ;;
	exec)
		COMPREPLY=($(compgen -c -- "$cur")) ;;
	*)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _kscen kscen
