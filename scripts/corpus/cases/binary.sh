# binary.sh: binary files read as files: an ELF executable, a gzip archive,
# a PNG and a JPEG image, all made by real tools. Sourced by make.sh.
#
# Binary results have no lines to show; their needles are the identifying
# text a binary carries (the module path in a Go binary's build info, the
# original name in a gzip header). The images carry no text and have no
# needles: they are here to check that no raw byte reaches a view.

# images: renders the corpus's pictures and builds the render binary, once.
images() {
	[ -f "$work/images/mandelbrot.png" ] && return
	mkdir -p "$work/images"
	(cd "$root" && go build -trimpath -o "$work/images/render" ./scripts/corpus/render) || {
		echo "error: building scripts/corpus/render failed" >&2
		failures=$((failures + 1))
		return
	}
	"$work/images/render" -w 1600 -h 1000 >"$work/images/mandelbrot.png"
	"$work/images/render" -w 1200 -h 750 -format jpeg -q 85 >"$work/images/mandelbrot.jpg"
	"$work/images/render" -w 240 -h 150 -iter 60 >"$work/images/thumb.png"
}

if selected binary-elf; then
	images
	needle 'github.com/crumb-dev/crumb/scripts/corpus/render' 'what program this is: the main package in its build info'
	save_case binary-elf binary read_file "$(jq -n '{path: "render"}')" <"$work/images/render"
fi

if selected binary-gzip; then
	mkdir -p "$work/gzip"
	cp /var/log/dpkg.log "$work/gzip/dpkg.log"
	rm -f "$work/gzip/dpkg.log.gz"
	gzip -9 "$work/gzip/dpkg.log"
	needle 'dpkg.log' 'the name of the file inside, from the gzip header'
	save_case binary-gzip binary read_file "$(jq -n '{path: "/var/log/dpkg.log.1.gz"}')" <"$work/gzip/dpkg.log.gz"
fi

if selected binary-png; then
	images
	save_case binary-png binary read_file "$(jq -n '{path: "docs/mandelbrot.png"}')" <"$work/images/mandelbrot.png"
fi

if selected binary-jpeg; then
	images
	save_case binary-jpeg binary read_file "$(jq -n '{path: "docs/mandelbrot.jpg"}')" <"$work/images/mandelbrot.jpg"
fi
