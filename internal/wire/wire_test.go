package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// TestViewOfKeepsTheViewsJSON: without a Link, a view's JSON form is the
// JSON of crumb.View itself, byte for byte; with one, "http" is added to
// next and nothing else changes.
func TestViewOfKeepsTheViewsJSON(t *testing.T) {
	st, err := store.OpenDir(t.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := crumb.New(crumb.Config{Store: st, Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	v, err := g.Project(context.Background(), crumb.Result{Tool: "log", Body: []byte(strings.Repeat("a <line> & more\n", 3000))})
	if err != nil {
		t.Fatal(err)
	}
	if v.Next == nil {
		t.Fatal("no continuation")
	}
	var want, got, linked bytes.Buffer
	wire.Write(&want, v)
	wire.Write(&got, wire.ViewOf(v, nil))
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("ViewOf(v, nil):\n%s\nwant:\n%s", got.Bytes(), want.Bytes())
	}
	wire.Write(&linked, wire.ViewOf(v, func(r recall.Request) wire.HTTPCall {
		return wire.HTTPCall{Method: "GET", Path: "/r/" + string(r.Ref), Query: "lines=" + r.Lines.String()}
	}))
	var m struct {
		Next map[string]any `json:"next"`
	}
	if err := json.Unmarshal(linked.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	h, _ := m.Next["http"].(map[string]any)
	if h["path"] != "/r/"+string(v.Ref) || h["query"] != "lines="+v.Next.Lines.String() || m.Next["argv"] == nil {
		t.Errorf("next with a link: %v", m.Next)
	}
}

func TestSetIntent(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"", `{"intent":"find it"}`},
		{`{"path":"a.go"}`, `{"path":"a.go","intent":"find it"}`},
		{`{"intent":"old","n":1}`, `{"intent":"find it","n":1}`},
	} {
		got, err := wire.SetIntent(json.RawMessage(c.args), "find it")
		if err != nil || string(got) != c.want {
			t.Errorf("SetIntent(%s) = %s, %v; want %s", c.args, got, err, c.want)
		}
	}
	if _, err := wire.SetIntent(json.RawMessage(`[1]`), "x"); err == nil {
		t.Error("SetIntent of an array succeeded")
	}
}

// TestViewHasEveryField: wire.View has every field of crumb.View, with the
// same JSON name, in the same order, so that a field added to crumb.View
// cannot go missing from the CLI's and the sidecar's JSON.
func TestViewHasEveryField(t *testing.T) {
	cv, wv := reflect.TypeFor[crumb.View](), reflect.TypeFor[wire.View]()
	if cv.NumField() != wv.NumField() {
		t.Fatalf("crumb.View has %d fields, wire.View %d", cv.NumField(), wv.NumField())
	}
	for i := range cv.NumField() {
		c, w := cv.Field(i), wv.Field(i)
		if c.Name != w.Name || c.Tag.Get("json") != w.Tag.Get("json") {
			t.Errorf("field %d: crumb.View has %s `%s`, wire.View %s `%s`", i, c.Name, c.Tag, w.Name, w.Tag)
		}
		if c.Name != "Next" && c.Type != w.Type {
			t.Errorf("field %s: crumb.View's is %s, wire.View's %s", c.Name, c.Type, w.Type)
		}
	}
}
