package binary

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"go/build"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/kindtest"
)

// testInput returns an input over b as if stored, with the o200k counter.
func testInput(t testing.TB, b []byte, budget int) *project.Input {
	return kindtest.Input(t, b, budget)
}

func TestBinaryDetails(t *testing.T) {
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Name, w.ModTime = "dpkg.log", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	w.Write(bytes.Repeat([]byte("log line\n"), 100))
	w.Close()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, name := range []string{"META-INF/MANIFEST.MF", "com/example/Main.class"} {
		f, _ := zw.Create(name)
		f.Write([]byte("data"))
	}
	zw.Close()
	exe, _ := os.Executable() // this test binary: an ELF Go program
	elfBytes, _ := os.ReadFile(exe)
	tests := []struct {
		name string
		in   []byte
		want []string
	}{
		{"gzip", gz.Bytes(), []string{"gzip of dpkg.log", "modified 2026-11-29 12:00:00 UTC"}},
		{"zip", zb.Bytes(), []string{"zip archive of 2 entries:", "com/example/Main.class"}},
		{"go elf", elfBytes, []string{"ELF 64-bit", "Go program github.com/crumb-dev/crumb/project/binary.test"}},
	}
	for _, tt := range tests {
		if len(tt.in) == 0 {
			t.Fatalf("%s: no input", tt.name)
		}
		out, err := project.Project(context.Background(), project.KindBinary, testInput(t, tt.in, 2000))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(out.Text, w) {
				t.Errorf("%s: view lacks %q:\n%s", tt.name, w, out.Text)
			}
		}
		if strings.ContainsRune(out.Text, 0) {
			t.Errorf("%s: raw bytes in the view", tt.name)
		}
		if n := testInput(t, tt.in, 2000).Counter.Count(out.Text); n > 2000 {
			t.Errorf("%s: %d tokens", tt.name, n)
		}
	}
}

// FuzzBinaryProject: whatever the bytes, a binary view holds none of them
// raw, stays within its budget and is deterministic.
func FuzzBinaryProject(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x00garbage"), uint16(200))
	f.Add([]byte("PK\x03\x04\x00\x00"), uint16(100))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x08, 0, 0, 0, 0, 0, 3, 'a', 0}, uint16(150))
	f.Fuzz(func(t *testing.T, b []byte, budget uint16) {
		in := testInput(t, b, int(budget))
		out, err := project.Project(context.Background(), project.KindBinary, in)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(out.Text, 0) || !utf8.ValidString(out.Text) {
			t.Fatalf("raw bytes in the view: %q", out.Text)
		}
		for _, r := range out.Text {
			if r < 0x20 && r != '\n' && r != '\t' {
				t.Fatalf("control byte in the view: %q", out.Text)
			}
		}
		if n := in.Counter.Count(out.Text); n > in.Budget {
			t.Fatalf("view has %d tokens, budget %d", n, in.Budget)
		}
		again, _ := project.Project(context.Background(), project.KindBinary, testInput(t, b, int(budget)))
		if again.Text != out.Text {
			t.Fatal("not deterministic")
		}
	})
}

func TestBinaryNeverShowsBytes(t *testing.T) {
	png, err := os.ReadFile("/usr/local/go/src/image/png/testdata/pngsuite/basn6a08.png")
	if err != nil {
		t.Skip("no PNG in the Go tree:", err)
	}
	in := testInput(t, png, 2000)
	out, err := project.Project(context.Background(), project.KindBinary, in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "image/png, 32x32") || !strings.Contains(out.Text, string(in.Ref)) {
		t.Errorf("binary view should name the type, size and ref: %s", out.Text)
	}
	if strings.Contains(out.Text, "PNG\r\n") || strings.ContainsRune(out.Text, 0) {
		t.Errorf("binary view leaks raw bytes: %q", out.Text)
	}
}

// A kind imports no other kind: of the project tree it uses project itself
// and nothing else.
func TestImportsNoOtherKind(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkg.Imports {
		if strings.HasPrefix(p, "github.com/crumb-dev/crumb/project/") {
			t.Errorf("project/binary imports %s", p)
		}
	}
}
