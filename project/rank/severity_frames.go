package rank

import "bytes"

// libraryMarks are what a stack frame or a location names when it is
// outside the program's own code: in a language's runtime or standard
// library, a dependency, a test framework's machinery.
var libraryMarks = [][]byte{
	// Go: GOROOT, the module cache, the generated test main.
	[]byte("/usr/local/go/src/"), []byte("/usr/lib/go"), []byte("/go/src/runtime/"), []byte("/go/src/testing/"),
	[]byte("/pkg/mod/"), []byte("_testmain.go"),
	// Rust: the standard library's sources, the registry.
	[]byte("/rustc/"), []byte("/library/std/"), []byte("/library/core/"), []byte("/.cargo/"),
	// JavaScript: node's own modules, dependencies, eval'd code.
	[]byte("node:"), []byte("node_modules"), []byte("<anonymous>"), []byte("internal/process/"),
	// Python: the interpreter's library, installed packages.
	[]byte("/lib/python"), []byte("site-packages"), []byte("dist-packages"),
	// Java: the JDK.
	[]byte("(Native Method)"), []byte("java.base/"), []byte("at java."), []byte("at jdk."), []byte("at sun."),
}

// LibraryFrame reports whether a stack frame, or the location it names,
// is outside the program's own code: a runtime's, a standard library's, a
// dependency's or a test framework's. A crash is located by the frames
// that are not.
func LibraryFrame(frame []byte) bool {
	for _, m := range libraryMarks {
		if bytes.Contains(frame, m) {
			return true
		}
	}
	return false
}
