package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// writeCase writes a case folder under dir.
func writeCase(t *testing.T, dir, name, meta string, output []byte) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if meta != "" {
		if err := os.WriteFile(filepath.Join(d, "meta.json"), []byte(meta), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if output != nil {
		if err := os.WriteFile(filepath.Join(d, "output"), output, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadCorpus(t *testing.T) {
	dir := t.TempDir()
	writeCase(t, dir, "command-ok", `{"kind": "command", "tool": "bash", "args": {"command": "go test"}, "exit_code": 1,
		"needles": [{"text": "--- FAIL: TestX", "why": "the failing test"}]}`, []byte("=== RUN TestX\n--- FAIL: TestX\nFAIL\n"))
	writeCase(t, dir, "mcp-schema", `{"kind": "mcp", "tool": "read", "args": {}, "output_schema": null, "needles": []}`, []byte(`{"content":[]}`))
	cases, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].Name != "command-ok" || cases[1].Name != "mcp-schema" {
		t.Fatalf("cases = %v", cases)
	}
	c := cases[0]
	if c.Kind != "command" || c.Tool != "bash" || c.ExitCode == nil || *c.ExitCode != 1 || len(c.Needles) != 1 || string(c.Args) != `{"command": "go test"}` {
		t.Errorf("case = %+v", c.Meta)
	}
	if string(cases[1].OutputSchema) != "null" {
		t.Errorf("output_schema = %q, want null", cases[1].OutputSchema)
	}
}

func TestLoadCorpusErrors(t *testing.T) {
	out := []byte("line one\nline two\n")
	for _, tc := range []struct {
		name, meta string
		output     []byte
		want       string
	}{
		{"text-kind", `{"kind": "log", "needles": []}`, out, `unknown kind "log"`},
		{"text-nokind", `{"tool": "x", "needles": []}`, out, `no "kind"`},
		{"file-mismatch", `{"kind": "text", "needles": []}`, out, "does not start with its kind"},
		{"text-absent", `{"kind": "text", "needles": [{"text": "line three", "why": "w"}]}`, out, "needle 1 is not in the output"},
		{"text-empty", `{"kind": "text", "needles": [{"text": "", "why": "w"}]}`, out, "needle 1 is empty"},
		{"text-lines", `{"kind": "text", "needles": [{"text": "one\nline", "why": "w"}]}`, out, "needle 1 spans lines"},
		{"text-nowhy", `{"kind": "text", "needles": [{"text": "line one", "why": " "}]}`, out, "does not say why"},
		{"text-field", `{"kind": "text", "needle": [], "needles": []}`, out, `unknown field "needle"`},
		{"text-nooutput", `{"kind": "text", "needles": []}`, nil, "output"},
		{"text-nometa", ``, out, "meta.json"},
		{"text-badjson", `{"kind": "text", "needles": [}`, out, "meta.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeCase(t, dir, tc.name, tc.meta, tc.output)
			_, err := LoadCorpus(dir)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), "case "+tc.name) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name the case and say %q", err, tc.want)
			}
		})
	}
}

func TestLoadCorpusReportsEveryBrokenCase(t *testing.T) {
	dir := t.TempDir()
	writeCase(t, dir, "text-a", `{"kind": "text", "needles": [{"text": "zzz", "why": "w"}]}`, []byte("x\n"))
	writeCase(t, dir, "text-b", `{"kind": "text", "needles": [{"text": "yyy", "why": "w"}]}`, []byte("x\n"))
	writeCase(t, dir, "text-c", `{"kind": "text", "needles": [{"text": "x", "why": "w"}]}`, []byte("x\n"))
	cases, err := LoadCorpus(dir)
	if err == nil || !strings.Contains(err.Error(), "text-a") || !strings.Contains(err.Error(), "text-b") {
		t.Fatalf("err = %v; want both broken cases named", err)
	}
	if len(cases) != 1 || cases[0].Name != "text-c" {
		t.Errorf("the valid case is not returned: %v", cases)
	}
	if _, err := LoadCorpus(t.TempDir()); err == nil {
		t.Error("an empty corpus loads without an error")
	}
}

