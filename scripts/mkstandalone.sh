#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Writes one self-contained script per unittests.cfg entry of a build's arch: runner code, entry and kernel in one file.
set -u

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/runner-lib.bash
. "$SRCDIR/scripts/runner-lib.bash"

usage() {
	cat <<USAGE
Usage: $0 [--build DIR] [--out DIR] [--cfg FILE] [TEST...]

Writes OUT/TEST (default OUT: DIR/standalone) for every entry of FILE (default:
unittests.cfg of the source tree) that runs on DIR's arch (default DIR: .), or
only for the TESTs named. Each script takes run_tests.sh's -v, -t, --junit and
--tap-file, and logs to logs/ beside itself (or LOGDIR).
USAGE
}

die() {
	echo "mkstandalone: $*" >&2
	exit 4
}

# The Python helpers' parts, imported from beside them (docs/design.md,
# "Where each concept lives"): the lifecycle helper's own, and those it
# shares with the host-evidence agent.
LIFECYCLE_PARTS=(lifecycle_protocol lifecycle_guest lifecycle_events qmp_client wait_meter migration_file unix_socket)
SHARED_PARTS=(qemu_proc thread_waits units)

# What every script holds alike, read once (a script per entry: no fork per
# piece of each one: 49 x86_64 scripts took 8.8 s, 2.0 s so): the runner's
# pieces, and each helper file's text.
STANDALONE_LIBS=""
declare -A STANDALONE_FILE=()
standalone_load() {
	local lib part
	for lib in $(runner_lib_names); do
		STANDALONE_LIBS+="# ---- scripts/$lib.bash"$'\n'
		STANDALONE_LIBS+=$(grep -v -e '^# SPDX-License-Identifier' -e '^# shellcheck shell=' "$SRCDIR/scripts/$lib.bash")$'\n'
	done
	for part in lifecycle host_evidence "${LIFECYCLE_PARTS[@]}" "${SHARED_PARTS[@]}"; do
		[ -n "${STANDALONE_FILE[$part]:-}" ] && continue
		STANDALONE_FILE[$part]=$(<"$SRCDIR/scripts/$part.py")$'\n'
	done
}

# A helper file, written to the script's RUN_TMP by standalone_unpack (a
# here-document ended by END); VAR holds its path.
embed_file() { # name VAR END
	UNPACK_VARS+="$2=\$RUN_TMP/$1.py"$'\n'
	embed_part "$1" "$3"
}

# A file for standalone_unpack to write (a here-document ended by END).
embed_part() { # name END
	UNPACK_BODY+="	cat >\"\$RUN_TMP/$1.py\" <<'$2' || return"$'\n'
	UNPACK_BODY+="${STANDALONE_FILE[$1]}$2"$'\n'
}

# Each part NAME of scripts/NAME.py, embedded.
embed_parts() { # NAME...
	local part
	for part in "$@"; do
		embed_part "$part" "VMTICK_PART_END_$part"
	done
}

# The helpers an entry runs QEMU under, as UNPACK_VARS (their paths) and
# UNPACK_BODY (standalone_unpack's lines: main runs it before a test starts,
# never for -l, which needs only their paths).
embed_helpers() { # test
	local events evidence
	UNPACK_VARS="" UNPACK_BODY=""
	cfg_value_into events "$1" events
	cfg_value_into evidence "$1" evidence
	if [ -n "$events" ]; then
		# the helper that performs the entry's events (docs/lifecycle.md)
		embed_file lifecycle RUN_LIFECYCLE_PY VMTICK_LIFECYCLE_END
		embed_parts "${LIFECYCLE_PARTS[@]}"
	fi
	if [ -n "$events$evidence" ]; then
		# the host-evidence agent (evidence = host), and the parts lifecycle.py shares with it
		embed_file host_evidence RUN_HOST_EVIDENCE_PY VMTICK_EVIDENCE_END
		embed_parts "${SHARED_PARTS[@]}"
	fi
}

