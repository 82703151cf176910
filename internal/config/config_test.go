package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb"
)

// TestLoadFormats checks that the TOML and the YAML forms of one
// configuration read the same, and what the Guard gets from them.
func TestLoadFormats(t *testing.T) {
	want := &File{
		Budget: 3000, Threshold: 2500, PageBudget: 2200, MaxKeep: 512 << 20,
		Never: []string{"list_allowed_directories", "get_*"},
		Tools: []Tool{{Match: "read_*", Budget: 4000, Threshold: 3000}, {Match: "search_files", Never: true}},
		Store: Store{Dir: "~/.cache/crumb-test", TTL: Duration(48 * time.Hour), MaxSize: 2e9},
		MCP:   MCP{ReadTool: "saved_read"},
	}
	for _, name := range []string{"testdata/crumb.toml", "testdata/crumb.yaml"} {
		t.Run(filepath.Ext(name), func(t *testing.T) {
			got, err := Load(name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("\n got %+v\nwant %+v", got, want)
			}
		})
	}
	g := want.Guard()
	wantGuard := crumb.Config{Budget: 3000, Threshold: 2500, PageBudget: 2200, MaxKeep: 512 << 20,
		Exempt: []string{"list_allowed_directories", "get_*"},
		Tools:  []crumb.ToolPolicy{{Match: "read_*", Budget: 4000, Threshold: 3000}, {Match: "search_files", Exempt: true}}}
	if !reflect.DeepEqual(g, wantGuard) {
		t.Errorf("Guard\n got %+v\nwant %+v", g, wantGuard)
	}
	// A page's size is its own setting, never the views' budget.
	for _, tt := range []struct {
		file *File
		tool string
		want int
	}{
		{want, "saved_read", 2200},
		{want, "read_pages", 4000}, // a policy that matches the read tool
		{&File{Budget: 600}, "crumb_read", 0},
	} {
		if b := tt.file.PageBudgetFor(tt.tool); b != tt.want {
			t.Errorf("PageBudgetFor(%s) of %+v = %d, want %d", tt.tool, tt.file, b, tt.want)
		}
	}
	dir, err := want.StoreDir()
	home, _ := os.UserHomeDir()
	if err != nil || dir != filepath.Join(home, ".cache/crumb-test") {
		t.Errorf("StoreDir = %q, %v", dir, err)
	}
}

// TestLoadErrors checks that mistakes are reported, not ignored.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, text, want string
	}{
		{"unknown TOML key", "c.toml", "budgte = 3\n", "budgte"},
		{"unknown YAML key", "c.yaml", "budgte: 3\n", "budgte"},
		{"unknown nested key", "c.toml", "[store]\npath = \"x\"\n", "path"},
		{"bad glob", "c.toml", "never = [\"[\"]\n", "bad pattern"},
		{"tool without match", "c.yaml", "tools:\n  - budget: 3\n", "match is required"},
		{"negative budget", "c.toml", "budget = -1\n", "budget: -1 is out of range: want 0 to 1,000,000 (tokens)"},
		{"budget over the limit", "c.toml", "budget = 1048576\n", "budget: 1,048,576 is out of range: want 0 to 1,000,000 (tokens)"},
		{"page budget over the limit", "c.yaml", "page_budget: 1048576\n", "page_budget: 1,048,576 is out of range"},
		{"tool threshold over the limit", "c.yaml", "tools:\n  - match: read_*\n    threshold: 2000000\n", "tools[0].threshold: 2,000,000 is out of range"},
		{"bad size", "c.toml", "max_keep = \"lots\"\n", "size"},
		{"bad duration", "c.yaml", "store:\n  ttl: forever\n", "duration"},
		{"TOML syntax", "c.toml", "budget = \n", "line 1"},
		{"neither", "c.conf", "budget = = 3\n", "nor is it YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), tt.file)
			os.WriteFile(name, []byte(tt.text), 0o600)
			_, err := Load(name)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestEmptyAndUnsuffixed(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"empty.yaml": "", "empty.toml": "", "plain": "budget: 7\n", "plain2": "budget = 8\n"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o600)
		f, err := Load(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name == "plain" && f.Budget != 7 || name == "plain2" && f.Budget != 8 {
			t.Errorf("%s: budget %d", name, f.Budget)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want Size
		ok   bool
	}{
		{"1024", 1024, true}, {"512MB", 512e6, true}, {"2GiB", 2 << 30, true}, {"64 KiB", 64 << 10, true},
		{"1.5k", 1500, true}, {"0", 0, true}, {"-1", 0, false}, {"12XB", 0, false}, {"", 0, false}, {"GB", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v", tt.in, got, err)
		}
	}
}

func FuzzParseTOML(f *testing.F) {
	for _, name := range []string{"testdata/crumb.toml"} {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseTOML(data)
		if err == nil && cfg.Validate() != nil {
			t.Fatal("accepted an invalid configuration")
		}
	})
}

func FuzzParseYAML(f *testing.F) {
	for _, name := range []string{"testdata/crumb.yaml"} {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseYAML(data)
		if err == nil && cfg.Validate() != nil {
			t.Fatal("accepted an invalid configuration")
		}
	})
}
