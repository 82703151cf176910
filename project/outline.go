package project

import (
	"bytes"
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/project/sections"
)

// A def is a definition found in a source file (a function, a type, a class)
// or a heading of a document: what an outline lists.
type srcDef struct {
	line  int64  // the line of its keyword or heading
	start int64  // the first line of its doc comment or decorators (<= line)
	end   int64  // its last line; 0 while unknown
	depth int    // nesting, shown as indentation
	score int    // importance: the least important are dropped first
	ord   int    // its place among the file's definitions, from 0
	name  string // its name, for symbol and intent matching
	alt   string // a qualified name it also answers to ("Server.Serve")
	text  string // its signature or heading, as the outline shows it
	// printed is its line as a tool printed it, number included, when the
	// tool numbered the lines: what the outline shows instead of text, so
	// that the entry reads as the agent saw the line.
	printed string
}

// lang describes how definitions are found in one language.
type srcLang struct {
	name string
	// grep is an RE2 pattern that finds the language's definitions, for the
	// hint that lists those an outline leaves out.
	grep string
	// match recognises a definition on a line (t is the line without its
	// indentation); nil for languages handled elsewhere.
	match func(t []byte, indent int) (defHit, bool)
	// closing says how a definition's end is found.
	closing closeMode
	// comment reports a line (t trimmed) that belongs to the next
	// definition's doc: a comment, a decorator, an attribute.
	comment func(t []byte) bool
}

// hit is a definition found on one line.
type defHit struct {
	name, alt, text string
	score           int
	// single reports that the definition ends on the same line.
	single bool
}

type closeMode int

const (
	closeBrace   closeMode = iota // ends at a "}" as indented as it starts
	closeIndent                   // ends before the next line indented as little as it (Python)
	closeEnd                      // ends at an "end" as indented as it starts (Ruby)
	closeHeading                  // ends before the next heading of its level or higher (Markdown)
)

var (
	langGo = &srcLang{name: "Go", grep: `^(func|type) `, match: matchGo, closing: closeBrace, comment: slashComment}
	langPy = &srcLang{name: "Python", grep: `^\s*(async def|def|class) `, match: matchPython, closing: closeIndent, comment: hashOrDecorator}
	langJS = &srcLang{name: "JavaScript", grep: `^\s*(export |async )*(function|class|const|interface|type) `, match: matchJS, closing: closeBrace, comment: jsComment}
	langTS = &srcLang{name: "TypeScript", grep: langJS.grep, match: matchJS, closing: closeBrace, comment: jsComment}
	langRs = &srcLang{name: "Rust", grep: `^\s*(pub(\([a-z ]+\))? )?(async |unsafe |const )*(fn|struct|enum|trait|impl|mod) `, match: matchRust, closing: closeBrace, comment: rustComment}
	langC  = &srcLang{name: "C", grep: `^[A-Za-z_].*\(`, match: matchC, closing: closeBrace, comment: slashComment}
	langCc = &srcLang{name: "C++", grep: `^\s*([A-Za-z_~].*\(|(class|struct|namespace) )`, match: matchCpp, closing: closeBrace, comment: slashComment}
	langJv = &srcLang{name: "Java", grep: `^\s*(public|protected|private|class|interface|enum|record)\b`, match: matchObj, closing: closeBrace, comment: jsComment}
	langKt = &srcLang{name: "Kotlin", grep: `^\s*(.* )?(fun|class|object|interface) `, match: matchObj, closing: closeBrace, comment: jsComment}
	langCs = &srcLang{name: "C#", grep: `^\s*(public|protected|private|internal|class|interface|enum|record|struct|namespace)\b`, match: matchObj, closing: closeBrace, comment: jsComment}
	langSw = &srcLang{name: "Swift", grep: `^\s*(.* )?(func|class|struct|enum|protocol|extension) `, match: matchObj, closing: closeBrace, comment: jsComment}
	langRb = &srcLang{name: "Ruby", grep: `^\s*(def|class|module) `, match: matchRuby, closing: closeEnd, comment: hashComment}
	langSh = &srcLang{name: "shell", grep: `^\s*(function\s+)?[A-Za-z_][A-Za-z0-9_:.-]*\s*\(\)`, match: matchShell, closing: closeBrace, comment: hashComment}
	langMd = &srcLang{name: "Markdown", grep: `^#{1,6} `, closing: closeHeading}
	langYm = &srcLang{name: "YAML", grep: `^\s*[^\s#-][^:#]*:\s*$`, match: matchYAML, closing: closeIndent, comment: hashComment}
)

