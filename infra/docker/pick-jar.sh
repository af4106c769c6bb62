#!/bin/sh
# Keeps the one service jar of a variant as <dir>/app.jar: "lean" (activity-service-*-lean.jar, without the embedded
# ActiveMQ broker and ElasticMQ) or "quick-start" (the jar with them). Used by the Dockerfile.
set -eu
variant="$1"; dir="$2"
case "$variant" in
  lean) pick="$(ls "$dir"/activity-service-*-lean.jar)" ;;
  quick-start) pick="$(ls "$dir"/activity-service-*.jar | grep -v -- '-lean\.jar$')" ;;
  *) echo "JAR_VARIANT must be quick-start or lean, got '$variant'" >&2; exit 2 ;;
esac
[ "$(echo "$pick" | wc -l)" -eq 1 ] && [ -f "$pick" ] || { echo "no single $variant jar in $dir: $pick" >&2; exit 1; }
mv "$pick" "$dir/app.jar"
rm -f "$dir"/activity-service-*.jar
