#!/bin/bash
# Install the Debian packages in scripts/packages.txt that are missing.
# Quiet and quick when everything is there already.
#
#   deps.sh          everything the tests need (kernels, QEMU, cross gcc)
#   deps.sh --fuse   only what building and mounting the FUSE daemon needs
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --fuse ]; then
	want=(build-essential pkg-config libfuse3-dev fuse3 attr)
else
	mapfile -t want < <(grep -v '^#' "$here/packages.txt" | sed '/^$/d')
fi
missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages (run as root to install): ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
