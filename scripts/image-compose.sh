# shellcheck shell=bash
# `scripts/image.sh compose` (npm run image:compose), sourced by scripts/image.sh: runs
# deploy/docker-compose.yml's topology with podman and checks it, then kills a worker mid-job.
#
# The same images, settings and nginx.conf as the compose file, every container on the host
# network with loopback ports in place of the service names (a compose network would be a
# bridge: see docs/deploy.md). Then, through nginx: a card, a screenshot that an api node hands
# to a worker, a storage target on the S3 server, and a job of CARDSHOT_COMPOSE_ITEMS (60) cards
# and screenshots delivered to it; once worker 1 is running items it is SIGKILLed, and the job
# must still complete with every item exactly once (counts, items, zip, bucket), the dead
# worker's items run again on worker 2 after their heartbeat lapsed. Containers and volumes are
# removed on exit (images are kept).

# What a worker's lease is here: pg-boss's shortest heartbeat (10 s; the default, 60 s, would
# make the check wait a minute for the dead worker's items). Production keeps the default.
COMPOSE_LEASE_SECONDS=10
COMPOSE_SERVICES=(nginx api1 api2 worker1 worker2 postgres redis s3)
COMPOSE_VOLUMES=(api1 api2 worker1 worker2 postgres results s3)

compose_cleanup() {
  local n
  # CARDSHOT_COMPOSE_KEEP=1 leaves everything running to look at (podman ps; remove with podman rm -f).
  if [[ -n ${CARDSHOT_COMPOSE_KEEP:-} ]]; then
    log "kept: containers $P-*, volumes $P-*, files $OUT, page server pid ${PAGE_PID:-}"
    return
  fi
  for n in "${COMPOSE_SERVICES[@]}"; do podman rm -f -t 0 "$P-$n" >/dev/null 2>&1 || true; done
  for n in "${COMPOSE_VOLUMES[@]}"; do podman volume rm -f "$P-$n" >/dev/null 2>&1 || true; done
  [[ -n ${PAGE_PID:-} ]] && kill "$PAGE_PID" 2>/dev/null
  rm -rf "$PAGE_DIR" "$OUT"
}

# A psql query on the compose database, one row a line, fields separated by |.
sql() { podman exec "$P-postgres" psql -q -U cardshot -d cardshot -At -c "$1"; }

# JSON from stdin: the value at a dotted path (a.b.c), or "" when absent.
json_at() {
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{let v=JSON.parse(s);for(const k of process.argv[1].split("."))v=v?.[k];console.log(v===undefined||v===null?"":typeof v==="object"?JSON.stringify(v):v)})' "$1"
}

# curl signed with SigV4 as s3rver's one account (test/helpers/s3.ts has the same key).
s3_curl() {
  curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER \
    -H "x-amz-content-sha256: $(printf '' | sha256sum | cut -d' ' -f1)" "$@"
}

# The sum of a gauge's series on a node's /metrics (0 when absent).
metric_sum() { # metric_sum PORT NAME
  curl -sS --max-time 5 -H "Authorization: Bearer $METRICS_TOKEN" "http://127.0.0.1:$1/metrics" 2>/dev/null |
    awk -v m="$2" '$1 == m || index($1, m "{") == 1 { s += $2 } END { print s + 0 }'
}

# Cards and screenshots a node has rendered (its /metrics).
rendered_on() {
  echo $(($(metric_sum "$1" cardshot_template_render_duration_seconds_count) + $(metric_sum "$1" cardshot_screenshot_capture_duration_seconds_count)))
}

# compose_node NAME PORT ROLE MEMORY: a Cardshot node with the compose file's settings.
compose_node() {
  local extra=()
  [[ $3 == api ]] && extra=(-e CARDSHOT_TRUST_PROXY=true)
  podman run -d --name "$P-$1" --network host -v "$P-$1:/data" -v "$P-results:/data/jobs" --memory "$4" \
    -e HOST=127.0.0.1 -e PORT="$2" -e CARDSHOT_ROLE="$3" "${extra[@]}" \
    -e DATABASE_URL="postgres://cardshot:$PG_PASSWORD@127.0.0.1:$PG_PORT/cardshot" \
    -e REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0" \
    -e CARDSHOT_SECRET="$SECRET" -e CARDSHOT_PUBLIC_URL="http://127.0.0.1:$NGINX_PORT" \
    -e CARDSHOT_STORAGE_ALLOW_PRIVATE_HOSTS="127.0.0.1:$S3_PORT" \
    -e CARDSHOT_ALLOW_PRIVATE_HOSTS="127.0.0.1:$PAGE_PORT" \
    -e CARDSHOT_METRICS_TOKEN="$METRICS_TOKEN" -e CARDSHOT_JOBS_LEASE_SECONDS="$COMPOSE_LEASE_SECONDS" \
    "$IMAGE" >/dev/null 2> >(grep -v 'systemd connection' >&2)
}

