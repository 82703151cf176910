package dir

import (
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/internal/topk"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/kit"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
)

func init() {
	project.Register(project.KindDir, project.ProjectorFunc(projectDir))
}

// Shares of the room in a directory view.
const (
	dirHeadShare   = 0.12 // the first lines of the listing, to show its form
	dirTailShare   = 0.06 // its last lines (tree and ls end with a summary)
	dirExtShare    = 0.10 // counts by extension
	dirTreeShare   = 0.14 // the largest subtrees
	dirCollShare   = 0.16 // collapsed directories
	dirLargeShare  = 0.06 // the largest files, when the listing has sizes
	maxDirLine     = 4096 // the longest entry line read whole
	maxDirKeys     = 4096 // distinct subtrees tracked at each of two levels
	maxDirExts     = 512  // distinct extensions counted
	maxDirPlaces   = 64   // places of one collapsed name remembered
	maxTreeDepth   = 256  // tree nesting followed
	maxLargest     = 5    // largest files listed
	minIndexTokens = 4    // the least a path in the index costs
)

// collapsedNames are directories whose contents a listing summarises in one
// line: dependencies, version control and build output, wherever they are.
var collapsedNames = map[string]bool{
	"node_modules": true, "vendor": true, "bower_components": true,
	".git": true, ".hg": true, ".svn": true,
	".next": true, ".nuxt": true,
	"__pycache__": true, ".venv": true, ".tox": true, ".mypy_cache": true, ".pytest_cache": true,
	".gradle": true, ".terraform": true,
}

// collapsedAtRoot are names that hold build output at the top of a project
// but are ordinary directories deeper down (Go's go/build and cmd/dist).
var collapsedAtRoot = map[string]bool{
	"dist": true, "build": true, "target": true, "out": true, "coverage": true, "venv": true, ".cache": true,
}

// collapsedFirst holds the first bytes of the collapsed names, to skip the
// map lookups for most names.
var collapsedFirst = func() (t [256]bool) {
	for n := range collapsedNames {
		t[n[0]] = true
	}
	for n := range collapsedAtRoot {
		t[n[0]] = true
	}
	return t
}()

// isCollapsed reports whether a directory named name, at depth depth (1 is
// the top of the listing), is summarised in one line.
func isCollapsed(name []byte, depth int) bool {
	if len(name) == 0 || !collapsedFirst[name[0]] {
		return false
	}
	return collapsedNames[string(name)] || depth == 1 && collapsedAtRoot[string(name)]
}

// dirFormat is the form of a listing.
type dirFormat int

const (
	formatPaths dirFormat = iota // one path per line: find, fd, rg --files, git ls-files, globs
	formatLs                     // ls -l, ls -la, ls -lR
	formatTree                   // tree
	formatMCP                    // "[FILE] name" / "[DIR] name" (the MCP filesystem server)
)

func (f dirFormat) String() string {
	switch f {
	case formatLs:
		return "ls -l listing"
	case formatTree:
		return "tree"
	case formatMCP:
		return "[FILE]/[DIR] listing"
	}
	return "paths"
}

// dirEntry is one entry of a listing. path is relative to the listing's
// root, without a trailing slash, and valid only during the callback.
type dirEntry struct {
	line  int64
	off   int64 // where the line starts
	path  []byte
	depth int
	dir   bool
	link  bool
	size  int64 // -1 when the listing does not say
	cut   bool  // the line was too long to hold whole
	// ctx holds the lines that say where the entry is, outermost first:
	// the directory header of ls -R, the parent directories of tree.
	ctx []lineAt
}

// projectDir shows a directory listing: whole when it fits; else a summary
// (counts of entries, files and directories, by extension, the largest
// subtrees, dependency and build directories collapsed to one line each),
// the shallowest complete paths with their lines in the listing, and the
// listing's first and last lines, the rest named with the reads that
// recover it.
func projectDir(ctx context.Context, in *project.Input) (project.Output, error) {
	e, err := kit.NewExcerptor(in, false)
	if err != nil {
		return project.Output{}, fmt.Errorf("project: dir: %w", err)
	}
	format, err := detectDirFormat(e)
	if err != nil {
		return project.Output{}, fmt.Errorf("project: dir: %w", err)
	}
	v := &dirView{in: in, e: e, format: format}
	v.l.Title = "dir"
	if p := view.DisplayPath(in.Call().Path); p != "" {
		v.l.Title += " " + p
	}
	size := e.Doc.Size()
	whole, _, err := e.Forward(0, size, in.Budget-e.Overhead(v.l, 1))
	if err != nil {
		return project.Output{}, err
	}
	if whole.To == size && !whole.CutEnd {
		l := v.l
		l.Facts = []string{format.String()}
		l.Excerpts = []view.Excerpt{whole}
		text, next, err := e.Fit(l)
		if err != nil {
			return project.Output{}, err
		}
		if next == nil && in.Counter.Count(text) <= in.Budget {
			return project.Output{Text: text, Complete: in.StoreError == ""}, nil
		}
	}
	return v.project(ctx)
}

