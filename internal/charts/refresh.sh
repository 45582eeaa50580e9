#!/usr/bin/env bash
# Refreshes the vendored uPlot (internal/charts/uplot/) from the npm
# package at the pinned version, checking the tarball against the pinned
# integrity. To move to a new version, change VERSION and INTEGRITY (the
# dist.integrity that `npm view uplot@VERSION dist.integrity` prints), run
# this script and commit what it writes. Nothing is fetched at go build
# time or at run time: the files are committed and embedded.
set -euo pipefail

VERSION=1.6.32
INTEGRITY=sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==

dest=$(cd "$(dirname "$0")" && pwd)/uplot
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "uplot@$VERSION" >/dev/null)
tgz="$tmp/uplot-$VERSION.tgz"
got=sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")
if [[ $got != "$INTEGRITY" ]]; then
	echo "refresh.sh: uplot@$VERSION: integrity $got, want $INTEGRITY" >&2
	exit 1
fi
tar -xzf "$tgz" -C "$tmp"
mkdir -p "$dest"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$dest/"
echo "$VERSION" >"$dest/VERSION"
echo "uplot@$VERSION written to $dest"
