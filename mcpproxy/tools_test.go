package mcpproxy

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/recall"
)

func newTestProxy(t testing.TB, names Names) *Proxy {
	t.Helper()
	cfg := testConfig(t, 500)
	cfg.Names = names
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// splitHint splits a rendered continuation into the tool's name and its
// arguments.
func splitHint(t testing.TB, h string) (string, json.RawMessage) {
	t.Helper()
	name, args, ok := strings.Cut(h, " ")
	if !ok || !json.Valid([]byte(args)) {
		t.Fatalf("hint %q is not NAME {JSON}", h)
	}
	return name, json.RawMessage(args)
}

func ptr[T any](v T) *T { return &v }

// TestHintRoundTrip checks that every continuation a view shows is a call
// of crumb's tools that reads exactly what the continuation says.
func TestHintRoundTrip(t *testing.T) {
	const ref = "0123456789abcdef"
	tests := []struct {
		name string
		req  recall.Request
		want string
	}{
		{"lines", recall.Request{Ref: ref, Lines: &recall.Span{From: 41, To: 240}},
			`crumb_read {"ref":"0123456789abcdef","lines":"41:240"}`},
		{"open lines", recall.Request{Ref: ref, Lines: &recall.Span{From: 41}},
			`crumb_read {"ref":"0123456789abcdef","lines":"41:"}`},
		{"several ranges", recall.Request{Ref: ref, Lines: &recall.Span{From: 10, To: 14}, More: []recall.Span{{From: 19, To: 44}, {From: 73}}},
			`crumb_read {"ref":"0123456789abcdef","lines":"10:14,19:44,73:"}`},
		{"bytes", recall.Request{Ref: ref, Bytes: &recall.Span{From: 0, To: 4096}},
			`crumb_read {"ref":"0123456789abcdef","bytes":"0:4096"}`},
		{"revision agreeing with the ref is left out", recall.Request{Ref: ref, Rev: "0123456789ab", Lines: &recall.Span{From: 1, To: 2}},
			`crumb_read {"ref":"0123456789abcdef","lines":"1:2"}`},
		{"other revision is kept", recall.Request{Ref: ref, Rev: "fedcba987654", Lines: &recall.Span{From: 1, To: 2}},
			`crumb_read {"ref":"0123456789abcdef","lines":"1:2","rev":"fedcba987654"}`},
		{"search", recall.Request{Ref: ref, Grep: &recall.GrepSpec{Pattern: `FAIL|panic: "x" <y>`, IgnoreCase: true, Context: 2, Max: 9, From: 120, Skip: 4}},
			`crumb_search {"ref":"0123456789abcdef","pattern":"FAIL|panic: \"x\" <y>","ignore_case":true,"context":2,"max":9,"from":120,"skip":4}`},
		{"jq", recall.Request{Ref: ref, Query: ".items[] | .name"},
			`crumb_query {"ref":"0123456789abcdef","jq":".items[] | .name"}`},
		{"pointer", recall.Request{Ref: ref, Pointer: ptr("/items/0")},
			`crumb_query {"ref":"0123456789abcdef","pointer":"/items/0"}`},
		{"empty pointer", recall.Request{Ref: ref, Pointer: ptr("")},
			`crumb_query {"ref":"0123456789abcdef","pointer":""}`},
	}
	p := newTestProxy(t, Names{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.renderHint(tt.req)
			if got != tt.want {
				t.Errorf("hint\n got %s\nwant %s", got, tt.want)
			}
			name, args := splitHint(t, got)
			back, err := p.parseOwn(name, args)
			if err != nil {
				t.Fatalf("parsing the hint back: %v", err)
			}
			want := tt.req
			if !needsRev(want) {
				want.Rev = ""
			}
			if !reflect.DeepEqual(back, want) {
				t.Errorf("hint reads %+v, want %+v", back, want)
			}
		})
	}
}

