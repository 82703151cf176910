package project

// The patterns that find definitions line by line, one matcher a language.
// A matcher gets a line without its indentation and the indentation's width
// (a tab counts 4), and returns the definition the line starts, if any.

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Comment recognisers: t is a trimmed, non-empty line.

func slashComment(t []byte) bool {
	return bytes.HasPrefix(t, []byte("//")) || bytes.HasPrefix(t, []byte("/*")) || t[0] == '*' && (len(t) == 1 || t[1] == ' ' || t[1] == '/')
}

func jsComment(t []byte) bool { return slashComment(t) || t[0] == '@' }

func rustComment(t []byte) bool { return slashComment(t) || bytes.HasPrefix(t, []byte("#[")) }

func hashComment(t []byte) bool { return t[0] == '#' }

func hashOrDecorator(t []byte) bool { return t[0] == '#' || t[0] == '@' }

// identAt returns the identifier at the start of b.
func identAt(b []byte) string {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == '_' || r == '$' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r) {
			i += n
			continue
		}
		break
	}
	return string(b[:i])
}

// cutWord removes the keyword w and the spaces after it from the start of
// t; w must be followed by a space.
func cutWord(t []byte, w string) ([]byte, bool) {
	if len(t) > len(w) && string(t[:len(w)]) == w && (t[len(w)] == ' ' || t[len(w)] == '\t') {
		return bytes.TrimLeft(t[len(w):], " \t"), true
	}
	return t, false
}

// sigText renders a definition's line for the outline: without a trailing
// "{" or ":", white space collapsed, bounded.
func sigText(t []byte) string {
	t = bytes.TrimRight(t, " \t")
	t = bytes.TrimSuffix(t, []byte("{"))
	t = bytes.TrimRight(t, " \t")
	return defText(t)
}

// openSig renders a definition line whose parameters go on over the next
// lines with "…)" closing them.
func openSig(t []byte) string {
	s := sigText(t)
	if strings.Count(s, "(") > strings.Count(s, ")") && !strings.HasSuffix(s, "…") {
		s = strings.TrimSuffix(s, ",") + " …)"
	}
	return s
}

// braceBalance counts "{" minus "}" outside of quotes and line comments.
func braceBalance(t []byte) (opens, net int) {
	var quote byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(t) && t[i+1] == '/':
			return opens, net
		case c == '{':
			opens++
			net++
		case c == '}':
			net--
		}
	}
	return opens, net
}

// braceSingle reports whether a definition line holds its whole body (or is
// a declaration without one).
func braceSingle(t []byte) bool {
	opens, net := braceBalance(t)
	return opens > 0 && net <= 0 || bytes.HasSuffix(t, []byte(";"))
}

