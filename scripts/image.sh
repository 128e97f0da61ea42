#!/usr/bin/env bash
# Builds and checks the container image with podman, without any container registry: the base
# images are made once from Debian's packages (debootstrap) and the npm registry (Node.js), then
# cached in podman's local storage. See docs/deploy.md, "In a container".
#
#   bash scripts/image.sh build     (npm run image)        podman tools, base images, then deploy/Dockerfile
#   bash scripts/image.sh test      (npm run image:test)   run the image and check it (see test_image)
#   bash scripts/image.sh compose   (npm run image:compose) deploy/docker-compose.yml's topology, checked
#                                                           (scripts/image-compose.sh: a worker killed mid-job)
#   bash scripts/image.sh bases                             only the base images (debian, node, nginx, postgres, redis, s3)
#
# Every container runs with --network host and every build with --network host: podman's bridge
# networks would make netavark add iptables chains and turn on IP forwarding on the host.
# Environment: CARDSHOT_IMAGE (localhost/cardshot:latest), CARDSHOT_IMAGE_CACHE
# (/var/tmp/cardshot-image: containers.conf, npm's CA file, the Node.js tarballs), and for the
# test CARDSHOT_IMAGE_TEST_OUT (a folder to keep its card and screenshot in).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
IMAGE="${CARDSHOT_IMAGE:-localhost/cardshot:latest}"
CACHE="${CARDSHOT_IMAGE_CACHE:-/var/tmp/cardshot-image}"
# The image runs the Node that `npm start` pins where a machine's own is too old (.node-version).
NODE_VERSION="${CARDSHOT_IMAGE_NODE_VERSION:-$(tr -d '[:space:]' <"$ROOT/.node-version")}"
NODE_MAJOR="${NODE_VERSION%%.*}"
# The npm that Node.js 24.21.0 ships (its changelog: 24.20.0 upgraded npm to 11.19.0). The
# node-linux-* package carries the binary and headers only, not npm.
NPM_VERSION="${CARDSHOT_IMAGE_NPM_VERSION:-11.19.0}"
SUITE=bookworm
PAGE_DIR="" PAGE_PID="" OUT="" FAILS=0

