package project

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

func projectMCPCase(t testing.TB, b []byte, schema json.RawMessage, budget int) (Output, fakeStore) {
	t.Helper()
	return projectMCPCall(t, b, "", nil, schema, budget)
}

// projectMCPCall projects a result with the call's tool and arguments.
func projectMCPCall(t testing.TB, b []byte, tool string, args, schema json.RawMessage, budget int) (Output, fakeStore) {
	t.Helper()
	in := testInput(t, b, budget)
	fs := fakeStore{}
	in.Put = fs.put
	in.Tool, in.Args = tool, args
	in.OutputSchema = schema
	out, err := Project(context.Background(), KindMCP, in)
	if err != nil {
		t.Fatal(err)
	}
	return out, fs
}

// schemaOf returns the case's outputSchema as Input.OutputSchema wants it:
// the JSON null when the tool has none.
func schemaOf(c realCase) json.RawMessage {
	if len(c.meta.OutputSchema) == 0 {
		return json.RawMessage("null")
	}
	return c.meta.OutputSchema
}

type ctr struct {
	Content           []map[string]json.RawMessage `json:"content"`
	StructuredContent json.RawMessage              `json:"structuredContent"`
	IsError           *bool                        `json:"isError"`
}

func str(m map[string]json.RawMessage, k string) string {
	var s string
	json.Unmarshal(m[k], &s)
	return s
}

// modelText is the text a model reads in a CallToolResult: its text
// blocks and the text of its embedded resources.
func modelText(r ctr) string {
	var parts []string
	for _, b := range r.Content {
		switch str(b, "type") {
		case "text":
			parts = append(parts, str(b, "text"))
		case "resource":
			var res map[string]json.RawMessage
			json.Unmarshal(b["resource"], &res)
			parts = append(parts, str(res, "text"))
		}
	}
	return strings.Join(parts, "\n")
}

// checkMCP checks the properties of every MCP projection: valid JSON, the
// text within the budget, media kept as blocks and within the limits,
// what is not projected passed through as it was.
func checkMCP(t *testing.T, in []byte, out Output, budget int) ctr {
	t.Helper()
	if !json.Valid([]byte(out.Text)) {
		t.Fatalf("the projection is not valid JSON:\n%.2000s", out.Text)
	}
	var a, b ctr
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out.Text), &b); err != nil {
		t.Fatal(err)
	}
	if out.Text == string(in) {
		return b
	}
	if n := tokens.O200k().Count(modelText(b)); n > budget {
		t.Errorf("the text the model reads takes %d tokens, budget %d", n, budget)
	}
	// Top-level members other than content and structuredContent pass
	// through unchanged.
	var ta, tb map[string]json.RawMessage
	json.Unmarshal(in, &ta)
	json.Unmarshal([]byte(out.Text), &tb)
	for k, v := range ta {
		if k == "content" || k == "structuredContent" {
			continue
		}
		if !bytes.Equal(tb[k], v) {
			t.Errorf("top-level %q changed: %s -> %s", k, v, tb[k])
		}
	}
	// Media blocks stay, in order, within the limits; other blocks that
	// are not text pass through.
	var media []map[string]json.RawMessage
	for _, blk := range a.Content {
		switch str(blk, "type") {
		case "image", "audio":
			media = append(media, blk)
		}
	}
	var got []map[string]json.RawMessage
	for _, blk := range b.Content {
		switch str(blk, "type") {
		case "image", "audio":
			got = append(got, blk)
		case "resource_link":
			found := false
			for _, x := range a.Content {
				if bytes.Equal(mustJSON(x), mustJSON(blk)) {
					found = true
				}
			}
			if !found {
				t.Errorf("a resource_link block changed: %s", mustJSON(blk))
			}
		}
	}
	if len(got) != len(media) || len(out.Media) != len(media) {
		t.Fatalf("%d media blocks in, %d out, %d in Output.Media", len(media), len(got), len(out.Media))
	}
	for i, blk := range got {
		if str(blk, "type") != "image" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(str(blk, "data"))
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("image %d does not decode: %v", i, err)
		}
		if max(cfg.Width, cfg.Height) > MaxImageSide || len(data) > MaxImageBytes {
			t.Errorf("image %d is %dx%d, %d bytes: over the limits", i, cfg.Width, cfg.Height, len(data))
		}
		if want := "image/" + format; str(blk, "mimeType") != want {
			t.Errorf("image %d is %s but says %s", i, want, str(blk, "mimeType"))
		}
	}
	return b
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