func exportedName(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// matchGo recognises top-level Go declarations, for files go/parser does not
// take (too large, numbered by a tool, or not parseable).
func matchGo(t []byte, indent int) (defHit, bool) {
	if indent != 0 {
		return defHit{}, false
	}
	if rest, ok := cutWord(t, "func"); ok {
		h := defHit{text: sigText(t)}
		if len(rest) > 0 && rest[0] == '(' {
			i := bytes.IndexByte(rest, ')')
			if i < 0 {
				return defHit{}, false
			}
			recv := bytes.Fields(rest[1:i])
			h.name = identAt(bytes.TrimLeft(rest[i+1:], " "))
			if len(recv) > 0 {
				r := string(bytes.TrimLeft(recv[len(recv)-1], "*"))
				if j := strings.IndexByte(r, '['); j >= 0 {
					r = r[:j]
				}
				h.alt = r + "." + h.name
				h.score = 4
				if exportedName(h.name) {
					h.score = 5
					if exportedName(r) {
						h.score = 8
					}
				}
			}
		} else {
			h.name = identAt(rest)
			h.score = 5
			if exportedName(h.name) {
				h.score = 9
			}
		}
		h.single = braceSingle(t)
		return h, h.name != ""
	}
	if rest, ok := cutWord(t, "type"); ok {
		h := defHit{name: identAt(rest), text: sigText(t), score: 6}
		if exportedName(h.name) {
			h.score = 10
		}
		h.single = braceSingle(t) || !bytes.HasSuffix(t, []byte("{"))
		return h, h.name != ""
	}
	for _, kw := range []string{"const", "var"} {
		if rest, ok := cutWord(t, kw); ok || bytes.Equal(t, []byte(kw+" (")) {
			h := defHit{name: identAt(rest), text: sigText(t), score: 2}
			if bytes.HasPrefix(rest, []byte("(")) {
				h.text = kw + " (…)"
			}
			if exportedName(h.name) {
				h.score = 3
			}
			h.single = !bytes.HasSuffix(t, []byte("("))
			return h, true
		}
	}
	return defHit{}, false
}

func matchPython(t []byte, indent int) (defHit, bool) {
	rest, _ := cutWord(t, "async")
	kind := ""
	if r, ok := cutWord(rest, "def"); ok {
		rest, kind = r, "def"
	} else if r, ok := cutWord(rest, "class"); ok {
		rest, kind = r, "class"
	} else {
		return defHit{}, false
	}
	h := defHit{name: identAt(rest), text: openSig(bytes.TrimSuffix(t, []byte(":")))}
	if h.name == "" {
		return defHit{}, false
	}
	switch {
	case kind == "class" && indent == 0:
		h.score = 8
	case indent == 0:
		h.score = 7
	default:
		h.score = 5
	}
	if strings.HasPrefix(h.name, "_") {
		// Private, or a dunder method such as __init__ that its class
		// already stands for.
		h.score -= 2
	}
	return h, true
}

var jsKeywords = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true, "function": true,
	"new": true, "else": true, "do": true, "try": true, "typeof": true, "await": true, "yield": true, "with": true,
	"super": true, "this": true, "throw": true, "case": true, "delete": true, "void": true, "import": true,
}

func matchJS(t []byte, indent int) (defHit, bool) {
	s := t
	exported, declared := false, false
	for again := true; again; {
		again = false
		for _, w := range []string{"export", "default", "declare", "abstract", "async", "public", "private", "protected", "static", "readonly", "override"} {
			if r, ok := cutWord(s, w); ok {
				s, again = r, true
				exported = exported || w == "export"
				declared = declared || w == "declare"
			}
		}
	}
	h := defHit{text: sigText(t)}
	bonus := 0
	if exported {
		bonus = 1
	}
	switch {
	case bytes.HasPrefix(s, []byte("function")) && len(s) > 8 && (s[8] == ' ' || s[8] == '*' || s[8] == '('):
		h.name = identAt(bytes.TrimLeft(s[8:], " *"))
		h.score = 7 + bonus
	case bytes.HasPrefix(s, []byte("class ")):
		h.name = identAt(s[6:])
		h.score = 8 + bonus
	case bytes.HasPrefix(s, []byte("interface ")):
		h.name = identAt(s[10:])
		h.score = 7 + bonus
	case bytes.HasPrefix(s, []byte("enum ")), bytes.HasPrefix(s, []byte("const enum ")):
		h.name = identAt(bytes.TrimPrefix(bytes.TrimPrefix(s, []byte("const ")), []byte("enum ")))
		h.score = 6 + bonus
	case bytes.HasPrefix(s, []byte("namespace ")):
		h.name = identAt(s[10:])
		h.score = 6 + bonus
	case bytes.HasPrefix(s, []byte("type ")):
		h.name = identAt(s[5:])
		rest := bytes.TrimLeft(s[5+len(h.name):], " ")
		if h.name == "" || len(rest) == 0 || rest[0] != '=' && rest[0] != '<' {
			return defHit{}, false
		}
		h.score = 5 + bonus
	default:
		for _, w := range []string{"const", "let", "var"} {
			r, ok := cutWord(s, w)
			if !ok {
				continue
			}
			h.name = identAt(r)
			if h.name == "" {
				return defHit{}, false
			}
			if declared && bytes.HasPrefix(bytes.TrimLeft(r[len(h.name):], " "), []byte(":")) {
				// A declaration file's "declare const Name: Type".
				h.score = 4 + bonus
				break
			}
			eq := bytes.Index(r, []byte("= "))
			if eq < 0 {
				return defHit{}, false
			}
			v := bytes.TrimLeft(r[eq+2:], " ")
			fnLike := bytes.HasPrefix(v, []byte("function")) || bytes.HasPrefix(v, []byte("class")) || isArrow(v)
			switch {
			case fnLike:
				h.score = 6 + bonus
			case exported && w == "const":
				h.score = 4
			default:
				return defHit{}, false
			}
			if indent > 0 {
				h.score -= 2
			}
			break
		}
		if h.name == "" {
			if name, ok := callLandmark(s); ok {
				// server.registerTool("read_file", {, describe("x", () => {,
				// app.get("/users", ...: a call that opens a block under a
				// name worth finding.
				h.name, h.score = name, 3
				if indent == 0 {
					h.score = 4
				}
				h.single = false
				return h, true
			}
			// A method of a class or an object literal.
			if indent == 0 || !bytes.HasSuffix(t, []byte("{")) {
				return defHit{}, false
			}
			for _, w := range []string{"get", "set", "*"} {
				if r, ok := cutWord(s, w); ok {
					s = r
				}
			}
			s = bytes.TrimPrefix(s, []byte("#"))
			name := identAt(s)
			rest := bytes.TrimLeft(s[len(name):], " ?")
			if name == "" || jsKeywords[name] || len(rest) == 0 || rest[0] != '(' && rest[0] != '<' {
				return defHit{}, false
			}
			h.name = name
			h.score = 4
			if !strings.HasPrefix(name, "_") && !bytes.Contains(t[:len(t)-len(s)], []byte("private")) {
				h.score = 5
			}
		}
	}
	if h.name == "" {
		return defHit{}, false
	}
	h.single = braceSingle(t) || !bytes.HasSuffix(t, []byte("{")) && !bytes.HasSuffix(t, []byte("(")) && !bytes.HasSuffix(t, []byte("=>"))
	return h, true
}

