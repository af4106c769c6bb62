#!/bin/sh
# Keeps the one service jar of a variant as <dir>/app.jar: "lean" (activity-service-*-lean.jar, without the embedded
# ActiveMQ broker and ElasticMQ) or "quick-start" (the jar with them). Used by the Dockerfile.
set -eu
variant="$1"; dir="$2"
case "$variant" in
  lean|quick-start) ;;
  *) echo "JAR_VARIANT must be quick-start or lean, got '$variant'" >&2; exit 2 ;;
esac
pick=""
count=0
for jar in "$dir"/activity-service-*.jar; do
  [ -f "$jar" ] || continue
  case "$jar" in
    *-lean.jar) [ "$variant" = lean ] || continue ;;
    *) [ "$variant" = quick-start ] || continue ;;
  esac
  pick="$jar"
  count=$((count + 1))
done
[ "$count" -eq 1 ] || { echo "no single $variant jar in $dir (found $count)" >&2; exit 1; }
mv "$pick" "$dir/app.jar"
rm -f "$dir"/activity-service-*.jar
