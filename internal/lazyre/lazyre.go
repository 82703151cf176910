// Package lazyre holds regular expressions that are compiled on first use
// rather than when the program starts.
//
// Every crumb command is one binary, so every package-level
// regexp.MustCompile of every package ran at each start: some 90 of them,
// a sixth of the CPU time of "crumb version", and of "crumb read" of a
// page, which use none of them. A
// [Regexp] declared with [New] costs nothing until a method is called; it
// then compiles once and behaves exactly as regexp.MustCompile's result,
// panicking on the first use of a bad expression. [CompileAll] compiles
// every one declared so far, for tests that want a bad expression caught
// without reaching the code that uses it.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled by regexp.MustCompile when one of
// its methods is first called. It is safe for concurrent use.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns a Regexp of expr, in the syntax of package regexp, compiled
// on first use.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// CompileAll compiles every Regexp made by New so far and returns the
// first expression that does not compile, as regexp.Compile's error.
func CompileAll() error {
	mu.Lock()
	rs := all[:len(all):len(all)]
	mu.Unlock()
	for _, r := range rs {
		if _, err := regexp.Compile(r.expr); err != nil {
			return err
		}
		r.re()
	}
	return nil
}

// re returns the compiled expression, compiling it on the first call.
func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

// String returns the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// MatchString reports whether s contains a match of r.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// Match reports whether b contains a match of r.
func (r *Regexp) Match(b []byte) bool { return r.re().Match(b) }

// FindAllString returns up to n successive matches of r in s (all of them
// for n < 0), as regexp.Regexp.FindAllString does.
func (r *Regexp) FindAllString(s string, n int) []string { return r.re().FindAllString(s, n) }

// FindAllStringSubmatch returns up to n successive matches of r in s with
// their submatches (all of them for n < 0), as
// regexp.Regexp.FindAllStringSubmatch does.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

// ReplaceAll returns a copy of src with every match of r replaced by repl,
// in which $ signs are expanded, as regexp.Regexp.ReplaceAll does.
func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.re().ReplaceAll(src, repl) }

// FindAllStringSubmatchIndex returns the index pairs of up to n successive
// matches of r in s and of their submatches (all of them for n < 0), as
// regexp.Regexp.FindAllStringSubmatchIndex does.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}

// FindSubmatch returns the leftmost match of r in b and its submatches, or
// nil, as regexp.Regexp.FindSubmatch does.
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }

// FindSubmatchIndex returns the index pairs of the leftmost match of r in b
// and of its submatches, or nil, as regexp.Regexp.FindSubmatchIndex does.
func (r *Regexp) FindSubmatchIndex(b []byte) []int { return r.re().FindSubmatchIndex(b) }

// FindStringSubmatch returns the leftmost match of r in s and its
// submatches, or nil, as regexp.Regexp.FindStringSubmatch does.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// ReplaceAllStringFunc returns a copy of src with every match of r replaced
// by what repl returns for it, as regexp.Regexp.ReplaceAllStringFunc does.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