// isArrow reports whether a JavaScript value starts with an arrow function:
// "async (a, b) =>", "(x: T): U =>", "x =>".
func isArrow(v []byte) bool {
	v, _ = cutWord(v, "async")
	if len(v) > 0 && v[0] == '(' {
		depth := 0
		for i, c := range v {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					rest := bytes.TrimLeft(v[i+1:], " ")
					if len(rest) > 0 && rest[0] == ':' {
						// A return type: the arrow follows it on this line.
						return bytes.Contains(rest, []byte("=>"))
					}
					return bytes.HasPrefix(rest, []byte("=>"))
				}
			}
		}
		return false
	}
	name := identAt(v)
	return name != "" && bytes.HasPrefix(bytes.TrimLeft(v[len(name):], " "), []byte("=>"))
}

// callLandmark recognises a call whose first argument is a string and which
// opens a block on its line, and returns the string.
func callLandmark(s []byte) (string, bool) {
	i := 0
	for i < len(s) && (s[i] == '.' || s[i] == '_' || s[i] == '$' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 || i+2 >= len(s) || s[i] != '(' || jsKeywords[string(s[:i])] {
		return "", false
	}
	q := s[i+1]
	if q != '"' && q != '\'' && q != '`' {
		return "", false
	}
	end := bytes.IndexByte(s[i+2:], q)
	if end <= 0 || end > 80 {
		return "", false
	}
	last := s[len(s)-1]
	if last != '{' && last != '(' && last != ',' && last != '>' && last != '[' {
		return "", false
	}
	return string(s[i+2 : i+2+end]), true
}

func matchRust(t []byte, indent int) (defHit, bool) {
	s := t
	pub := false
	if bytes.HasPrefix(s, []byte("pub(")) {
		if i := bytes.IndexByte(s, ')'); i > 0 {
			s, pub = bytes.TrimLeft(s[i+1:], " "), true
		}
	} else if r, ok := cutWord(s, "pub"); ok {
		s, pub = r, true
	}
	for again := true; again; {
		again = false
		for _, w := range []string{"default", "async", "unsafe", "const", "extern"} {
			if w == "const" && !(bytes.HasPrefix(s, []byte("const fn")) || bytes.HasPrefix(s, []byte("const unsafe"))) {
				continue
			}
			if r, ok := cutWord(s, w); ok {
				s, again = r, true
				if w == "extern" && len(s) > 0 && s[0] == '"' {
					if i := bytes.IndexByte(s[1:], '"'); i >= 0 {
						s = bytes.TrimLeft(s[i+2:], " ")
					}
				}
			}
		}
	}
	h := defHit{text: sigText(t)}
	bonus := 0
	if pub {
		bonus = 1
	}
	top := indent == 0
	switch {
	case bytes.HasPrefix(s, []byte("fn ")):
		h.name = identAt(s[3:])
		h.score = 5 + bonus
		if top {
			h.score = 7 + bonus
		}
	case bytes.HasPrefix(s, []byte("struct ")), bytes.HasPrefix(s, []byte("enum ")), bytes.HasPrefix(s, []byte("trait ")), bytes.HasPrefix(s, []byte("union ")):
		_, r, _ := bytes.Cut(s, []byte(" "))
		h.name = identAt(r)
		h.score = 7 + bonus
	case bytes.HasPrefix(s, []byte("impl")) && len(s) > 4 && (s[4] == ' ' || s[4] == '<'):
		r := s[4:]
		if r[0] == '<' {
			r = skipAngles(r)
		}
		r = bytes.TrimLeft(r, " ")
		typ := identAt(r)
		if _, after, ok := bytes.Cut(r, []byte(" for ")); ok {
			h.alt = typ
			typ = identAt(bytes.TrimLeft(after, " "))
		}
		h.name = typ
		h.score = 6
		if braceSingle(t) {
			h.score = 2 // an empty impl, such as a marker trait's
		}
	case bytes.HasPrefix(s, []byte("mod ")):
		h.name = identAt(s[4:])
		h.score = 5 + bonus
	case bytes.HasPrefix(s, []byte("macro_rules! ")):
		h.name = identAt(s[13:])
		h.score = 5
	case bytes.HasPrefix(s, []byte("type ")) && top:
		h.name = identAt(s[5:])
		h.score = 4 + bonus
	default:
		return defHit{}, false
	}
	if h.name == "" {
		return defHit{}, false
	}
	h.single = braceSingle(t)
	return h, true
}

func skipAngles(b []byte) []byte {
	depth := 0
	for i, c := range b {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return b[i+1:]
			}
		}
	}
	return nil
}