// langByExt maps file extensions to languages.
var langByExt = map[string]*srcLang{
	".go": langGo,
	".py": langPy, ".pyi": langPy, ".pyw": langPy,
	".js": langJS, ".mjs": langJS, ".cjs": langJS, ".jsx": langJS,
	".ts": langTS, ".mts": langTS, ".cts": langTS, ".tsx": langTS,
	".rs": langRs,
	".c":  langC, ".h": langC,
	".cc": langCc, ".cpp": langCc, ".cxx": langCc, ".hpp": langCc, ".hh": langCc, ".hxx": langCc,
	".java": langJv, ".kt": langKt, ".kts": langKt, ".scala": langKt,
	".cs": langCs, ".swift": langSw,
	".rb": langRb, ".rake": langRb,
	".sh": langSh, ".bash": langSh, ".zsh": langSh, ".ksh": langSh,
	".md": langMd, ".markdown": langMd, ".mdx": langMd,
}

// langOf picks a language from a file name, or else from the first lines.
func langOf(name string, head []byte) *srcLang {
	if name != "" {
		base := strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/")))
		if ext := path.Ext(base); (ext == ".yaml" || ext == ".yml") && yamlMapping(head) {
			return langYm
		}
		if l, ok := langByExt[path.Ext(base)]; ok {
			if l == langC && path.Ext(base) == ".h" && looksCpp(head) {
				return langCc
			}
			return l
		}
		switch base {
		case "makefile", "gnumakefile", "dockerfile":
			return nil
		case "rakefile", "gemfile":
			return langRb
		case "readme", "changelog":
			return langMd
		}
	}
	return sniffLang(head)
}

// yamlMapping reports whether a YAML document is a mapping at its top
// level (an OpenAPI document, a manifest, a lock file, a workflow), whose
// keys that open blocks are its definitions. A document that is a sequence
// of records (a list of test cases) repeats the same keys in every record:
// they name nothing.
func yamlMapping(head []byte) bool {
	for _, raw := range bytes.Split(head, []byte{'\n'}) {
		t := bytes.TrimSpace(raw)
		if len(t) == 0 || t[0] == '#' || bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("%")) {
			continue
		}
		return t[0] != '-' && len(raw) == len(bytes.TrimLeft(raw, " \t")) && bytes.IndexByte(t, ':') > 0
	}
	return false
}

// looksCpp reports whether a header's first lines hold C++.
func looksCpp(head []byte) bool {
	for _, m := range []string{"namespace ", "template<", "template <", "public:", "private:", "#include <c++", "std::", "class "} {
		if bytes.Contains(head, []byte(m)) {
			return true
		}
	}
	return false
}

// modelines maps the language names of editor modelines ("-*- mode: sh -*-",
// "vim: ft=python") to languages.
var modelines = map[string]*srcLang{
	"shell-script": langSh, "sh": langSh, "bash": langSh, "python": langPy, "ruby": langRb, "c": langC,
	"c++": langCc, "cpp": langCc, "go": langGo, "rust": langRs, "js": langJS, "javascript": langJS,
	"typescript": langTS, "java": langJv, "markdown": langMd,
}

// modeline finds an editor modeline in the first lines.
func modeline(head []byte) *srcLang {
	for i, raw := range bytes.SplitN(head, []byte{'\n'}, 6) {
		if i == 5 {
			break
		}
		l := string(bytes.ToLower(raw))
		if a := strings.Index(l, "-*-"); a >= 0 {
			if b := strings.Index(l[a+3:], "-*-"); b >= 0 {
				m := strings.TrimSpace(l[a+3 : a+3+b])
				m = strings.TrimSpace(strings.TrimPrefix(m, "mode:"))
				if lg := modelines[m]; lg != nil {
					return lg
				}
			}
		}
		for _, k := range []string{"vim: ft=", "vim: set ft=", "vim: filetype=", "vi: ft="} {
			if j := strings.Index(l, k); j >= 0 {
				if lg := modelines[strings.Fields(l[j+len(k):] + " ")[0]]; lg != nil {
					return lg
				}
			}
		}
	}
	return nil
}