func TestVisible(t *testing.T) {
	text := &Case{Meta: Meta{Kind: "command"}}
	mcp := &Case{Meta: Meta{Kind: "mcp"}}
	jsonc := &Case{Meta: Meta{Kind: "json"}}
	for _, tc := range []struct {
		name   string
		c      *Case
		needle string
		view   string
		want   bool
	}{
		{"exact", text, "--- FAIL: TestX", "a\n--- FAIL: TestX (0.01s)\nb", true},
		{"absent", text, "--- FAIL: TestX", "--- PASS: TestX", false},
		{"cut by an ellipsis", text, "expected 12, got 11", "expected 12, go …", false},
		{"split over lines", text, "expected 12, got 11", "expected 12,\ngot 11", false},
		{"colour removed", text, "\x1b[31mFAIL\x1b[0m pkg", "x\nFAIL pkg\n", true},
		{"control byte in caret notation", text, "a\x00b", "a^@b", true},
		{"carriage return redraw", text, "10%\r100% done", "100% done", true},
		{"re-indented", text, "\tat foo.go:12", "at foo.go:12", false},
		{"json escapes in an mcp view", mcp, `\"name\": \"server.go\"`, `"name": "server.go"`, true},
		{"unicode escape in an mcp view", mcp, `a <b>`, `a \u003cb\u003e`, true},
		{"json escapes outside mcp", text, `\"name\"`, `"name"`, false},
		{"json spacing in a json view", jsonc, `"workspace_root":"/tmp/ws"`, `  "workspace_root": "/tmp/ws"`, true},
		{"json spacing inside a string counts", jsonc, `"msg":"a b"`, `"msg": "ab"`, false},
		{"json escaped quote in a string", jsonc, `"q":"say \"hi there\""`, `"q": "say \"hi there\""`, true},
		{"json missing comma", jsonc, `"lockfileVersion": 3,`, `"lockfileVersion": 3`, false},
		{"json spacing outside json cases", text, `"a":1`, `"a": 1`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Visible(tc.c, Needle{Text: tc.needle}, tc.view); got != tc.want {
				t.Errorf("Visible(%q in %q) = %v, want %v", tc.needle, tc.view, got, tc.want)
			}
		})
	}
}

func TestLeakBytes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"plain text\n\twith tabs\r\n", 0},
		{"\x1b[31mred\x1b[0m", 0},
		{"NUL \x00 and BEL \x07 and DEL \x7f", 3},
		{"bad \xff\xfe utf-8", 2},
		{"a cut rune \xe2\x82", 2},
		{"é ü 中文 🙂", 0},
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 1 + 1 + 3},
	} {
		if got := LeakBytes(tc.s); got != tc.want {
			t.Errorf("LeakBytes(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestSanitisedBinary(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"[crumb binary: image/png, 1600x1000, 421 KB]", 0},
		{"\uFFFDPNG^M^J^Z^J^@^@^@", 8},
		{"ELF^B^A^A\uFFFD\uFFFD", 5},
	} {
		if got := sanitisedBinary(tc.s); got != tc.want {
			t.Errorf("sanitisedBinary(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestHeadTail(t *testing.T) {
	counter := tokens.O200k()
	var b bytes.Buffer
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "2026-11-29 12:00:%02d INFO request %d served in %dms\n", i%60, i, i%97)
	}
	logText := b.Bytes()
	for _, budget := range []int{50, 200, 1000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			got := HeadTail(logText, budget, counter)
			if n := counter.Count(got); n > budget {
				t.Fatalf("%d tokens, over the budget of %d", n, budget)
			}
			head, tail, ok := strings.Cut(got, "\n[… ")
			if !ok {
				t.Fatalf("no marker in %q", got)
			}
			if !bytes.HasPrefix(logText, []byte(head)) {
				t.Errorf("the head is not the text's head: %q", head)
			}
			_, tail, _ = strings.Cut(tail, " cut …]\n")
			if !bytes.HasSuffix(logText, []byte(tail)) {
				t.Errorf("the tail is not the text's tail: %q", tail)
			}
			// Each half holds several lines at these budgets, so both cuts
			// fall at line ends.
			if budget >= 200 && (!strings.HasSuffix(head, "\n") || !strings.HasSuffix(tail, "\n")) {
				t.Errorf("not cut at line ends: head %q, tail %q", head, tail)
			}
			if counter.Count(got) < budget*3/4 && budget >= 200 {
				t.Errorf("only %d of %d tokens used", counter.Count(got), budget)
			}
		})
	}
	small := []byte("a small output\n")
	if got := HeadTail(small, 100, counter); got != string(small) {
		t.Errorf("a text that fits is cut: %q", got)
	}
	if got := HeadTail(small, 0, counter); got != "" {
		t.Errorf("a zero budget gives %q", got)
	}
	long := []byte(strings.Repeat("é", 20000)) // one line of two-byte runes
	if got := HeadTail(long, 100, counter); !utf8.ValidString(got) || counter.Count(got) > 100 {
		t.Errorf("a cut inside runes: valid %v, %d tokens", utf8.ValidString(got), counter.Count(got))
	}
}