compose_start() {
  local t n port deadline
  t=$(now)
  for n in "${COMPOSE_VOLUMES[@]}"; do podman volume create "$P-$n" >/dev/null; done
  podman run -d --name "$P-postgres" --network host -v "$P-postgres:/var/lib/postgresql/data" \
    -e POSTGRES_USER=cardshot -e POSTGRES_PASSWORD="$PG_PASSWORD" -e POSTGRES_DB=cardshot \
    -e PGPORT="$PG_PORT" -e POSTGRES_LISTEN=127.0.0.1 localhost/cardshot-postgres:latest >/dev/null 2>&1
  podman run -d --name "$P-redis" --network host -e REDIS_PORT="$REDIS_PORT" localhost/cardshot-redis:latest \
    --bind 127.0.0.1 --maxmemory 256mb --maxmemory-policy allkeys-lru --save "" --appendonly no >/dev/null 2>&1
  podman run -d --name "$P-s3" --network host -v "$P-s3:/data" -e S3_ADDRESS=127.0.0.1 -e S3_PORT="$S3_PORT" \
    -e S3_BUCKETS=cardshot localhost/cardshot-s3:latest >/dev/null 2>&1
  deadline=$((SECONDS + 60))
  for n in postgres redis s3; do
    until podman healthcheck run "$P-$n" >/dev/null 2>&1; do
      ((SECONDS < deadline)) || {
        podman logs "$P-$n" >&2
        die "$n not healthy within 60 s"
      }
      sleep 0.5
    done
  done
  log "PostgreSQL, Redis and the S3 server healthy after $(since "$t") s"
  compose_node api1 "$API1_PORT" api 768m
  compose_node api2 "$API2_PORT" api 768m
  compose_node worker1 "$WORKER1_PORT" worker 1536m
  compose_node worker2 "$WORKER2_PORT" worker 1536m
  for n in api1 api2 worker1 worker2; do
    port=$(port_of "$n")
    wait_ready "http://127.0.0.1:$port/readyz" 180 || {
      podman logs "$P-$n" 2>&1 | tail -30 >&2
      die "$n did not become ready within 180 s"
    }
  done
  log "two api nodes and two workers ready after $(since "$t") s"
  # deploy/nginx.conf itself, with the listen and upstream server lines pointed at loopback.
  sed -e "s/^\( *\)listen 80;/\1listen 127.0.0.1:$NGINX_PORT;/" \
    -e "s/server api1:3000/server 127.0.0.1:$API1_PORT/" -e "s/server api2:3000/server 127.0.0.1:$API2_PORT/" \
    "$ROOT/deploy/nginx.conf" >"$OUT/nginx.conf"
  grep -q "server 127.0.0.1:$API2_PORT" "$OUT/nginx.conf" || die "deploy/nginx.conf: no upstream line for api2"
  podman run -d --name "$P-nginx" --network host -v "$OUT/nginx.conf:/etc/nginx/nginx.conf:ro" \
    localhost/cardshot-nginx:latest >/dev/null 2>&1
  wait_ready "http://127.0.0.1:$NGINX_PORT/healthz" 30 || {
    podman logs "$P-nginx" >&2
    die "nginx did not answer within 30 s"
  }
  log "all ${#COMPOSE_SERVICES[@]} containers up after $(since "$t") s"
}

port_of() {
  case $1 in
  api1) echo "$API1_PORT" ;; api2) echo "$API2_PORT" ;;
  worker1) echo "$WORKER1_PORT" ;; worker2) echo "$WORKER2_PORT" ;;
  esac
}