// detectDirFormat tells the form of a listing from its first lines.
func detectDirFormat(e *view.Excerptor) (dirFormat, error) {
	var n, mcp, tree, ls int
	pos := int64(0)
	for n < 64 && pos < e.Doc.Size() {
		l, err := e.Doc.ReadLine(pos, 512)
		if err != nil {
			return formatPaths, err
		}
		pos = l.End
		t := bytes.TrimRight(l.Text, "\r")
		if len(bytes.TrimSpace(t)) == 0 {
			continue
		}
		n++
		switch {
		case bytes.HasPrefix(t, []byte("[FILE] ")) || bytes.HasPrefix(t, []byte("[DIR] ")):
			mcp++
		case treeDepth(t) > 0:
			tree++
		case lsTotal.Match(t):
			ls++
		default:
			if _, ok := parseLsLine(t); ok {
				ls++
			}
		}
	}
	switch {
	case n == 0:
		return formatPaths, nil
	case mcp*2 >= n:
		return formatMCP, nil
	case tree*2 >= n:
		return formatTree, nil
	case ls*2 >= n:
		return formatLs, nil
	}
	return formatPaths, nil
}

// dirView builds the view of one listing.
type dirView struct {
	in     *project.Input
	e      *view.Excerptor
	format dirFormat
	l      view.Layout
}

func (v *dirView) project(ctx context.Context) (project.Output, error) {
	e, in := v.e, v.in
	size := e.Doc.Size()
	base := in.Budget - e.Overhead(v.l, 2) - 60 // the facts the header will carry
	head, used, err := e.Forward(0, size, int(float64(base)*dirHeadShare))
	if err != nil {
		return project.Output{}, err
	}
	tail, used2, err := e.Backward(size, head.To, int(float64(base)*dirTailShare))
	if err != nil {
		return project.Output{}, err
	}
	// A path is shown whole or not at all: a line too long for its share
	// is left to the omitted stretch.
	if head.CutEnd {
		head, used = view.Excerpt{From: 0, To: 0, First: 1, Offs: []int64{0}}, 0
	}
	if tail.CutStart {
		tail, used2 = view.Excerpt{From: size, To: size, Offs: []int64{size}}, 0
	}
	xs := []view.Excerpt{head, tail}
	shown := view.ShownLines(xs)
	st := newDirStats(shown, max(base-used-used2, 0)/minIndexTokens+1)
	st.match = newDirMatcher(in)
	root, err := v.scan(ctx, st)
	if err != nil {
		return project.Output{}, err
	}
	l := v.l
	if root != "" && root != "." {
		l.Title = "dir " + view.DisplayPath(root)
	}
	facts := v.facts(st)
	// Less and less for budgets too small for it all: without the search
	// hint, without the counts, without the summary.
	for _, nf := range []int{len(facts), 2, 1, 0} {
		l.Facts = facts[:min(nf, len(facts))]
		l.Excerpts = xs
		l.Prelude = nil
		if nf > 0 {
			room := in.Budget - e.Overhead(l, 2) - used - used2
			l.Prelude = v.summary(st, room)
		}
		text, next, err := e.Fit(l)
		if err != nil {
			return project.Output{}, err
		}
		if in.Counter.Count(text) <= in.Budget {
			return project.Output{Text: text, Next: next}, nil
		}
	}
	text, next, err := e.Assemble(view.Layout{Title: "dir"}, true)
	if err != nil {
		return project.Output{}, err
	}
	return project.Output{Text: text, Next: next}, nil
}

// facts are the header's facts: the form, the counts, and a search.
func (v *dirView) facts(st *dirStats) []string {
	f := []string{v.format.String()}
	counts := entriesText(st.entries) + " (" + textfmt.Plural(st.files, "file") + ", " + textfmt.Plural(st.dirs, "dir")
	if st.links > 0 {
		counts += ", " + textfmt.Plural(st.links, "link")
	}
	if st.reported && st.repFiles+st.repDirs == st.entries && (st.repFiles != st.files || st.repDirs != st.dirs) {
		// The listing's own count knows the empty directories.
		counts = entriesText(st.entries) + " (" + textfmt.Plural(st.repFiles, "file") + ", " + textfmt.Plural(st.repDirs, "dir")
	}
	f = append(f, counts+")")
	if v.in.Ref != "" {
		f = append(f, "search them: "+v.in.Hint(recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Grep: &recall.GrepSpec{Pattern: st.grepExample()}}))
	}
	return f
}

// scan parses the listing in one streaming pass (two for bare paths, whose
// common root is found first) and returns the root the paths are relative to.
func (v *dirView) scan(ctx context.Context, st *dirStats) (string, error) {
	switch v.format {
	case formatTree:
		return scanTree(ctx, v.in, st)
	case formatLs:
		return "", scanLs(ctx, v.in, st.add)
	case formatMCP:
		return "", scanMCP(ctx, v.in, st)
	}
	root, err := pathsRoot(ctx, v.in)
	if err != nil {
		return "", err
	}
	return root, scanPaths(ctx, v.in, root, st.add)
}

