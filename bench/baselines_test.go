package bench

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/tokens"
)

// numbered returns n lines "line 0001 ..." of about width bytes each.
func numbered(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("line %04d ", i)
		b.WriteString(line + strings.Repeat("x", max(0, width-len(line)-1)) + "\n")
	}
	return b.String()
}

func textCase(kind project.Kind, output string) *Case {
	return &Case{Name: string(kind) + "-t", Meta: Meta{Kind: kind, Tool: "bash"}, Output: []byte(output)}
}

func view(t *testing.T, s Strategy, c *Case) *View {
	t.Helper()
	v, err := s.View(context.Background(), c, &Env{Dir: t.TempDir(), Counter: tokens.Estimator()})
	if err != nil {
		t.Fatalf("%s: %v", s.Name(), err)
	}
	return v
}

// readAll follows a view's pages to their end.
func readAll(t *testing.T, v *View) []string {
	t.Helper()
	if v.Pages == nil {
		return nil
	}
	var pages []string
	for range 1 << 20 {
		p, ok, err := v.Pages.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return pages
		}
		if p == "" {
			t.Fatal("an empty page")
		}
		pages = append(pages, p)
	}
	t.Fatal("the pages never end")
	return nil
}

// TestBaselinesPassSmallOutputs checks that every baseline shows an output
// under its threshold whole, with nothing to read on.
func TestBaselinesPassSmallOutputs(t *testing.T) {
	out := numbered(100, 80) // 8,000 bytes, 100 lines: under every threshold
	for _, s := range Baselines() {
		v := view(t, s, textCase(project.KindCommand, out))
		if v.Text != out || v.Pages != nil {
			t.Errorf("%s changed a small output, or offers to read on", s.Name())
		}
	}
}

// TestStubsReadOnWithoutGapOrOverlap checks each stub strategy on an output
// over its threshold: the message the system writes, a preview of the size
// it promises, and pages of that size that, after the preview, give back
// the rest of the output exactly.
func TestStubsReadOnWithoutGapOrOverlap(t *testing.T) {
	out := numbered(2000, 60) // 120,000 bytes
	for _, tc := range []struct {
		s              Strategy
		prefix, suffix string
		previewFrom    string // the preview starts after this
		previewEnd     int    // the preview's end in out
		pageUnits      func(string) int
		pageSize       int
	}{
		{B4(), "[Tool output offloaded — 120,000 chars exceeded the 40,000-char limit.\nFull output saved to: tool-outputs/",
			"\nRead the full output with the readFile tool at the path above.]", "Preview (first 10 lines):\n", 600,
			func(p string) int { return strings.Count(p, "\n") }, 10},
		// 2,000 characters end inside line 34; the preview stops at the end
		// of line 33 (1,980 bytes) without its newline.
		{ClaudeCode(), "<persisted-output>\nOutput too large (117.2KB). Full output saved to: /home/user/.claude/projects/",
			"\n...\n</persisted-output>", "Preview (first 2KB):\n", 1979, jsLen, 2000},
		{Craft(), "[Response too large (~30000 tokens)]\n\nFull data saved to: /home/user/.craft-agent/",
			"...", "\nPreview:\n", 2000, jsLen, 2000},
	} {
		t.Run(tc.s.Name(), func(t *testing.T) {
			v := view(t, tc.s, textCase(project.KindCommand, out))
			if !strings.HasPrefix(v.Text, tc.prefix) || !strings.HasSuffix(v.Text, tc.suffix) {
				t.Fatalf("the view does not read as the system's message:\n%s", v.Text)
			}
			_, after, ok := strings.Cut(v.Text, tc.previewFrom)
			if !ok {
				t.Fatalf("no %q in the view", tc.previewFrom)
			}
			if !strings.HasPrefix(after, out[:tc.previewEnd]) || strings.HasPrefix(after, out[:tc.previewEnd+2]) {
				t.Errorf("the preview is not the first %d bytes of the output", tc.previewEnd)
			}
			pages := readAll(t, v)
			if got := strings.Join(pages, ""); got != out[tc.previewEnd:] {
				t.Fatalf("the pages give %d bytes, want the %d after the preview", len(got), len(out)-tc.previewEnd)
			}
			for i, p := range pages[:len(pages)-1] {
				if n := tc.pageUnits(p); n != tc.pageSize {
					t.Errorf("page %d holds %d units, want %d", i+1, n, tc.pageSize)
				}
			}
		})
	}
}

