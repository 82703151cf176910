package project

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

// TestMCPSpilled: a text the caller stored apart (Input.Spilled) is
// projected from its source and named by its ref, never stored again, and
// the note that stands in its place does not reach the view; a long one is
// not read into memory whole, a short one is projected as any text is.
func TestMCPSpilled(t *testing.T) {
	for _, n := range []int{4000, 120000} { // 200 KB, and 6 MB: over spillReadMax
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString("line " + strings.Repeat("x", 40) + " number " + itoa(i) + "\n")
		}
		text := b.String()
		src := newBytesSource([]byte(text))
		note := "[crumb: this string is stored as ref " + string(src.info.Ref) + "]"
		skel, _ := json.Marshal(map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": note}},
			"structuredContent": map[string]any{"content": note},
		})
		in := testInput(t, skel, 500)
		fs := fakeStore{}
		in.Put = fs.put
		in.OutputSchema = json.RawMessage(`{"type":"object","properties":{"content":{"type":"string"}}}`)
		rs := &readSizes{Source: src}
		in.Spilled = map[string]Spill{"/content/0/text": {Ref: src.info.Ref, Source: rs}, "/structuredContent/content": {Ref: src.info.Ref, Source: rs}}
		out, err := Project(context.Background(), KindMCP, in)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal([]byte(out.Text), &res); err != nil || len(res.Content) == 0 {
			t.Fatalf("%d lines: the view is not a CallToolResult: %v\n%.500s", n, err, out.Text)
		}
		view := res.Content[0].Text
		if strings.Contains(view, note) || !strings.Contains(view, "line "+strings.Repeat("x", 40)+" number 1\n") {
			t.Errorf("%d lines: the view does not show the text:\n%.600s", n, view)
		}
		if !strings.Contains(view, "crumb read "+string(src.info.Ref)+" --lines") {
			t.Errorf("%d lines: the view does not continue with the spilled ref %s:\n%.600s", n, src.info.Ref, view)
		}
		if _, again := fs[store.Ref(src.info.Ref)]; again {
			t.Errorf("%d lines: the projector stored the spilled text again", n)
		}
		if len(text) > spillReadMax && rs.max >= len(text) {
			t.Errorf("%d lines: the projector read the %d bytes of the text at once", n, len(text))
		}
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// readSizes records the largest read of a source.
type readSizes struct {
	Source
	max int
}

func (r *readSizes) ReadAt(p []byte, off int64) (int, error) {
	r.max = max(r.max, len(p))
	return r.Source.ReadAt(p, off)
}
