#!/usr/bin/env bash
# Builds the Debian package: .build/package/scorecast_<version>_amd64.deb (one command).
#
#   Deploy/package.sh                      release build (Swift runtime linked in statically), then package
#   Deploy/package.sh --build debug        package the debug binary `swift build` made, without building
#                                          (for tests; it runs only where the Swift toolchain is installed)
#   Deploy/package.sh --output DIR         write the .deb to DIR
#   Deploy/package.sh --print-depends      print the runtime Depends: line and stop
#
# The package: /usr/bin/scorecast (it carries its migrations), its man page, copyright and
# changelog, the systemd units
# and their readiness check, /etc/scorecast/scorecast.env (a conffile, every setting commented
# with its default), and maintainer scripts that make the `scorecast` system user and
# /var/lib/scorecast, and remove them on purge. Depends: is what the binary links, found by
# dpkg-shlibdeps, plus the tools the maintainer scripts and units call.
set -euo pipefail
cd "$(dirname "$0")/.."

build=release
output=.build/package
print_depends=false
usage() { echo "usage: Deploy/package.sh [--build release|debug] [--output DIR] [--print-depends]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    --output) [ $# -ge 2 ] || usage; output=$2; shift 2 ;;
    --print-depends) print_depends=true; shift ;;
    *) usage ;;
  esac
done
for tool in dpkg-deb dpkg-shlibdeps python3; do
  command -v "$tool" >/dev/null || { echo "package: $tool is missing (apt-get install dpkg-dev python3)" >&2; exit 1; }
done

case "$build" in
  release)
    # A static Swift runtime: the package needs no Swift toolchain, only Debian's libraries.
    swift build -c release --static-swift-stdlib --product scorecast >&2
    binary=.build/release/scorecast ;;
  debug)
    binary=.build/debug/scorecast
    [ -x "$binary" ] || { echo "package: $binary is not built: run \`swift build\` first" >&2; exit 1; } ;;
  *) echo "package: --build takes release or debug, not '$build'" >&2; exit 2 ;;
esac

# Depends: the Debian packages of the libraries the binary links, with the versions their
# symbols need (dpkg-shlibdeps). The debug binary also links the toolchain's Swift runtime,
# which no package owns: its libraries are skipped, and the packages of the system libraries
# they link are added (libstdc++6, libgcc-s1), so that a debug package depends on what a
# release binary, with that runtime linked in, depends on.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/shlibs/debian"
printf 'Source: scorecast\n\nPackage: scorecast\nArchitecture: any\n' >"$scratch/shlibs/debian/control"
shlibdeps_options=()
runtime_packages=()
if [ "$build" = debug ]; then
  # The folder of the Swift runtime the binary was linked against, as the loader finds it.
  runtime=$(ldd "$binary" | awk '$1 == "libswiftCore.so" { print $3 }')
  [ -n "$runtime" ] || { echo "package: $binary does not link the Swift runtime dynamically: is it a debug build?" >&2; exit 1; }
  runtime=$(dirname "$(readlink -f "$runtime")")
  shlibdeps_options=(--ignore-missing-info -l"$runtime")
  libraries=$(ldd "$binary" | awk '{ print $3 }' | grep "^/" | xargs readlink -f | grep "^$runtime/" | sort -u)
  needs=$(for library in $libraries; do readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | sort -u)
  known=$(ldconfig -p)
  for needed in $needs; do
    [ -e "$runtime/$needed" ] && continue
    path=$(readlink -f "$(awk -v name="$needed" '$1 == name && /x86-64/ { print $NF; exit }' <<<"$known")")
    # Debian 12 registers some libraries under /lib, others under /usr/lib.
    owner=$(dpkg-query -S "$path" 2>/dev/null || dpkg-query -S "${path#/usr}" 2>/dev/null) \
      || { echo "package: no Debian package owns $path (needed by the Swift runtime)" >&2; exit 1; }
    runtime_packages+=("${owner%%:*}")
  done
