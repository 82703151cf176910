package history

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/crumb-dev/crumb/internal/jsonobj"
)

// An object is a JSON object whose members keep their order and their exact
// bytes (package jsonobj), so that a message crumb does not change is
// written back as it came and one it changes differs only in the member it
// replaced. Parsed messages are shared through the Compactor's cache, so an
// object is never changed in place: with returns a new one.
type object struct{ o *jsonobj.Object }

func parseObject(raw []byte) (object, error) {
	o, err := jsonobj.Parse(raw)
	if err != nil {
		return object{}, err
	}
	return object{o}, nil
}

// parseUnique reads an object crumb reads and rewrites (a request body, a
// message, a content block) and refuses one that names a key twice: crumb
// would read and replace one of the two members and pass the other
// through, and which of them a provider's decoder takes is not ours to
// guess (encoding/json takes the last, others the first).
func parseUnique(raw []byte) (object, error) {
	o, err := parseObject(raw)
	if err != nil {
		return object{}, err
	}
	seen := make(map[string]bool, len(o.o.Members))
	for _, m := range o.o.Members {
		if seen[m.Key] {
			return object{}, fmt.Errorf("the key %q twice: give each key once", m.Key)
		}
		seen[m.Key] = true
	}
	return o, nil
}

// newObject builds an object from key, value pairs.
func newObject(kv ...any) object {
	o := &jsonobj.Object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Members = append(o.Members, jsonobj.Member{Key: kv[i].(string), Value: kv[i+1].(json.RawMessage)})
	}
	return object{o}
}

// get returns the value of key, or nil.
func (o object) get(key string) json.RawMessage {
	v, _ := o.o.Get(key)
	return v
}

// str returns the value of key when it is a JSON string.
func (o object) str(key string) string {
	var s string
	if v := o.get(key); len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

// with returns a copy of o with key set to value.
func (o object) with(key string, value json.RawMessage) object {
	c := &jsonobj.Object{Members: append([]jsonobj.Member(nil), o.o.Members...)}
	c.Set(key, value)
	return object{c}
}

func (o object) marshal() json.RawMessage { return o.o.Bytes() }

// parseArray splits raw into its elements, each exactly as it was written.
func parseArray(raw []byte) ([]json.RawMessage, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, err
	}
	return elems, nil
}

// joinArray writes elems as a JSON array.
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

// jsonString encodes s as a JSON string without escaping <, > and &.
func jsonString(s string) json.RawMessage { return jsonobj.Marshal(s) }
