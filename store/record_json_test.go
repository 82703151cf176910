package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestRecordDecodesAsEncodingJSON checks that decodeRecord gives what
// encoding/json gives, on a record the store wrote and on records edited in
// the ways encoding/json is lenient about.
func TestRecordDecodesAsEncodingJSON(t *testing.T) {
	d, err := OpenDir(t.TempDir(), DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var content bytes.Buffer
	for i := 0; content.Len() < 3*ChunkSize+1000; i++ {
		content.WriteString(strings.Repeat("x", i%200) + "\n")
	}
	info, err := d.Put(context.Background(), &content, Meta{Tool: "go test", Kind: "command", Args: json.RawMessage(`{"cmd": ["go", "test"], "n": 1.5e3}`), Attrs: map[string]string{"exit_code": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(d.recordPath(info.Ref))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) string {
		if !bytes.Contains(written, []byte(old)) {
			t.Fatalf("the record holds no %q", old)
		}
		return strings.Replace(string(written), old, new, 1)
	}
	tests := []struct{ name, data string }{
		{"as written", string(written)},
		{"keys in another case", edit(`"tool":`, `"TOOL":`)},
		{"unknown fields", edit(`{"v":1,`, `{"v":1,"later":{"a":[1,{"b":null}]},"x":"\"]}",`)},
		{"escapes and invalid UTF-8", edit(`"tool":"go test"`, `"tool":"go\u0020t\u00e9st \ud83d\ude00 `+"\xff\xc3("+`\"\\"`)},
		{"null fields", edit(`"chunks":`, `"lines":null,"truncated":null,"chunks":`)},
		{"spaces", strings.ReplaceAll(string(written), ",", " ,\n\t")},
		{"a field twice", edit(`{"v":1,`, `{"v":1,"kind":"text",`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want, got record
			wantErr := json.Unmarshal([]byte(tt.data), &want)
			gotErr := decodeRecord([]byte(tt.data), &got)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("decodeRecord: %v; encoding/json: %v", gotErr, wantErr)
			}
			if wantErr != nil {
				t.Logf("both refuse it: decodeRecord: %v; encoding/json: %v", gotErr, wantErr)
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decodeRecord gives\n%+v\nencoding/json gives\n%+v", got, want)
			}
		})
	}
}

// TestDeepRecordIsBroken checks that a record nested too deeply reads as a
// broken result, as encoding/json has it, rather than exhausting the stack
// of a decoder that recurses: a record under the size limit can nest 30
// million arrays.
func TestDeepRecordIsBroken(t *testing.T) {
	d, err := OpenDir(t.TempDir(), DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	info, err := d.Put(context.Background(), strings.NewReader("some content\n"), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	for _, depth := range []int{maxRecordDepth + 1, 30 << 20} {
		data := `{"v":1,"x":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
		if err := os.WriteFile(d.recordPath(info.Ref), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := d.Open(context.Background(), info.Ref)
		if !errors.Is(err, ErrBroken) || !strings.Contains(err.Error(), "nested too deeply") {
			t.Errorf("a record %d deep: Open: %v, want ErrBroken for a record nested too deeply", depth, err)
		}
	}
}

func TestCheckDepth(t *testing.T) {
	deep := strings.Repeat("[", 3) + strings.Repeat("]", 3)
	tests := []struct {
		data string
		ok   bool
	}{
		{`[[]]`, true},
		{deep, false},
		{`{"a":[{}]}`, false},
		{`["[[[[[["]`, true},
		{`["\"[[[[["]`, true},
		{`["\\"[[[]]]]`, false},
		{`["\\\"[[[["]`, true},
		{`"unterminated [[[[`, true},
		{`[]]]]][[[]`, true},
	}
	for _, tt := range tests {
		if err := checkDepth([]byte(tt.data), 2); (err == nil) != tt.ok {
			t.Errorf("checkDepth(%s, 2) = %v, want ok %v", tt.data, err, tt.ok)
		}
	}
}

func BenchmarkReadRecord(b *testing.B) {
	d, err := OpenDir(b.TempDir(), DirOptions{ManualGC: true, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	r := &repeatReader{line: []byte("127.0.0.1 - - [29/Nov/2026:13:43:05 +0000] \"GET /static/app.js HTTP/1.1\" 200 30000\n"), left: 1 << 30}
	info, err := d.Put(context.Background(), r, Meta{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := d.readRecord(info.Ref); err != nil {
			b.Fatal(err)
		}
	}
}

// repeatReader reads line again and again, left bytes in all.
type repeatReader struct {
	line []byte
	off  int
	left int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		k := copy(p[n:min(len(p), n+int(min(r.left, int64(len(p)-n))))], r.line[r.off:])
		r.off = (r.off + k) % len(r.line)
		n += k
		r.left -= int64(k)
	}
	return n, nil
}

// FuzzDecodeRecord checks that decodeRecord accepts what encoding/json
// accepts, and decodes it to the same record.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"v":1,"ref":"0123456789abcdef","size":3,"chunks":["ab"],"chunk_newlines":[0],"newlines":1,"used":"2026-12-01T19:34:43Z","args":{"a":[1]},"attrs":{"k":"v"}}`))
	f.Add([]byte(`{"V":1,"Ref":"x\u00e9","truncated":true,"source_size":-1,"lines":null}`))
	f.Add([]byte(`{"v":1e2}`))
	f.Add([]byte(`{"chunks":["a",1]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"v":1} x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want, got record
		wantErr := json.Unmarshal(data, &want)
		gotErr := decodeRecord(data, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("decodeRecord: %v; encoding/json: %v", gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeRecord gives\n%+v\nencoding/json gives\n%+v", got, want)
		}
	})
}

func TestIsHex(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want bool
	}{
		{"0123456789abcdef", 16, true},
		{"0123456789abcdef", 15, false},
		{"0123456789ABCDEF", 16, false},
		{"0123456789abcdeg", 16, false},
		{"/:`g", 4, false},
		{"\xff0", 2, false},
		{"", 0, true},
	}
	for _, tt := range tests {
		if got := isHex(tt.s, tt.n); got != tt.want {
			t.Errorf("isHex(%q, %d) = %v, want %v", tt.s, tt.n, got, tt.want)
		}
	}
}
