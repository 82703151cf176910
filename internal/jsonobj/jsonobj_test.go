package jsonobj

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseKeepsOrderAndBytes(t *testing.T) {
	in := `{ "z": 1, "a": {"deep": [1, 2.50, "\u00e9<>&"]},  "m": null, "z2": "x" }`
	o, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Keys(); !reflect.DeepEqual(got, []string{"z", "a", "m", "z2"}) {
		t.Errorf("keys = %v", got)
	}
	if v, _ := o.Get("a"); string(v) != `{"deep": [1, 2.50, "\u00e9<>&"]}` {
		t.Errorf("value bytes changed: %s", v)
	}
	want := `{"z":1,"a":{"deep": [1, 2.50, "\u00e9<>&"]},"m":null,"z2":"x"}`
	if got := string(o.Bytes()); got != want {
		t.Errorf("Bytes\n got %s\nwant %s", got, want)
	}
	o.Set("a", json.RawMessage(`7`))
	o.Set("new", json.RawMessage(`"<n>"`))
	o.Delete("m")
	want = `{"z":1,"a":7,"z2":"x","new":"<n>"}`
	if got := string(o.Bytes()); got != want {
		t.Errorf("after edits\n got %s\nwant %s", got, want)
	}
	ind, err := o.Indent("", "  ")
	if err != nil || string(ind) != "{\n  \"z\": 1,\n  \"a\": 7,\n  \"z2\": \"x\",\n  \"new\": \"<n>\"\n}" {
		t.Errorf("Indent = %s, %v", ind, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{"a":}`, `{"a":1} {}`, `{"a":1`, `{1:2}`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) succeeded", in)
		}
	}
	if _, err := Parse([]byte(" {} \n")); err != nil {
		t.Errorf("white space around an object: %v", err)
	}
}

func TestAppendArray(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[]`, `[1,2]`},
		{` [ ] `, `[ 1,2]`},
		{`[{"a": 1}]`, `[{"a": 1},1,2]`},
		{"[0,\n]", "[0,\n,1,2]"}, // invalid in, invalid out: not our business
	}
	for _, tt := range tests {
		got, err := AppendArray(json.RawMessage(tt.in), json.RawMessage(`1`), json.RawMessage(`2`))
		if err != nil || string(got) != tt.want {
			t.Errorf("AppendArray(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	if _, err := AppendArray(json.RawMessage(`{}`), json.RawMessage(`1`)); err == nil {
		t.Error("AppendArray accepted an object")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[true,null]}`, `{"a":{"b":{"c":"\u0041"}}}`, `{"x":1,"x":2}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		out := o.Bytes()
		var a, b any
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("Bytes wrote invalid JSON %q from %q: %v", out, data, err)
		}
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatalf("Parse accepted invalid JSON %q", data)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the value: %q -> %q", data, out)
		}
	})
}