// sniffLang guesses a language from the first lines of a file: its shebang,
// an editor modeline, or the keywords its lines start with.
func sniffLang(head []byte) *srcLang {
	if lg := modeline(head); lg != nil {
		return lg
	}
	if bytes.HasPrefix(head, []byte("#!")) {
		first, _, _ := bytes.Cut(head, []byte{'\n'})
		switch {
		case bytes.Contains(first, []byte("python")):
			return langPy
		case bytes.Contains(first, []byte("node")) || bytes.Contains(first, []byte("deno")):
			return langJS
		case bytes.Contains(first, []byte("ruby")):
			return langRb
		case bytes.Contains(first, []byte("sh")):
			return langSh
		}
	}
	votes := map[*srcLang]int{}
	prevHash, prevBlank := false, true
	for _, raw := range bytes.Split(head, []byte{'\n'}) {
		t := bytes.TrimSpace(view.StripNumber(raw))
		indent := len(raw) - len(bytes.TrimLeft(raw, " \t"))
		// A Markdown heading stands apart; a run of "# " lines is a
		// comment block.
		heading := prevBlank && !prevHash
		prevHash, prevBlank = len(t) > 0 && t[0] == '#', len(t) == 0
		switch {
		case hasWord(t, "package") && indent == 0 && !bytes.HasSuffix(t, []byte(";")):
			votes[langGo] += 3
		case bytes.HasPrefix(t, []byte("func ")) && bytes.Contains(t, []byte(") ")):
			votes[langGo]++
		case (hasWord(t, "def") || hasWord(t, "class")) && bytes.HasSuffix(t, []byte(":")):
			votes[langPy] += 2
		case hasWord(t, "import") && !bytes.HasSuffix(t, []byte(";")) && !bytes.Contains(t, []byte("\"")) && !bytes.Contains(t, []byte("'")):
			votes[langPy]++
		case bytes.HasPrefix(t, []byte("fn ")) || bytes.HasPrefix(t, []byte("pub fn ")) || bytes.HasPrefix(t, []byte("use ")) && bytes.Contains(t, []byte("::")):
			votes[langRs] += 2
		case bytes.HasPrefix(t, []byte("#include")):
			votes[langC] += 2
		case bytes.HasPrefix(t, []byte("export ")) || bytes.HasPrefix(t, []byte("import ")) && bytes.Contains(t, []byte(" from ")):
			votes[langTS] += 2
		case bytes.HasPrefix(t, []byte("const ")) && bytes.Contains(t, []byte("require(")):
			votes[langJS] += 2
		case bytes.Equal(t, []byte("fi")) || bytes.Equal(t, []byte("done")) || bytes.Equal(t, []byte("esac")) ||
			bytes.HasSuffix(t, []byte("; then")) || bytes.HasSuffix(t, []byte("; do")) || bytes.HasPrefix(t, []byte("local ")):
			votes[langSh] += 2
		case heading && (bytes.HasPrefix(t, []byte("# ")) && indent == 0 || bytes.HasPrefix(t, []byte("## "))):
			votes[langMd]++
		}
	}
	var best *srcLang
	for _, l := range []*srcLang{langGo, langPy, langRs, langC, langTS, langJS, langSh, langMd} {
		if votes[l] >= 2 && (best == nil || votes[l] > votes[best]) {
			best = l
		}
	}
	return best
}

func hasWord(t []byte, w string) bool {
	return bytes.HasPrefix(t, []byte(w+" ")) || bytes.HasPrefix(t, []byte(w+"\t"))
}

// maxOutlineLine is how much of a line the pattern scanners look at.
const maxOutlineLine = 1024

// maxGoParse is the largest Go file parsed with go/parser; larger ones are
// scanned with patterns, in bounded memory.
const maxGoParse = 8 << 20

// defFinder finds the definitions of one input, in line order.
type defFinder struct {
	in    *Input
	lang  *srcLang
	strip bool      // lines carry a tool's line numbers
	total int64     // lines
	goDef []*srcDef // the parsed Go definitions, once parsed
	goErr error
	tried bool
}

// each calls fn for every definition, in the order of their lines. A def's
// end is only known once later lines were scanned: fn may keep the pointer
// and read end after each returns.
func (f *defFinder) each(ctx context.Context, fn func(*srcDef)) error {
	if f.lang == nil {
		return nil
	}
	if f.lang == langGo && !f.strip && f.in.Source.Size() <= maxGoParse {
		if !f.tried {
			f.tried = true
			f.goDef, f.goErr = parseGo(f.in)
		}
		if f.goErr == nil {
			for i, d := range f.goDef {
				d.ord = i
				fn(d)
			}
			return nil
		}
	}
	n := 0
	return f.scan(ctx, func(d *srcDef) {
		d.ord = n
		n++
		fn(d)
	})
}

// grepPattern returns the search that lists the definitions, allowing for
// the line numbers a tool put in front of the lines.
func (f *defFinder) grepPattern() string {
	if !f.strip {
		return f.lang.grep
	}
	return `^\s*\d+(\t|→)(?:` + strings.TrimPrefix(f.lang.grep, "^") + `)`
}

