#!/bin/sh
# Regenerates the documents the section tests read, from real material on
# a Debian system (apt-get install man-db manpages xz-utils strace diffutils
# zstd openssh-client python3-doc libffi-dev python3-mypy; the licences are
# in base-files; the Markdown README is a Go module's, from the module
# cache; the sed FAQ is numbered like an RFC). None of them is a document the evidence corpus uses.
set -eu
cd "$(dirname "$0")"
for page in xz strace diff zstd scp; do
	MANWIDTH=80 man -P cat "$page" > "man-$page.txt"
done
cp /usr/share/doc/python3-doc/html/using/cmdline.html html-python-cmdline.html
cp /usr/share/doc/python3-doc/html/library/tempfile.html html-python-tempfile.html
cp /usr/share/doc/libffi-dev/html/The-Closure-API.html html-libffi-closure.html
cp /usr/share/common-licenses/LGPL-3 licence-LGPL-3
cp /usr/share/common-licenses/MPL-1.1 licence-MPL-1.1
cp /usr/share/common-licenses/GFDL-1.2 licence-GFDL-1.2
cp /usr/share/common-licenses/Artistic licence-Artistic
cp /usr/lib/python3/dist-packages/mypyc/doc/performance_tips_and_tricks.rst rst-mypyc-performance.rst
readme=$(ls "$(go env GOMODCACHE)"/github.com/tidwall/gjson@*/README.md | tail -1)
cp "$readme" md-gjson-readme.md
chmod u+w md-gjson-readme.md
zcat /usr/share/doc/sed/sedfaq.txt.gz > text-sedfaq.txt
