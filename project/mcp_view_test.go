package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// TestMCPManySmallBlocks: 10,000 small text blocks are shown as one
// sequence: as many whole as fit, in order, and one continuation that reads
// all the rest (issue 9 item 7).
func TestMCPManySmallBlocks(t *testing.T) {
	const n = 10000
	shapes := map[string]func(i int) string{
		"log rows":      func(i int) string { return fmt.Sprintf("row %05d: status=ok region=eu-west-1 size=%04d", i, i%977) },
		"59-byte texts": func(i int) string { return (fmt.Sprintf("block %05d: ", i) + strings.Repeat("x", 59))[:59] },
	}
	for name, shape := range shapes {
		texts := make([]string, n)
		blocks := make([]string, n)
		for i := range texts {
			texts[i] = shape(i)
			blocks[i] = string(mustJSON(map[string]string{"type": "text", "text": texts[i]}))
		}
		raw := []byte(`{"content":[` + strings.Join(blocks, ",") + `]}`)
		for _, budget := range []int{500, 2000} {
			t.Run(fmt.Sprintf("%s/%d", name, budget), func(t *testing.T) {
				out, fs := projectMCPCase(t, raw, nil, budget)
				b := checkMCP(t, raw, out, budget)
				checkWholeBudget(t, out, budget)
				// The first blocks are shown whole, in order; one note
				// follows.
				shown := len(b.Content) - 1
				for i := 0; i < shown; i++ {
					if got := str(b.Content[i], "text"); got != texts[i] {
						t.Fatalf("block %d is %q, want %q", i, got, texts[i])
					}
				}
				if shown < budget/40 {
					t.Errorf("only %d blocks shown whole in a budget of %d", shown, budget)
				}
				note := str(b.Content[shown], "text")
				if c := regexp.MustCompile(`crumb read `).FindAllStringIndex(note, -1); len(c) != 1 {
					t.Errorf("the note names %d reads, want one:\n%s", len(c), note)
				}
				// Its continuation reads the rest, in order.
				if out.Next == nil || out.Next.Lines == nil || out.Next.Lines.From != 1 {
					t.Fatalf("no continuation for the rest: %+v", out.Next)
				}
				if !strings.Contains(note, recall.CLIHint(*out.Next)) {
					t.Errorf("the note does not give Next:\n%s", note)
				}
				want := strings.Join(texts[shown:], "\n") + "\n"
				if got := fs[out.Next.Ref]; string(got) != want {
					t.Errorf("the continuation reads %d bytes, not the %d of blocks %d on", len(got), len(want), shown)
				}
				if out.Next.Rev != recall.Rev(store.Sum([]byte(want))) {
					t.Errorf("the continuation's revision %q is not the stored rest's", out.Next.Rev)
				}
			})
		}
	}
}

