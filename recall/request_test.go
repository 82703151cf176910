package recall

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestParseSpan(t *testing.T) {
	tests := []struct {
		in   string
		want Span
		bad  bool
	}{
		{"41:240", Span{41, 240}, false},
		{"41:", Span{41, 0}, false},
		{"7", Span{7, 7}, false},
		{" 3 : 9 ", Span{3, 9}, false},
		{"3-9", Span{3, 9}, false},
		{"", Span{}, true},
		{"a:b", Span{}, true},
		{"-1:4", Span{}, true},
		{"4:-1", Span{}, true},
		{"1:2:3", Span{}, true},
		{"99999999999999999999:1", Span{}, true},
	}
	for _, tt := range tests {
		got, err := ParseSpan(tt.in)
		if tt.bad {
			if err == nil || !errors.Is(err, ErrBadRequest) {
				t.Errorf("ParseSpan(%q) = %v, %v; want ErrBadRequest", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ref := "0123456789abcdef"
	tests := []struct {
		name string
		r    Request
		ok   bool
	}{
		{"plain", Request{Ref: "0123456789abcdef"}, true},
		{"lines", Request{Ref: "0123456789abcdef", Lines: &Span{1, 5}}, true},
		{"bytes", Request{Ref: "0123456789abcdef", Bytes: &Span{0, 5}}, true},
		{"grep", Request{Ref: "0123456789abcdef", Grep: &GrepSpec{Pattern: "x"}}, true},
		{"pointer", Request{Ref: "0123456789abcdef", Pointer: ptr("/a/0")}, true},
		{"root pointer", Request{Ref: "0123456789abcdef", Pointer: ptr("")}, true},
		{"bad ref", Request{Ref: "../../etc/passwd"}, false},
		{"upper ref", Request{Ref: "0123456789ABCDEF"}, false},
		{"short ref", Request{Ref: "0123"}, false},
		{"line 0", Request{Ref: "0123456789abcdef", Lines: &Span{0, 5}}, false},
		{"backwards", Request{Ref: "0123456789abcdef", Lines: &Span{9, 5}}, false},
		{"empty bytes", Request{Ref: "0123456789abcdef", Bytes: &Span{5, 5}}, false},
		{"two modes", Request{Ref: "0123456789abcdef", Lines: &Span{1, 2}, Bytes: &Span{0, 5}}, false},
		{"empty pattern", Request{Ref: "0123456789abcdef", Grep: &GrepSpec{}}, false},
		{"negative context", Request{Ref: "0123456789abcdef", Grep: &GrepSpec{Pattern: "x", Context: -1}}, false},
		{"bad pointer", Request{Ref: "0123456789abcdef", Pointer: ptr("a/b")}, false},
		{"bad rev", Request{Ref: "0123456789abcdef", Rev: "xyz"}, false},
	}
	_ = ref
	for _, tt := range tests {
		err := tt.r.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

func TestArgvRoundTrip(t *testing.T) {
	reqs := []Request{
		{Ref: "0123456789abcdef"},
		{Ref: "0123456789abcdef", Lines: &Span{41, 240}},
		{Ref: "0123456789abcdef", Lines: &Span{41, 0}},
		{Ref: "0123456789abcdef", Bytes: &Span{0, 4096}, Rev: "ffffffffffff"},
		{Ref: "0123456789abcdef", Grep: &GrepSpec{Pattern: "-v|--x", IgnoreCase: true, Context: 2, Max: 9, From: 100, Skip: 3}},
		{Ref: "0123456789abcdef", Grep: &GrepSpec{Pattern: "a b 'c'"}},
		{Ref: "0123456789abcdef", Pointer: ptr("/items/0/name")},
		{Ref: "0123456789abcdef", Query: ".items[] | .id"},
	}
	for _, r := range reqs {
		got, err := ParseArgv(r.Argv())
		if err != nil {
			t.Errorf("ParseArgv(%q): %v", r.Argv(), err)
			continue
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("ParseArgv(Argv()) = %+v, want %+v", got, r)
		}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Request
		if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, r) {
			t.Errorf("JSON round trip of %s = %+v, %v", data, back, err)
		}
	}
}

func TestArgvLeavesOutARevisionTheRefAlreadyCarries(t *testing.T) {
	r := Request{Ref: "0123456789abcdef", Rev: "0123456789ab", Lines: &Span{1, 2}}
	if got := r.Argv(); len(got) != 4 {
		t.Errorf("Argv() = %q: a revision that agrees with the ref adds nothing", got)
	}
	if got := CLIHint(Request{Ref: "0123456789abcdef", Grep: &GrepSpec{Pattern: "it's"}}); got != `crumb grep 0123456789abcdef -- 'it'\''s'` {
		t.Errorf("CLIHint quoting: %s", got)
	}
}

func TestNextJSONCarriesArgv(t *testing.T) {
	data, err := json.Marshal(Request{Ref: "0123456789abcdef", Lines: &Span{201, 400}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ref":"0123456789abcdef","lines":"201:400","argv":["read","0123456789abcdef","--lines","201:400"]}`
	if string(data) != want {
		t.Errorf("got %s\nwant %s", data, want)
	}
}

// FuzzContinuationDecoder feeds arbitrary JSON to the continuation decoder:
// it either rejects it or yields a valid request that survives a round trip
// through both its JSON and its argv forms.
func FuzzContinuationDecoder(f *testing.F) {
	f.Add([]byte(`{"ref":"0123456789abcdef","lines":"201:400"}`))
	f.Add([]byte(`{"ref":"0123456789abcdef","bytes":"0:10","rev":"0123"}`))
	f.Add([]byte(`{"ref":"0123456789abcdef","grep":{"pattern":"a","context":2,"from":5,"skip":1}}`))
	f.Add([]byte(`{"ref":"0123456789abcdef","pointer":"/a~1b"}`))
	f.Add([]byte(`{"ref":"../x","lines":"1:"}`))
	f.Add([]byte(`{"ref":"0123456789abcdef","lines":"10:14,19:44,64:66,73:"}`))
	f.Add([]byte(`{"ref":"0123456789abcdef","bytes":"0:10,10:20","lines":"1:2"}`))
	f.Add([]byte(`{"ref":"0123456789abcdef","grep":{"pattern":"a","skip":9223372036854775807}}`))
	f.Add([]byte(`{"ref":"0123456789abcdef","lines":"5:0"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Request
		if err := json.Unmarshal(data, &r); err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("decoder accepted an invalid request %s: %v", data, err)
		}
		again, err := ParseArgv(r.Argv())
		if err != nil {
			t.Fatalf("argv of a valid request does not parse: %q: %v", r.Argv(), err)
		}
		if again.Ref != r.Ref || again.Mode() != r.Mode() {
			t.Fatalf("argv round trip changed %+v into %+v", r, again)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Request
		if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, r) {
			t.Fatalf("JSON round trip: %s → %+v (%v), want %+v", out, back, err, r)
		}
	})
}

// FuzzParseArgv: arbitrary argument lists never panic, and what parses is
// valid and formats back to itself.
func FuzzParseArgv(f *testing.F) {
	f.Add("read", "0123456789abcdef", "--lines", "1:9")
	f.Add("grep", "0123456789abcdef", "--", "x")
	f.Add("read", "crumb:0123456789abcdef", "--bytes", "9:")
	f.Add("read", "0123456789abcdef", "--lines", "10:14,19:44,73:")
	f.Add("read", "0123456789abcdef", "--bytes", "5:5")
	f.Add("grep", "0123456789abcdef", "--skip", "9223372036854775807")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		r, err := ParseArgv([]string{a, b, c, d})
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("parsed an invalid request: %v", err)
		}
		again, err := ParseArgv(r.Argv())
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip of %q: %+v, %v", r.Argv(), again, err)
		}
	})
}

func TestCLIHintForNamesTheProgram(t *testing.T) {
	r := Request{Ref: "0123456789abcdef", Lines: &Span{10, 14}}
	for _, tt := range []struct{ prog, want string }{
		{"crumb", "crumb read 0123456789abcdef --lines 10:14"},
		{"/opt/crumb/bin/crumb", "/opt/crumb/bin/crumb read 0123456789abcdef --lines 10:14"},
		{"/home/me/my tools/crumb", "'/home/me/my tools/crumb' read 0123456789abcdef --lines 10:14"},
	} {
		if got := CLIHintFor(tt.prog)(r); got != tt.want {
			t.Errorf("CLIHintFor(%q) = %s, want %s", tt.prog, got, tt.want)
		}
	}
}