func TestGemini(t *testing.T) {
	out := numbered(2000, 60)
	v := view(t, Gemini(), textCase(project.KindText, out))
	head := "Output too large. Showing first 8,000 and last 32,000 characters. For full output see: /home/user/.gemini/tmp/"
	if !strings.HasPrefix(v.Text, head) {
		t.Fatalf("view starts %q", v.Text[:120])
	}
	first, rest, _ := strings.Cut(v.Text, "\n")
	if !strings.HasSuffix(first, ".txt") || !strings.HasPrefix(rest, out[:8000]+"\n\n... [80,000 characters omitted] ...\n\n") {
		t.Errorf("the head is not the first 8,000 characters followed by the marker")
	}
	if !strings.HasSuffix(v.Text, "\n\n"+out[len(out)-32000:]) {
		t.Error("the tail is not the last 32,000 characters")
	}
	pages := readAll(t, v)
	if len(pages) != 2 || strings.Join(pages, "") != out[8000:len(out)-32000] {
		t.Errorf("the pages do not read the omitted middle, 40,000 characters a page: %d pages", len(pages))
	}
}

func TestCut50K(t *testing.T) {
	out := numbered(2000, 60)
	v := view(t, Cut50K(), textCase(project.KindText, out))
	want := out[:50000] + "\n\n[output truncated: showing the first 50,000 of 120,000 bytes]"
	if v.Text != want || v.Pages != nil {
		t.Errorf("view ends %q", v.Text[len(v.Text)-80:])
	}
	// A rune across the cut is left out whole.
	odd := strings.Repeat("a", 49999) + "é" + strings.Repeat("b", 100)
	if v := view(t, Cut50K(), textCase(project.KindText, odd)); !strings.HasPrefix(v.Text, strings.Repeat("a", 49999)+"\n\n[output truncated: showing the first 49,999 of") {
		t.Errorf("the cut splits a rune: %q", v.Text[49990:50010])
	}
}

// TestCodex checks the head-and-tail cut against the cases of Codex's own
// tests (codex-rs/core/src/truncate.rs).
func TestCodex(t *testing.T) {
	var lines []string
	for i := range codexMaxLines + 50 {
		lines = append(lines, fmt.Sprintf("L%04d", i))
	}
	big := strings.Join(lines, "\n")
	out := codexFormat(big, codexMaxBytes, codexMaxLines)
	body, ok := strings.CutPrefix(out, "Total output lines: 306\n\n")
	if !ok || !strings.HasPrefix(body, "L0000") || !strings.HasSuffix(body, "L0305") ||
		!strings.Contains(body, "\n[... omitted 50 of 306 lines ...]\n\n") || len(body) > codexMaxBytes {
		t.Errorf("too many lines: got\n%s", out)
	}
	// Few lines, too many bytes: every line is in the head, so the tail is
	// empty and the view is 5,120 bytes of head and the byte marker.
	long := strings.Repeat(strings.Repeat("y", 1999)+"\n", 10)
	out = codexFormat(long, codexMaxBytes, codexMaxLines)
	body, _ = strings.CutPrefix(out, "Total output lines: 10\n\n")
	marker := "\n[... output truncated to fit 10240 bytes ...]\n\n"
	if body != long[:codexMaxBytes/2]+marker {
		t.Errorf("too many bytes: got %d bytes ending %q", len(body), body[max(0, len(body)-60):])
	}
	// Multi-byte characters are never split.
	wide := strings.Repeat("héllö世界🙂\n", 2000)
	out = codexFormat(wide, codexMaxBytes, codexMaxLines)
	if !utf8.ValidString(out) {
		t.Error("the cut splits a character")
	}
	if got := codexFormat("short\n", codexMaxBytes, codexMaxLines); got != "short\n" {
		t.Errorf("a short output changed: %q", got)
	}
	if v := view(t, HeadTailCodex(), textCase(project.KindCommand, big)); v.Pages != nil {
		t.Error("Codex keeps no copy to read on from")
	}
}