// readMediaSchema is the outputSchema of the filesystem server's
// read_media_file (version 2026.8.31), as tools/list gives it.
const readMediaSchema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"content":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"type":{"type":"string","enum":["image","audio"]},"data":{"type":"string"},"mimeType":{"type":"string"}},"required":["type","data","mimeType"],"additionalProperties":false},{"type":"object","properties":{"type":{"type":"string","const":"resource"},"resource":{"type":"object","properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},"blob":{"type":"string"}},"required":["uri","blob"],"additionalProperties":false}},"required":["type","resource"],"additionalProperties":false}]}}},"required":["content"],"additionalProperties":false}`

// mediaResult is what read_media_file returns for a binary file: an
// embedded resource, and the same as structuredContent.
func mediaResult(data []byte) []byte {
	block := map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///tmp/blob.bin", "mimeType": "application/octet-stream", "blob": encodeBase64(data)}}
	return mustJSON(map[string]any{"content": []any{block}, "structuredContent": map[string]any{"content": []any{block}}})
}

var refRE = regexp.MustCompile(`\b[0-9a-f]{16}\b`)

// base64Cut finds a base64 value cut to a prefix ending in "…".
var base64Cut = regexp.MustCompile(`"[A-Za-z0-9+/]{8,}…"`)

// TestMCPReadMediaFileOneRef: a binary read_media_file of 300 KB comes
// back as one text block naming one ref, with a structuredContent valid
// for the tool's outputSchema and no cut base64 in it (issue 9 items 6 and
// 8).
func TestMCPReadMediaFileOneRef(t *testing.T) {
	data := bytes.Repeat([]byte{0x00, 0xff, 0x13, 0x37, 'c', 'r', 'u', 'm', 'b', 0x80}, 30<<10)
	raw := mediaResult(data)
	for _, schema := range []string{readMediaSchema, "null", ""} {
		t.Run(fmt.Sprintf("schema=%.10s", schema), func(t *testing.T) {
			out, fs := projectMCPCase(t, raw, json.RawMessage(schema), 2000)
			b := checkMCP(t, raw, out, 2000)
			checkWholeBudget(t, out, 2000)
			if len(b.Content) != 1 || str(b.Content[0], "type") != "text" {
				t.Fatalf("want one text block, got %s", mustJSON(b.Content))
			}
			refs := map[string]bool{}
			for _, r := range refRE.FindAllString(modelText(b), -1) {
				refs[r] = true
			}
			if len(refs) != 1 {
				t.Errorf("the view names %d refs, want 1:\n%s", len(refs), modelText(b))
			}
			for r := range refs {
				if !bytes.Equal(fs[store.Ref(r)], data) {
					t.Errorf("ref %s does not hold the file's bytes", r)
				}
			}
			if base64Cut.Match([]byte(out.Text)) {
				t.Errorf("a base64 value cut to a prefix is handed out:\n%.600s", out.Text)
			}
			if schema == readMediaSchema {
				var sch, val any
				json.Unmarshal([]byte(schema), &sch)
				json.Unmarshal(b.StructuredContent, &val)
				if vd := (&validator{root: sch}); !vd.valid(val, sch) || vd.unsupported {
					t.Errorf("structuredContent breaks the outputSchema: %s", b.StructuredContent)
				}
			}
		})
	}
}

// TestMCPStructuredIndex: with no outputSchema known, a large
// structuredContent beside text that carries the same data becomes an
// index of its shape, its identity and its first values, within a quarter
// of the budget (issue 9 item 6).
func TestMCPStructuredIndex(t *testing.T) {
	type issue struct {
		ID     int      `json:"id"`
		Title  string   `json:"title"`
		State  string   `json:"state"`
		Labels []string `json:"labels"`
		Body   string   `json:"body"`
	}
	var issues []issue
	var text strings.Builder
	for i := range 300 {
		is := issue{ID: 1000 + i, Title: fmt.Sprintf("Crash %d when the cache is cold", i), State: []string{"open", "closed"}[i%2],
			Labels: []string{"bug", "cache"}, Body: strings.Repeat(fmt.Sprintf("Steps to reproduce %d. ", i), 12)}
		issues = append(issues, is)
		fmt.Fprintf(&text, "#%d %s [%s] %s\n%s\n", is.ID, is.Title, is.State, strings.Join(is.Labels, ","), is.Body)
	}
	sc := mustJSON(map[string]any{"total_count": 300, "repository": "crumb-dev/crumb", "items": issues})
	if len(sc) < 100<<10 {
		t.Fatalf("structuredContent is only %d bytes", len(sc))
	}
	for _, c := range []struct {
		schema, text string
		dup          bool
	}{{"", text.String(), true}, {"null", text.String(), true}, {"", "Found 300 issues.", false}} {
		schema := c.schema
		raw := mustJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": c.text}}, "structuredContent": json.RawMessage(sc)})
		out, _ := projectMCPCase(t, raw, json.RawMessage(schema), 2000)
		b := checkMCP(t, raw, out, 2000)
		checkWholeBudget(t, out, 2000)
		var idx struct {
			Total int    `json:"total_count"`
			Repo  string `json:"repository"`
			Items []any  `json:"items"`
		}
		if err := json.Unmarshal(b.StructuredContent, &idx); err != nil {
			t.Fatalf("schema %q: structuredContent %s: %v", schema, b.StructuredContent, err)
		}
		if idx.Total != 300 || idx.Repo != "crumb-dev/crumb" || len(idx.Items) < 2 {
			t.Errorf("schema %q: the index lost the identity and first values: %s", schema, b.StructuredContent)
		}
		if last, _ := idx.Items[len(idx.Items)-1].(string); !strings.Contains(last, "more items from /structuredContent/items/") {
			t.Errorf("schema %q: the index does not say what it leaves out: %s", schema, b.StructuredContent)
		}
		// When it repeats the text, the note says so; when it does not,
		// the note names the read of the whole and a JSON projection of it
		// shows the tool's answer.
		if c.dup && !strings.Contains(modelText(b), "repeats the content above") {
			t.Errorf("schema %q: no note says that structuredContent repeats the text:\n%s", schema, modelText(b))
		}
		if !c.dup && (!strings.Contains(modelText(b), "--pointer /structuredContent") || !strings.Contains(modelText(b), "[crumb json: object")) {
			t.Errorf("schema %q: no note names the read of the whole, or no projection shows it:\n%s", schema, modelText(b))
		}
	}
}

// TestMCPStructuredSchemaForbidsCut: when the tool's outputSchema allows
// no shorter structuredContent, it is kept whole and the text says so, and
// how to read it by parts (issue 9 item 6).
func TestMCPStructuredSchemaForbidsCut(t *testing.T) {
	var rows []string
	for i := range 400 {
		rows = append(rows, fmt.Sprintf(`{"n":%d,"name":"row number %d"}`, i, i))
	}
	sc := `{"rows":[` + strings.Join(rows, ",") + `]}`
	schema := `{"type":"object","properties":{"rows":{"type":"array","minItems":400}},"required":["rows"]}`
	raw := mustJSON(map[string]any{"content": []any{map[string]string{"type": "text", "text": "Found 400 rows."}}, "structuredContent": json.RawMessage(sc)})
	out, _ := projectMCPCase(t, raw, json.RawMessage(schema), 2000)
	b := checkMCP(t, raw, out, 2000)
	if !bytes.Equal(b.StructuredContent, mustCompact(t, []byte(sc))) {
		t.Errorf("structuredContent changed though the schema allows no cut")
	}
	if txt := modelText(b); !strings.Contains(txt, "is kept whole: the tool's outputSchema allows no shorter form") || !strings.Contains(txt, "crumb read ") {
		t.Errorf("the text does not say why structuredContent is whole, or how to read it:\n%s", txt)
	}
}
