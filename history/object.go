package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// object is a JSON object whose members keep their order and their exact
// values, so that a message crumb does not change is written back as it came
// and one it changes differs only in the member it replaced.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// parseObject splits raw into its members, each value exactly as it was
// written.
func parseObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is %T", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		o = append(o, member{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the closing brace")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the closing brace")
	}
	return o, nil
}

// parseArray splits raw into its elements, each exactly as it was written.
func parseArray(raw []byte) ([]json.RawMessage, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, err
	}
	return elems, nil
}

func compact(v []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return json.RawMessage(v)
	}
	return json.RawMessage(b.Bytes())
}

// get returns the value of key, or nil.
func (o object) get(key string) json.RawMessage {
	for _, m := range o {
		if m.key == key {
			return m.value
		}
	}
	return nil
}

// str returns the value of key when it is a JSON string.
func (o object) str(key string) string {
	v := o.get(key)
	if len(v) == 0 || v[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// with returns a copy of o with key set to value, in key's place when it is
// present and at the end when it is not.
func (o object) with(key string, value json.RawMessage) object {
	out := make(object, 0, len(o)+1)
	found := false
	for _, m := range o {
		if m.key == key {
			m.value = value
			found = true
		}
		out = append(out, m)
	}
	if !found {
		out = append(out, member{key: key, value: value})
	}
	return out
}

// marshal writes o as compact JSON.
func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// joinArray writes elems as a compact JSON array.
func joinArray(elems []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// jsonString encodes s as a JSON string without escaping <, > and &, which
// models read better as they are.
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}
