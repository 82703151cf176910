package crumb_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// sdkModules are the modules of the model SDKs that only the summary
// adapters (summarize/openai, summarize/anthropic) may bring in.
var sdkModules = []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go"}

// TestLibraryLinksNoModelSDK lists the modules a program calling crumb.New
// and Project alone links (testdata/nosdk): neither model SDK is among
// them. The command, which imports both adapters, links both: the listing
// can tell.
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
		want bool
	}{
		{"./testdata/nosdk", false},
		{"./summarize", false},
		{"./cmd/crumb", true},
	} {
		mods := modules(c.pkg)
		if !strings.Contains(mods, "github.com/crumb-dev/crumb") {
			t.Fatalf("go list -deps %s does not list crumb itself:\n%s", c.pkg, mods)
		}
		for _, sdk := range sdkModules {
			if got := strings.Contains(mods, sdk); got != c.want {
				t.Errorf("%s links %s: %v, want %v", c.pkg, sdk, got, c.want)
			}
		}
	}
}
