package blobs

import (
	"bytes"
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

func png(t testing.TB) []byte {
	b, err := os.ReadFile("/usr/local/go/src/image/testdata/video-001.png")
	if err != nil {
		t.Skip(err)
	}
	return b
}

func TestReplace(t *testing.T) {
	img := png(t)
	b64 := base64.StdEncoding.EncodeToString(img)
	var stored [][]byte
	put := func(data []byte) (string, error) {
		stored = append(stored, data)
		return "ref 0123456789abcdef", nil
	}
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"data url", `<img src="data:image/png;base64,` + b64 + `">`, `<img src="[base64 image/png, 150x103, 29.2 KB, ref 0123456789abcdef]">`, true},
		{"raw run", `"screenshot": "` + b64 + `"`, `"screenshot": "[base64 image/png, 150x103, 29.2 KB, ref 0123456789abcdef]"`, true},
		{"sha256 hex", "digest " + strings.Repeat("0123456789abcdef", 16), "digest " + strings.Repeat("0123456789abcdef", 16), false},
		{"identifier", strings.Repeat("some_long_identifier_name", 20), strings.Repeat("some_long_identifier_name", 20), false},
		{"short", "data:text/plain;base64,aGk=", "data:text/plain;base64,aGk=", false},
	}
	for _, tt := range tests {
		stored = nil
		got, changed := Replace(tt.in, put, false)
		if got != tt.want || changed != tt.changed {
			t.Errorf("%s: Replace = %q, %v\nwant %q, %v", tt.name, got, changed, tt.want, tt.changed)
		}
		if tt.changed && (len(stored) != 1 || !bytes.Equal(stored[0], img)) {
			t.Errorf("%s: the decoded image was not stored", tt.name)
		}
	}
}

// A run cut by the end of a fragment is collapsed, never stored half.
func TestReplaceFragmentDoesNotStorePartialBlobs(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(png(t))
	put := func([]byte) (string, error) { t.Fatal("a partial blob was stored"); return "", nil }
	got, changed := Replace("prefix data:image/png;base64,"+b64[:200], put, true)
	if !changed || !strings.Contains(got, "continues past this view") {
		t.Errorf("got %q", got)
	}
}

func FuzzReplace(f *testing.F) {
	f.Add("data:image/png;base64,"+strings.Repeat("QUJD", 40), false)
	f.Fuzz(func(t *testing.T, s string, fragment bool) {
		got, changed := Replace(s, nil, fragment)
		if !changed && got != s {
			t.Fatal("changed text but reported no change")
		}
		if changed && len(got) > len(s)+200 {
			t.Fatalf("replacement grew the text: %d → %d", len(s), len(got))
		}
	})
}