# Synchronous requests through nginx: cards on the api nodes, a screenshot an api node hands to
# a worker, and a worker refusing the API.
compose_sync_checks() {
  local base="http://127.0.0.1:$NGINX_PORT" n served shots
  expect "card through nginx" 200 "$(http "$base/render/template?template=blog&title=First%20card" "$OUT/c1.png" -H "x-api-key: $KEY")"
  expect "card size" 1200x630 "$(png_size "$OUT/c1.png")"
  shots=$(($(metric_sum "$WORKER1_PORT" cardshot_screenshot_capture_duration_seconds_count) + $(metric_sum "$WORKER2_PORT" cardshot_screenshot_capture_duration_seconds_count)))
  expect "screenshot through nginx → api → worker" 200 "$(http "$base/render/url?url=http://127.0.0.1:$PAGE_PORT/index.html" "$OUT/s.png" -H "x-api-key: $KEY")"
  expect "screenshot size" 1200x630 "$(png_size "$OUT/s.png")"
  expect "captures on the workers (their /metrics)" $((shots + 1)) "$(($(metric_sum "$WORKER1_PORT" cardshot_screenshot_capture_duration_seconds_count) + $(metric_sum "$WORKER2_PORT" cardshot_screenshot_capture_duration_seconds_count)))"
  expect "captures on the api nodes" 0 "$(($(metric_sum "$API1_PORT" cardshot_screenshot_capture_duration_seconds_count) + $(metric_sum "$API2_PORT" cardshot_screenshot_capture_duration_seconds_count)))"
  expect "a worker refuses the API" 404 "$(http "http://127.0.0.1:$WORKER1_PORT/render/template?template=blog&title=x" /dev/null -H "x-api-key: $KEY")"
  for n in 1 2 3 4 5 6; do http "$base/render/template?template=blog&title=Card%20$n" /dev/null -H "x-api-key: $KEY" >/dev/null; done
  served=$(podman logs "$P-nginx" 2>/dev/null | grep -o "upstream=127.0.0.1:[0-9]*" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  log "     requests per api node (nginx log): $served"
  expect "api nodes that served requests" 2 "$(podman logs "$P-nginx" 2>/dev/null | grep -o "upstream=127.0.0.1:[0-9]*" | sort -u | wc -l)"
  expect "nginx sent nothing to a worker" 0 "$(podman logs "$P-nginx" 2>/dev/null | grep -c -e "upstream=127.0.0.1:$WORKER1_PORT" -e "upstream=127.0.0.1:$WORKER2_PORT" || true)"
}

# The job's body: every third item a card, the rest screenshots of distinct URLs (no cache hits).
job_body() {
  node -e '
    const [n, port] = process.argv.slice(1).map(Number);
    const items = Array.from({ length: n }, (_, i) =>
      i % 3 === 0
        ? { template: "blog", title: `Job card ${i}` }
        : { url: `http://127.0.0.1:${port}/index.html?item=${i}` });
    console.log(JSON.stringify({ items, store: "s3", metadata: { check: "image:compose" } }));' "$1" "$2"
}

# Submits the job, kills worker 1 while it runs items, waits for the end, checks every item once.
compose_job_checks() {
  local base="http://127.0.0.1:$NGINX_PORT" items=$1 job target t_submit t_kill t_done status counts deadline
  target=$(curl -sS -X POST "$base/storage" -H "x-api-key: $KEY" -H 'content-type: application/json' \
    -d "{\"endpoint\":\"http://127.0.0.1:$S3_PORT\",\"bucket\":\"cardshot\",\"accessKeyId\":\"S3RVER\",\"secretAccessKey\":\"S3RVER\",\"pathStyle\":true,\"name\":\"compose s3\"}")
  local target_id
  target_id=$(json_at id <<<"$target")
  expect "storage target on the S3 server (POST /storage)" yes "$([[ $target_id == st_* ]] && echo yes || echo "no: $target")"
  expect "storage target test (POST /storage/:id/test)" true "$(curl -sS -X POST "$base/storage/$target_id/test" -H "x-api-key: $KEY" | json_at ok)"

  job_body "$items" "$PAGE_PORT" >"$OUT/job.json"
  local before
  before=$(rendered_on "$WORKER1_PORT")
  t_submit=$(now)
  job=$(curl -sS -X POST "$base/jobs" -H "x-api-key: $KEY" -H 'content-type: application/json' --data-binary @"$OUT/job.json" | json_at id)
  expect "job of $items items with store=s3 accepted" yes "$([[ $job == job_* ]] && echo yes || echo "no: $job")"
  [[ $job == job_* ]] || return

  # Mid-job on worker 1: it has rendered a few of the job's items and its render queues hold
  # more (nothing else is asked of it now).
  deadline=$((SECONDS + 120))
  until (($(rendered_on "$WORKER1_PORT") - before >= 3 && $(metric_sum "$WORKER1_PORT" cardshot_queue_active) > 0)); do
    ((SECONDS < deadline)) || die "worker1 ran no item of the job within 120 s"
    sleep 0.1
  done
  log "     worker1 has rendered $(($(rendered_on "$WORKER1_PORT") - before)) of the job's items and is running more"
  counts=$(http_json "$base/jobs/$job" | json_at counts)
  podman kill -s KILL "$P-worker1" >/dev/null
  t_kill=$(now)
  # Read after the kill: worker 1's items stay `running` until worker 2 claims them again.
  sql "SELECT idx FROM job_items WHERE job_id = '$job' AND status = 'running' ORDER BY idx" | tr '\n' ' ' >"$OUT/running-at-kill"
  log "     SIGKILL to worker1 $(awk -v a="$t_submit" -v b="$t_kill" 'BEGIN { printf "%.1f", b - a }') s after the submission; job counts then: $counts"
  log "     items running (on either worker) at the kill: $(cat "$OUT/running-at-kill")"
  expect "worker1 is gone" exited "$(podman inspect --format '{{.State.Status}}' "$P-worker1")"
  expect "items still queued at the kill" yes "$([[ $(json_at queued <<<"$counts") -gt 0 ]] && echo yes || echo no)"

  deadline=$((SECONDS + 300))
  while :; do
    status=$(http_json "$base/jobs/$job" | json_at status)
    [[ $status == completed || $status == failed || $status == canceled ]] && break
    ((SECONDS < deadline)) || break
    sleep 0.5
  done
  t_done=$(now)
  log "     job $status $(awk -v a="$t_submit" -v b="$t_done" 'BEGIN { printf "%.1f", b - a }') s after the submission ($(awk -v a="$t_kill" -v b="$t_done" 'BEGIN { printf "%.1f", b - a }') s after the kill)"
  expect "job status" completed "$status"
  http_json "$base/jobs/$job" >"$OUT/job-final.json"
  expect "job counts" "{\"queued\":0,\"running\":0,\"succeeded\":$items,\"failed\":0,\"canceled\":0}" "$(json_at counts <"$OUT/job-final.json")"

  # Items: each index once, each succeeded (the items API pages by 100).
  local cursor="" page indexes=""
  while :; do
    page=$(http_json "$base/jobs/$job/items?limit=100${cursor:+&cursor=$cursor}")
    indexes+=$(node -e 'const p=JSON.parse(process.argv[1]);for(const i of p.items)console.log(i.index+" "+i.status)' "$page")$'\n'
    cursor=$(json_at nextCursor <<<"$page")
    [[ -n $cursor ]] || break
  done
  expect "items listed (GET /jobs/:id/items)" "$items" "$(grep -c succeeded <<<"$indexes")"
  expect "item indexes, each once" "$(seq 0 $((items - 1)) | tr '\n' ' ')" "$(awk 'NF { print $1 }' <<<"$indexes" | sort -n | tr '\n' ' ')"

  # The zip an api node streams from the shared results volume the workers wrote.
  expect "results.zip" 200 "$(http "$base/jobs/$job/results.zip" "$OUT/results.zip" -H "x-api-key: $KEY")"
  expect "zip entries, each index once" "$(seq 0 $((items - 1)) | tr '\n' ' ')" \
    "$(python3 -c 'import sys, zipfile; print(" ".join(str(int(n.split(".")[0])) for n in sorted(zipfile.ZipFile(sys.argv[1]).namelist(), key=lambda n: int(n.split(".")[0]))))' "$OUT/results.zip") "

  # The bucket, listed with the S3 API: one object per item, under the default key {job}/{index}-{name}.{ext}.
  s3_curl "http://127.0.0.1:$S3_PORT/cardshot?list-type=2&max-keys=1000&prefix=$job/" >"$OUT/list.xml"
  grep -o '<Key>[^<]*</Key>' "$OUT/list.xml" | sed -e 's/<[^>]*>//g' >"$OUT/keys"
  expect "objects in the bucket" "$items" "$(wc -l <"$OUT/keys")"
  expect "objects' indexes, each once" "$(seq 0 $((items - 1)) | tr '\n' ' ')" "$(sed -e "s|^$job/||" -e 's/-.*//' "$OUT/keys" | sort -n | tr '\n' ' ')"
  local puts twice
  puts=$(podman logs "$P-s3" 2>/dev/null | grep -c "Stored object \"$job/" || true)
  twice=$(podman logs "$P-s3" 2>/dev/null | grep -o "Stored object \"$job/[^\"]*\"" | sort | uniq -d | wc -l)
  log "     uploads received by the S3 server: $puts for $items objects ($twice keys uploaded twice: a run cut short after its upload, done again)"

  # Items that ran twice: those the dead worker held, claimed again by worker 2 once their
  # heartbeat lapsed (the lease). No other node is left to take them.
  local reruns running_then
  running_then=$(cat "$OUT/running-at-kill")
  reruns=$(sql "SELECT idx, attempts, status, started_at FROM job_items WHERE job_id = '$job' AND attempts > 1 ORDER BY idx")
  expect "items run again after the kill" yes "$([[ -n $reruns ]] && echo yes || echo none)"
  local idx attempts st started late first="" bad=0
  while IFS='|' read -r idx attempts st started; do
    [[ -n $idx ]] || continue
    [[ " $running_then " == *" $idx "* && $st == succeeded ]] || bad=$((bad + 1))
    late=$(awk -v s="$started" -v k="$t_kill" 'BEGIN { printf "%.1f", s / 1000 - k }')
    [[ -z $first ]] || awk -v a="$late" -v b="$first" 'BEGIN { exit !(a < b) }' && first=$late
    log "     item $idx: attempts $attempts, $st, run again $late s after the kill"
  done <<<"$reruns"
  expect "re-run items were running at the kill and succeeded" 0 "$bad"
  # pg-boss hands a task back once its heartbeat is older than the lease; worker 2's supervise
  # pass (every 5 s) is what notices. The dead worker renewed each heartbeat every half lease
  # (pg-boss's default refresh), so its last one was up to half a lease before the kill: the
  # earliest honest re-run is half a lease after it (a run saw 8.9 s against a 10 s lease).
  expect "no re-run before the lease (${COMPOSE_LEASE_SECONDS} s) lapsed" yes "$(awk -v l="${first:-0}" -v s="$COMPOSE_LEASE_SECONDS" 'BEGIN { print (l >= s / 2 - 0.5 ? "yes" : "no: " l " s") }')"
  log "     worker2 rendered $(rendered_on "$WORKER2_PORT") images in all (the synchronous ones included)"
  check_sandbox "$P-worker2"
}

# GET with the key; the body on stdout.
http_json() { curl -sS --max-time 30 -H "x-api-key: $KEY" "$1"; }

compose() {
  ensure_tools
  build_mounts
  base_debian
  base_node
  base_services
  have "$IMAGE" || build
  local items=${CARDSHOT_COMPOSE_ITEMS:-60} t n rc acc
  P="cardshot-compose-$$"
  FAILS=0
  OUT=$(mktemp -d /tmp/cardshot-compose.XXXXXX)
  trap compose_cleanup EXIT
  start_page_server
  # Eight distinct free ports, held open together while the kernel picks them.
  read -r PG_PORT REDIS_PORT S3_PORT NGINX_PORT API1_PORT API2_PORT WORKER1_PORT WORKER2_PORT < <(node -e '
    const net = require("net");
    Promise.all(Array.from({ length: 8 }, () => new Promise((ok) => { const s = net.createServer().listen(0, "127.0.0.1", () => ok(s)); })))
      .then((all) => { console.log(all.map((s) => s.address().port).join(" ")); all.forEach((s) => s.close()); });')
  PG_PASSWORD=$(node -e 'console.log(require("crypto").randomBytes(12).toString("hex"))')
  SECRET=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')
  METRICS_TOKEN=$(node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))')
  compose_start

  acc=$(podman exec "$P-api1" node dist/src/cli/index.js accounts create --json --name Acme \
    --email ops@acme.test --plan pro | json_field id)
  KEY=$(podman exec "$P-api2" node dist/src/cli/index.js keys create --json --account "$acc" \
    --name compose --environment production | json_field key)
  expect "key made with the CLI on api2, for an account made on api1" yes "$([[ $KEY == *_* ]] && echo yes || echo no)"
  compose_sync_checks
  compose_job_checks "$items"

  for n in nginx api1 api2 worker2 s3 redis postgres; do
    t=$(now)
    rc=0
    podman stop -t 10 "$P-$n" >/dev/null 2>&1 || rc=$?
    expect "podman stop $n ($(since "$t") s)" 0 "$rc"
    [[ $n == nginx ]] || expect "$n exit code" 0 "$(podman inspect --format '{{.State.ExitCode}}' "$P-$n")"
  done
  ((FAILS == 0)) || die "$FAILS check(s) failed"
  log "all checks passed"
}
