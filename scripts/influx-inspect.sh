#!/usr/bin/env bash
# Prints the path of a real `influx_inspect` (InfluxDB 1.x's data tool; its `export` writes the files a house
# moves out of InfluxDB with), building it once when missing. The import tests read files it wrote.
# Debian's influxdb package ships influxd but not influx_inspect, so this builds it from Debian's own influxdb
# source package (the same 1.6.7 as influxd) with Debian's Go and Go library packages, into
# .build/influx-inspect/ (cached with the rest of .build), and keeps a copy in the user's cache
# (~/.cache/sensei/influx-inspect/) so that a fresh clone on the same machine (CI) finds it at once.
# $INFLUX_INSPECT names one already built.
# A few minutes the first time (apt installs about 150 MB); instant afterwards. Log: .build/influx-inspect/build.log
set -u
cd "$(dirname "$0")/.."
OUT=$PWD/.build/influx-inspect
if [ -n "${INFLUX_INSPECT:-}" ] && [ -x "$INFLUX_INSPECT" ]; then echo "$INFLUX_INSPECT"; exit 0; fi
if bin=$(command -v influx_inspect); then echo "$bin"; exit 0; fi
[ -x "$OUT/influx_inspect" ] && { echo "$OUT/influx_inspect"; exit 0; }
mkdir -p "$OUT"
SHARED=${XDG_CACHE_HOME:-$HOME/.cache}/sensei/influx-inspect
if [ -x "$SHARED/influx_inspect" ] && cp "$SHARED/influx_inspect" "$OUT/influx_inspect"; then
  echo "$OUT/influx_inspect"; exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
(
  flock -w 900 9 || { echo "another build holds $OUT/lock"; exit 1; }
  [ -x "$OUT/influx_inspect" ] && exit 0
  started=$(date +%s)
  export DEBIAN_FRONTEND=noninteractive
  pkgs=(golang-go golang-github-influxdb-influxdb-dev)
  if ! dpkg -s "${pkgs[@]}" >/dev/null 2>&1; then
    timeout 600 $sudo apt-get install -y --no-install-recommends "${pkgs[@]}" ||
      { timeout 300 $sudo apt-get update && timeout 600 $sudo apt-get install -y --no-install-recommends "${pkgs[@]}"; } || exit 1
  fi
  work=$(mktemp -d "${TMPDIR:-/tmp}/sensei-influx-inspect.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # A private deb-src list for the Debian mirror and release this machine already uses (system lists untouched).
  . /etc/os-release
  uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
  [ -n "$uri" ] || uri=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  [ -n "$uri" ] || { echo "no Debian mirror found in the apt sources"; exit 1; }
  mkdir -p "$work/lists/partial" "$work/src" "$work/go/src/github.com/influxdata"
  echo "deb-src $uri ${VERSION_CODENAME:-bookworm} main" >"$work/sources.list"
  opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists="$work/lists")
  timeout 300 apt-get "${opts[@]}" update || exit 1
  # (the .debian.tar may be missing on the mirror; the upstream tarball is all the build needs)
  (cd "$work/src" && timeout 300 apt-get "${opts[@]}" source --download-only influxdb) || true
  tarball=$(ls "$work"/src/influxdb_*.orig.tar.* 2>/dev/null | head -1)
  [ -n "$tarball" ] || { echo "apt-get source influxdb brought no upstream tarball"; exit 1; }
  tar xf "$tarball" -C "$work" || exit 1
  mv "$work"/influxdb-*/ "$work/go/src/github.com/influxdata/influxdb" || exit 1
  GOPATH="$work/go:/usr/share/gocode" GO111MODULE=off GOFLAGS= GOCACHE="$work/cache" GOTOOLCHAIN=local \
    timeout 900 nice go build -o "$OUT/influx_inspect.tmp" github.com/influxdata/influxdb/cmd/influx_inspect || exit 1
  mv "$OUT/influx_inspect.tmp" "$OUT/influx_inspect"
  mkdir -p "$SHARED" && cp "$OUT/influx_inspect" "$SHARED/influx_inspect" || true
  echo "built in $(( $(date +%s) - started )) s"
) 9>"$OUT/lock" >"$OUT/build.log" 2>&1
[ -x "$OUT/influx_inspect" ] && { echo "$OUT/influx_inspect"; exit 0; }
echo "influx_inspect could not be built: $(tail -3 "$OUT/build.log" | tr '\n' ' ')" >&2
exit 1
