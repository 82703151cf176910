# logs2.sh: logs of servers run here on loopback under real traffic:
# Apache httpd with a CGI program that fails on some requests and a proxy to
# a backend that is down, and sshd logging through rsyslog (syslog format,
# as journalctl's short output prints it) under a burst of logins as users
# that do not exist and one that succeeds. Needles follow the rule in
# docs/bench.md: the first and last lines of the failure asked about, with
# their times, and the one line the question names. Sourced by make.sh.

l2=$work/logs2

if selected text-apache-access || selected text-apache-error; then
	ap=$l2/apache
	rm -rf "$ap"
	mkdir -p "$ap/htdocs/static" "$ap/cgi-bin" "$ap/logs"
	printf '<!doctype html><title>prices</title><h1>prices</h1>\n' >"$ap/htdocs/index.html"
	head -c 20000 /usr/share/common-licenses/GPL-3 >"$ap/htdocs/static/terms.txt"
	cat >"$ap/cgi-bin/price.py" <<'EOF'
#!/usr/bin/python3
import os
import urllib.parse

q = urllib.parse.parse_qs(os.environ.get("QUERY_STRING", ""))
sku = int(q.get("sku", ["0"])[0])
stock = {n: (n * 37) % 11 for n in range(1, 400)}
per_unit = 1000 // stock[sku]
print("Content-Type: text/plain\n")
print(f"sku {sku}: {per_unit} cents a unit")
EOF
	chmod +x "$ap/cgi-bin/price.py"
	m=/usr/lib/apache2/modules
	cat >"$ap/httpd.conf" <<CONF
ServerRoot "$ap"
ServerName 127.0.0.1
Listen 127.0.0.1:18390
PidFile $ap/httpd.pid
LoadModule mpm_prefork_module $m/mod_mpm_prefork.so
LoadModule authz_core_module $m/mod_authz_core.so
LoadModule dir_module $m/mod_dir.so
LoadModule mime_module $m/mod_mime.so
LoadModule alias_module $m/mod_alias.so
LoadModule cgi_module $m/mod_cgi.so
LoadModule proxy_module $m/mod_proxy.so
LoadModule proxy_http_module $m/mod_proxy_http.so
TypesConfig /etc/mime.types
StartServers 2
MaxRequestWorkers 8
DocumentRoot "$ap/htdocs"
DirectoryIndex index.html
ErrorLog $ap/logs/error.log
LogLevel warn
LogFormat "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" %D" combinedus
CustomLog $ap/logs/access.log combinedus
ScriptAlias /cgi-bin/ "$ap/cgi-bin/"
ProxyPass /api/ http://127.0.0.1:18391/
<Directory "$ap">
    Require all granted
</Directory>
CONF
	# Its own session: on SIGTERM, httpd signals its whole process group.
	setsid apache2 -f "$ap/httpd.conf" -DFOREGROUND &
	apache_pid=$!
	pids+=("$apache_pid")
	wait_port 18390
	$py - <<'PY'
import http.client, random
rnd = random.Random(7)
conn = http.client.HTTPConnection("127.0.0.1", 18390, timeout=10)
for i in range(6000):
    r = rnd.random()
    if r < 0.5:
        path = rnd.choice(["/", "/index.html", "/static/terms.txt", "/static/missing.css"])
    elif r < 0.8:
        path = "/cgi-bin/price.py?sku=%d" % rnd.randrange(1, 399)
    elif 2500 <= i < 2600:
        path = "/api/orders/%d" % rnd.randrange(1, 500)
    else:
        path = rnd.choice(["/", "/static/terms.txt"])
    try:
        conn.request("GET", path, headers={"User-Agent": "price-check/1.4"})
        conn.getresponse().read()
    except (http.client.HTTPException, OSError):
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", 18390, timeout=10)
PY
	kill "$apache_pid"
	wait "$apache_pid" 2>/dev/null
	touch "$ap/logs/access.log" "$ap/logs/error.log"
	if selected text-apache-access; then
		needle_re '127\.0\.0\.1 - - \[[^]]+\] "GET /cgi-bin/price\.py\?sku=\d+ HTTP/1\.1" 500 .*' 'the first failing price lookup, with its time'
		needle_re '127\.0\.0\.1 - - \[[^]]+\] "GET /api/orders/\d+ HTTP/1\.1" 503 .*' 'the first failed proxied request: the backend is down'
		save_case text-apache-access text read_file "$(jq -n '{path: "/var/log/apache2/access.log", intent: "which requests failed with 5xx and when"}')" <"$ap/logs/access.log"
	fi
	if selected text-apache-error; then
		needle_re '.*ZeroDivisionError: integer division or modulo by zero.*' 'the error in the CGI program'
		needle_re '.*price\.py", line \d+, in <module>.*' 'where in the program'
		needle_re '.*AH00957: http: attempt to connect to 127\.0\.0\.1:18391 .*failed.*' 'the proxy could not reach the backend'
		save_case text-apache-error text read_file "$(jq -n '{path: "/var/log/apache2/error.log", intent: "why do price lookups fail"}')" <"$ap/logs/error.log"
	fi
fi

if selected text-syslog-sshd; then
	sd=$l2/ssh
	rm -rf "$sd"
	mkdir -p "$sd" /run/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$sd/hostkey"
	ssh-keygen -q -t ed25519 -N '' -f "$sd/client"
	cp "$sd/client.pub" "$sd/authorized_keys"
	cat >"$sd/rsyslog.conf" <<CONF
module(load="imuxsock" SysSock.Name="/dev/log")
\$ActionFileDefaultTemplate RSYSLOG_TraditionalFileFormat
auth,authpriv.*  $sd/auth.log
CONF
	had_devlog=0
	[ -e /dev/log ] && had_devlog=1
	if [ "$had_devlog" = 1 ]; then
		echo "error: text-syslog-sshd: /dev/log exists here; not replacing it" >&2
		failures=$((failures + 1))
	else
		rsyslogd -n -f "$sd/rsyslog.conf" -i "$sd/rsyslog.pid" &
		rsys_pid=$!
		pids+=("$rsys_pid")
		sleep 1
		/usr/sbin/sshd -D -f /dev/null -h "$sd/hostkey" -o ListenAddress=127.0.0.1:18392 -o PidFile="$sd/sshd.pid" \
			-o AuthorizedKeysFile="$sd/authorized_keys" -o StrictModes=no -o LogLevel=INFO -o MaxStartups=100 &
		sshd_pid=$!
		pids+=("$sshd_pid")
		wait_port 18392
		sshc() { ssh -p 18392 -i "$sd/client" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 "$@" >/dev/null 2>&1; }
		for u in admin oracle test ubuntu guest postgres git deploy www-data ftp; do
			for i in 1 2 3 4 5 6; do sshc "$u$i@127.0.0.1" true; done
		done
		sshc root@127.0.0.1 true
		for u in jenkins hadoop pi; do sshc "$u@127.0.0.1" true; done
		sleep 1
		kill "$sshd_pid" "$rsys_pid"
		wait "$sshd_pid" "$rsys_pid" 2>/dev/null
		rm -f /dev/log
		needle_re '^\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ sshd\[\d+\]: Accepted publickey for root from 127\.0\.0\.1 port \d+ ssh2: .*' 'the one login that succeeded, with its time'
		needle_re '^\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ sshd\[\d+\]: Invalid user admin1 from 127\.0\.0\.1 port \d+' 'the first attempt of the burst'
		save_case text-syslog-sshd text read_file "$(jq -n '{path: "/var/log/auth.log", intent: "did anyone log in successfully during the burst of failed logins"}')" <"$sd/auth.log"
	fi
fi