// parseGo lists the declarations of a Go file with go/parser.
func parseGo(in *Input) ([]*srcDef, error) {
	size := in.Source.Size()
	src := make([]byte, size)
	if n, err := in.Source.ReadAt(src, 0); err != nil && !(errors.Is(err, io.EOF) && int64(n) == size) {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if f == nil || len(f.Decls) == 0 && err != nil {
		return nil, errors.New("project: not Go source")
	}
	line := func(p token.Pos) int64 { return int64(fset.Position(p).Line) }
	text := func(from, to token.Pos) string {
		a, b := fset.Position(from).Offset, fset.Position(to).Offset
		if a < 0 || b > len(src) || a >= b {
			return ""
		}
		return defText(src[a:b])
	}
	var out []*srcDef
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			x := &srcDef{line: line(d.Pos()), end: line(d.End()), name: d.Name.Name}
			x.start = x.line
			if d.Doc != nil {
				x.start = line(d.Doc.Pos())
			}
			end := d.End()
			if d.Body != nil {
				end = d.Body.Lbrace
			}
			x.text = text(d.Pos(), end)
			exported := ast.IsExported(d.Name.Name)
			switch {
			case d.Recv != nil && len(d.Recv.List) > 0:
				recv := recvName(d.Recv.List[0].Type)
				x.alt = recv + "." + d.Name.Name
				switch {
				case exported && ast.IsExported(recv):
					x.score = 8
				case exported:
					x.score = 5
				default:
					x.score = 4
				}
			case exported:
				x.score = 9
			case d.Name.Name == "main" || d.Name.Name == "init":
				x.score = 6
			default:
				x.score = 5
			}
			out = append(out, x)
		case *ast.GenDecl:
			doc := d.Doc
			switch d.Tok {
			case token.TYPE:
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					x := &srcDef{line: line(ts.Pos()), end: line(ts.End()), name: ts.Name.Name, score: 6}
					if d.Lparen == token.NoPos {
						x.end = line(d.End())
					}
					x.start = x.line
					if ts.Doc != nil {
						x.start = line(ts.Doc.Pos())
					} else if doc != nil && d.Lparen == token.NoPos {
						x.start = line(doc.Pos())
					}
					if ast.IsExported(ts.Name.Name) {
						x.score = 10
					}
					switch ts.Type.(type) {
					case *ast.StructType:
						x.text = "type " + ts.Name.Name + typeParams(ts, text) + " struct"
					case *ast.InterfaceType:
						x.text = "type " + ts.Name.Name + typeParams(ts, text) + " interface"
					default:
						x.text = "type " + text(ts.Pos(), ts.End())
					}
					if d.Lparen != token.NoPos {
						x.depth = 1
					}
					out = append(out, x)
				}
			case token.CONST, token.VAR:
				var names []string
				exported := false
				for _, s := range d.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						names = append(names, n.Name)
						exported = exported || ast.IsExported(n.Name)
					}
				}
				if len(names) == 0 {
					continue
				}
				x := &srcDef{line: line(d.Pos()), end: line(d.End()), name: names[0], score: 2}
				x.start = x.line
				if doc != nil {
					x.start = line(doc.Pos())
				}
				if exported {
					x.score = 3
				}
				if d.Lparen == token.NoPos {
					x.text = text(d.Pos(), d.End())
				} else {
					x.text = d.Tok.String() + " (" + nameList(names, 4) + ")"
				}
				out = append(out, x)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out, nil
}

func typeParams(ts *ast.TypeSpec, text func(a, b token.Pos) string) string {
	if ts.TypeParams == nil {
		return ""
	}
	return text(ts.TypeParams.Pos(), ts.TypeParams.End())
}

func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// nameList writes the first n names and how many more there are.
func nameList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + ", … " + strconv.Itoa(len(names)-n) + " more"
}

// maxDefText bounds the signature an outline shows for one definition.
const maxDefText = 110

