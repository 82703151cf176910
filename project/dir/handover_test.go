package dir

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/kindtest"
)

// TestHandedOver: a listing that reaches the pipeline as another kind (a
// text read, the text of an MCP result) is handed on to the dir view.
func TestHandedOver(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		fx := kindtest.LoadFixture(t, "dir", "find-go-src")
		out, err := project.Project(context.Background(), project.KindText, kindtest.Input(t, fx.Output, 2000))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(out.Text, "\n")
		if !strings.HasPrefix(first, "[crumb dir") || !strings.Contains(first, "paths") {
			t.Errorf("view starts %q, want a dir view of paths", first)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		dir := filepath.Join("testdata", "mcp", "filesystem-list-with-sizes")
		raw, err := os.ReadFile(filepath.Join(dir, "output"))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Tool         string          `json:"tool"`
			Args         json.RawMessage `json:"args"`
			OutputSchema json.RawMessage `json:"output_schema"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
		if err != nil || json.Unmarshal(b, &meta) != nil {
			t.Fatalf("%s/meta.json: %v", dir, err)
		}
		for _, budget := range []int{500, 2000} {
			in := kindtest.Input(t, raw, budget)
			in.Tool, in.Args, in.OutputSchema, in.Put = meta.Tool, meta.Args, meta.OutputSchema, kindtest.Store{}.Put
			out, err := project.Project(context.Background(), project.KindMCP, in)
			if err != nil {
				t.Fatal(err)
			}
			if budget == 500 && !strings.Contains(out.Text, "[crumb dir ") {
				t.Errorf("budget %d: the listing is not shown by the dir view:\n%.300s", budget, out.Text)
			}
			var pretty bytes.Buffer
			json.Indent(&pretty, []byte(out.Text), "", "  ")
			kindtest.Golden(t, filepath.Join(dir, fmt.Sprintf("view-%d.golden", budget)), pretty.String())
		}
	})
}
