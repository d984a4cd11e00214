#!/usr/bin/env bash
# Builds a release of Sensei and installs it as a systemd service:
#   $PREFIX/bin/sensei-server, $PREFIX/bin/sensei          (PREFIX=/usr/local)
#   $SYSTEMD_DIR/sensei-server.service                      (SYSTEMD_DIR=/etc/systemd/system)
#     with ExecStart pointing at $PREFIX/bin/sensei-server
#   $SYSCONFDIR/sensei/sensei.env, from sensei.env.example  (SYSCONFDIR=/etc)
#     only if absent: your settings and token are never overwritten
#   the system user `sensei` the unit runs as (only when installing for real:
#   as root, without DESTDIR)
# Every path gets $DESTDIR in front, so it can install into a staging folder
# without root:  DESTDIR=$(mktemp -d) deploy/install.sh
#
# Running it again upgrades: binaries are replaced atomically (a running
# server keeps its old binary until restarted) and the unit is rewritten.
#
# Usage: deploy/install.sh [--no-build] [--restart]
#   --no-build   install the existing release build instead of building
#   --restart    restart sensei-server afterwards if it is running
# Environment: PREFIX, DESTDIR, SYSTEMD_DIR, SYSCONFDIR, and
#   SENSEI_BUILD_PATH  SwiftPM scratch folder (default .build)
#
# The build links the Swift runtime statically (--static-swift-stdlib), so
# the installed binaries need only Debian's libraries (libmicrohttpd12,
# libsqlite3-0, libncursesw6, libcurl4, zlib1g, libmosquitto1, libssl3, libpq5), not
# the toolchain: the service cannot read a toolchain under /home
# (ProtectHome=yes), and may outlive it.
# (Switching one scratch folder between static and plain release builds, as
# scripts/serve.sh makes, recompiles the Swift modules: about 2 minutes.)
# To build as yourself and install as root:
#   swift build -c release --static-swift-stdlib --product sensei-server
#   swift build -c release --static-swift-stdlib --product sensei
#   sudo deploy/install.sh --no-build
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
SYSTEMD_DIR=${SYSTEMD_DIR:-/etc/systemd/system}
SYSCONFDIR=${SYSCONFDIR:-/etc}
build_path=${SENSEI_BUILD_PATH:-.build}
build=yes
restart=no

for argument in "$@"; do
    case "$argument" in
        --no-build) build=no ;;
        --restart) restart=yes ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument '$argument' (try --help)" >&2; exit 2 ;;
    esac
done

products=(sensei-server sensei)
swift_build=(swift build -c release --static-swift-stdlib --scratch-path "$build_path")

if [ "$build" = yes ]; then
    # A static Foundation links libcurl (the dashboard's HTTP client): its -dev
    # package, unless one of the alternatives is there already.
    curl_dev=libcurl4-openssl-dev
    for alternative in libcurl4-openssl-dev libcurl4-gnutls-dev libcurl4-nss-dev; do
        if dpkg-query -W -f='${Status}' "$alternative" 2>/dev/null | grep -q "install ok installed"; then
            curl_dev=$alternative
        fi
    done
    scripts/install-deps.sh "$curl_dev"
    for product in "${products[@]}"; do
        echo "building $product (release)…" >&2
        "${swift_build[@]}" --product "$product"
    done
fi
bin_dir=$("${swift_build[@]}" --show-bin-path)
for product in "${products[@]}"; do
    if [ ! -x "$bin_dir/$product" ]; then
        echo "install.sh: no release build at $bin_dir/$product; run without --no-build (or set SENSEI_BUILD_PATH)" >&2
        exit 1
    fi
done
if ldd "$bin_dir/sensei-server" 2>/dev/null | grep -q 'libswiftCore'; then
    echo "install.sh: warning: $bin_dir/sensei-server loads the Swift runtime from the toolchain" \
         "($(ldd "$bin_dir/sensei-server" | awk '/libswiftCore/ {print $3}')); build with --static-swift-stdlib" >&2