func TestClaudeCodeKeepsMedia(t *testing.T) {
	img := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 1, 2}, 20000))
	out := `{"content":[{"type":"text","text":"` + strings.Repeat("z", 60000) + `"},{"type":"image","data":"` + img + `","mimeType":"image/png"}]}`
	v := view(t, ClaudeCode(), &Case{Name: "mcp-x", Meta: Meta{Kind: project.KindMCP}, Output: []byte(out)})
	if v.Text != out || v.Pages != nil {
		t.Error("a result with an image was persisted; Claude Code passes it through")
	}
	// Without the image, the same result is persisted.
	text := `{"content":[{"type":"text","text":"` + strings.Repeat("z", 60000) + `"}]}`
	if v := view(t, ClaudeCode(), &Case{Name: "mcp-y", Meta: Meta{Kind: project.KindMCP}, Output: []byte(text)}); !strings.HasPrefix(v.Text, "<persisted-output>") {
		t.Error("a large text result was not persisted")
	}
}

func TestClaudeFileSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{512, "512 bytes"}, {2000, "2KB"}, {17715, "17.3KB"}, {5033165, "4.8MB"}, {1 << 30, "1GB"}, {3 << 29, "1.5GB"}} {
		if got := claudeFileSize(tc.n); got != tc.want {
			t.Errorf("claudeFileSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestCraft(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 7, 200, 3}, 400)...)
	t.Run("binary", func(t *testing.T) {
		v := view(t, Craft(), &Case{Name: "binary-x", Meta: Meta{Kind: project.KindBinary, Tool: "read_file"}, Output: png})
		want := "[Binary content detected and saved]\n\nFile: " + craftSession + "/downloads/read_file_2026-01-01T00-00-00.png\nSize: 1.6 KB\nType: PNG\n\nUse the Read tool or reference this path to work with the file."
		if v.Text != want || v.Pages != nil {
			t.Errorf("got\n%s\nwant\n%s", v.Text, want)
		}
	})
	t.Run("media in JSON", func(t *testing.T) {
		data := base64.StdEncoding.EncodeToString(png)
		out := `{"content":[{"type":"text","text":"Error: Operation failed"},{"type":"image","data":"` + data + `","mimeType":"image/png"}]}`
		v := view(t, Craft(), &Case{Name: "mcp-x", Meta: Meta{Kind: project.KindMCP, Tool: "get-image"}, Output: []byte(out)})
		for _, want := range []string{"[Structured media assets extracted and saved]\n\n", "\nAssets extracted: 1\n\n1. " + craftSession + "/downloads/assets/get-image_",
			".png (1.6 KB, image/png, from $.content[1].data)\n\nUse the linked JSON"} {
			if !strings.Contains(v.Text, want) {
				t.Errorf("no %q in\n%s", want, v.Text)
			}
		}
		if strings.Contains(v.Text, "Error: Operation failed") {
			t.Error("the assets message shows the text; Craft shows only the list")
		}
		linked := strings.Join(readAll(t, v), "")
		var doc struct {
			Content []struct {
				Text string `json:"text"`
				Data struct {
					AssetRef struct {
						Size     int    `json:"size"`
						MimeType string `json:"mimeType"`
						JSONPath string `json:"jsonPath"`
						Source   string `json:"source"`
					} `json:"assetRef"`
				} `json:"data"`
			} `json:"content"`
		}
		if err := json.Unmarshal([]byte(linked), &doc); err != nil {
			t.Fatalf("the pages are not the linked JSON: %v", err)
		}
		ref := doc.Content[1].Data.AssetRef
		if doc.Content[0].Text != "Error: Operation failed" || ref.Size != len(png) || ref.MimeType != "image/png" || ref.JSONPath != "$.content[1].data" || ref.Source != "raw-base64" {
			t.Errorf("linked document: %+v", doc)
		}
		if !strings.HasPrefix(linked, "{\n  \"content\": [\n    {\n      \"type\": \"text\",") {
			t.Errorf("the linked JSON is not indented as JSON.stringify(v, null, 2) does:\n%s", linked[:80])
		}
	})
	t.Run("data URL", func(t *testing.T) {
		out := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
		v := view(t, Craft(), textCase(project.KindText, out))
		if !strings.HasPrefix(v.Text, "[Base64-encoded binary detected and saved]\n\nFile: ") || !strings.Contains(v.Text, "\nType: PNG\n") {
			t.Errorf("got %s", v.Text)
		}
	})
	t.Run("estimate", func(t *testing.T) {
		// 60,000 characters are 15,000 estimated tokens: at the limit, not over.
		at := strings.Repeat("abc ", 15000) // spaces: not base64
		if v := view(t, Craft(), textCase(project.KindText, at)); v.Text != at {
			t.Error("a result at the limit was saved")
		}
		if v := view(t, Craft(), textCase(project.KindText, at+"e")); !strings.HasPrefix(v.Text, "[Response too large (~15001 tokens)]") {
			t.Errorf("a result over the limit: %.60s", v.Text)
		}
	})
}

func TestCraftBase64(t *testing.T) {
	bin := append([]byte{0, 1, 2, 3}, bytes.Repeat([]byte{0xff, 0x00, 0x10}, 100)...)
	text := bytes.Repeat([]byte("plain words "), 40)
	for _, tc := range []struct {
		name, in string
		ok       bool
		source   string
	}{
		{"raw binary", base64.StdEncoding.EncodeToString(bin), true, "raw-base64"},
		{"url-safe", base64.URLEncoding.EncodeToString(bin), true, "raw-base64"},
		{"wrapped lines", strings.Join(splitEvery(base64.StdEncoding.EncodeToString(bin), 76), "\r\n"), true, "raw-base64"},
		{"text encoded", base64.StdEncoding.EncodeToString(text), false, ""},
		{"too short", base64.StdEncoding.EncodeToString(bin[:100]), false, ""},
		{"not base64", strings.Repeat("hello world ", 50), false, ""},
		{"json", `{"a": "` + base64.StdEncoding.EncodeToString(bin) + `"}`, false, ""},
		{"data url", "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(text), true, "data-url"},
		{"data url of text", "data:text/plain;base64," + base64.StdEncoding.EncodeToString(text), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := craftBase64(tc.in)
			if ok != tc.ok || ok && a.source != tc.source {
				t.Errorf("craftBase64 = %v (%s), want %v (%s)", ok, a.source, tc.ok, tc.source)
			}
		})
	}
}

func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func TestCraftFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {512, "512 B"}, {1024, "1.0 KB"}, {1600, "1.6 KB"}, {3 << 20, "3.0 MB"}} {
		if got := craftFormatBytes(tc.n); got != tc.want {
			t.Errorf("craftFormatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestB4CountsCharactersAsJavaScript(t *testing.T) {
	// 20,001 emoji are 40,002 UTF-16 code units: over the limit, though
	// only 20,001 runes.
	out := strings.Repeat("🙂", 20001)
	v := view(t, B4(), textCase(project.KindText, out))
	if !strings.HasPrefix(v.Text, "[Tool output offloaded — 40,002 chars exceeded") {
		t.Errorf("got %.80s", v.Text)
	}
	if v := view(t, B4(), textCase(project.KindText, strings.Repeat("🙂", 20000))); !strings.HasPrefix(v.Text, "🙂") {
		t.Error("40,000 code units were offloaded")
	}
}

func TestJSHelpers(t *testing.T) {
	s := "a🙂b"
	if jsLen(s) != 4 {
		t.Errorf("jsLen = %d", jsLen(s))
	}
	for n, want := range map[int]int{0: 0, 1: 1, 2: 1, 3: 5, 4: 6, 9: 6} {
		if got := jsCut(s, n); got != want {
			t.Errorf("jsCut(%d) = %d, want %d", n, got, want)
		}
	}
	for n, want := range map[int]int{0: 6, 1: 5, 2: 5, 3: 1, 4: 0} {
		if got := jsCutLast(s, n); got != want {
			t.Errorf("jsCutLast(%d) = %d, want %d", n, got, want)
		}
	}
	if got := lossy([]byte("a\xff\xfeb\x00")); got != "a\uFFFD\uFFFDb\x00" {
		t.Errorf("lossy = %q", got)
	}
	if rustLines("a\nb") != 2 || rustLines("a\nb\n") != 2 || rustLines("") != 0 {
		t.Error("rustLines")
	}
}

func TestLookup(t *testing.T) {
	for _, name := range append(StrategyNames(), "crumb@500") {
		s, err := Lookup(name)
		if err != nil || s.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, s, err)
		}
	}
	for _, bad := range []string{"nope", "crumb@", "crumb@-3", "crumb@x", NameHeadTailSame} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) did not fail", bad)
		}
	}
	if d := DefaultStrategies(); d[0] != NameRaw || d[len(d)-1] != NameCrumb || len(d) != 9 {
		t.Errorf("DefaultStrategies() = %v", d)
	}
}