var objModifiers = []string{"public", "private", "protected", "internal", "static", "final", "abstract", "sealed", "open",
	"data", "inner", "partial", "readonly", "unsafe", "override", "virtual", "async", "suspend", "inline", "tailrec",
	"operator", "infix", "external", "synchronized", "native", "default", "fileprivate", "mutating", "extern", "new", "const"}

var objStatements = map[string]bool{
	"return": true, "new": true, "throw": true, "else": true, "case": true, "await": true, "yield": true, "goto": true,
	"using": true, "lock": true, "if": true, "for": true, "while": true, "switch": true, "catch": true, "foreach": true,
	"do": true, "try": true, "var": true, "val": true, "let": true, "when": true, "guard": true, "defer": true, "assert": true,
}

// matchObj recognises classes and methods of Java, Kotlin, C#, Scala and
// Swift.
func matchObj(t []byte, indent int) (defHit, bool) {
	s := t
	mods := 0
	public := false
	for again := true; again; {
		again = false
		for _, w := range objModifiers {
			if r, ok := cutWord(s, w); ok {
				s, again = r, true
				mods++
				public = public || w == "public"
			}
		}
	}
	h := defHit{text: sigText(t)}
	for _, kw := range []string{"class", "interface", "enum", "record", "struct", "object", "trait", "protocol", "extension", "namespace", "@interface", "enum class"} {
		if r, ok := cutWord(s, kw); ok {
			h.name = identAt(r)
			h.score = 7
			if indent == 0 || public {
				h.score = 8
			}
			h.single = braceSingle(t)
			return h, h.name != ""
		}
	}
	for _, kw := range []string{"fun", "func", "def"} {
		if r, ok := cutWord(s, kw); ok {
			if len(r) > 0 && r[0] == '<' {
				r = bytes.TrimLeft(skipAngles(r), " ")
			}
			name := identAt(r)
			// Kotlin extension functions: fun Type.name(...)
			for len(r) > len(name) && r[len(name)] == '.' {
				r = r[len(name)+1:]
				name = identAt(r)
			}
			h.name = name
			h.score = 5
			if indent == 0 {
				h.score = 6
			}
			h.single = braceSingle(t) || !bytes.HasSuffix(t, []byte("{"))
			return h, h.name != ""
		}
	}
	// A method: [modifiers] [type] name(args) [throws ...] [{]
	open := bytes.IndexByte(s, '(')
	if open <= 0 || bytes.HasSuffix(t, []byte(";")) || bytes.HasSuffix(t, []byte(",")) {
		return defHit{}, false
	}
	head := bytes.TrimRight(s[:open], " ")
	if bytes.ContainsAny(head, "=.(") || len(head) == 0 {
		return defHit{}, false
	}
	words := bytes.Fields(head)
	name := string(words[len(words)-1])
	if identAt([]byte(name)) != name || objStatements[string(words[0])] || objStatements[name] {
		return defHit{}, false
	}
	if len(words) == 1 && mods == 0 {
		// A constructor has modifiers; a bare call does not.
		return defHit{}, false
	}
	if !bytes.HasSuffix(t, []byte("{")) && !bytes.HasSuffix(t, []byte(")")) && !bytes.Contains(t, []byte(" throws ")) {
		return defHit{}, false
	}
	h.name = name
	h.score = 4
	if public {
		h.score = 5
	}
	h.single = braceSingle(t)
	return h, true
}

