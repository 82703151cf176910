package project

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

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
		{"go elf", elfBytes, []string{"ELF 64-bit", "Go program github.com/crumb-dev/crumb/project.test"}},
	}
	for _, tt := range tests {
		if len(tt.in) == 0 {
			t.Fatalf("%s: no input", tt.name)
		}
		out, err := Project(context.Background(), KindBinary, testInput(t, tt.in, 2000))
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