log() { printf '[image] %s\n' "$*" >&2; }
die() {
  printf '[image] FAILED: %s\n' "$*" >&2
  exit 1
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- tools and podman's configuration -------------------------------------------------------

ensure_tools() {
  local missing=()
  for t in podman buildah debootstrap runc; do command -v "$t" >/dev/null || missing+=("$t"); done
  if ((${#missing[@]})); then
    [[ $(id -u) == 0 ]] || die "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
    log "installing ${missing[*]} from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  mkdir -p "$CACHE"
  # A configuration of our own rather than /etc/containers/containers.conf, so the host's podman
  # set-up is left alone. runc: crun refuses cgroup v1/v2 hybrid hosts. The ulimits: podman asks
  # for nofile=1048576 by default, and root without CAP_SYS_RESOURCE cannot raise its limits.
  if [[ -z ${CONTAINERS_CONF:-} ]]; then
    local nofile nproc
    nofile=$(ulimit -Hn)
    [[ $nofile == unlimited || $nofile -gt 1048576 ]] && nofile=1048576
    nproc=$(ulimit -Hu)
    [[ $nproc == unlimited || $nproc -gt 32768 ]] && nproc=32768
    cat >"$CACHE/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
    export CONTAINERS_CONF="$CACHE/containers.conf"
  fi
}

# Mounted into RUN steps only (nothing lands in a layer): the host's apt sources, and npm's
# global config pointing at the host's CA bundle (the npm registry may sit behind a TLS proxy
# whose CA only the host knows). Directories, not files: a file mount leaves an empty placeholder.
build_mounts() {
  [[ -n $(ls /etc/apt/sources.list.d/ 2>/dev/null) ]] ||
    die "/etc/apt/sources.list.d is empty: the builds take their apt sources from there"
  mkdir -p "$CACHE/npm-etc"
  cp /etc/ssl/certs/ca-certificates.crt "$CACHE/npm-etc/ca.crt"
  echo 'cafile=/usr/local/etc/ca.crt' >"$CACHE/npm-etc/npmrc"
  BUILD_ARGS=(--pull=never --format docker --network host
    -v /etc/apt/sources.list.d:/etc/apt/sources.list.d:ro
    -v "$CACHE/npm-etc:/usr/local/etc:ro")
}

have() { podman image exists "$1"; }

# --- base images ------------------------------------------------------------------------------

base_debian() {
  have localhost/debian:$SUITE && return
  local t b mirror
  t=$(now)
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  b=$(mktemp -d /var/tmp/cardshot-debootstrap.XXXXXX)
  log "making localhost/debian:$SUITE with debootstrap from $mirror"
  debootstrap --variant=minbase "$SUITE" "$b/rootfs" "$mirror" >"$b/debootstrap.log" 2>&1 ||
    {
      tail -20 "$b/debootstrap.log" >&2
      die "debootstrap failed"
    }
  # No apt sources in the image (builds mount the host's), no package cache.
  rm -f "$b/rootfs/etc/apt/sources.list"
  rm -rf "$b"/rootfs/var/cache/apt/archives/*.deb "$b"/rootfs/var/lib/apt/lists/*
  tar -C "$b/rootfs" -c . | podman import -q --change 'CMD ["bash"]' - localhost/debian:$SUITE >/dev/null
  rm -rf "$b"
  # deploy/nginx.Dockerfile and the service images below start FROM debian:bookworm-slim.
  podman tag localhost/debian:$SUITE localhost/debian:$SUITE-slim
  log "localhost/debian:$SUITE made in $(since "$t") s"
}

base_node() {
  # deploy/Dockerfile names the base by its major version; a .node-version of another major
  # would build an image the Dockerfile never uses.
  grep -q "^FROM node:$NODE_MAJOR-$SUITE-slim" "$ROOT/deploy/Dockerfile" ||
    die "deploy/Dockerfile does not start FROM node:$NODE_MAJOR-$SUITE-slim (Node $NODE_VERSION, from .node-version)"
  have localhost/node:$NODE_MAJOR-$SUITE-slim && return
  local t arch ctx
  t=$(now)
  case $(uname -m) in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) die "no Node.js package for $(uname -m)" ;; esac
  ctx="$CACHE/node-ctx"
  rm -rf "$ctx" && mkdir -p "$ctx/pack"
  log "making localhost/node:$NODE_MAJOR-$SUITE-slim from the npm packages node-linux-$arch@$NODE_VERSION and npm@$NPM_VERSION"
  (cd "$ctx/pack" && npm pack --silent "node-linux-$arch@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$ctx/n" "$ctx/npm"
  tar -xzf "$ctx/pack/node-linux-$arch-$NODE_VERSION.tgz" -C "$ctx/n"
  tar -xzf "$ctx/pack/npm-$NPM_VERSION.tgz" -C "$ctx/npm" --strip-components=1
  cp "$ctx/n/package/bin/node" "$ctx/node"
  mv "$ctx/n/package/include" "$ctx/include"
  rm -rf "$ctx/n" "$ctx/pack"
  cat >"$ctx/Containerfile" <<EOF
FROM localhost/debian:$SUITE
COPY node /usr/local/bin/node
COPY include/node /usr/local/include/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && node --version && npm --version
# node-gyp compiles native modules (better-sqlite3) against these headers instead of
# downloading them.
ENV NODE_VERSION=$NODE_VERSION \\
    npm_config_nodedir=/usr/local
CMD ["node"]
EOF
  podman build -q "${BUILD_ARGS[@]}" -t localhost/node:$NODE_MAJOR-$SUITE-slim -f "$ctx/Containerfile" "$ctx" >/dev/null
  rm -rf "$ctx"
  log "localhost/node:$NODE_MAJOR-$SUITE-slim made in $(since "$t") s"
}

# The images deploy/docker-compose.yml names (postgres:16-bookworm, redis:7-bookworm) come from a
# registry; here they are made from Debian's packages (deploy/postgres.Dockerfile, redis.Dockerfile).
# The S3 server (deploy/s3.Dockerfile) is s3rver from the npm registry on the node base image.
base_services() {
  local t n
  for n in nginx postgres redis s3; do
    have localhost/cardshot-$n:latest && continue
    t=$(now)
    podman build -q "${BUILD_ARGS[@]}" -t localhost/cardshot-$n:latest -f "$ROOT/deploy/$n.Dockerfile" "$ROOT/deploy" >/dev/null
    log "localhost/cardshot-$n:latest made in $(since "$t") s"
  done
}

build() {
  ensure_tools
  build_mounts
  base_debian
  base_node
  local t
  t=$(now)
  log "building $IMAGE from deploy/Dockerfile"
  (cd "$ROOT" && podman build "${BUILD_ARGS[@]}" -f deploy/Dockerfile -t "$IMAGE" .)
  log "built $IMAGE in $(since "$t") s; size $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%.2f GB", $1 / 1e9 }')"
}

# --- checks -------------------------------------------------------------------------------------

# A free loopback port (asked of the kernel).
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# status CODE of a GET; the body goes to $2 (default /dev/null); extra curl args after.
http() {
  local url=$1 out=${2:-/dev/null}
  shift 2 || shift $#
  curl -sS -o "$out" -w '%{http_code}' --max-time 60 "$@" "$url"
}

expect() { # expect WHAT WANT GOT
  if [[ $2 == "$3" ]]; then log "ok   $1: $3"; else
    FAILS=$((FAILS + 1))
    log "FAIL $1: expected $2, got $3"
  fi
}

# PNG width x height from the IHDR chunk.
png_size() { node -e 'const b=require("fs").readFileSync(process.argv[1]);console.log(b.subarray(1,4).toString()==="PNG"?b.readUInt32BE(16)+"x"+b.readUInt32BE(20):"not-a-png")' "$1"; }

json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]??""))' "$1"; }

wait_ready() { # wait_ready URL SECONDS
  local deadline=$((SECONDS + $2))
  until [[ $(http "$1" /dev/null 2>/dev/null || true) == 200 ]]; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# A page for screenshots, served on the host's loopback.
start_page_server() {
  PAGE_DIR=$(mktemp -d /tmp/cardshot-page.XXXXXX)
  cat >"$PAGE_DIR/index.html" <<'EOF'
<!doctype html><html><head><meta charset="utf-8"><title>Cardshot image check</title></head>
<body style="margin:0;background:#0b5;font:48px sans-serif;color:#fff">
<h1 style="margin:40px">Cardshot image check 日本語 ✓</h1></body></html>
EOF
  PAGE_PORT=$(free_port)
  (cd "$PAGE_DIR" && exec python3 -m http.server "$PAGE_PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
  PAGE_PID=$!
  wait_ready "http://127.0.0.1:$PAGE_PORT/index.html" 20 || die "page server did not start"
}

# Chromium processes of a container: none with --no-sandbox, none as root.
check_sandbox() { # check_sandbox CONTAINER
  local procs
  procs=$(podman exec "$1" sh -c 'for p in /proc/[0-9]*; do c=$(tr "\0" " " <$p/cmdline 2>/dev/null) || continue; case "$c" in *chrom*) echo "$(awk "/^Uid:/{print \$2}" $p/status) $c";; esac; done' | tr -d '\0')
  expect "$1: Chromium processes" yes "$([[ -n $procs ]] && echo yes || echo none)"
  expect "$1: Chromium processes with --no-sandbox" 0 "$(grep -c -- '--no-sandbox' <<<"$procs" || true)"
  expect "$1: Chromium processes owned by root" 0 "$(awk '$1 == 0' <<<"$procs" | wc -l)"
  log "     $1: $(wc -l <<<"$procs") Chromium processes, uids $(awk '{print $1}' <<<"$procs" | sort -u | tr '\n' ' ')"
}

# The image alone: one node on SQLite in a fresh volume, started, used, stopped.
test_image() {
  ensure_tools
  have "$IMAGE" || die "no image $IMAGE: run npm run image first"
  local name=cardshot-imagetest-$$ vol=cardshot-imagetest-$$ port key t out
  FAILS=0
  OUT=$(mktemp -d /tmp/cardshot-imagetest.XXXXXX)
  trap 'podman rm -f -t 0 '"$name"' >/dev/null 2>&1 || true; podman volume rm -f '"$vol"' >/dev/null 2>&1 || true; [[ -n ${PAGE_PID:-} ]] && kill $PAGE_PID 2>/dev/null; rm -rf "$PAGE_DIR" "$OUT"' EXIT
  start_page_server
  port=$(free_port)
  podman volume create "$vol" >/dev/null
  t=$(now)
  podman run -d --name "$name" --network host -v "$vol:/data" \
    -e HOST=127.0.0.1 -e PORT="$port" \
    -e CARDSHOT_ALLOW_PRIVATE_HOSTS="127.0.0.1:$PAGE_PORT" \
    -e CARDSHOT_FIRST_RUN_KEY=true \
    "$IMAGE" >/dev/null 2> >(grep -v 'systemd connection' >&2)
  wait_ready "http://127.0.0.1:$port/readyz" 120 || {
    podman logs "$name" | tail -30 >&2
    die "the container did not become ready within 120 s"
  }
  log "ready (/readyz 200) $(since "$t") s after podman run"
  expect "GET /healthz" 200 "$(http "http://127.0.0.1:$port/healthz")"
  expect "GET /readyz" 200 "$(http "http://127.0.0.1:$port/readyz" "$OUT/readyz.json")"
  expect "service user in the container" 10001 "$(podman exec "$name" id -u)"
  expect "Node.js in the container (.node-version)" "v$NODE_VERSION" "$(podman exec "$name" node --version)"

  key=$(podman exec "$name" cat /data/first-run.txt | awk '/API key:/ { print $3 }')
  expect "first-run key in /data/first-run.txt" yes "$([[ $key == *_* ]] && echo yes || echo no)"
  expect "card GET /render/template" 200 "$(http "http://127.0.0.1:$port/render/template?template=blog&title=Built%20and%20run%20with%20podman" "$OUT/card.png" -H "x-api-key: $key")"
  expect "card size" 1200x630 "$(png_size "$OUT/card.png")"
  expect "screenshot GET /render/url of a host page" 200 "$(http "http://127.0.0.1:$port/render/url?url=http://127.0.0.1:$PAGE_PORT/index.html" "$OUT/shot.png" -H "x-api-key: $key")"
  expect "screenshot size" 1200x630 "$(png_size "$OUT/shot.png")"
  check_sandbox "$name"
  # The browser starts with the first screenshot; /readyz then names its sandbox. Its checks are
  # kept for a second, so an answer from before the browser was up can come back at first.
  for _ in 1 2 3 4 5 6; do
    http "http://127.0.0.1:$port/readyz" "$OUT/readyz.json" >/dev/null
    grep -q 'not started yet' "$OUT/readyz.json" || break
    sleep 0.5
  done
  expect "/readyz says Chromium is sandboxed" yes "$(grep -q '(pid [0-9]*, sandboxed[,)]' "$OUT/readyz.json" && echo yes || echo no)"
  grep -o '"browser":{[^}]*}' "$OUT/readyz.json" | sed 's/^/[image]      /' >&2 || true

  # The CLI inside the container: a second account and key, which then renders.
  local acc key2
  acc=$(podman exec "$name" node dist/src/cli/index.js accounts create --json --name Imagetest \
    --email imagetest@example.test --plan pro | json_field id)
  key2=$(podman exec "$name" node dist/src/cli/index.js keys create --json --account "$acc" \
    --name imagetest --environment production | json_field key)
  expect "key made with the CLI renders" 200 "$(http "http://127.0.0.1:$port/render/template?template=blog&title=CLI" /dev/null -H "x-api-key: $key2")"

  expect "podman healthcheck run" healthy "$(podman healthcheck run "$name" 2>/dev/null && echo healthy || echo unhealthy)"

  t=$(now)
  local rc=0
  podman stop -t 10 "$name" >/dev/null 2> >(grep -v 'systemd connection' >&2) || rc=$?
  log "podman stop took $(since "$t") s"
  expect "podman stop" 0 "$rc"
  expect "container exit code" 0 "$(podman inspect --format '{{.State.ExitCode}}' "$name")"
  expect "log ends with bye" yes "$(podman logs "$name" 2>&1 | tail -3 | grep -q bye && echo yes || echo no)"
  # CARDSHOT_IMAGE_TEST_OUT=dir keeps the card and the screenshot, to look at.
  [[ -z ${CARDSHOT_IMAGE_TEST_OUT:-} ]] || { mkdir -p "$CARDSHOT_IMAGE_TEST_OUT" && cp "$OUT"/*.png "$CARDSHOT_IMAGE_TEST_OUT/"; }
  if ((FAILS)); then
    podman logs "$name" 2>&1 | tail -20 >&2
    die "$FAILS check(s) failed"
  fi
  log "all checks passed"
}

# deploy/docker-compose.yml's topology, checked with a worker killed mid-job: compose() there.
# shellcheck source=scripts/image-compose.sh
source "$ROOT/scripts/image-compose.sh"

case ${1:-build} in
build) build ;;
test) test_image ;;
bases)
  ensure_tools
  build_mounts
  base_debian
  base_node
  base_services
  ;;
compose) compose ;;
*) die "usage: scripts/image.sh build|test|compose|bases" ;;
esac