fi
binary_path=$(readlink -f "$binary")
shlibs=$(cd "$scratch/shlibs" && dpkg-shlibdeps -O --warnings=0 "${shlibdeps_options[@]}" -e"$binary_path" 2>"$scratch/shlibdeps.log") \
  || { cat "$scratch/shlibdeps.log" >&2; echo "package: dpkg-shlibdeps failed (a library no Debian package owns?)" >&2; exit 1; }
library_depends=${shlibs#shlibs:Depends=}
library_depends=${shlibs#shlibs:Depends=}
for package in $(printf '%s\n' "${runtime_packages[@]}" | sort -u); do
  [[ ", $library_depends" == *", $package "* || ", $library_depends," == *", $package,"* ]] \
    || library_depends="$library_depends, $package"
done
# adduser for the maintainer scripts, curl for the units' readiness check, ca-certificates so
# that TLS to Apple's hosts can be verified.
depends="adduser, ca-certificates, curl, $library_depends"
if $print_depends; then
  echo "Depends: $depends"
  exit 0
fi

release=$("$binary" --version | awk '{ print $2 }')
[[ "$release" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "package: cannot read the release from \`$binary --version\`" >&2; exit 1; }
version=$release
[ "$build" = debug ] && version="$release~debug"
architecture=$(dpkg --print-architecture)

root="$scratch/root"
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/doc/scorecast" \
  "$root/etc/scorecast" "$root/lib/systemd/system" "$root/usr/lib/scorecast"
install -m 0755 "$binary" "$root/usr/bin/scorecast"
[ "$build" = release ] && strip --strip-unneeded "$root/usr/bin/scorecast"
python3 Deploy/debian/render.py environment "$binary" >"$root/etc/scorecast/scorecast.env"
chmod 0640 "$root/etc/scorecast/scorecast.env"
python3 Deploy/debian/render.py manual "$binary" | gzip -9n >"$root/usr/share/man/man1/scorecast.1.gz"
gzip -9n <README.md >"$root/usr/share/doc/scorecast/README.md.gz"
install -m 0644 Deploy/debian/copyright "$root/usr/share/doc/scorecast/copyright"
# A native package's changelog: one entry for this release, dated by the last commit (or
# SOURCE_DATE_EPOCH) so that the same tree makes the same package.
when=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
cat <<CHANGELOG | gzip -9n >"$root/usr/share/doc/scorecast/changelog.gz"
scorecast ($version) stable; urgency=medium

  * Release $release: see /usr/share/doc/scorecast/README.md.gz.

 -- scorecast maintainers <scorecast@example.invalid>  $(LC_ALL=C date -u -R -d "@$when")
CHANGELOG
install -m 0644 Deploy/systemd/*.service "$root/lib/systemd/system/"
install -m 0755 Deploy/systemd/wait-ready "$root/usr/lib/scorecast/wait-ready"
for script in postinst prerm postrm; do
  install -m 0755 "Deploy/debian/$script" "$root/DEBIAN/$script"
done
echo /etc/scorecast/scorecast.env >"$root/DEBIAN/conffiles"
description="Live Activity score updates through APNs broadcast channels"
cat >"$root/DEBIAN/control" <<CONTROL
Package: scorecast
Version: $version
Architecture: $architecture
Maintainer: scorecast maintainers <scorecast@example.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Suggests: postgresql
Section: net
Priority: optional
Description: $description
 A sports data feed posts score events; scorecast keeps each game's state in
 PostgreSQL and sends one broadcast per channel to Apple's push service.
 The binary carries its schema migrations. See scorecast(1) and
 /usr/share/doc/scorecast/README.md.gz.
CONTROL
if [ "$build" = debug ]; then
  printf ' .\n This is a debug build: it needs the Swift runtime at %s.\n' "$runtime" \
    >>"$root/DEBIAN/control"
fi

mkdir -p "$output"
deb="$output/scorecast_${version}_${architecture}.deb"
# xz for a release; a debug package is made for a test, so speed over size.
compression=(-Zxz)
[ "$build" = debug ] && compression=(-Zgzip -z1)
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$deb" >&2
echo "$deb"