// TestRenamedTools checks that configured names reach the tool list, the
// hints and the routing of calls.
func TestRenamedTools(t *testing.T) {
	p := newTestProxy(t, Names{Read: "fs_read_saved", Search: "fs_grep_saved", Query: "fs_jq_saved"})
	h := p.renderHint(recall.Request{Ref: "0123456789abcdef", Lines: &recall.Span{From: 3, To: 9}})
	if !strings.HasPrefix(h, "fs_read_saved {") {
		t.Errorf("hint %q does not use the configured name", h)
	}
	var names []string
	for _, d := range p.toolDefs() {
		var def struct{ Name, Description string }
		json.Unmarshal(d, &def)
		names = append(names, def.Name)
		if strings.Contains(def.Description, "crumb_read") {
			t.Errorf("%s's description names crumb_read: %s", def.Name, def.Description)
		}
	}
	if strings.Join(names, " ") != "fs_read_saved fs_grep_saved fs_jq_saved" {
		t.Errorf("tools %v", names)
	}
	for _, bad := range []Names{{Read: "has space"}, {Read: "same", Search: "same"}, {Query: strings.Repeat("x", 129)}} {
		cfg := testConfig(t, 500)
		cfg.Names = bad
		if _, err := New(cfg); err == nil {
			t.Errorf("New accepted names %+v", bad)
		}
	}
}

// TestCallToolResult checks how a view becomes the CallToolResult the
// client gets, and when the proxy must fail open instead.
func TestCallToolResult(t *testing.T) {
	orig := `{"content":[{"type":"text","text":"long"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"x-new","v":1}],"isError":true}`
	origStructured := `{"content":[{"type":"text","text":"long"}],"structuredContent":{"items":[1,2]}}`
	tests := []struct {
		name         string
		view         string
		orig         string
		outputSchema bool
		want         string // "" when the proxy must fail open
	}{
		{"projector output passes as it is", `{"content":[{"type":"text","text":"view"}],"x":1}`, orig, false,
			`{"content":[{"type":"text","text":"view"}],"x":1}`},
		{"text view is wrapped, media and isError kept", "[crumb view]\nline", orig, false,
			`{"content":[{"type":"text","text":"[crumb view]\nline"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":true}`},
		{"text view for a tool without outputSchema", "[crumb view]", origStructured, false,
			`{"content":[{"type":"text","text":"[crumb view]"}]}`},
		{"text view cannot satisfy an outputSchema", "[crumb view]", origStructured, true, ""},
		{"projection that drops required structuredContent", `{"content":[{"type":"text","text":"v"}]}`, origStructured, true, ""},
		{"projection that keeps structuredContent", `{"content":[{"type":"text","text":"v"}],"structuredContent":{"items":[]}}`, origStructured, true,
			`{"content":[{"type":"text","text":"v"}],"structuredContent":{"items":[]}}`},
		{"object without content", `{"text":"v"}`, orig, false, ""},
		{"block without a type", `{"content":[{"text":"v"}]}`, orig, false, ""},
		{"structuredContent not an object", `{"content":[],"structuredContent":[1]}`, orig, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := callToolResult(&crumb.View{Text: tt.view}, json.RawMessage(tt.orig), tt.outputSchema)
			if tt.want == "" {
				if err == nil {
					t.Errorf("got %s, want an error (fail open)", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzParseOwn checks that the arguments of crumb's tools never crash the
// parser, and that any request it accepts renders a continuation that
// parses back to the same request.
func FuzzParseOwn(f *testing.F) {
	for _, s := range []string{
		`{"ref":"0123456789abcdef","lines":"41:240"}`,
		`{"ref":"0123456789abcdef","bytes":"0:"}`,
		`{"ref":"0123456789abcdef","lines":7}`,
		`{"ref":"0123456789abcdef","pattern":"a|b","context":2,"from":3,"skip":1}`,
		`{"ref":"0123456789abcdef","jq":".a"}`,
		`{"ref":"0123456789abcdef","pointer":"/a/0","rev":"ff"}`,
		`{"ref":"crumb:0123456789ABCDEF"}`,
		`[]`, `null`, `{"ref":1}`,
	} {
		for _, tool := range []string{"crumb_read", "crumb_search", "crumb_query"} {
			f.Add(tool, s)
		}
	}
	d := newTestProxy(f, Names{})
	f.Fuzz(func(t *testing.T, tool, args string) {
		req, err := d.parseOwn(tool, json.RawMessage(args))
		if err != nil {
			return
		}
		if err := req.Validate(); err != nil {
			t.Fatalf("accepted an invalid request %+v: %v", req, err)
		}
		name, hargs := splitHint(t, d.renderHint(req))
		back, err := d.parseOwn(name, hargs)
		if err != nil {
			t.Fatalf("hint %s %s does not parse: %v", name, hargs, err)
		}
		if !needsRev(req) {
			req.Rev = ""
		}
		if !reflect.DeepEqual(back, req) {
			t.Fatalf("round trip changed the request:\n got %+v\nwant %+v", back, req)
		}
	})
}
