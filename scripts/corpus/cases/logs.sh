# logs.sh: logs (kind text) of real servers on loopback under real traffic,
# Go programs doing real work, and this machine's own package logs. Every
# server listens on 127.0.0.1 only and is stopped before the script goes on.
# Sourced by make.sh.

logwork=$work/logs
www=$logwork/www

# site: a small site to serve, made of real files; some paths asked for are
# missing on purpose.
site() {
	[ -d "$www" ] && return
	mkdir -p "$www/static" "$www/img" "$www/docs"
	cp /usr/share/common-licenses/GPL-3 "$www/docs/gpl-3.txt"
	cp /usr/share/common-licenses/Apache-2.0 "$www/docs/apache-2.0.txt"
	printf '<!doctype html><title>shop</title><h1>shop</h1>\n' >"$www/index.html"
	head -c 30000 "$(go env GOROOT)/src/net/http/server.go" >"$www/static/app.js"
	for i in $(seq 0 39); do head -c $((900 + i * 53)) /usr/share/common-licenses/LGPL-2.1 >"$www/img/p$i.jpg"; done
	mkdir -p "$www/api/orders"
	for i in $(seq 1 300); do printf '{"id": %d, "total": %d}\n' "$i" "$((i * 137 % 9000))" >"$www/api/orders/$i"; done
}

# traffic.py PORT N SEED: N real HTTP requests over keep-alive connections:
# pages, images (p40-p47 are missing), API calls (orders above 300 are
# missing), a few probes for paths that never exist and a few bodies that
# are too large.
write_traffic() {
	cat >"$logwork/traffic.py" <<'PY'
import http.client, random, sys, time
port, n, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
ua = {"User-Agent": "shop-loadgen/2.1 (python http.client)"}
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
for i in range(n):
    r = rnd.random()
    method, body, path = "GET", None, rnd.choice(["/", "/index.html", "/static/app.js", "/docs/gpl-3.txt", "/docs/apache-2.0.txt"])
    if r < 0.45:
        path = "/img/p%d.jpg" % rnd.randrange(48)
    elif r < 0.75:
        path = "/api/orders/%d" % rnd.randrange(1, 320)
    elif r < 0.76:
        path = rnd.choice(["/wp-login.php", "/.env", "/admin/config.php", "/favicon.ico"])
    elif r < 0.7605:
        method, body, path = "POST", b"x" * 4096, "/upload"
    try:
        conn.request(method, path, body=body, headers=ua)
        resp = conn.getresponse()
        resp.read()
        if resp.getheader("Connection", "").lower() == "close":
            conn.close()
    except (http.client.HTTPException, OSError):
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
PY
}

# ------------------------- nginx in front of a python backend that goes down
if selected text-nginx-access || selected text-nginx-error || selected text-python-http-server; then
	site
	write_traffic
	ng=$logwork/nginx
	rm -rf "$ng"
	mkdir -p "$ng"
	cat >"$ng/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $ng/nginx.pid;
