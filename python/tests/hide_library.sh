#!/bin/sh
# hide_library.sh SONAME CMD...: runs CMD on this machine as if the shared library SONAME were not
# installed: in a private mount namespace (unshare -m, as root) the folder that holds it is
# covered by one of links to everything else in it. Nothing outside CMD sees a change. Exit 77
# (skip) where no mount namespace can be made or SONAME is not installed.
set -eu
soname=$1
shift
path=$(ldconfig -p | awk -v s="$soname" '$1 == s { print $NF; exit }')
[ -n "$path" ] || { echo "skipped: $soname is not installed"; exit 77; }
unshare -m true 2>/dev/null || { echo "skipped: no private mount namespace here (unshare -m needs root)"; exit 77; }
dir=$(dirname "$(readlink -f "$path")")
exec unshare -m sh -c '
  set -e
  dir=$1 soname=$2
  shift 2
  orig=$(mktemp -d) view=$(mktemp -d)
  mount --bind "$dir" "$orig"
  mount -t tmpfs tmpfs "$view"
  for f in "$orig"/*; do
    name=${f##*/}
    case $name in "${soname%%.so*}".so*) ;; *) ln -s "$f" "$view/$name" ;; esac
  done
  mount --bind "$view" "$dir"
  exec "$@"' sh "$dir" "$soname" "$@"
