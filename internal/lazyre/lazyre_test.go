package lazyre

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestNewCompilesOnFirstUse(t *testing.T) {
	r := New(`^(\w+)=(\d+)$`)
	if r.rx != nil {
		t.Fatalf("New compiled the expression before its first use")
	}
	if !r.MatchString("a=1") || r.MatchString("a=b") {
		t.Errorf("MatchString does not match as the expression says")
	}
	if n := testing.AllocsPerRun(100, func() { r.MatchString("a=1") }); n != 0 {
		t.Errorf("a match of a compiled expression allocates %v times", n)
	}
	if r.Regexp() != r.Regexp() {
		t.Errorf("the expression is compiled more than once")
	}
}

// TestSameAsRegexp checks that each method gives what the compiled
// expression's method of the same name gives.
func TestSameAsRegexp(t *testing.T) {
	const expr = `(\w+)@(\w+)`
	lz, re := New(expr), regexp.MustCompile(expr)
	for _, in := range []string{"", "none here", "a@b", "x a@b c@d y", "@@ q@r"} {
		b := []byte(in)
		checks := []struct {
			name      string
			got, want any
		}{
			{"String", lz.String(), re.String()},
			{"MatchString", lz.MatchString(in), re.MatchString(in)},
			{"Match", lz.Match(b), re.Match(b)},
			{"FindAllString", lz.FindAllString(in, -1), re.FindAllString(in, -1)},
			{"FindAllStringSubmatch", lz.FindAllStringSubmatch(in, 1), re.FindAllStringSubmatch(in, 1)},
			{"FindAllStringSubmatchIndex", lz.FindAllStringSubmatchIndex(in, -1), re.FindAllStringSubmatchIndex(in, -1)},
			{"FindSubmatch", lz.FindSubmatch(b), re.FindSubmatch(b)},
			{"FindSubmatchIndex", lz.FindSubmatchIndex(b), re.FindSubmatchIndex(b)},
			{"FindStringSubmatch", lz.FindStringSubmatch(in), re.FindStringSubmatch(in)},
			{"ReplaceAll", string(lz.ReplaceAll(b, []byte("<$2>"))), string(re.ReplaceAll(b, []byte("<$2>")))},
			{"ReplaceAllStringFunc", lz.ReplaceAllStringFunc(in, strings.ToUpper), re.ReplaceAllStringFunc(in, strings.ToUpper)},
		}
		for _, c := range checks {
			if !equal(c.got, c.want) {
				t.Errorf("%s(%q) = %v, want %v", c.name, in, c.got, c.want)
			}
		}
	}
}

func equal(a, b any) bool {
	switch a := a.(type) {
	case []string:
		return slices.Equal(a, b.([]string))
	case [][]string:
		return slices.EqualFunc(a, b.([][]string), slices.Equal)
	case [][]int:
		return slices.EqualFunc(a, b.([][]int), slices.Equal)
	case []int:
		return slices.Equal(a, b.([]int))
	case [][]byte:
		return slices.EqualFunc(a, b.([][]byte), func(x, y []byte) bool { return string(x) == string(y) })
	}
	return a == b
}

func TestCompileAllReportsABadExpression(t *testing.T) {
	if err := CompileAll(); err != nil {
		t.Fatalf("CompileAll with good expressions: %v", err)
	}
	bad := New(`a(b`)
	defer func() {
		mu.Lock()
		all = slices.DeleteFunc(all, func(r *Regexp) bool { return r == bad })
		mu.Unlock()
	}()
	err := CompileAll()
	if err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Fatalf("CompileAll with a bad expression: %v, want regexp's error", err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("the first use of a bad expression does not panic, as regexp.MustCompile would")
		}
	}()
	bad.MatchString("ab")
}
