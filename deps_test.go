package crumb_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The modules of the model SDKs, which only the summary adapters
// (summarize/openai, summarize/anthropic) may bring in.
const (
	openaiSDK    = "github.com/openai/openai-go"
	anthropicSDK = "github.com/anthropics/anthropic-sdk-go"
)

// TestLibraryLinksNoModelSDK lists the modules a program calling crumb.New
// and Project alone links (testdata/nosdk): neither model SDK is among
// them, nor among the summarize package's. Each adapter links its own SDK
// and not the other's: the listing can tell.
func TestLibraryLinksNoModelSDK(t *testing.T) {
	gocmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	modules := func(pkg string) string {
		t.Helper()
		out, err := exec.Command(gocmd, "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	for _, c := range []struct {
		pkg  string
		want []string // the SDKs it links
	}{
		{"./testdata/nosdk", nil},
		{"./summarize", nil},
		{"./summarize/openai", []string{openaiSDK}},
		{"./summarize/anthropic", []string{anthropicSDK}},
	} {
		mods := modules(c.pkg)
		if !strings.Contains(mods, "github.com/crumb-dev/crumb") {
			t.Fatalf("go list -deps %s does not list crumb itself:\n%s", c.pkg, mods)
		}
		for _, sdk := range []string{openaiSDK, anthropicSDK} {
			if got, want := strings.Contains(mods, sdk), slices.Contains(c.want, sdk); got != want {
				t.Errorf("%s links %s: %v, want %v", c.pkg, sdk, got, want)
			}
		}
	}
}