// pathsRoot finds the directory every path of the listing is in: the common
// prefix, cut at a slash, or the first path itself when the others are under
// it (find prints its starting point first).
func pathsRoot(ctx context.Context, in *project.Input) (string, error) {
	s := view.NewLineScanner(ctx, in.Source, in.Source.Size(), maxDirLine)
	root, started, hasChild := "", false, false
	for s.Scan() {
		p := bytes.TrimRight(s.Text, "/")
		if len(bytes.TrimSpace(s.Text)) == 0 || s.Cut {
			continue
		}
		if len(p) == 0 {
			p = s.Text[:1] // "/"
		}
		if !started {
			root, started = string(p), true
			continue
		}
		for !bytes.Equal(p, []byte(root)) && !underRoot(p, root) {
			root = parentPath(root)
		}
		if !bytes.Equal(p, []byte(root)) {
			hasChild = true
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	if !hasChild {
		root = parentPath(root)
	}
	return root, nil
}

// underRoot reports whether p is inside the directory root.
func underRoot(p []byte, root string) bool {
	switch root {
	case "":
		return true
	case "/":
		return len(p) > 1 && p[0] == '/'
	}
	return len(p) > len(root) && p[len(root)] == '/' && string(p[:len(root)]) == root
}

func parentPath(p string) string {
	if p == "/" || p == "" {
		return ""
	}
	i := strings.LastIndexByte(p, '/')
	switch {
	case i < 0:
		return ""
	case i == 0:
		return "/"
	}
	return p[:i]
}

// relPath returns p relative to root.
func relPath(p []byte, root string) []byte {
	switch {
	case root == "":
		return bytes.TrimPrefix(p, []byte("./"))
	case root == "/":
		return p[1:]
	case underRoot(p, root):
		return p[len(root)+1:]
	}
	return p
}

func pathDepth(rel []byte) int { return bytes.Count(rel, []byte{'/'}) + 1 }

// pathsWindow is how many paths scanPaths holds back, waiting for a later
// path inside one of them to show it is a directory. find lists a directory
// right before what it holds; sorted, siblings such as "net/http.go" may
// come between.
const pathsWindow = 256

// scanPaths parses one path per line. A path is a directory when it ends
// with a slash or a path among the next pathsWindow ones is inside it; an
// empty directory without a slash counts as a file.
func scanPaths(ctx context.Context, in *project.Input, root string, add func(dirEntry)) error {
	s := view.NewLineScanner(ctx, in.Source, in.Source.Size(), maxDirLine)
	type held struct {
		e    dirEntry
		full []byte
		hash uint64 // fnv64(full)
	}
	ring := make([]held, pathsWindow)
	// slot maps the FNV-1a hash of a held path to its place in ring; a
	// lookup checks the path itself, so a collision only costs a mark.
	slot := map[uint64]int{}
	first, n := 0, 0
	emit := func() {
		h := &ring[first]
		if i, ok := slot[h.hash]; ok && i == first {
			delete(slot, h.hash)
		}
		add(h.e)
		first = (first + 1) % pathsWindow
		n--
	}
	for s.Scan() {
		t := bytes.TrimRight(s.Text, " \t")
		if len(t) == 0 {
			continue
		}
		full := bytes.TrimRight(t, "/")
		if len(full) == 0 || string(full) == root {
			continue // "/" itself, or the starting point
		}
		// Every directory this path is in is a directory. FNV-1a runs along
		// the path, so at each slash it holds the hash of what comes before.
		hash := fnvOffset
		for i, c := range full {
			if c == '/' && i > len(root) && !s.Cut {
				if k, ok := slot[hash]; ok && bytes.Equal(ring[k].full, full[:i]) {
					ring[k].e.dir = true
				}
			}
			hash = (hash ^ uint64(c)) * fnvPrime
		}
		if n == pathsWindow {
			emit()
		}
		k := (first + n) % pathsWindow
		h := &ring[k]
		h.full = append(h.full[:0], full...)
		rel := relPath(h.full, root)
		h.e = dirEntry{line: s.Line, off: s.Off, path: rel, depth: pathDepth(rel), dir: len(full) < len(t), size: -1, cut: s.Cut}
		h.hash = hash
		slot[hash] = k
		n++
	}
	for n > 0 {
		emit()
	}
	return s.Err()
}

// The 64-bit FNV-1a hash.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

var (
	lsTotal   = lazyre.New(`^total \d+(\.\d+)?[KMGT]?$`)
	lsPerms   = lazyre.New(`^[-dlcbpsD][-rwxsStTl]{9}[.+@]?$`)
	lsIsoDate = lazyre.New(`^\d{4}-\d{2}-\d{2}$`)
	lsZone    = lazyre.New(`^[+-]\d{4}$`)
	sizeField = lazyre.New(`^\d+$`)
)

// lsEntry is one line of ls -l.
type lsEntry struct {
	kind byte // the first letter of the mode: d, l, -, ...
	size int64
	name []byte
}

// parseLsLine parses "drwxr-xr-x 2 user group 4096 Jan  1 12:00 name",
// with or without owner and group, with ls's own or ISO dates.
func parseLsLine(t []byte) (lsEntry, bool) {
	// The starts and ends of the first fields.
	var starts, ends []int
	for i := 0; i < len(t) && len(starts) < 11; {
		for i < len(t) && t[i] == ' ' {
			i++
		}
		if i >= len(t) {
			break
		}
		j := i
		for j < len(t) && t[j] != ' ' {
			j++
		}
		starts, ends = append(starts, i), append(ends, j)
		i = j
	}
	f := func(k int) []byte { return t[starts[k]:ends[k]] }
	if len(starts) < 6 || !lsPerms.Match(f(0)) {
		return lsEntry{}, false
	}
	// Find the date: "Mon DD HH:MM|YYYY", "YYYY-MM-DD HH:MM[:SS.nnn +ZZZZ]".
	for d := 3; d+1 < len(starts); d++ {
		var n int
		switch {
		case lsIsoDate.Match(f(d)):
			n = 2
			if d+2 < len(starts) && lsZone.Match(f(d+2)) {
				n = 3
			}
		case d+2 < len(starts) && isMonth(f(d)) && isDay(f(d+1)):
			n = 3
		default:
			continue
		}
		if d+n >= len(starts) || !sizeField.Match(bytes.TrimSuffix(f(d-1), []byte(","))) {
			continue
		}
		e := lsEntry{kind: t[0], size: -1, name: t[starts[d+n]:]}
		if sz, err := strconv.ParseInt(string(f(d-1)), 10, 64); err == nil && t[0] != 'c' && t[0] != 'b' {
			e.size = sz
		}
		if e.kind == 'l' {
			if i := bytes.Index(e.name, []byte(" -> ")); i > 0 {
				e.name = e.name[:i]
			}
		}
		return e, len(e.name) > 0
	}
	return lsEntry{}, false
}

func isMonth(b []byte) bool {
	if len(b) < 2 || len(b) > 12 {
		return false
	}
	for _, c := range b {
		if c >= '0' && c <= '9' {
			return false
		}
	}
	return true
}

func isDay(b []byte) bool {
	n, err := strconv.Atoi(strings.TrimSuffix(string(b), "."))
	return err == nil && n >= 1 && n <= 31
}

// scanLs parses ls -l output; "dir:" lines of ls -lR set the directory the
// names that follow are in.
func scanLs(ctx context.Context, in *project.Input, add func(dirEntry)) error {
	s := view.NewLineScanner(ctx, in.Source, in.Source.Size(), maxDirLine)
	var prefix, first, buf []byte
	headers := 0
	var header []lineAt // the directory header the entries are under
	for s.Scan() {
		t := bytes.TrimRight(s.Text, " \t")
		if len(t) == 0 || lsTotal.Match(t) {
			continue
		}
		e, ok := parseLsLine(t)
		switch {
		case ok:
			if bytes.Equal(e.name, []byte(".")) || bytes.Equal(e.name, []byte("..")) {
				continue
			}
			buf = append(append(buf[:0], prefix...), bytes.TrimRight(e.name, "/")...)
			add(dirEntry{line: s.Line, off: s.Off, path: buf, depth: pathDepth(buf), dir: e.kind == 'd', link: e.kind == 'l', size: e.size, cut: s.Cut, ctx: header})
		case t[len(t)-1] == ':' && !s.Cut:
			// A directory header of ls -R or of ls with several arguments.
			h := bytes.TrimSuffix(t, []byte(":"))
			headers++
			header = append(header[:0], lineAt{s.Line, s.Off})
			if headers == 1 {
				first = append(first[:0], h...)
			}
			switch {
			case bytes.Equal(h, first):
				prefix = prefix[:0]
			case bytes.HasPrefix(h, first) && len(h) > len(first) && h[len(first)] == '/':
				prefix = append(append(prefix[:0], h[len(first)+1:]...), '/')
			default:
				prefix = append(append(prefix[:0], bytes.TrimPrefix(h, []byte("./"))...), '/')
			}
		default:
			// A bare name, as ls without -l prints them.
			name := bytes.TrimRight(t, "/")
			if len(name) == 0 {
				continue
			}
			buf = append(append(buf[:0], prefix...), name...)
			add(dirEntry{line: s.Line, off: s.Off, path: buf, depth: pathDepth(buf), dir: len(name) < len(t), size: -1, cut: s.Cut, ctx: header})
		}
	}
	return s.Err()
}

var (
	mcpSize  = lazyre.New(`\s+(\d+(?:\.\d+)?) (B|KB|MB|GB|TB)$`)
	mcpTotal = lazyre.New(`^Total: (\d+) files?, (\d+) director(?:y|ies)$`)
)

// scanMCP parses "[FILE] name" and "[DIR] name" lines, with the sizes
// list_directory_with_sizes adds.
func scanMCP(ctx context.Context, in *project.Input, st *dirStats) error {
	s := view.NewLineScanner(ctx, in.Source, in.Source.Size(), maxDirLine)
	for s.Scan() {
		t := s.Text
		dir := false
		if m := mcpTotal.FindSubmatch(t); m != nil {
			st.reported, st.repFiles, st.repDirs = true, atoiBytes(m[1]), atoiBytes(m[2])
			continue
		}
		switch {
		case bytes.HasPrefix(t, []byte("[FILE] ")):
			t = t[7:]
		case bytes.HasPrefix(t, []byte("[DIR] ")):
			t, dir = t[6:], true
		default:
			continue
		}
		size := int64(-1)
		if m := mcpSize.FindSubmatchIndex(t); m != nil && !dir {
			size = parseSize(string(t[m[2]:m[3]]), string(t[m[4]:m[5]]))
			t = t[:m[0]]
		}
		t = bytes.TrimRight(t, " \t/")
		if len(t) == 0 {
			continue
		}
		st.add(dirEntry{line: s.Line, off: s.Off, path: t, depth: pathDepth(t), dir: dir, size: size, cut: s.Cut})
	}
	return s.Err()
}

// parseSize reads the sizes the MCP filesystem server writes ("1.50 KB",
// binary units).
func parseSize(num, unit string) int64 {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return -1
	}
	mult := map[string]float64{"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}[unit]
	return int64(f * mult)
}

// treeDepth returns the nesting of a tree line ("│   ├── name" is 2), or 0
// when the line is not an entry of a tree.
func treeDepth(t []byte) int {
	d, _ := treeLine(t)
	return d
}

// treeBranches are the marks tree draws before an entry's name, in its
// UTF-8 and its ASCII (--charset=ascii) drawings.
var treeBranches = [][]byte{[]byte("├── "), []byte("└── "), []byte("|-- "), []byte("`-- "), []byte("├──\u00a0"), []byte("└──\u00a0")}

// treeLine splits a tree line into its depth and name: each ancestor takes
// four columns ("│   " or four spaces), then a branch mark.
func treeLine(t []byte) (int, []byte) {
	space := func() bool {
		switch {
		case len(t) > 0 && t[0] == ' ':
			t = t[1:]
		case bytes.HasPrefix(t, []byte("\u00a0")):
			t = t[2:]
		default:
			return false
		}
		return true
	}
	for depth := 0; depth < maxTreeDepth; depth++ {
		for _, b := range treeBranches {
			if bytes.HasPrefix(t, b) {
				return depth + 1, t[len(b):]
			}
		}
		switch {
		case bytes.HasPrefix(t, []byte("│")):
			t = t[len("│"):]
		case len(t) > 0 && t[0] == '|':
			t = t[1:]
		case !space():
			return 0, nil
		}
		for i := 0; i < 3; i++ {
			if !space() {
				return 0, nil
			}
		}
	}
	return 0, nil
}

var treeReport = lazyre.New(`^(\d+) director(y|ies)(?:, (\d+) files?)?$`)

func atoiBytes(b []byte) int64 {
	n, _ := strconv.ParseInt(string(b), 10, 64)
	return n
}

// scanTree parses tree output: the first line is the root, then one entry a
// line, nested by its drawing. An entry is a directory when the next one is
// nested under it, or when tree -F marked it with a slash.
func scanTree(ctx context.Context, in *project.Input, st *dirStats) (string, error) {
	add := st.add
	s := view.NewLineScanner(ctx, in.Source, in.Source.Size(), maxDirLine)
	root := ""
	var stack [][]byte  // names by depth
	var places []lineAt // their lines
	var pend dirEntry
	var buf, next []byte
	have, started := false, false
	for s.Scan() {
		t := bytes.TrimRight(s.Text, " \t")
		depth, name := treeLine(t)
		if depth == 0 {
			if m := treeReport.FindSubmatch(t); m != nil {
				// tree counts the directory it lists among the directories.
				st.reported, st.repDirs, st.repFiles = true, atoiBytes(m[1])-1, atoiBytes(m[3])
				continue
			}
			if len(t) == 0 {
				continue
			}
			if !started {
				root, started = string(t), true
			}
			continue
		}
		if have {
			if depth > pend.depth {
				pend.dir = true
			}
			add(pend)
			have = false
		}
		if i := bytes.IndexByte(name, ']'); len(name) > 0 && name[0] == '[' && i > 0 {
			name = bytes.TrimLeft(name[i+1:], " ") // tree -s, -h, -p, -u ...
		}
		if i := bytes.Index(name, []byte(" -> ")); i > 0 {
			name = name[:i]
		}
		isDir := bytes.HasSuffix(name, []byte("/"))
		name = bytes.TrimRight(name, "/")
		for len(stack) < depth {
			stack = append(stack, nil)
		}
		stack = stack[:depth]
		stack[depth-1] = append(stack[depth-1][:0], name...)
		places = append(places[:min(len(places), depth-1)], lineAt{s.Line, s.Off})
		next = next[:0]
		if root != "" && bytes.HasPrefix(name, []byte(root+"/")) {
			next = append(next, name[len(root)+1:]...) // tree -f
		} else {
			for i, n := range stack {
				if i > 0 {
					next = append(next, '/')
				}
				next = append(next, n...)
			}
		}
		buf, next = next, buf
		pend = dirEntry{line: s.Line, off: s.Off, path: buf, depth: depth, dir: isDir, size: -1, cut: s.Cut, ctx: places[:len(places)-1]}
		have = true
	}
	if have {
		add(pend)
	}
	return root, s.Err()
}

// dirStats gathers what a directory view summarises, in bounded memory.
type dirStats struct {
	shown view.LineSpans // lines the excerpts show

	entries, files, dirs, links int64
	maxDepth                    int

	// Counters are pointers so that counting a key already seen does not
	// allocate its string.
	exts     map[string]*int64
	extOther int64 // files whose extension was not tracked

	top, second map[string]*int64 // entries under each first- and second-level directory

	coll map[string]*collapsed // by directory name

	largest []sizedPath // the largest files, largest first

	// reported holds the listing's own count of files and directories
	// (tree's last line, the MCP server's "Total:"), which also counts the
	// empty directories a listing cannot otherwise tell from files.
	reported          bool
	repFiles, repDirs int64

	index []indexed // the shallowest paths not shown, a topk heap by indexAfter
	limit int
	// lines holds the entries in the listing's gaps; indexed those not in
	// the index.
	inGaps int64

	match *dirMatcher // ranks the entries by the call's intent; nil without one
}

type collapsed struct {
	name                  string
	entries, files, dirs  int64
	places                []string // where it is, in listing order
	placeCount            map[string]*int64
	morePlaces, firstLine int64
}

type sizedPath struct {
	path string
	size int64
	line int64
}

type indexed struct {
	line  int64
	depth int // for an entry inside a collapsed directory, its depth there
	path  string
	dir   bool
	inner bool // inside a collapsed directory
}

// indexAfter reports whether a comes after b in the index's priority: the
// shallower first, directories before files, and among equals an order that
// spreads the chosen over the listing (see lessImportant).
func indexAfter(a, b indexed) bool {
	if a.inner != b.inner {
		return a.inner
	}
	if a.depth != b.depth {
		return a.depth > b.depth
	}
	if a.dir != b.dir {
		return b.dir
	}
	ra, rb := bits.Reverse64(uint64(a.line)), bits.Reverse64(uint64(b.line))
	if ra != rb {
		return ra > rb
	}
	return a.line > b.line
}

func newDirStats(shown view.LineSpans, limit int) *dirStats {
	return &dirStats{
		shown:  shown,
		exts:   map[string]*int64{},
		top:    map[string]*int64{},
		second: map[string]*int64{},
		coll:   map[string]*collapsed{},
		limit:  min(limit, 8192),
	}
}

// add counts one entry.
func (st *dirStats) add(e dirEntry) {
	st.entries++
	if st.match != nil {
		st.match.offer(e, st.shown)
	}
	switch {
	case e.dir:
		st.dirs++
	case e.link:
		st.links++
	default:
		st.files++
	}
	st.maxDepth = max(st.maxDepth, e.depth)
	p := e.path

	// A dependency, VCS or build directory: counted under its name only.
	if c, place := st.collapsedIn(p); c != nil {
		if len(place) < len(p) {
			c.entries++
			if e.dir {
				c.dirs++
			} else {
				c.files++
			}
			if c.firstLine == 0 {
				c.firstLine = e.line
			}
			// Listed after everything else, by their depth inside it.
			inner := e
			inner.depth = pathDepth(p[len(place)+1:])
			st.offer(inner, true)
			if n := c.placeCount[string(place)]; n != nil {
				*n++
			} else if len(c.places) < maxDirPlaces {
				c.places = append(c.places, string(place))
				one := int64(1)
				c.placeCount[string(place)] = &one
			} else {
				c.morePlaces++
			}
			return
		}
		st.offer(e, false)
		return
	}
	if !e.dir && !e.link {
		if !bump(st.exts, extOf(p), maxDirExts) {
			st.extOther++
		}
		if e.size >= 0 {
			st.noteSize(e)
		}
	}
	if i := bytes.IndexByte(p, '/'); i > 0 {
		bump(st.top, p[:i], maxDirKeys)
		if j := bytes.IndexByte(p[i+1:], '/'); j > 0 {
			bump(st.second, p[:i+1+j], maxDirKeys)
		}
	}
	st.offer(e, false)
}

// bump counts one more under k, adding k while the map holds fewer than
// limit keys; it reports false when k could not be counted.
func bump(m map[string]*int64, k []byte, limit int) bool {
	if n := m[string(k)]; n != nil {
		*n++
		return true
	}
	if len(m) >= limit {
		return false
	}
	one := int64(1)
	m[string(k)] = &one
	return true
}

// collapsedIn returns the collapsed directory p is in (or is), and its
// place: the path up to and including that directory.
func (st *dirStats) collapsedIn(p []byte) (*collapsed, []byte) {
	for i, depth := 0, 1; i < len(p); depth++ {
		j := bytes.IndexByte(p[i:], '/')
		end := len(p)
		if j >= 0 {
			end = i + j
		}
		if name := p[i:end]; isCollapsed(name, depth) {
			c := st.coll[string(name)]
			if c == nil {
				c = &collapsed{name: string(name), placeCount: map[string]*int64{}}
				st.coll[c.name] = c
			}
			return c, p[:end]
		}
		i = end + 1
	}
	return nil, nil
}

// offer puts an entry in the index if it ranks high enough; inner entries,
// inside collapsed directories, rank after all others.
func (st *dirStats) offer(e dirEntry, inner bool) {
	if st.shown.Has(e.line) || e.cut {
		return
	}
	st.inGaps++
	x := indexed{line: e.line, depth: e.depth, dir: e.dir, inner: inner}
	if topk.Admits(st.index, st.limit, x, indexAfter) {
		x.path = string(e.path) // only for a path kept
		topk.Keep(&st.index, st.limit, x, indexAfter)
	}
}

func (st *dirStats) noteSize(e dirEntry) {
	if len(st.largest) == maxLargest && e.size <= st.largest[maxLargest-1].size {
		return
	}
	sp := sizedPath{path: string(e.path), size: e.size, line: e.line}
	i := sort.Search(len(st.largest), func(i int) bool { return st.largest[i].size < e.size })
	st.largest = append(st.largest, sizedPath{})
	copy(st.largest[i+1:], st.largest[i:])
	st.largest[i] = sp
	if len(st.largest) > maxLargest {
		st.largest = st.largest[:maxLargest]
	}
}

// entriesText writes "1 entry" or "1,234 entries".
func entriesText(n int64) string {
	if n == 1 {
		return "1 entry"
	}
	return textfmt.Int(n) + " entries"
}

// extOf returns a file's extension, empty for none (a dotfile has none).
func extOf(p []byte) []byte {
	base := p
	if i := bytes.LastIndexByte(p, '/'); i >= 0 {
		base = p[i+1:]
	}
	i := bytes.LastIndexByte(base, '.')
	if i <= 0 || len(base)-i > 12 {
		return nil
	}
	return base[i:]
}

// grepExample is a search of the listing worth suggesting: the entries with
// the most common extension, when it is common; else a pattern to fill in.
func (st *dirStats) grepExample() string {
	best, n, files := "", int64(0), st.extOther
	for ext, c := range st.exts {
		files += *c
		if ext != "" && (*c > n || *c == n && ext < best) {
			best, n = ext, *c
		}
	}
	if best == "" || n*4 < files {
		return "PATTERN"
	}
	return regexp.QuoteMeta(best) + `\b`
}

// summary renders the lines above the excerpts within room tokens: the
// entries that best match the call's intent, as listed, then counts by
// extension, the largest subtrees, the collapsed directories, the largest
// files, and the index of the shallowest paths not shown otherwise.
func (v *dirView) summary(st *dirStats, room int) []string {
	e := v.e
	out, shown := v.intentLines(st.match, int(float64(room)*dirIntentShare))
	for _, s := range out {
		room -= e.Cost(s)
	}
	add := func(s string) {
		if s != "" {
			out = append(out, s)
			room -= e.Cost(s)
		}
	}
	total := room
	label := "by extension: "
	if len(sortedCollapsed(st.coll)) > 0 {
		label = "by extension (outside collapsed dirs): "
	}
	add(v.itemLine(label, extItems(st), int(float64(total)*dirExtShare)))
	tops, seconds := subtreeItems(st.top, st.coll), subtreeItems(st.second, st.coll)
	if len(tops) > 1 || len(seconds) > 0 {
		add(v.itemLine("largest subtrees (entries under them): ", tops, int(float64(total)*dirTreeShare*0.6)))
		add(v.itemLine("  deeper: ", seconds, int(float64(total)*dirTreeShare*0.4)))
	}
	collRoom := int(float64(total) * dirCollShare)
	for _, c := range sortedCollapsed(st.coll) {
		s := v.collapsedLine(c)
		if c := e.Cost(s); c > collRoom {
			break
		} else {
			collRoom -= c
		}
		add(s)
	}
	if len(st.largest) > 0 {
		var items []string
		for _, f := range st.largest {
			items = append(items, f.path+" "+textfmt.Size(f.size))
		}
		add(v.itemLine("largest files: ", items, int(float64(total)*dirLargeShare)))
	}
	return append(out, v.indexLines(st, room, shown)...)
}

// itemLine joins items after a label while the line fits in room tokens,
// and says how many were left out.
func (v *dirView) itemLine(label string, items []string, room int) string {
	if len(items) == 0 {
		return ""
	}
	s := label
	for i, it := range items {
		cand := s
		if i > 0 {
			cand += " · "
		}
		cand += it
		rest := ""
		if i+1 < len(items) {
			rest = " · … " + strconv.Itoa(len(items)-i-1) + " more"
		}
		if v.e.Cost(cand+rest) > room {
			if i == 0 {
				return ""
			}
			return s + " · … " + strconv.Itoa(len(items)-i) + " more"
		}
		s = cand
	}
	return s
}

func extItems(st *dirStats) []string {
	var out []string
	for _, x := range mostFirst(st.exts, nil) {
		name := x.k
		if name == "" {
			name = "(none)"
		}
		out = append(out, name+" "+textfmt.Int(x.n))
	}
	if st.extOther > 0 {
		out = append(out, "others "+textfmt.Int(st.extOther))
	}
	return out
}

// subtreeItems lists directories by the entries under them, most first,
// leaving out the collapsed ones.
func subtreeItems(m map[string]*int64, coll map[string]*collapsed) []string {
	var out []string
	for _, x := range mostFirst(m, func(k string) bool { return coll[path.Base(k)] != nil }) {
		out = append(out, x.k+"/ "+textfmt.Int(x.n))
	}
	return out
}

// counted is a name and how many it counts.
type counted struct {
	k string
	n int64
}

// mostFirst returns the counts of m, most first, then by name, leaving
// out the names skip reports (skip may be nil).
func mostFirst(m map[string]*int64, skip func(string) bool) []counted {
	var kvs []counted
	for k, n := range m {
		if skip == nil || !skip(k) {
			kvs = append(kvs, counted{k, *n})
		}
	}
	sort.Slice(kvs, func(i, j int) bool {
		if kvs[i].n != kvs[j].n {
			return kvs[i].n > kvs[j].n
		}
		return kvs[i].k < kvs[j].k
	})
	return kvs
}

func sortedCollapsed(m map[string]*collapsed) []*collapsed {
	var cs []*collapsed
	for _, c := range m {
		if c.entries > 0 {
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].entries != cs[j].entries {
			return cs[i].entries > cs[j].entries
		}
		return cs[i].name < cs[j].name
	})
	return cs
}

// collapsedLine sums up one collapsed directory name.
func (v *dirView) collapsedLine(c *collapsed) string {
	places := int64(len(c.places)) + c.morePlaces
	s := fmt.Sprintf("collapsed %s/: %s (%s, %s)", c.name, entriesText(c.entries), textfmt.Plural(c.files, "file"), textfmt.Plural(c.dirs, "dir"))
	if places == 1 {
		s += " in " + c.places[0] + "/"
	} else {
		s += " in " + textfmt.Int(places) + " places: "
		for i, p := range c.places {
			if i == 3 {
				s += ", …"
				break
			}
			if i > 0 {
				s += ", "
			}
			s += p + "/ (" + textfmt.Int(*c.placeCount[p]) + ")"
		}
	}
	return s + "; first at line " + textfmt.Int(c.firstLine)
}

// indexLines lists the shallowest paths the excerpts do not show, in
// listing order with their line numbers, within room tokens, leaving out
// the lines in skip (shown already).
func (v *dirView) indexLines(st *dirStats, room int, skip map[int64]bool) []string {
	if len(st.index) == 0 || room <= 0 {
		return nil
	}
	var cands []indexed
	for _, x := range st.index {
		if !skip[x.line] {
			cands = append(cands, x)
		}
	}
	sort.Slice(cands, func(i, j int) bool { return indexAfter(cands[j], cands[i]) })
	var maxLine int64
	for _, x := range cands {
		maxLine = max(maxLine, x.line)
	}
	width := len(strconv.FormatInt(maxLine, 10))
	entry := func(x indexed) string {
		num := strconv.FormatInt(x.line, 10)
		s := "  " + strings.Repeat(" ", width-len(num)) + num + " " + x.path
		if x.dir {
			s += "/"
		}
		if c := st.coll[path.Base(x.path)]; c != nil && !x.inner {
			if n := c.placeCount[x.path]; n != nil {
				s += " (collapsed: " + entriesText(*n) + ")"
			}
		}
		return s
	}
	headingFor := func(n int64) string {
		return fmt.Sprintf("[%s of the %s entries in the omitted lines, the shallowest first (line: path)]", textfmt.Int(n), textfmt.Int(st.inGaps))
	}
	used := v.e.Cost(headingFor(st.inGaps))
	var chosen []indexed
	for _, x := range cands {
		c := v.e.Cost(entry(x))
		if used+c > room {
			break
		}
		used += c
		chosen = append(chosen, x)
	}
	if len(chosen) == 0 {
		return nil
	}
	sort.Slice(chosen, func(i, j int) bool { return chosen[i].line < chosen[j].line })
	out := []string{headingFor(int64(len(chosen)))}
	for _, x := range chosen {
		out = append(out, entry(x))
	}
	return out
}
