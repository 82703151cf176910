#!/usr/bin/env bash
# make.sh — makes apache-cgi-error.log: the error log of a real Apache httpd
# (mod_cgi) serving two CGI programs on loopback under random traffic, a
# Ruby one that fails on some requests with a NoMethodError, a Perl one
# that dies on others. mod_cgi writes each line of a program's stderr as a
# log line of its own, under its own timestamp: a stack trace arrives
# relayed line by line. A Python one fails on others with a KeyError two
# frames deep. Needs apache2, ruby, perl and python3.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ap=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$ap"' EXIT
mkdir -p "$ap/htdocs" "$ap/cgi-bin" "$ap/logs"
printf '<!doctype html><title>quota</title>\n' >"$ap/htdocs/index.html"
cat >"$ap/cgi-bin/quota.rb" <<'EOF'
#!/usr/bin/ruby
require "cgi"
plans = { "free" => { "disk" => 5 }, "pro" => { "disk" => 500 } }
user = CGI.new["plan"]
limits = plans[user]
puts "Content-Type: text/plain\n\n"
puts "disk: #{limits.fetch("disk")} GB"
EOF
cat >"$ap/cgi-bin/invoice.pl" <<'EOF'
#!/usr/bin/perl
use strict;
use warnings;
my ($n) = ($ENV{QUERY_STRING} // "") =~ /n=(\d+)/;
sub total { my ($lines) = @_; die "invoice $n has no lines\n" if $lines == 0; return 12 * $lines }
print "Content-Type: text/plain\n\n", total($n % 7), "\n";
EOF
cat >"$ap/cgi-bin/report.py" <<'EOF'
#!/usr/bin/python3
import os

REGIONS = {"eu": 0.21, "us": 0.07}


def tax(region, amount):
    return amount * REGIONS[region]


def report(query):
    region = query.partition("region=")[2] or "eu"
    return "tax: %.2f" % tax(region, 100)


body = report(os.environ.get("QUERY_STRING", ""))
print("Content-Type: text/plain\n")
print(body)
EOF
chmod +x "$ap/cgi-bin/quota.rb" "$ap/cgi-bin/invoice.pl" "$ap/cgi-bin/report.py"
m=/usr/lib/apache2/modules
cat >"$ap/httpd.conf" <<CONF
ServerRoot "$ap"
ServerName 127.0.0.1
Listen 127.0.0.1:18395
PidFile $ap/httpd.pid
LoadModule mpm_prefork_module $m/mod_mpm_prefork.so
LoadModule authz_core_module $m/mod_authz_core.so
LoadModule dir_module $m/mod_dir.so
LoadModule mime_module $m/mod_mime.so
LoadModule alias_module $m/mod_alias.so
LoadModule cgi_module $m/mod_cgi.so
TypesConfig /etc/mime.types
StartServers 2
DocumentRoot "$ap/htdocs"
ErrorLog $ap/logs/error.log
LogLevel warn
ScriptAlias /cgi-bin/ "$ap/cgi-bin/"
<Directory "$ap">
    Require all granted
</Directory>
CONF
setsid apache2 -f "$ap/httpd.conf" -DFOREGROUND &
pid=$!
for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/18395) 2>/dev/null && break; sleep 0.1; done
python3 - <<'PY'
import http.client, random
rnd = random.Random(11)
conn = http.client.HTTPConnection("127.0.0.1", 18395, timeout=10)
for i in range(1500):
    r = rnd.random()
    if r < 0.3:
        path = "/cgi-bin/quota.rb?plan=" + rnd.choice(["free", "pro", "team"])
    elif r < 0.45:
        path = "/cgi-bin/report.py?region=" + rnd.choice(["eu", "us", "apac"])
    elif r < 0.8:
        path = "/cgi-bin/invoice.pl?n=%d" % rnd.randrange(1, 300)
    else:
        path = rnd.choice(["/", "/missing.html"])
    try:
        conn.request("GET", path)
        conn.getresponse().read()
    except (http.client.HTTPException, OSError):
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", 18395, timeout=10)
PY
kill "$pid"
wait "$pid" 2>/dev/null || true
# The temporary directory's name varies from run to run; the fixture
# names it /srv/quota.
sed "s|$ap|/srv/quota|g" "$ap/logs/error.log" >"$here/apache-cgi-error.log"