// TestRun runs every default strategy over a small corpus and checks the
// summaries' arithmetic: what each strategy shows and finds, and what it
// reads to find it.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	long := numbered(3000, 50) + "--- FAIL: TestDeep (0.01s)\n    deep_test.go:12: want 3, got 4\nFAIL\n"
	writeCase(t, dir, "command-deep", `{"kind": "command", "tool": "bash", "exit_code": 1, "needles": [
		{"text": "--- FAIL: TestDeep", "why": "the test"}, {"text": "line 1500 ", "why": "the middle"}]}`, []byte(long))
	writeCase(t, dir, "text-small", `{"kind": "text", "needles": [{"text": "ok", "why": "w"}]}`, []byte("all ok\n"))
	cases, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	reps, sums, err := Run(context.Background(), cases, DefaultStrategies(), RunOptions{Workers: 2, Counter: tokens.Estimator()})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != len(DefaultStrategies()) || len(sums) != len(reps) {
		t.Fatalf("%d reports and %d summaries for %d strategies", len(reps), len(sums), len(DefaultStrategies()))
	}
	by := map[string]Summary{}
	for i, s := range sums {
		if s.Strategy != DefaultStrategies()[i] || reps[i].Strategy != s.Strategy {
			t.Errorf("summary %d is %s, want %s", i, s.Strategy, DefaultStrategies()[i])
		}
		by[s.Strategy] = s
		if s.Found < s.Visible || s.TokensRead < s.FirstTokens || s.Needles != 3 || s.Cases != 2 {
			t.Errorf("%s: %+v", s.Strategy, s)
		}
	}
	if r := by[NameRaw]; r.Visible != 3 || r.TokensRead != r.FirstTokens || r.FoundPerKTokens <= 0 {
		t.Errorf("raw: %+v", r)
	}
	// Codex keeps the head and the tail, and nothing to read on: it misses
	// the middle for good.
	if h := by[NameHeadTail]; h.Visible != 2 || h.Found != 2 || h.TokensRead != h.FirstTokens {
		t.Errorf("headtail: %+v", h)
	}
	// Claude Code's preview shows the head only, but reading its file on
	// finds everything, at a cost.
	if c := by[NameClaudeCode]; c.Visible != 1 || c.Found != 3 || c.Reached != 2 || c.TokensRead <= c.FirstTokens {
		t.Errorf("claude-code: %+v", c)
	}
	var out bytes.Buffer
	if err := WriteSummaries(&out, sums); err != nil || !strings.Contains(out.String(), "claude-code") {
		t.Errorf("WriteSummaries: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := WriteSummariesMarkdown(&out, sums); err != nil || !strings.Contains(out.String(), "| **`crumb`** | ") ||
		strings.Count(out.String(), "\n") != len(sums)+2 {
		t.Errorf("WriteSummariesMarkdown: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := WriteCases(&out, reps); err != nil || !strings.Contains(out.String(), "command-deep") || !strings.Contains(out.String(), "never") {
		t.Errorf("WriteCases: %v\n%s", err, out.String())
	}
	if _, _, err := Run(context.Background(), cases, []string{"nope"}, RunOptions{}); err == nil {
		t.Error("an unknown strategy is not an error")
	}
}

// FuzzBaselines checks, for any output, that every baseline gives the same
// view twice, that its view is valid UTF-8 (each system decodes output as
// text), and that its pages end and, for a saved file, read on from the
// preview without a gap or an overlap.
func FuzzBaselines(f *testing.F) {
	f.Add([]byte("short"), uint16(0))
	f.Add([]byte(numbered(50, 40)), uint16(900))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00"), uint16(3000))
	f.Add([]byte(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`), uint16(10))
	f.Fuzz(func(t *testing.T, chunk []byte, copies uint16) {
		out := bytes.Repeat(chunk, int(copies)%2000+1)
		c := &Case{Name: "text-f", Meta: Meta{Kind: project.KindText, Tool: "t"}, Output: out}
		for _, s := range Baselines() {
			v1 := view(t, s, c)
			v2 := view(t, s, c)
			if v1.Text != v2.Text {
				t.Fatalf("%s: two views of the same output differ", s.Name())
			}
			if s.Name() != NameRaw && !utf8.ValidString(v1.Text) {
				t.Fatalf("%s: the view is not valid UTF-8", s.Name())
			}
			pages := strings.Join(readAll(t, v1), "")
			if sp, ok := v2.Pages.(*slicePager); ok {
				if pages != sp.text[sp.pos:sp.end] {
					t.Fatalf("%s: the pages do not give back the saved text after the preview", s.Name())
				}
			}
		}
	})
}

// TestImageTokens checks that an image counts its area over 750 tokens, in
// a raw output and in a view alike, and that data that is no image counts
// nothing.
func TestImageTokens(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 300, 250))); err != nil {
		t.Fatal(err)
	}
	img := base64.StdEncoding.EncodeToString(buf.Bytes())
	if got := project.Base64ImageTokens(img); got != 100 {
		t.Errorf("a 300x250 image counts %d tokens, want 100", got)
	}
	buf.Reset()
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 3000, 2000))); err != nil {
		t.Fatal(err)
	}
	if got := project.Base64ImageTokens(base64.StdEncoding.EncodeToString(buf.Bytes())); got != project.MaxImageTokens {
		t.Errorf("a 3000x2000 image counts %d tokens, want the API's most, %d", got, project.MaxImageTokens)
	}
	if got := project.Base64ImageTokens(base64.StdEncoding.EncodeToString([]byte("not an image"))); got != 0 {
		t.Errorf("data that is no image counts %d tokens", got)
	}
	c := &Case{Meta: Meta{Kind: project.KindMCP}}
	doc := `{"content":[{"type":"text","text":"hi"},{"type":"image","data":"` + img + `","mimeType":"image/png"}]}`
	if got, text := textTokens(tokens.O200k(), c, doc), tokens.O200k().Count(strings.Replace(doc, img, "", 1)); got != text+100 {
		t.Errorf("the result counts %d tokens, want its text's %d and the image's 100", got, text)
	}
}