write_script() { # test kernel arch out
	local t=$1 kernel=$2 arch=$3 out=$4
	embed_helpers "$t"
	{
		printf '%s\n' '#!/usr/bin/env bash' '# SPDX-License-Identifier: GPL-2.0-only' \
			"# Standalone vmtick test '$t' ($arch), made by scripts/mkstandalone.sh from unittests.cfg: needs bash 5.1 and QEMU." \
			"# Takes run_tests.sh's options -v, -t, --junit FILE, --tap-file FILE and its environment (QEMU, ACCEL, TIMEOUT, ...); logs go to logs/ beside this script, or LOGDIR." \
			'set -u' \
			'if ((BASH_VERSINFO[0] < 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] < 1))); then' \
			"	echo \"$t: needs bash 5.1 or later (this is \$BASH_VERSION)\" >&2" \
			'	exit 4' 'fi'
		printf '%s' "$STANDALONE_LIBS"
		# shellcheck disable=SC2016 # the script's own lines: they expand when it runs
		printf '%s\n' '# ---- this test' \
			'SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)' \
			"RUN_PROG=$t" "RUN_ARCH=$arch" 'RUN_BUILD=' \
			'LOGDIR=${LOGDIR:-$SRCDIR/logs}' \
			'RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/vmtick.XXXXXX") || exit 4' \
			"trap 'rm -rf -- \"\$RUN_TMP\"' EXIT" \
			'RUN_CFG=$RUN_TMP/unittests.cfg' \
			"RUN_CFG_SHOWN=\"unittests.cfg (as embedded in $t)\"" \
			"RUN_KERNEL_OVERRIDE=\$RUN_TMP/${CFG_FILE[$t]}" \
			"cat >\"\$RUN_CFG\" <<'VMTICK_CFG_END'"
		cfg_entry_text "$t"
		printf '%s\n' VMTICK_CFG_END "base64 -d >\"\$RUN_KERNEL_OVERRIDE\" <<'VMTICK_KERNEL_END' || exit 4"
		base64 -w 76 "$kernel"
		echo VMTICK_KERNEL_END
		if [ -n "$UNPACK_BODY" ]; then
			printf '%s' "$UNPACK_VARS"
			echo 'standalone_unpack() {'
			printf '%s' "$UNPACK_BODY"
			echo '}'
		fi
		echo 'main "$@"'
	} >"$out.tmp"
	chmod +x "$out.tmp"
	mv -f "$out.tmp" "$out"
}

build=. out="" cfg=$SRCDIR/unittests.cfg
names=()
while (($#)); do
	case $1 in
	--build | --out | --cfg)
		if (($# < 2)) || [ -z "$2" ]; then die "$1 needs a value (see -h)"; fi
		case $1 in
		--build) build=$2 ;;
		--out) out=$2 ;;
		--cfg) cfg=$2 ;;
		esac
		shift
		;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option '$1' (see -h)" ;;
	*) names+=("$1") ;;
	esac
	shift
done
out=${out:-$build/standalone}

if ! cfg_parse "$cfg"; then
	printf '%s\n' "${CFG_ERROR_LINES[@]}" >&2
	exit 4
fi
arch=$(arch_config_value "$build" ARCH) || die "no config.mak with ARCH in '$build'"
if ((${#names[@]} == 0)); then names=("${CFG_NAMES[@]}"); fi
standalone_load
if ! mkdir -p -- "$out" 2>/dev/null || [ ! -w "$out" ]; then die "cannot write the scripts to $out"; fi
n=0
for t in "${names[@]}"; do
	[ -n "${CFG_WHERE[$t]:-}" ] || die "no test '$t' in $cfg"
	cfg_has_arch "$t" "$arch" || continue
	kernel="$build/$(arch_testdir "$arch")/${CFG_FILE[$t]}"
	[ -r "$kernel" ] || die "$t: kernel $kernel not built"
	write_script "$t" "$kernel" "$arch" "$out/$t"
	n=$((n + 1))
done
echo "mkstandalone: wrote $n scripts for $arch in $out"
