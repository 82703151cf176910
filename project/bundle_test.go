package project

import "testing"

// TestBundleHeader checks the lines that head a file in a bundle, and
// lines of code that must not.
func TestBundleHeader(t *testing.T) {
	for line, want := range map[string]string{
		"diff --git a/require/require.go b/require/require.go": "require/require.go",
		"+++ b/assert/assertions.go":                           "assert/assertions.go",
		"FILE: assert/assertions.go":                           "assert/assertions.go",
		"File: src/index.ts":                                   "src/index.ts",
		"## File: src/index.ts":                                "src/index.ts",
		`<file path="src/index.ts">`:                           "src/index.ts",
		"==> /var/log/syslog <==":                              "/var/log/syslog",
		"/work/testify/require/require.go:":                    "/work/testify/require/require.go",
		"./assert/assertion_compare.go:430:func LessOrEqual(":  "./assert/assertion_compare.go",
		"main.go:12:3: undefined: x":                           "main.go",
		"retry:":                                               "",
		"default:":                                             "",
		"\tcase 'a':":                                          "",
		"http://example.com:8080/x":                            "",
		"func main() {":                                        "",
	} {
		got, ok := bundleHeader([]byte(line))
		if got != want || ok != (want != "") {
			t.Errorf("bundleHeader(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
	for head, want := range map[string][2]bool{
		"================================================\nFILE: a/b.go\n": {true, false},
		"diff --git a/x.go b/x.go\nindex 1..2\n":                           {true, true},
		"package main\n\nfunc main() {}\n":                                 {false, false},
	} {
		if ok, diff := isBundle([]byte(head)); ok != want[0] || diff != want[1] {
			t.Errorf("isBundle(%q) = %v, %v; want %v", head, ok, diff, want)
		}
	}
}