var cKeywords = map[string]bool{
	"if": true, "else": true, "for": true, "while": true, "return": true, "switch": true, "case": true, "do": true,
	"goto": true, "sizeof": true, "typedef": true, "extern": true, "using": true, "template": true, "static_assert": true,
}

// matchC recognises C and C++ functions at the left margin, and structs,
// classes, unions, enums and namespaces.
func matchC(t []byte, indent int) (defHit, bool) {
	if t[0] == '#' || t[0] == '{' || t[0] == '}' || t[0] == ':' {
		return defHit{}, false
	}
	s := t
	if r, ok := cutWord(s, "typedef"); ok {
		s = r
	}
	for _, kw := range []string{"struct", "class", "union", "enum", "namespace", "enum class"} {
		if r, ok := cutWord(s, kw); ok {
			name := identAt(r)
			rest := bytes.TrimLeft(r[len(name):], " ")
			if bytes.HasSuffix(t, []byte(";")) && !bytes.Contains(t, []byte("{")) {
				return defHit{}, false // a forward declaration or a variable
			}
			if len(rest) > 0 && rest[0] != '{' && rest[0] != ':' && rest[0] != 'f' {
				return defHit{}, false // "struct x *f(...)" is a function, below
			}
			h := defHit{name: name, text: sigText(t), score: 7, single: braceSingle(t)}
			if kw == "namespace" {
				h.score = 5
			}
			if indent > 0 {
				h.score -= 2
			}
			return h, true
		}
	}
	if indent != 0 {
		return defHit{}, false
	}
	open := bytes.IndexByte(t, '(')
	if open <= 0 || bytes.HasSuffix(t, []byte(";")) || bytes.HasSuffix(t, []byte(",")) {
		return defHit{}, false
	}
	head := bytes.TrimRight(t[:open], " ")
	if bytes.ContainsAny(head, "=\"'") {
		return defHit{}, false
	}
	// The name is the last word before "(", possibly qualified (A::b).
	i := len(head)
	for i > 0 {
		c := head[i-1]
		if c == '_' || c == ':' || c == '~' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			i--
			continue
		}
		break
	}
	name := string(head[i:])
	first := identAt(t)
	if name == "" || cKeywords[first] || cKeywords[name] {
		return defHit{}, false
	}
	h := defHit{name: name, text: sigText(t), score: 6}
	if j := strings.LastIndex(name, "::"); j >= 0 {
		h.alt, h.name = name, name[j+2:]
	}
	if first == "static" {
		h.score = 4
	}
	h.single = braceSingle(t)
	return h, true
}

