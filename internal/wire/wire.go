// Package wire holds the JSON forms of views and pages: what "crumb project
// --json", "crumb read --json" and "crumb grep --json" print, and what the
// HTTP sidecar answers, so that both give the same shape for the same result.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/recall"
)

// HTTPCall is the HTTP request that performs a continuation on the sidecar.
type HTTPCall struct {
	// Method is the HTTP method, such as GET.
	Method string `json:"method"`
	// Path is the request path, such as /v1/results/1a2b3c4d5e6f7a8b.
	Path string `json:"path"`
	// Query is the URL-encoded query string, without the "?".
	Query string `json:"query,omitempty"`
}

// Link renders a continuation as an HTTP call. A nil Link leaves "http" out
// of continuations, as the command line prints them.
type Link func(recall.Request) HTTPCall

// Next is a continuation as it is printed: the request's own JSON form
// (with "argv") and, for HTTP clients, "http".
type Next struct {
	Request recall.Request
	HTTP    *HTTPCall
}

// MarshalJSON writes the request's JSON form with "http" added at its end.
func (n Next) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(n.Request)
	if err != nil || n.HTTP == nil {
		return b, err
	}
	h, err := json.Marshal(n.HTTP)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("}"))
	b = append(b, `,"http":`...)
	b = append(b, h...)
	return append(b, '}'), nil
}

func next(r *recall.Request, link Link) *Next {
	if r == nil {
		return nil
	}
	n := &Next{Request: *r}
	if link != nil {
		h := link(*r)
		n.HTTP = &h
	}
	return n
}

// View is the JSON form of a [crumb.View]: {"view", "media", "ref", "next",
// "receipt"}, with ref and next absent when the result passed through.
type View struct {
	Text    string            `json:"view"`
	Media   []json.RawMessage `json:"media,omitempty"`
	Ref     crumb.Ref         `json:"ref,omitempty"`
	Next    *Next             `json:"next,omitempty"`
	Receipt crumb.Receipt     `json:"receipt"`
}

// ViewOf returns the JSON form of v, its continuation linked by link.
func ViewOf(v *crumb.View, link Link) View {
	return View{Text: v.Text, Media: v.Media, Ref: v.Ref, Next: next(v.Next, link), Receipt: v.Receipt}
}

// Page is the JSON form of a page of a read or a search: {"page", "next"},
// next absent at the end of the result.
type Page struct {
	Text string `json:"page"`
	Next *Next  `json:"next,omitempty"`
}

// PageOf returns the JSON form of p, its continuation linked by link.
func PageOf(p recall.Page, link Link) Page {
	return Page{Text: p.Text, Next: next(p.Next, link)}
}

// Write writes v as indented JSON, without HTML escaping, followed by a
// newline: the form every --json output takes.
func Write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ParseArgs checks a tool call's arguments as "crumb project --args" and the
// sidecar's args parameter take them: a JSON object, which is what every
// tool call's arguments are.
func ParseArgs(s string) (json.RawMessage, error) {
	if !json.Valid([]byte(s)) {
		return nil, errors.New("it is not valid JSON")
	}
	if t := bytes.TrimLeft([]byte(s), " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, errors.New("it is JSON but not an object: a tool call's arguments are an object such as {\"path\": \"a.go\"}")
	}
	return json.RawMessage(s), nil
}

// SetIntent returns a call's arguments with "intent" set to intent, as
// "crumb project --intent" and the sidecar's intent parameter do. args must
// be empty or a JSON object.
func SetIntent(args json.RawMessage, intent string) (json.RawMessage, error) {
	obj := &jsonobj.Object{}
	if len(args) > 0 {
		var err error
		if obj, err = jsonobj.Parse(args); err != nil {
			return nil, err
		}
	}
	obj.Set("intent", jsonobj.Marshal(intent))
	return obj.Bytes(), nil
}