var longData = regexp.MustCompile(`"(data|blob)":"([A-Za-z0-9+/=]{200,})"`)

// abbreviate replaces long base64 payloads in a projection by their size
// and digest, for golden files people can read.
func abbreviate(s string) string {
	return longData.ReplaceAllStringFunc(s, func(m string) string {
		sub := longData.FindStringSubmatch(m)
		sum := sha256.Sum256([]byte(sub[2]))
		return fmt.Sprintf(`"%s":"<base64, %d chars, sha256 %s>"`, sub[1], len(sub[2]), hex.EncodeToString(sum[:8]))
	})
}

// checkWholeBudget checks that the whole result, as a model reads it (its
// JSON and the escapes of its text included, the data of media blocks
// aside), fits the budget.
func checkWholeBudget(t *testing.T, out Output, budget int) {
	t.Helper()
	c, ok := MCPCostOf([]byte(out.Text))
	if !ok {
		t.Fatalf("the view is no CallToolResult: %.200s", out.Text)
	}
	if n := tokens.O200k().Count(c.Text); n > budget {
		t.Errorf("the result takes %d tokens as a model reads it, budget %d", n, budget)
	}
}

func TestMCPRealCases(t *testing.T) {
	for _, c := range loadCases(t, filepath.Join("testdata", "mcp")) {
		t.Run(c.name, func(t *testing.T) {
			for _, budget := range []int{500, 2000} {
				out, _ := projectMCPCall(t, c.output, c.meta.Tool, c.meta.Args, schemaOf(c), budget)
				again, _ := projectMCPCall(t, c.output, c.meta.Tool, c.meta.Args, schemaOf(c), budget)
				if out.Text != again.Text {
					t.Fatal("same input and budget gave different projections")
				}
				checkMCP(t, c.output, out, budget)
				if out.Text != string(c.output) {
					checkWholeBudget(t, out, budget)
				}
				var pretty bytes.Buffer
				json.Indent(&pretty, []byte(abbreviate(out.Text)), "", "  ")
				checkGolden(t, filepath.Join("testdata", "mcp", c.name, fmt.Sprintf("view-%d.golden", budget)), pretty.String())
			}
		})
	}
}

// TestMCPPassThrough: a result that needs nothing changed comes back byte
// for byte, with its media.
func TestMCPPassThrough(t *testing.T) {
	for _, name := range []string{"everything-tiny-image", "everything-resource-links", "everything-structured", "everything-error-result", "everything-resource-text"} {
		c := loadCase(t, "mcp", name)
		out, _ := projectMCPCase(t, c, nil, 2000)
		if out.Text != string(c) {
			t.Errorf("%s: changed though nothing needed projecting:\n%s", name, out.Text)
		}
		if !out.Complete || out.Next != nil {
			t.Errorf("%s: not reported complete", name)
		}
	}
}

// TestMCPBigTextStoredApart: a long text block is stored on its own and its
// projection reads that copy, by its own line numbers.
func TestMCPBigTextStoredApart(t *testing.T) {
	c := loadCases(t, filepath.Join("testdata", "mcp"))
	var raw []byte
	var schema json.RawMessage
	for _, x := range c {
		if x.name == "filesystem-read-big-file" {
			raw, schema = x.output, x.meta.OutputSchema
		}
	}
	var in ctr
	json.Unmarshal(raw, &in)
	text := []byte(str(in.Content[0], "text"))
	ref := store.RefOf(store.Sum(text))

	for _, tc := range []struct {
		name    string
		schema  json.RawMessage
		indexSC bool // structuredContent becomes an index of itself
		boundSC bool // structuredContent is cut, valid for the schema
	}{
		{"schema", schema, false, true},
		{"no-schema", json.RawMessage("null"), true, false},
		{"unknown", nil, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, fs := projectMCPCase(t, raw, tc.schema, 2000)
			b := checkMCP(t, raw, out, 2000)
			if !bytes.Equal(fs[ref], text) {
				t.Fatalf("the text block was not stored apart under %s", ref)
			}
			got := str(b.Content[0], "text")
			if !strings.Contains(got, "ref "+string(ref)) || !strings.Contains(got, "crumb read "+string(ref)+" --lines") {
				t.Errorf("the projection does not read the stored copy:\n%s", got)
			}
			if out.Next == nil || out.Next.Ref != ref {
				t.Errorf("Next does not continue the stored text: %+v", out.Next)
			}
			switch {
			case tc.indexSC:
				// The text block carries the data: structuredContent,
				// which repeats it, becomes a bounded index of itself
				// (issue 9 item 6), whether the tool has no schema or
				// nothing is known of it.
				if n := tokens.O200k().Count(string(b.StructuredContent)); n > 2000/4 {
					t.Errorf("structuredContent takes %d tokens beside the projected text", n)
				}
				var v struct{ Content string }
				if err := json.Unmarshal(b.StructuredContent, &v); err != nil || !strings.HasSuffix(v.Content, "…") || !strings.HasPrefix(string(text), strings.TrimSuffix(v.Content, "…")) {
					t.Errorf("structuredContent is not an index of itself: %.300s", b.StructuredContent)
				}
				if !strings.Contains(modelText(b), "structuredContent (") || !strings.Contains(modelText(b), "repeats the content above") {
					t.Error("no note says that structuredContent repeats the text")
				}
			case tc.boundSC:
				var v struct{ Content string }
				if err := json.Unmarshal(b.StructuredContent, &v); err != nil || len(v.Content) > 1000 || !strings.HasSuffix(v.Content, "…") {
					t.Errorf("structuredContent not bounded: %.300s", b.StructuredContent)
				}
				vd := &validator{}
				var sch, val any
				json.Unmarshal(schema, &sch)
				json.Unmarshal(b.StructuredContent, &val)
				vd.root = sch
				if !vd.valid(val, sch) || vd.unsupported {
					t.Error("the bounded structuredContent breaks the outputSchema")
				}
			}
		})
	}
}