func FuzzHeadTail(f *testing.F) {
	f.Add([]byte("one\ntwo\nthree\n"), 5)
	f.Add([]byte(strings.Repeat("x y z\n", 500)), 40)
	f.Add([]byte("\x00\xff\xfe binary \x89PNG"), 3)
	counter := tokens.O200k()
	f.Fuzz(func(t *testing.T, text []byte, budget int) {
		budget = budget%300 + 1
		if budget < 1 {
			budget += 300
		}
		got := HeadTail(text, budget, counter)
		if n := counter.Count(got); n > budget {
			t.Fatalf("%d tokens, over the budget of %d", n, budget)
		}
		if utf8.Valid(text) && !utf8.ValidString(got) {
			t.Fatalf("valid UTF-8 cut into invalid: %q", got)
		}
		if head, _, ok := strings.Cut(got, "\n[… "); ok && !bytes.HasPrefix(text, []byte(head)) {
			t.Fatalf("the head %q is not a prefix of the text", head)
		}
	})
}

func FuzzParseMeta(f *testing.F) {
	f.Add([]byte(`{"kind": "command", "tool": "bash", "args": {"command": "make"}, "exit_code": 2, "needles": [{"text": "x", "why": "y"}]}`))
	f.Add([]byte(`{"kind": "mcp", "output_schema": null, "needles": []}`))
	f.Add([]byte(`{"kind": "auto"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ParseMeta(raw)
		if err != nil {
			return
		}
		found := false
		for _, k := range []string{"text", "file", "dir", "command", "json", "mcp", "binary"} {
			found = found || string(m.Kind) == k
		}
		if !found {
			t.Fatalf("kind %q accepted", m.Kind)
		}
		if len(m.Args) > 0 && !json.Valid(m.Args) {
			t.Fatalf("args %q accepted", m.Args)
		}
	})
}

func TestTextTokensLeavesMediaOut(t *testing.T) {
	counter := tokens.O200k()
	data := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 400)
	doc := `{"content":[{"type":"text","text":"a chart"},{"type":"image","data":"` + data + `","mimeType":"image/png"}],` +
		`"structuredContent":{"content":[{"type":"image","data":"` + data + `","mimeType":"image/png"}]}}`
	c := &Case{Meta: Meta{Kind: "mcp"}, Output: []byte(doc)}
	got := textTokens(counter, c, doc)
	bare := strings.ReplaceAll(doc, data, "")
	if want := counter.Count(bare); got != want {
		t.Errorf("textTokens = %d, want %d (the text without either copy of the image)", got, want)
	}
	if n := countMedia(c.Output); n != 1 {
		t.Errorf("countMedia = %d, want 1", n)
	}
	if text := (&Case{Meta: Meta{Kind: "json"}}); textTokens(counter, text, doc) != counter.Count(doc) {
		t.Error("media left out of a case that is not mcp")
	}
	// A view that keeps the image in its text and in Media counts it once.
	v := &View{Text: doc, Media: []json.RawMessage{json.RawMessage(`{"type":"image","data":"` + data + `","mimeType":"image/png"}`)}}
	if n := keptMedia(c, v); n != 1 {
		t.Errorf("keptMedia = %d, want 1", n)
	}
	if n := keptMedia(c, &View{Text: doc[:len(doc)/2]}); n != 0 {
		t.Errorf("keptMedia of a cut JSON text = %d, want 0", n)
	}
}

// syntheticCorpus is a small corpus: a long log with its evidence in the
// middle, and a small output that passes through.
func syntheticCorpus(t *testing.T) []*Case {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	for i := 1; i <= 1500; i++ {
		if i == 1234 {
			b.WriteString("2026-11-29 12:20:34 ERROR payment 1234 failed: card declined (code 51)\n")
			continue
		}
		fmt.Fprintf(&b, "2026-11-29 12:%02d:%02d INFO payment %d settled in %dms\n", i/60%60, i%60, i, i%89)
	}
	writeCase(t, dir, "text-payments", `{"kind": "text", "tool": "read_file", "args": {"path": "payments.log"},
		"needles": [{"text": "ERROR payment 1234 failed: card declined (code 51)", "why": "the failure"},
		{"text": "INFO payment 1100 settled", "why": "the payment before it went through"}]}`, b.Bytes())
	writeCase(t, dir, "command-small", `{"kind": "command", "tool": "bash", "exit_code": 0,
		"needles": [{"text": "ok  \tpkg", "why": "it passed"}]}`, []byte("ok  \tpkg\t0.01s\n"))
	cases, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestEvaluate(t *testing.T) {
	cases := syntheticCorpus(t)
	const budget = 300
	cr := Evaluate(cases, Crumb(budget))
	if cr.Err != "" || cr.Total.Errors != 0 {
		t.Fatalf("crumb: %+v", cr)
	}
	ht := Evaluate(cases, HeadTailSame(cr))
	raw := Evaluate(cases, Raw())
	for i, name := range []string{"command-small", "text-payments"} {
		if cr.Cases[i].Case != name {
			t.Fatalf("case %d is %s, want %s (corpus order)", i, cr.Cases[i].Case, name)
		}
	}

	small, log := cr.Cases[0], cr.Cases[1]
	if small.View != string(cases[0].Output) || small.Visible != 1 || small.TokensToAll != small.FirstTokens || small.Pages != 0 {
		t.Errorf("the small case did not pass through: %+v", small)
	}
	if log.FirstTokens > budget || log.FirstTokens == 0 {
		t.Errorf("crumb's first view takes %d tokens; budget %d", log.FirstTokens, budget)
	}
	if log.TokensToAll <= log.FirstTokens || log.Pages == 0 {
		t.Errorf("following crumb's continuations: %d tokens in %d pages to see everything, first view %d", log.TokensToAll, log.Pages, log.FirstTokens)
	}
	if log.TokensToAll > log.RawTokens*2 {
		t.Errorf("%d tokens to see every needle, more than twice the raw %d", log.TokensToAll, log.RawTokens)
	}
	if log.RawTokens != cases[1].RawTokens() || log.RawTokens != tokens.O200k().Count(string(cases[1].Output)) {
		t.Errorf("raw tokens %d", log.RawTokens)
	}

	hlog := ht.Cases[1]
	if hlog.FirstTokens > log.FirstTokens {
		t.Errorf("headtail-same takes %d tokens, more than crumb's %d", hlog.FirstTokens, log.FirstTokens)
	}
	if hlog.Visible != 0 || hlog.TokensToAll != -1 {
		t.Errorf("a head and tail cut sees the middle: %+v", hlog)
	}
	rlog := raw.Cases[1]
	if rlog.Visible != 2 || rlog.FirstTokens != rlog.RawTokens || rlog.TokensToAll != rlog.RawTokens || rlog.LargerThanRaw {
		t.Errorf("raw: %+v", rlog)
	}
	if raw.Total.VisiblePct != 100 || raw.Total.Reached != 2 {
		t.Errorf("raw totals: %+v", raw.Total)
	}

	var tbl bytes.Buffer
	if err := WriteTable(&tbl, cr, ht, raw); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crumb view", "headtail-same view", "raw view", "text-payments", "needles visible", "never"} {
		if !strings.Contains(tbl.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, tbl.String())
		}
	}
	if err := WriteTable(&tbl, cr, Report{Strategy: "short"}); err == nil {
		t.Error("reports over different cases are written side by side")
	}
	var missed bytes.Buffer
	WriteMissed(&missed, ht)
	if !strings.Contains(missed.String(), "card declined") || !strings.Contains(missed.String(), "the failure") {
		t.Errorf("WriteMissed: %s", missed.String())
	}
}

func TestEvaluateMaxPages(t *testing.T) {
	cases := syntheticCorpus(t)
	r := EvaluateWith(context.Background(), cases, Crumb(200), Options{MaxPages: 1})
	if c := r.Cases[1]; c.Pages > 1 || c.TokensToAll != -1 {
		t.Errorf("with one page allowed: %d pages, %d tokens to all", c.Pages, c.TokensToAll)
	}
	r = EvaluateWith(context.Background(), cases, Raw(), Options{EstimateRawOver: 1000})
	if c := r.Cases[1]; !c.RawEstimated || c.RawTokens != tokens.Estimate(string(cases[1].Output)) {
		t.Errorf("estimated raw tokens: %+v", c)
	}
}

func TestHeadTailSameNeedsTheReference(t *testing.T) {
	cases := syntheticCorpus(t)
	r := Evaluate(cases, HeadTailSame(Report{Strategy: "crumb"}))
	if r.Total.Errors != 2 || !strings.Contains(r.Cases[0].Err, "no case command-small") {
		t.Errorf("missing sizes: %+v", r.Cases)
	}
}

func TestNamedReads(t *testing.T) {
	a := recall.Request{Ref: "0123456789abcdef", Lines: &recall.Span{From: 10, To: 20}}
	b := recall.Request{Ref: "0123456789abcdef", Lines: &recall.Span{From: 40, To: 90}}
	g := recall.Request{Ref: "0123456789abcdef", Grep: &recall.GrepSpec{Pattern: `error "x"`}}
	trimmed := recall.Request{Ref: "0123456789abcdef", Lines: &recall.Span{From: 100, To: 200}}
	rec := &hintRecorder{}
	for _, r := range []recall.Request{b, a, g, trimmed, a} {
		rec.hint(r)
	}
	gq, _ := json.Marshal(recall.CLIHint(g))
	text := "head\n[… " + recall.CLIHint(a) + "]\nmid\n[… " + recall.CLIHint(b) + "]\n" + string(gq) +
		"\nalso: crumb read fedcba9876543210 --lines 5:6\n"
	got := rec.named(text, nil)
	var argvs []string
	for _, r := range got {
		argvs = append(argvs, strings.Join(r.Argv(), " "))
	}
	want := []string{strings.Join(a.Argv(), " "), strings.Join(b.Argv(), " "), strings.Join(g.Argv(), " "), "read fedcba9876543210 --lines 5:6"}
	if strings.Join(argvs, "|") != strings.Join(want, "|") {
		t.Errorf("named reads:\n got %q\nwant %q", argvs, want)
	}
	next := recall.Request{Ref: "0123456789abcdef", Bytes: &recall.Span{From: 0, To: 10}}
	if got := rec.named(text, &next); len(got) != 5 || got[0].Bytes == nil {
		t.Errorf("the view's own continuation does not come first: %v", got)
	}
	if got := rec.named(text, &a); len(got) != 4 {
		t.Errorf("the view's continuation is read twice: %v", got)
	}
}

func TestCovered(t *testing.T) {
	p := &readPager{shown: map[store.Ref][]span{"a": {{10, 20}, {0, 10}, {30, 40}}}}
	for _, tc := range []struct {
		ref      store.Ref
		from, to int64
		want     bool
	}{
		{"a", 5, 15, true},
		{"a", 0, 20, true},
		{"a", 15, 25, false},
		{"a", 30, 40, true},
		{"a", 20, 30, false},
		{"b", 0, 1, false},
	} {
		if got := p.covered(tc.ref, tc.from, tc.to); got != tc.want {
			t.Errorf("covered(%s, %d, %d) = %v, want %v", tc.ref, tc.from, tc.to, got, tc.want)
		}
	}
}
