#!/bin/sh
# flamelens-bundle.sh OUT.tar.gz PROFILE...
# For machines without node: packs the profiles with every object their mapped-objects text names
# (the /proc/self/maps lines at the end of a gperftools profile) and, where readelf is present,
# each object's debug file from /usr/lib/debug/.build-id. Drop OUT.tar.gz on Flamelens.
# ROOT=/some/copy looks the files up under a copy of the machine's files instead of /.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OUT.tar.gz PROFILE..." >&2; exit 2; }
out=$1; shift
root=${ROOT:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/profiles" "$tmp/files"
for p in "$@"; do cp "$p" "$tmp/profiles/"; done
# Executable mappings' paths: "start-end perms offset dev inode path".
for p in "$@"; do
  LC_ALL=C tr -c '[:print:]' '\n' < "$p" |
    LC_ALL=C grep -E '^[0-9a-f]+-[0-9a-f]+ r-xp [0-9a-f]+ [0-9a-f]+:[0-9a-f]+ [0-9]+ +/' |
    awk '{ print $6 }'
done | sort -u > "$tmp/paths"
pack() { # PATH: copy $root$PATH to files/PATH
  mkdir -p "$tmp/files$(dirname "$1")" && cp "$root$1" "$tmp/files$1"
}
while IFS= read -r f; do
  if [ ! -f "$root$f" ]; then echo "flamelens-bundle: not bundled: $f: not found" >&2; continue; fi
  pack "$f"
  if command -v readelf >/dev/null 2>&1; then
    id=$(LC_ALL=C readelf -n "$root$f" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
    d=/usr/lib/debug/.build-id/$(printf %s "$id" | cut -c1-2)/$(printf %s "$id" | cut -c3-).debug
    if [ -n "$id" ] && [ -f "$root$d" ]; then pack "$d"; fi
  fi
done < "$tmp/paths"
rm "$tmp/paths"
tar -czf "$out" -C "$tmp" profiles files
echo "flamelens-bundle: wrote $out" >&2
