// Package jsonobj edits JSON objects without disturbing what it does not
// touch: members keep their order, and every value that is not replaced keeps
// its exact bytes. The MCP proxy uses it to add tools to a tools/list result
// without re-encoding the upstream's tools, and crumb init to merge entries
// into an agent's configuration file without losing the user's settings.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotObject means the JSON text is valid but is not an object.
var ErrNotObject = errors.New("jsonobj: not a JSON object")

// Member is one key and its value, as raw JSON.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object as an ordered list of members. A key that appears
// twice keeps both members; Get and Set address the last, as encoding/json
// does when it decodes.
type Object struct {
	Members []Member
}

// Parse reads a JSON object. Each member's value keeps its exact bytes,
// white space inside it included.
func Parse(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("jsonobj: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	o := &Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("jsonobj: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("jsonobj: object key is %v, not a string", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("jsonobj: value of %q: %w", key, err)
		}
		o.Members = append(o.Members, Member{Key: key, Value: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("jsonobj: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("jsonobj: data after the object")
	}
	return o, nil
}

// Get returns the value of key and whether it is present.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if o.Members[i].Key == key {
			return o.Members[i].Value, true
		}
	}
	return nil, false
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool {
	_, ok := o.Get(key)
	return ok
}

// Set replaces the value of key in place, or appends the member when the key
// is absent.
func (o *Object) Set(key string, value json.RawMessage) {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if o.Members[i].Key == key {
			o.Members[i].Value = value
			return
		}
	}
	o.Members = append(o.Members, Member{Key: key, Value: value})
}

// Delete removes every member named key.
func (o *Object) Delete(key string) {
	out := o.Members[:0]
	for _, m := range o.Members {
		if m.Key != key {
			out = append(out, m)
		}
	}
	o.Members = out
}

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	keys := make([]string, len(o.Members))
	for i, m := range o.Members {
		keys[i] = m.Key
	}
	return keys
}

// Bytes writes the object with its members in order and their values as
// they are: no white space is added between members, none is removed inside
// values.
func (o *Object) Bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o.Members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(Marshal(m.Key))
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Indent writes the object as Bytes does, then indents the whole of it the
// way json.MarshalIndent would, for files people read.
func (o *Object) Indent(prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, o.Bytes(), prefix, indent); err != nil {
		return nil, fmt.Errorf("jsonobj: %w", err)
	}
	return b.Bytes(), nil
}

// Marshal encodes v as JSON without escaping <, > and &, which
// json.Marshal escapes for HTML. It panics on a value encoding/json cannot
// encode, so use it for strings, numbers and plain structs only.
func Marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("jsonobj: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// AppendArray appends elements to a raw JSON array, keeping the bytes of the
// elements already in it.
func AppendArray(array json.RawMessage, elems ...json.RawMessage) (json.RawMessage, error) {
	a := bytes.TrimSpace(array)
	if len(a) < 2 || a[0] != '[' || a[len(a)-1] != ']' {
		return nil, errors.New("jsonobj: not a JSON array")
	}
	if len(elems) == 0 {
		return array, nil
	}
	body := bytes.TrimSpace(a[1 : len(a)-1])
	var b bytes.Buffer
	b.WriteByte('[')
	b.Write(a[1 : len(a)-1])
	for i, e := range elems {
		if len(body) > 0 || i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
