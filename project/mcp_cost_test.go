package project

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestBase64ImageHeader: an image's cost is read from the head of its
// base64 data, and from all of it when its header lies further on (a JPEG
// with a comment of 100 KB before its frame); the size the API limit is
// checked against is the decoded size.
func TestBase64ImageHeader(t *testing.T) {
	dir := filepath.Join(runtime.GOROOT(), "src", "image", "testdata")
	jpg, err := os.ReadFile(filepath.Join(dir, "video-001.jpeg"))
	if err != nil {
		t.Skip("no Go source tree:", err)
	}
	png, err := os.ReadFile(filepath.Join(dir, "video-001.png"))
	if err != nil {
		t.Fatal(err)
	}
	// A COM segment (FF FE, a two-byte length) of 60,000 bytes, twice,
	// right after the start-of-image marker.
	late := append([]byte{}, jpg[:2]...)
	for range 2 {
		late = append(late, 0xFF, 0xFE, 60002>>8, 60002&0xFF)
		late = append(late, make([]byte, 60000)...)
	}
	late = append(late, jpg[2:]...)
	for _, c := range []struct {
		name string
		data []byte
	}{{"png", png}, {"jpeg", jpg}, {"jpeg with its frame 120 KB in", late}} {
		b64 := base64.StdEncoding.EncodeToString(c.data)
		n, refused := base64Image(b64)
		if want := ImageTokens(150, 103); n != want || refused {
			t.Errorf("%s: %d tokens (refused %v), want %d", c.name, n, refused, want)
		}
	}
	if n, _ := base64Image(base64.StdEncoding.EncodeToString([]byte("no image at all"))); n != 0 {
		t.Errorf("text counts %d tokens as an image", n)
	}
	// The decoded size, padding and all, decides the API's byte limit.
	for _, k := range []int{MaxImageBytes - 1, MaxImageBytes, MaxImageBytes + 1} {
		data := append(append([]byte{}, png...), make([]byte, k-len(png))...)
		_, refused := base64Image(base64.StdEncoding.EncodeToString(data))
		if refused != (k > MaxImageBytes) {
			t.Errorf("%d bytes: refused %v", k, refused)
		}
	}
}