// oneLine collapses runs of white space (newlines included) into single
// spaces and bounds the length.
func defText(b []byte) string {
	var sb strings.Builder
	space := false
	for _, r := range string(b) {
		if unicode.IsSpace(r) {
			space = sb.Len() > 0
			continue
		}
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			r = '?'
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		if sb.Len() >= maxDefText {
			sb.WriteString("…")
			break
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// openDef is a definition whose end has not been seen yet.
type openDef struct {
	d      *srcDef
	indent int
}

// maxOpen bounds the nesting the pattern scanner tracks.
const maxOpen = 32

// scan finds definitions line by line with the language's patterns, in one
// streaming pass.
func (f *defFinder) scan(ctx context.Context, fn func(*srcDef)) error {
	if f.lang == langMd {
		return f.scanHeadings(ctx, fn)
	}
	s := view.NewLineScanner(ctx, f.in.Source, f.in.Source.Size(), maxOutlineLine)
	var (
		stack    []openDef
		lastCode int64 // the last line that was neither blank nor a comment
		docStart int64 // the first line of the comment block right above
	)
	closeTo := func(indent int, end int64) {
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			if d := stack[len(stack)-1].d; d.end == 0 {
				d.end = max(end, d.line)
			}
			stack = stack[:len(stack)-1]
		}
	}
	push := func(d *srcDef, indent int) {
		if len(stack) < maxOpen {
			stack = append(stack, openDef{d, indent})
		}
	}
	for s.Scan() {
		raw := s.Text
		if f.strip {
			raw = view.StripNumber(raw)
		}
		t := bytes.TrimLeft(raw, " \t")
		indent := srcIndent(raw[:len(raw)-len(t)])
		t = bytes.TrimRight(t, " \t")
		line := s.Line
		if len(t) == 0 {
			docStart = 0
			continue
		}
		if f.lang.comment != nil && f.lang.comment(t) {
			if docStart == 0 {
				docStart = line
			}
			// A decorator is code for Python's indentation.
			if f.lang.closing == closeIndent && t[0] == '@' {
				closeTo(indent, lastCode)
			}
			continue
		}
		switch f.lang.closing {
		case closeIndent:
			closeTo(indent, lastCode)
		case closeBrace, closeEnd:
			if n := len(stack); n > 0 && indent <= stack[n-1].indent && closes(t, f.lang.closing) {
				closeTo(indent, line)
			}
		}
		if h, ok := f.lang.match(t, indent); ok {
			if f.lang.closing != closeIndent {
				closeTo(indent, lastCode)
			}
			d := &srcDef{line: line, start: line, name: h.name, alt: h.alt, text: h.text, score: h.score}
			if f.strip {
				d.printed = f.printedLine(s.Text, s.Cut)
			}
			if docStart > 0 {
				d.start = docStart
			}
			d.depth = len(stack)
			if h.single {
				d.end = line
			} else {
				push(d, indent)
			}
			fn(d)
		}
		lastCode = line
		docStart = 0
	}
	if err := s.Err(); err != nil {
		return err
	}
	last := lastCode
	if last == 0 {
		last = s.Line
	}
	closeTo(-1, last)
	return nil
}

// scanHeadings finds the headings of a Markdown document with the
// document segmenter (package sections), in one streaming pass.
func (f *defFinder) scanHeadings(ctx context.Context, fn func(*srcDef)) error {
	e := &view.Excerptor{In: viewInputOf(f.in), Doc: f.in.Doc(), Total: f.total}
	res, err := scanDocument(ctx, e, sections.Markdown, "", f.strip)
	if err != nil {
		return err
	}
	for _, h := range res.Sections {
		text := defText([]byte(h.Heading))
		fn(&srcDef{line: h.Line, start: h.Line, end: h.Last, name: text, score: headingScore(h.Level),
			text: strings.Repeat("#", min(h.Level, 6)) + " " + text})
	}
	return nil
}

// printedLine renders a line as a tool printed it, its number included,
// bounded like a signature.
func (f *defFinder) printedLine(raw []byte, cut bool) string {
	_, rest, _ := view.LineNumberPrefix(raw)
	prefix := raw[:len(raw)-len(rest)]
	rest = bytes.TrimRight(rest, " \t\r")
	if utf8.RuneCount(rest) > maxDefText {
		n, i := 0, 0
		for i < len(rest) && n < maxDefText {
			_, size := utf8.DecodeRune(rest[i:])
			i += size
			n++
		}
		rest, cut = rest[:i], true
	}
	s := f.in.Line(append(append([]byte(nil), prefix...), rest...), cut)
	if cut {
		s += "…"
	}
	return s
}

// closes reports whether a line ends a block: "}" for brace languages, "end"
// for Ruby.
func closes(t []byte, m closeMode) bool {
	if m == closeEnd {
		return bytes.Equal(t, []byte("end")) || bytes.HasPrefix(t, []byte("end ")) || bytes.HasPrefix(t, []byte("end#"))
	}
	return t[0] == '}' || t[0] == ')' && len(t) == 1
}

func srcIndent(ws []byte) int {
	n := 0
	for _, c := range ws {
		if c == '\t' {
			n += 4
		} else {
			n++
		}
	}
	return n
}

func headingScore(level int) int {
	switch level {
	case 1:
		return 10
	case 2:
		return 8
	case 3:
		return 6
	case 4:
		return 4
	}
	return 2
}