// matchCpp adds to matchC the member functions defined inside classes:
// an indented "name(args)" line, alone or after its return type, that opens
// or leads to a body rather than ending a statement.
func matchCpp(t []byte, indent int) (defHit, bool) {
	if h, ok := matchC(t, indent); ok || indent == 0 || indent > 8 {
		return h, ok
	}
	if t[0] == '#' || t[0] == '{' || t[0] == '}' || t[0] == ':' || bytes.HasSuffix(t, []byte(";")) || bytes.HasSuffix(t, []byte(",")) {
		return defHit{}, false
	}
	open := bytes.IndexByte(t, '(')
	if open <= 0 || bytes.ContainsAny(t[:open], "=\"'<>.") {
		return defHit{}, false
	}
	words := bytes.Fields(t[:open])
	name := string(words[len(words)-1])
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	first := string(words[0])
	if cKeywords[first] || cKeywords[name] || objStatements[first] || objStatements[name] || identAt([]byte(strings.TrimPrefix(name, "~"))) != strings.TrimPrefix(name, "~") {
		return defHit{}, false
	}
	closeParen := bytes.LastIndexByte(t, ')')
	if closeParen < open {
		return defHit{}, false
	}
	rest := bytes.TrimSpace(t[closeParen+1:])
	for _, q := range []string{"const", "noexcept", "override", "final", "&", "&&"} {
		rest = bytes.TrimSpace(bytes.TrimPrefix(rest, []byte(q)))
	}
	if len(rest) > 0 && rest[0] != '{' && rest[0] != ':' {
		return defHit{}, false
	}
	h := defHit{name: name, text: sigText(t), score: 4, single: braceSingle(t)}
	if !strings.HasPrefix(name, "_") {
		h.score = 5
	}
	return h, true
}

func matchRuby(t []byte, indent int) (defHit, bool) {
	for _, kw := range []string{"def", "class", "module"} {
		if r, ok := cutWord(t, kw); ok {
			r = bytes.TrimPrefix(r, []byte("self."))
			name := identAt(r)
			if name == "" {
				return defHit{}, false
			}
			h := defHit{name: name, text: defText(t), score: 5}
			switch {
			case kw != "def" && indent == 0:
				h.score = 8
			case kw != "def":
				h.score = 6
			case indent == 0:
				h.score = 6
			}
			if n := len(name) + 1; kw == "def" && bytes.Contains(r[min(len(r), n):], []byte("; end")) {
				h.single = true
			}
			return h, true
		}
	}
	return defHit{}, false
}

func matchShell(t []byte, indent int) (defHit, bool) {
	s, fn := cutWord(t, "function")
	name := s
	j := 0
	for j < len(name) && (name[j] == '_' || name[j] == '-' || name[j] == '.' || name[j] == ':' ||
		name[j] >= '0' && name[j] <= '9' || name[j] >= 'a' && name[j] <= 'z' || name[j] >= 'A' && name[j] <= 'Z') {
		j++
	}
	if j == 0 {
		return defHit{}, false
	}
	rest := bytes.TrimLeft(name[j:], " ")
	if !fn && !bytes.HasPrefix(rest, []byte("()")) {
		return defHit{}, false
	}
	h := defHit{name: string(name[:j]), text: sigText(t), score: 6}
	if indent > 0 {
		h.score = 4
	}
	h.single = braceSingle(t)
	return h, true
}

// matchYAML finds a mapping key that opens a block ("paths:",
// "  '/pets/{id}':", "    oauth2:"): the definitions of a YAML document,
// each ending where a line is indented as little as its key. A key with
// its value on the same line is a member, not a definition.
func matchYAML(t []byte, indent int) (defHit, bool) {
	if len(t) == 0 || t[0] == '#' || t[0] == '-' {
		return defHit{}, false
	}
	var key, rest []byte
	if q := t[0]; q == '\'' || q == '"' {
		end := bytes.IndexByte(t[1:], q)
		if end < 0 || len(t) < end+3 || t[end+2] != ':' {
			return defHit{}, false
		}
		key, rest = t[1:1+end], t[end+3:]
	} else {
		i := bytes.IndexByte(t, ':')
		if i <= 0 || bytes.ContainsAny(t[:i], "#{}[],&*!|>'\"") {
			return defHit{}, false
		}
		key, rest = t[:i], t[i+1:]
	}
	if rest = bytes.TrimSpace(rest); len(rest) > 0 && rest[0] != '#' && rest[0] != '&' {
		return defHit{}, false
	}
	h := defHit{name: string(bytes.TrimSpace(key)), text: string(t)}
	if h.name == "" {
		return defHit{}, false
	}
	h.score = max(7-indent/2, 3)
	return h, true
}
