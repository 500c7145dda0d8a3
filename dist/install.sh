#!/bin/sh
# Installs the ticklab command (its page inside) from the project's release archives, for
# Linux (x86_64, aarch64) and macOS (Intel, Apple silicon):
#
#   curl -LsSf @REPOSITORY@/releases/latest/download/ticklab-installer.sh | sh
#
# It downloads the archive for this machine, checks its SHA-256 against the release's,
# and puts `ticklab` in ~/.local/bin (or $TICKLAB_INSTALL_DIR). Nothing else is changed.
# TICKLAB_DOWNLOAD_URL fetches the archives from elsewhere (a mirror, a folder served on
# a school network). `cargo xtask dist` writes this file with the release's version.
set -eu

version="@VERSION@"
base="${TICKLAB_DOWNLOAD_URL:-@REPOSITORY@/releases/download/v$version}"
dest="${TICKLAB_INSTALL_DIR:-$HOME/.local/bin}"

say() { printf 'ticklab-installer: %s\n' "$*" >&2; }
fail() {
    say "$*"
    exit 1
}

os=$(uname -s)
cpu=$(uname -m)
# An Intel shell on Apple silicon (Rosetta) says x86_64: the native build is faster and
# reads the machine's own counter.
if [ "$os" = Darwin ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    cpu=arm64
fi
case "$os/$cpu" in
Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-gnu ;;
Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-gnu ;;
Darwin/x86_64) target=x86_64-apple-darwin ;;
Darwin/arm64 | Darwin/aarch64) target=aarch64-apple-darwin ;;
*)
    fail "no ticklab is built for $os on $cpu: build it from source (@REPOSITORY@#readme)"
    ;;
esac

name="ticklab-$version-$target"
archive="$name.tar.gz"

fetch() {
    if command -v curl >/dev/null 2>&1; then
        curl --proto '=https,http' --fail --location --silent --show-error --output "$2" "$1"
    elif command -v wget >/dev/null 2>&1; then
        wget --quiet --output-document="$2" "$1"
    else
        fail "neither curl nor wget is installed"
    fi
}

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d' ' -f1
    else
        fail "neither sha256sum nor shasum is installed: cannot check the download"
    fi
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t ticklab)
trap 'rm -rf "$tmp"' EXIT INT TERM

say "downloading $base/$archive"
fetch "$base/$archive" "$tmp/$archive" || fail "cannot download $base/$archive"
fetch "$base/$archive.sha256" "$tmp/$archive.sha256" || fail "cannot download $base/$archive.sha256"
want=$(cut -d' ' -f1 <"$tmp/$archive.sha256")
got=$(sha256 "$tmp/$archive")
if [ -z "$want" ] || [ "$want" != "$got" ]; then
    fail "$archive: SHA-256 $got, the release says $want: not installed"
fi

tar -xzf "$tmp/$archive" -C "$tmp"
[ -f "$tmp/$name/ticklab" ] || fail "$archive holds no $name/ticklab"
mkdir -p "$dest"
# Into place by a rename, so a ticklab that is running is never half overwritten.
cp "$tmp/$name/ticklab" "$dest/.ticklab.new"
chmod 755 "$dest/.ticklab.new"
mv -f "$dest/.ticklab.new" "$dest/ticklab"
say "installed $dest/ticklab ($version, $target)"

case ":${PATH:-}:" in
*":$dest:"*) ;;
*) say "$dest is not on your PATH: add it (export PATH=\"$dest:\$PATH\") or run $dest/ticklab" ;;
esac
