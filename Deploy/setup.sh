#!/usr/bin/env bash
# Installs the Debian packages scorecast needs (only those missing) and builds it.
#
#   Deploy/setup.sh            build dependencies, then a release build
#   Deploy/setup.sh --tests    also what the test suite needs (Debian + PyPI), debug build
#
# Works as root or, for a normal user, through sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=false
for argument in "$@"; do
  case "$argument" in
    --tests) with_tests=true ;;
    *) echo "usage: Deploy/setup.sh [--tests]" >&2; exit 2 ;;
  esac
done

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "setup: need root or sudo to install: $*" >&2; exit 1
  fi
}

wanted() { grep -v '^\s*#' "$1" | grep -v '^\s*$'; }

lists=(Deploy/packages.txt)
$with_tests && lists+=(Deploy/packages-test.txt)
missing=()
for package in $(cat "${lists[@]}" | grep -v '^\s*#' | grep -v '^\s*$'); do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# A fresh machine often runs apt on its own at first (unattended upgrades): wait up to ten
# minutes for its dpkg and package-list locks, as apt says it does, rather than fail at once.
apt_wait=(-o DPkg::Lock::Timeout=600)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  as_root apt-get "${apt_wait[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get "${apt_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if $with_tests; then
  pip_wanted=$(wanted Deploy/requirements-test.txt | tr '\n' ' ')
  if [ -n "$pip_wanted" ]; then
    python3 -m pip install --quiet --disable-pip-version-check $pip_wanted 2>/dev/null \
      || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages $pip_wanted
  fi
fi

command -v swift >/dev/null || { echo "setup: swift is not on PATH (install Swift 6.3 first)" >&2; exit 1; }
if $with_tests; then
  swift build --build-tests
else
  swift build -c release
fi