fi

# install(1) into a temporary name, then rename over the old file: atomic,
# and works while the old binary is running (no ETXTBSY).
install_file() { # mode source destination
    local temporary
    temporary="$(dirname "$3")/.$(basename "$3").new.$$"
    install -m "$1" "$2" "$temporary"
    mv -f "$temporary" "$3"
}

bin_target="$DESTDIR$PREFIX/bin"
unit_target="$DESTDIR$SYSTEMD_DIR"
env_dir="$DESTDIR$SYSCONFDIR/sensei"
install -d -m 0755 "$bin_target" "$unit_target"
install -d -m 0755 "$env_dir"

for product in "${products[@]}"; do
    install_file 0755 "$bin_dir/$product" "$bin_target/$product"
done

# The unit names /usr/local/bin and /etc/sensei; point them at this install
# (the paths as the running system sees them, without DESTDIR).
unit_source="deploy/sensei-server.service"
unit_temporary=$(mktemp)
trap 'rm -f "$unit_temporary"' EXIT
sed -e "s|^ExecStart=/usr/local/bin/sensei-server |ExecStart=$PREFIX/bin/sensei-server |" \
    -e "s|^EnvironmentFile=-/etc/sensei/sensei.env\$|EnvironmentFile=-$SYSCONFDIR/sensei/sensei.env|" \
    "$unit_source" > "$unit_temporary"
grep -q "^ExecStart=$PREFIX/bin/sensei-server serve " "$unit_temporary" || {
    echo "install.sh: could not rewrite ExecStart in $unit_source" >&2; exit 1; }
install_file 0644 "$unit_temporary" "$unit_target/sensei-server.service"

env_file="$env_dir/sensei.env"
if [ -e "$env_file" ]; then
    env_note="kept $env_file"
else
    install -m 0600 deploy/sensei.env.example "$env_file"
    env_note="created $env_file from deploy/sensei.env.example"
fi

# The service user, only on the real system.
user_note=""
if [ -z "$DESTDIR" ] && [ "$(id -u)" -eq 0 ]; then
    if ! getent passwd sensei > /dev/null; then
        useradd --system --user-group --home-dir /var/lib/sensei --no-create-home \
                --shell /usr/sbin/nologin --comment "Sensei sensor hub" sensei
        user_note="created system user sensei"
    fi
else
    user_note="not creating the system user 'sensei' (DESTDIR set or not root): create it before starting the unit"
fi

systemd_running=no
[ -z "$DESTDIR" ] && [ -d /run/systemd/system ] && systemd_running=yes
if [ "$systemd_running" = yes ] && [ "$(id -u)" -eq 0 ]; then
    systemctl daemon-reload
    if [ "$restart" = yes ] && systemctl is-active --quiet sensei-server; then
        systemctl restart sensei-server
        user_note="${user_note:+$user_note; }restarted sensei-server"
    fi
fi

echo "installed:"
echo "  $bin_target/sensei-server"
echo "  $bin_target/sensei"
echo "  $unit_target/sensei-server.service (ExecStart=$PREFIX/bin/sensei-server serve --data-dir %S/sensei …)"
echo "  $env_note"
[ -n "$user_note" ] && echo "  $user_note"
cat <<EOF

next steps:
  edit $SYSCONFDIR/sensei/sensei.env (host, port, TLS, optional SENSEI_TOKEN)
  sudo systemctl daemon-reload
  sudo systemctl enable --now sensei-server      # or, after an upgrade: sudo systemctl restart sensei-server
  journalctl -u sensei-server                    # says where the admin token is on the first start
  sudo cat /var/lib/sensei/admin-token           # the generated admin token (unless SENSEI_TOKEN is set)
  sudo -u sensei $PREFIX/bin/sensei-server token create --data-dir /var/lib/sensei --name DEVICE --scope write
EOF