func mustCompact(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestMCPImageDownscaled: the screenshot is larger than a model takes; it
// is downscaled, and the original is stored and named.
func TestMCPImageDownscaled(t *testing.T) {
	raw := screenshotAlone(t)
	var in ctr
	json.Unmarshal(raw, &in)
	orig, _ := base64.StdEncoding.DecodeString(str(in.Content[0], "data"))
	out, fs := projectMCPCase(t, raw, json.RawMessage("null"), 2000)
	b := checkMCP(t, raw, out, 2000)
	ref := store.RefOf(store.Sum(orig))
	if !bytes.Equal(fs[ref], orig) {
		t.Fatal("the original image was not stored")
	}
	if !strings.Contains(modelText(b), "crumb read "+string(ref)+" --all > FILE") || !strings.Contains(modelText(b), "3013x1561") {
		t.Errorf("no note names the original:\n%s", modelText(b))
	}
	if str(b.Content[0], "type") != "image" {
		t.Error("the image is not first any more")
	}
}

func TestMCPBlobResourceStored(t *testing.T) {
	raw := loadCase(t, "mcp", "everything-gzip-resource")
	out, fs := projectMCPCase(t, raw, nil, 2000)
	b := checkMCP(t, raw, out, 2000)
	if len(fs) != 1 {
		t.Fatalf("%d things stored, want the resource's bytes", len(fs))
	}
	for ref, data := range fs {
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Error("what was stored is not the gzip blob")
		}
		if !strings.Contains(modelText(b), string(ref)) || !strings.Contains(modelText(b), "application/gzip") {
			t.Errorf("the note does not name the blob:\n%s", modelText(b))
		}
	}
}

// TestMCPManyBlocks: more long text blocks than the budget can project;
// the view stays within it and names every block's stored copy.
func TestMCPManyBlocks(t *testing.T) {
	src := loadCase(t, "json", "go-list-std")
	var blocks []string
	for i := 0; i < 30; i++ {
		blocks = append(blocks, fmt.Sprintf(`{"type":"text","text":%s}`, mustJSON(string(src[i*20000:i*20000+15000]))))
	}
	raw := []byte(`{"content":[` + strings.Join(blocks, ",") + `],"_meta":{"x":1},"isError":false,"future":[1,2]}`)
	for _, budget := range []int{300, 2000, 8000} {
		out, _ := projectMCPCase(t, raw, nil, budget)
		b := checkMCP(t, raw, out, budget)
		// Every block is there with the read of its stored copy, or named
		// in the note that says where the ones left out are.
		var note string
		for i, blk := range b.Content {
			text := str(blk, "text")
			if !strings.Contains(text, "crumb read ") {
				t.Errorf("budget %d: block %d names no read:\n%s", budget, i, text)
			}
			if strings.Contains(text, "left out for lack of room (") {
				note = text
			}
		}
		for i := len(b.Content); i < 30; i++ {
			if !strings.Contains(note, fmt.Sprintf("text block %d", i)) && !strings.Contains(note, "…") {
				t.Errorf("budget %d: block %d is neither shown nor named", budget, i)
			}
		}
	}
}