error_log $ng/error.log info;
events { worker_connections 64; }
http {
    access_log $ng/access.log combined;
    client_body_temp_path $ng/body;
    proxy_temp_path $ng/proxy;
    fastcgi_temp_path $ng/fastcgi;
    uwsgi_temp_path $ng/uwsgi;
    scgi_temp_path $ng/scgi;
    keepalive_requests 500;
    client_max_body_size 1k;
    server {
        listen 127.0.0.1:18380;
        root $www;
        location /api/ { proxy_pass http://127.0.0.1:18381; }
        location /upload { return 204; }
    }
}
CONF
	backend() {
		$py -u -m http.server 18381 --bind 127.0.0.1 --directory "$www" >/dev/null 2>>"$logwork/backend.log" &
		backend_pid=$!
		pids+=("$backend_pid")
		wait_port 18381
	}
	rm -f "$logwork/backend.log"
	backend
	nginx -c "$ng/nginx.conf" -p "$ng" -e "$ng/error.log" &
	nginx_pid=$!
	pids+=("$nginx_pid")
	wait_port 18380
	$py "$logwork/traffic.py" 18380 30000 1
	# A client speaking something that is not HTTP, straight to the backend.
	printf 'BREW /pot HTCPCP/1.0\r\n\r\n' | curl -s --max-time 2 telnet://127.0.0.1:18381 >/dev/null 2>&1
	# The backend goes down for a while: /api/ answers 502.
	kill "$backend_pid"
	wait "$backend_pid" 2>/dev/null
	$py "$logwork/traffic.py" 18380 2500 2
	backend
	$py "$logwork/traffic.py" 18380 27500 3
	kill "$backend_pid" "$nginx_pid"
	wait "$backend_pid" "$nginx_pid" 2>/dev/null

	if selected text-nginx-access; then
		needle_re '127\.0\.0\.1 - - \[[^]]+\] "GET /api/orders/\d+ HTTP/1\.1" 502 \d+ "-" "shop-loadgen/2\.1 \(python http\.client\)"' 'the first 502: when the outage began'
		needle_last_re '127\.0\.0\.1 - - \[[^]]+\] "GET /api/orders/\d+ HTTP/1\.1" 502 \d+ "-" "shop-loadgen/2\.1 \(python http\.client\)"' 'the last 502: when it ended'
		needle_re '127\.0\.0\.1 - - \[[^]]+\] "POST /upload HTTP/1\.1" 413 \d+ .*' 'a request refused for its size'
		save_case text-nginx-access text read_file "$(jq -n '{path: "/var/log/nginx/access.log", intent: "when did the API return 502s"}')" <"$ng/access.log"
	fi
	if selected text-nginx-error; then
		needle_re '\d{4}/\d\d/\d\d \d\d:\d\d:\d\d \[error\] \d+#\d+: \*\d+ connect\(\) failed \(111: Connection refused\) while connecting to upstream, client: 127\.0\.0\.1, server: , request: "GET /api/orders/\d+ HTTP/1\.1", upstream: "http://127\.0\.0\.1:18381/api/orders/\d+", host: "127\.0\.0\.1:18380"' 'the first upstream failure, with its time: the backend refused connections'
		needle_re '\d{4}/\d\d/\d\d \d\d:\d\d:\d\d \[error\] \d+#\d+: \*\d+ client intended to send too large body: 4096 bytes.*' 'a body over client_max_body_size'
		needle_last_re '\d{4}/\d\d/\d\d \d\d:\d\d:\d\d \[error\] \d+#\d+: \*\d+ connect\(\) failed \(111: Connection refused\) while connecting to upstream, .*' 'the last upstream failure: when the backend came back'
		save_case text-nginx-error text read_file "$(jq -n '{path: "/var/log/nginx/error.log", intent: "why did API requests fail"}')" <"$ng/error.log"
	fi
	if selected text-python-http-server; then
		needle_re '127\.0\.0\.1 - - \[[^]]+\] code 400, message Bad request version \(.HTCPCP/1\.0.\)' 'the request the server could not handle, with its time'
		needle '"BREW /pot HTCPCP/1.0" 400 -' 'what the client sent'
		save_case text-python-http-server text bash "$(bash_args 'cat backend.log' 'Show the backend log, to find requests it could not handle')" <"$logwork/backend.log"
	fi
fi

# --------------------------------------------- redis under load, verbose
if selected text-redis; then
	rd=$logwork/redis
	rm -rf "$rd"
	mkdir -p "$rd"
	redis-server --port 18382 --bind 127.0.0.1 --loglevel verbose --logfile "$rd/redis.log" \
		--dir "$rd" --save "" --appendonly no --daemonize no &
	redis_pid=$!
	pids+=("$redis_pid")
	wait_port 18382
	redis-benchmark -p 18382 -n 20000 -c 20 -t set,get,lpush,incr -q >/dev/null 2>&1
	redis-cli -p 18382 BGSAVE >/dev/null
	sleep 1
	# A replica of a primary that is not there: the server logs each attempt.
	redis-cli -p 18382 REPLICAOF 127.0.0.1 18399 >/dev/null
	sleep 5
	redis-cli -p 18382 REPLICAOF NO ONE >/dev/null
	redis-benchmark -p 18382 -n 20000 -c 30 -t ping -q >/dev/null 2>&1
	redis-cli -p 18382 SHUTDOWN NOSAVE >/dev/null 2>&1
	wait "$redis_pid" 2>/dev/null
	needle_re '\d+:S \d\d \w+ \d{4} \d\d:\d\d:\d\d\.\d+ # Error condition on socket for SYNC: Connection refused' 'the replication failure, with its time'
	needle_re '\d+:S \d\d \w+ \d{4} \d\d:\d\d:\d\d\.\d+ \* Connecting to MASTER 127\.0\.0\.1:18399' 'the primary it tried to reach'
	needle_re '\d+:M \d\d \w+ \d{4} \d\d:\d\d:\d\d\.\d+ \* Background saving terminated with success' 'the BGSAVE went through'
	save_case text-redis text read_file "$(jq -n '{path: "/var/log/redis/redis-server.log", intent: "why did replication fail"}')" <"$rd/redis.log"
fi

# ------------------------------------- a Go crawler logging JSON with slog
if selected text-go-slog-json; then
	site
	gd=$work/slog-crawler
	rm -rf "$gd"
	mkdir -p "$gd"
	cat >"$gd/main.go" <<'EOF'
// Command crawler fetches a list of URLs and logs each fetch as JSON.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug}))
	client := &http.Client{Timeout: 2 * time.Second}
	sc := bufio.NewScanner(os.Stdin)
	ok, missing, failed := 0, 0, 0
	for sc.Scan() {
		url := sc.Text()
		start := time.Now()
		resp, err := client.Get(url)
		if err != nil {
			failed++
			log.Error("fetch failed", "url", url, "err", err)
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			failed++
			log.Error("read failed", "url", url, "err", err)
		case resp.StatusCode == http.StatusNotFound:
			missing++
			log.Warn("not found", "url", url, "status", resp.StatusCode)
		default:
			ok++
			log.Info("fetched", "url", url, "status", resp.StatusCode, "bytes", n, "sha256", hex.EncodeToString(h.Sum(nil))[:16], "ms", time.Since(start).Milliseconds())
		}
		log.Debug("progress", "ok", ok, "missing", missing, "failed", failed)
	}
	log.Info("crawl finished", "ok", ok, "missing", missing, "failed", failed)
}
EOF
	(cd "$gd" && go mod init example.com/crawler >/dev/null 2>&1 && go build -o crawler .)
	$py -u -m http.server 18383 --bind 127.0.0.1 --directory "$www" >/dev/null 2>&1 &
	crawl_pid=$!
	pids+=("$crawl_pid")
	wait_port 18383
	{
		for i in $(seq 1 3000); do echo "http://127.0.0.1:18383/api/orders/$(((i * 7919) % 330 + 1))"; done
		for i in $(seq 1 5); do echo "http://127.0.0.1:18384/api/orders/$i"; done # nothing listens there
		for i in $(seq 3001 4000); do echo "http://127.0.0.1:18383/img/p$((i % 45)).jpg"; done
	} | "$gd/crawler" >"$gd/crawl.log" 2>&1
	kill "$crawl_pid"
	wait "$crawl_pid" 2>/dev/null
	needle_re '\{"time":"[^"]+","level":"ERROR","msg":"fetch failed","url":"http://127\.0\.0\.1:18384/api/orders/1","err":"Get \\"http://127\.0\.0\.1:18384/api/orders/1\\": dial tcp 127\.0\.0\.1:18384: connect: connection refused"\}' 'the first fetch error, whole, with its time'
	needle_re '\{"time":"[^"]+","level":"WARN","msg":"not found","url":"http://127\.0\.0\.1:18383/api/orders/\d+","status":404\}' 'the first missing page'
	needle_re '\{"time":"[^"]+","level":"INFO","msg":"crawl finished","ok":\d+,"missing":\d+,"failed":5\}' 'the summary at the end'
	save_case text-go-slog-json text bash "$(bash_args './crawler < urls.txt' 'Crawl the order pages')" <"$gd/crawl.log"
