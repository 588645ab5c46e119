# SPDX-License-Identifier: GPL-2.0
#
# bash completion for grtrace(1): source it, or install it as
# /usr/share/bash-completion/completions/grtrace.

_grtrace_words() {
	case $1 in
	commands)	echo "start stop status stats top config record recorder report export
			      diff dump help --version" ;;
	recorder)	echo "arm trigger release disarm status wait service list show -h --help" ;;
	recorder-service)	echo "--config --dir --count -h --help" ;;
	recorder-list|recorder-show)	echo "--config --dir -h --help" ;;
	recorder-arm)	echo "--size --format -h --help" ;;
	recorder-wait)	echo "-o --output -t --timeout --release --no-compress -h --help" ;;
	record)		echo "-o --output -d --duration -b --buffer-size --no-compress -h --help" ;;
	dump)		echo "-i --input --raw --header --channel -h --help" ;;
	stats)		echo "-p --prometheus -o --output -h --help" ;;
	top)		echo "-b --batch -d --delay -n --frames -s --sort -h --help" ;;
	report)		echo "-i --input --live -f --format --per-ring --per-ctx --per-process --per-engine --interval --topn
			      --hist --limit --since --until --ring --ctx
			      --engine --rules --long-queue-us --slow-exec-us
			      --dep-wait-us --preempt-min --busy-pct
			      --queue-ratio --hang-ms --max-open --why
			      --critical-path -h --help" ;;
	export)		echo "-i --input -o --output --live --interval --since --until
			      --ring --ctx --engine --hang-ms --max-open --why
			      --critical-path -h --help" ;;
	diff)		echo "-f --format --alpha --min-change --fail-on -h --help" ;;
	config)		echo "level= clock= filter_type_mask= filter_engine_mask=
			      filter_ring_id= reset_stats=1 -h --help" ;;
	*)		echo "-h --help" ;;
	esac
}

# grtrace recorder SUBCOMMAND [OPTIONS]: its own words and values.
_grtrace_recorder() {
	local sub=${COMP_WORDS[2]}

	if [ "$COMP_CWORD" -eq 2 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_grtrace_words recorder)" -- "$cur")
		return
	fi
	case $prev in
	--format)
		mapfile -t COMPREPLY < <(compgen -W "1 2" -- "$cur")
		return ;;
	-o|--output|--config)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	--dir)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	--size|-t|--timeout|--count)
		return ;;
	esac
	case $sub in
	arm|wait|service|list|show)
		mapfile -t COMPREPLY < <(compgen -W "$(_grtrace_words "recorder-$sub")" -- "$cur") ;;
	*)
		mapfile -t COMPREPLY < <(compgen -W "-h --help" -- "$cur") ;;
	esac
}

_grtrace() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd=${COMP_WORDS[1]}

	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_grtrace_words commands)" -- "$cur")
		return
	fi
	if [ "$cmd" = recorder ]; then
		_grtrace_recorder
		return
	fi
	case $prev in
	-i|--input|-o|--output|--rules)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	-f|--format)
		if [ "$cmd" = diff ]; then
			mapfile -t COMPREPLY < <(compgen -W "text json csv" -- "$cur")
			return
		fi
		# The formats are the library's sinks: ask the tool itself.
		mapfile -t COMPREPLY < <(compgen -W "$("${COMP_WORDS[0]}" --list-formats 2>/dev/null | cut -f1)" -- "$cur")
		return ;;
	-s|--sort)
		[ "$cmd" = top ] || return
		mapfile -t COMPREPLY < <(compgen -W "busy jobs p99 depth ring" -- "$cur")
		return ;;
	--hist)
		mapfile -t COMPREPLY < <(compgen -W "lat size result" -- "$cur")
		return ;;
	--fail-on)
		mapfile -t COMPREPLY < <(compgen -W "regression" -- "$cur")
		return ;;
	--engine)
		mapfile -t COMPREPLY < <(compgen -W "unknown gfx compute copy video display control" -- "$cur")
		return ;;
	-d|--duration|-b|--buffer-size|--topn|--limit|--since|--until|--ring|\
	--ctx|--long-queue-us|--slow-exec-us|--dep-wait-us|--preempt-min|\
	--busy-pct|--queue-ratio|--hang-ms|--max-open|--alpha|--min-change)
		return ;;
	esac
	# diff A.dat B.dat: the recordings are files.
	if [ "$cmd" = diff ] && [ "${cur#-}" = "$cur" ]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	if [ "$cmd" = help ]; then
		[ "$COMP_CWORD" -eq 2 ] &&
			mapfile -t COMPREPLY < <(compgen -W "$(_grtrace_words commands)" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -W "$(_grtrace_words "$cmd")" -- "$cur")
	[ "$cmd" = config ] && compopt -o nospace 2>/dev/null
}

complete -F _grtrace grtrace