// FuzzMCPProject projects arbitrary bytes as an MCP result: no panic, and
// a CallToolResult always gives valid JSON.
func FuzzMCPProject(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hello"}]}`), 100)
	f.Add([]byte(`{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"x"}],"_meta":{}}`), 200)
	f.Add([]byte(`{"content":[],"structuredContent":{"a":[1,2,3]}}`), 100)
	f.Add([]byte(`{"content":[{"type":"resource","resource":{"uri":"a","blob":"`+strings.Repeat("QUJD", 400)+`"}}]}`), 150)
	f.Fuzz(func(t *testing.T, doc []byte, budget int) {
		budget = 100 + abs(budget)%3000
		if len(doc) > 1<<16 {
			return
		}
		in := testInput(t, doc, budget)
		in.Put = fakeStore{}.put
		out, err := Project(context.Background(), KindMCP, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseToolResult(doc); err == nil && !json.Valid([]byte(out.Text)) {
			t.Fatalf("a CallToolResult gave invalid JSON:\n%s", out.Text)
		}
	})
}

// TestMCPImageViewCostsNoMore: a downscaled image and its note together
// cost no more tokens than the original image would (ImageTokens), and an
// image the API takes whose downscale could not pay for its note stays as
// it is.
func TestMCPImageViewCostsNoMore(t *testing.T) {
	repeated := loadCase(t, "mcp", "filesystem-read-screenshot")
	raw := screenshotAlone(t)
	var in ctr
	json.Unmarshal(raw, &in)
	orig, _ := base64.StdEncoding.DecodeString(str(in.Content[0], "data"))
	shot, _, err := image.Decode(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	// A thin strip cut from the same screenshot: over the long side, but
	// cheap, so a note would cost more than downscaling saves.
	strip := image.NewNRGBA(image.Rect(0, 0, 1700, 24))
	draw.Draw(strip, strip.Bounds(), shot, image.Point{}, draw.Src)
	var sb bytes.Buffer
	if err := png.Encode(&sb, strip); err != nil {
		t.Fatal(err)
	}
	stripCase := []byte(`{"content":[{"type":"image","data":"` + base64.StdEncoding.EncodeToString(sb.Bytes()) + `","mimeType":"image/png"}]}`)
	for _, c := range []struct {
		name    string
		raw     []byte
		changed bool
	}{
		{"screenshot", raw, true},
		// The same with structuredContent repeating the image, as the
		// filesystem server returns it: cutting the copy and saying so
		// would cost more than the whole result.
		{"screenshot-repeated", repeated, false},
		{"strip", stripCase, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a ctr
			json.Unmarshal(c.raw, &a)
			before := blockImageTokens(t, a.Content[0])
			out, _ := projectMCPCase(t, c.raw, json.RawMessage("null"), 2000)
			var b ctr
			if err := json.Unmarshal([]byte(out.Text), &b); err != nil {
				t.Fatal(err)
			}
			after, notes, images := 0, 0, 0
			for _, blk := range b.Content {
				switch str(blk, "type") {
				case "image":
					images++
					after += blockImageTokens(t, blk)
				case "text":
					if s := str(blk, "text"); strings.Contains(s, "downscaled") {
						note, _, _ := strings.Cut(s, "] ")
						notes += tokens.O200k().Count(strings.TrimSuffix(note, "]") + "]")
					}
				}
			}
			if images != 1 {
				t.Errorf("%d image blocks in the view, want the one image, as an image", images)
			}
			if changed := notes > 0; changed != c.changed {
				t.Fatalf("downscaled: %v, want %v", changed, c.changed)
			}
			if after+notes > before {
				t.Errorf("the view's image and note cost %d+%d tokens, the original %d", after, notes, before)
			}
		})
	}
}

// screenshotAlone is the screenshot of the filesystem-read-screenshot case
// as a result of its one image block, without the structuredContent that
// repeats it (as servers without an outputSchema return images).
func screenshotAlone(t *testing.T) []byte {
	t.Helper()
	var in ctr
	if err := json.Unmarshal(loadCase(t, "mcp", "filesystem-read-screenshot"), &in); err != nil {
		t.Fatal(err)
	}
	return []byte(`{"content":[` + string(mustJSON(in.Content[0])) + `]}`)
}

// blockImageTokens is what an image block costs a model.
func blockImageTokens(t *testing.T, blk map[string]json.RawMessage) int {
	t.Helper()
	data, err := base64.StdEncoding.DecodeString(str(blk, "data"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return ImageTokens(cfg.Width, cfg.Height)
}