fi

# ------------------------------- a Go HTTP server that panics in a handler
if selected text-go-http-panic; then
	gd=$work/panic-server
	rm -rf "$gd"
	mkdir -p "$gd"
	cat >"$gd/main.go" <<'EOF'
// Command shopd serves prices and logs every request.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

var tiers = []int{100, 250, 500}

func price(w http.ResponseWriter, r *http.Request) {
	tier, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/price/"))
	if err != nil {
		http.Error(w, "bad tier", http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "%d\n", tiers[tier])
}

func logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.ServeHTTP(w, r)
		log.Printf("%s %s %s %s", r.RemoteAddr[:strings.LastIndex(r.RemoteAddr, ":")], r.Method, r.URL.Path, time.Since(start).Round(time.Millisecond))
	})
}

func main() {
	log.SetOutput(os.Stderr)
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	http.HandleFunc("/price/", price)
	log.Println("shopd listening on 127.0.0.1:18385")
	log.Fatal(http.ListenAndServe("127.0.0.1:18385", logged(http.DefaultServeMux)))
}
EOF
	(cd "$gd" && go mod init example.com/shopd >/dev/null 2>&1 && go build -o shopd .)
	"$gd/shopd" 2>"$gd/shopd.log" &
	shopd_pid=$!
	pids+=("$shopd_pid")
	wait_port 18385
	for i in $(seq 1 2400); do
		t=$((i % 3))
		[ "$i" -eq 1234 ] && t=3
		[ $((i % 500)) -eq 0 ] && t=x
		echo "url = \"http://127.0.0.1:18385/price/$t\""
	done | curl -s -K - >/dev/null
	kill "$shopd_pid"
	wait "$shopd_pid" 2>/dev/null
	needle_re 'http: panic serving 127\.0\.0\.1:\d+: runtime error: index out of range \[3\] with length 3' 'the panic, with the client it served'
	needle_re 'main\.price\(\{[^}]*\}, 0x[0-9a-f]+\??\)' 'the handler that panicked'
	needle_re '\t/tmp/crumb-corpus/work/panic-server/main\.go:\d+ \+0x[0-9a-f]+' 'the line in the handler'
	save_case text-go-http-panic text bash "$(bash_args 'cat shopd.log' 'Show the server log, to find why some price requests fail')" <"$gd/shopd.log"
fi

# ------------------------------------------------- this machine's dpkg log
if selected text-dpkg-log; then
	needle_re '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d status installed redis-server:amd64 \S+' 'when redis-server was installed, and its version'
	needle_re '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d install redis-server:amd64 <none> \S+' 'the install action that began it'
	save_case text-dpkg-log text read_file "$(jq -n '{path: "/var/log/dpkg.log", intent: "when was redis-server installed and which version"}')" </var/log/dpkg.log
fi

# ------------------------------------------------ this machine's apt log
if selected text-apt-term-log; then
	needle_re 'Setting up python3-pytest \(\S+\) \.\.\.' 'the package the question is about was set up'
	needle_re 'Log started: \d{4}-\d\d-\d\d  \d\d:\d\d:\d\d' 'when the first apt run began'
	save_case text-apt-term-log text read_file "$(jq -n '{path: "/var/log/apt/term.log", intent: "did python3-pytest install cleanly"}')" </var/log/apt/term.log
fi
