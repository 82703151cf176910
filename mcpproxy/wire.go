package mcpproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The JSON-RPC envelope on stdio, read and written by hand.
//
// A proxied message is read once and written once: its params or result
// are passed on as the bytes that came, and only the envelope around them
// (jsonrpc, id, method, error) is decoded. The SDK's codec decodes each
// line twice (as a batch, then as a message) through a general JSON
// decoder that allocates for every value and copies params and results;
// on a small call that cost more than the upstream's own work.
//
// decodeMessage accepts what jsonrpc.DecodeMessage accepts and gives the
// same message: the same checks of the version and the ID (a number is
// made an int64 as the SDK does), object keys matched case-sensitively, the
// last of a repeated key winning, nesting limited to the SDK's 1000 levels,
// and the error object decoded by the SDK itself.
// Only text after the message is refused, which DecodeMessage ignores.
// appendMessage writes what jsonrpc.EncodeMessage writes, for the messages
// it can write without a general encoder, and says so.

// maxDepth is the deepest nesting of objects and arrays a message may have,
// as the SDK allows.
const maxDepth = 1000

// errSyntax is the error of a line that is not valid JSON.
var errSyntax = errors.New("mcpproxy: invalid JSON")

// syntaxError reports where a line stops being JSON.
func syntaxError(pos int, what string) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, pos, what)
}

// scanner checks JSON text and finds the extent of its values. It does not
// decode anything: a value is returned as the bytes it spans.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value checks the value at pos, after white space, and returns its bytes.
func (s *scanner) value() ([]byte, error) {
	s.space()
	start := s.pos
	if s.pos >= len(s.data) {
		return nil, syntaxError(s.pos, "a value is missing")
	}
	var err error
	switch c := s.data[s.pos]; {
	case c == '"':
		err = s.str()
	case c == '{':
		err = s.object(nil)
	case c == '[':
		err = s.array(nil)
	case c == 't':
		err = s.word("true")
	case c == 'f':
		err = s.word("false")
	case c == 'n':
		err = s.word("null")
	case c == '-' || '0' <= c && c <= '9':
		err = s.number()
	default:
		err = syntaxError(s.pos, fmt.Sprintf("%q cannot begin a value", c))
	}
	if err != nil {
		return nil, err
	}
	return s.data[start:s.pos], nil
}

// str checks the string at pos.
func (s *scanner) str() error {
	d := s.data
	i := s.pos + 1
	for {
		for i < len(d) && d[i] != '"' && d[i] != '\\' && d[i] >= 0x20 {
			i++
		}
		if i >= len(d) {
			return syntaxError(s.pos, "a string does not end")
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return nil
		case c < 0x20:
			return syntaxError(i, "a control character in a string")
		}
		// A backslash.
		if i+1 >= len(d) {
			return syntaxError(i, "a string does not end")
		}
		switch d[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(d) {
				return syntaxError(i, "a \\u escape is cut short")
			}
			if _, ok := hex4(d[i+2 : i+6]); !ok {
				return syntaxError(i, "a \\u escape is not four hex digits")
			}
			i += 6
		default:
			return syntaxError(i, "an invalid escape in a string")
		}
	}
}

// number checks the number at pos: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	d := s.data
	i := s.pos
	start := i
	if d[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return syntaxError(start, "a number has no digits")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return syntaxError(start, "a number has no digits after its point")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return syntaxError(start, "a number has no digits in its exponent")
		}
	}
	s.pos = i
	return nil
}

func (s *scanner) word(w string) error {
	if len(s.data)-s.pos < len(w) || string(s.data[s.pos:s.pos+len(w)]) != w {
		return syntaxError(s.pos, "an invalid literal")
	}
	s.pos += len(w)
	return nil
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return fmt.Errorf("%w at byte %d: nested deeper than %d levels", errSyntax, s.pos, maxDepth)
	}
	return nil
}

// object checks the object at pos and calls member, when it is not nil,
// with the raw key (quotes included) and value of each member.
func (s *scanner) object(member func(key, value []byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // {
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return syntaxError(s.pos, "an object key is not a string")
		}
		k := s.pos
		if err := s.str(); err != nil {
			return err
		}
		key := s.data[k:s.pos]
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return syntaxError(s.pos, "a colon is missing after an object key")
		}
		s.pos++
		v, err := s.value()
		if err != nil {
			return err
		}
		if member != nil {
			if err := member(key, v); err != nil {
				return err
			}
		}
		s.space()
		if s.pos >= len(s.data) {
			return syntaxError(s.pos, "an object does not end")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return syntaxError(s.pos, "a comma or } is missing in an object")
		}
	}
}

// array checks the array at pos and calls elem, when it is not nil, with
// each element.
func (s *scanner) array(elem func(value []byte) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++ // [
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		v, err := s.value()
		if err != nil {
			return err
		}
		if elem != nil {
			if err := elem(v); err != nil {
				return err
			}
		}
		s.space()
		if s.pos >= len(s.data) {
			return syntaxError(s.pos, "an array does not end")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return nil
		default:
			return syntaxError(s.pos, "a comma or ] is missing in an array")
		}
	}
}

// end checks that nothing but white space follows.
func (s *scanner) end() error {
	s.space()
	if s.pos < len(s.data) {
		return syntaxError(s.pos, "more than one JSON value")
	}
	return nil
}

// members checks that data is one JSON object and calls member with each
// of its members, raw key (quotes included) and value.
func members(data []byte, member func(key, value []byte) error) error {
	s := scanner{data: data}
	s.space()
	if s.pos >= len(data) || data[s.pos] != '{' {
		return errors.New("mcpproxy: not a JSON object")
	}
	if err := s.object(member); err != nil {
		return err
	}
	return s.end()
}

// keyIs reports whether a raw key, quotes included, is name.
func keyIs(key []byte, name string) bool {
	if len(key) == len(name)+2 && string(key[1:len(key)-1]) == name {
		return true
	}
	// An escaped key ("\u0069d") is rare; decode it.
	if !containsByte(key, '\\') {
		return false
	}
	s, ok := unquote(key)
	return ok && s == name
}

func containsByte(b []byte, c byte) bool { return bytes.IndexByte(b, c) >= 0 }

// unquote decodes a raw JSON string value, as encoding/json does; ok is
// false when the value is not a string.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if !containsByte(inner, '\\') && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// decodeBatch decodes a line that is a batch of JSON-RPC messages, a JSON
// array. The messages' params and results are slices of line, which must
// not change afterwards.
func decodeBatch(line []byte) ([]jsonrpc.Message, error) {
	s := scanner{data: line}
	s.space()
	if s.pos >= len(line) || line[s.pos] != '[' {
		return nil, errors.New("mcpproxy: a batch is not an array")
	}
	var batch []jsonrpc.Message
	err := s.array(func(v []byte) error {
		m, err := decodeMessage(v)
		if err != nil {
			return err
		}
		batch = append(batch, m)
		return nil
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, err
	}
	if len(batch) == 0 {
		return nil, errors.New("mcpproxy: an empty batch")
	}
	return batch, nil
}

// decodeMessage decodes one JSON-RPC message, a request or a response, as
// jsonrpc.DecodeMessage does; params and result are slices of data.
//
// The SDK decodes into a struct whose fields are matched to keys exactly
// (case-sensitively), the last of a repeated key winning, where a null
// leaves a string field as it was and the error is a struct of its own:
// each of its members is matched exactly too, and a repeated "error"
// object is merged into the first. The envelope's members are read here as
// the SDK reads them; the error, which only failed calls carry, is handed
// to the SDK's own decoder, so that it is read exactly as the SDK reads it.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var version, id, method, params, result []byte
	var wireErrs [][]byte
	versionSet := false
	err := members(data, func(k, v []byte) error {
		switch {
		case keyIs(k, "jsonrpc"):
			// A string field: null leaves it as it was.
			switch {
			case string(v) == "null":
			case v[0] != '"':
				return fmt.Errorf("jsonrpc is %s, not a string", v)
			default:
				version, versionSet = v, true
			}
		case keyIs(k, "id"):
			id = v
		case keyIs(k, "method"):
			method = v
		case keyIs(k, "params"):
			params = v
		case keyIs(k, "result"):
			result = v
		case keyIs(k, "error"):
			if v[0] != '{' && string(v) != "null" {
				return fmt.Errorf("error is %s, not an object", v)
			}
			wireErrs = append(wireErrs, v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	// The error, as the SDK reads it, whatever the message is.
	var wireErr *jsonrpc.Error
	if len(wireErrs) > 0 {
		if wireErr, err = decodeWireError(wireErrs); err != nil {
			return nil, err
		}
	}
	if !versionSet || string(version) != `"2.0"` {
		if v, ok := unquote(version); !versionSet || !ok || v != "2.0" {
			return nil, fmt.Errorf("invalid message version tag %s; expected %q", version, "2.0")
		}
	}
	msgID, err := decodeID(id)
	if err != nil {
		return nil, err
	}
	if method != nil {
		name := ""
		if string(method) != "null" { // null leaves the name empty
			var ok bool
			if name, ok = methodName(method); !ok {
				return nil, fmt.Errorf("unmarshaling jsonrpc message: method is %s, not a string", method)
			}
		}
		return &jsonrpc.Request{ID: msgID, Method: name, Params: params}, nil
	}
	if !msgID.IsValid() {
		return nil, errors.New("JSON RPC invalid request")
	}
	resp := &jsonrpc.Response{ID: msgID, Result: result}
	if wireErr != nil {
		resp.Error = wireErr
	}
	return resp, nil
}

// decodeWireError decodes the "error" members of a message, in order, with
// the SDK's own decoder: a response made of them alone is what it reads.
func decodeWireError(values [][]byte) (*jsonrpc.Error, error) {
	n := len(`{"jsonrpc":"2.0","id":1}`)
	for _, v := range values {
		n += len(`,"error":`) + len(v)
	}
	b := make([]byte, 0, n)
	b = append(b, `{"jsonrpc":"2.0","id":1`...)
	for _, v := range values {
		b = append(append(b, `,"error":`...), v...)
	}
	b = append(b, '}')
	m, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: error: %w", err)
	}
	resp, ok := m.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return nil, nil
	}
	we, ok := resp.Error.(*jsonrpc.Error)
	if !ok {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: error: the SDK decoded a %T", resp.Error)
	}
	return we, nil
}

// knownMethods are the methods most messages name, whose names a decoded
// message shares instead of a copy of its own.
var knownMethods = []string{methodToolsCall, methodToolsList, methodInitialize, methodCancelled,
	"ping", "notifications/initialized", "notifications/progress", "notifications/message"}

// methodName decodes a raw method name.
func methodName(raw []byte) (string, bool) {
	if len(raw) > 2 && raw[0] == '"' {
		for _, m := range knownMethods {
			if string(raw[1:len(raw)-1]) == m {
				return m, true
			}
		}
	}
	return unquote(raw)
}

// decodeID decodes a raw ID as jsonrpc.MakeID takes it: absent or null is
// no ID, a number is made an int64, a string stays one.
func decodeID(raw []byte) (jsonrpc.ID, error) {
	if raw == nil || string(raw) == "null" {
		return jsonrpc.ID{}, nil
	}
	switch c := raw[0]; {
	case c == '"':
		s, _ := unquote(raw)
		return jsonrpc.MakeID(s)
	case c == '-' || '0' <= c && c <= '9':
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return jsonrpc.ID{}, fmt.Errorf("invalid ID %s: %w", raw, err)
		}
		return jsonrpc.MakeID(f)
	}
	return jsonrpc.MakeID(raw) // an error, naming the type
}

// appendMessage appends m as one line of JSON, newline included, in the
// form jsonrpc.EncodeMessage gives it (but for an empty method, which it
// keeps), and reports whether it could: a
// response with an error, params or a result holding line breaks (which
// must be compacted to keep the message on one line) and names that need
// escaping are left to jsonrpc.EncodeMessage.
func appendMessage(b []byte, m jsonrpc.Message) ([]byte, bool) {
	b = append(b, `{"jsonrpc":"2.0"`...)
	var ok bool
	switch m := m.(type) {
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			if b, ok = appendID(append(b, `,"id":`...), m.ID); !ok {
				return b, false
			}
		}
		// The method even when it is empty, which the SDK leaves out,
		// making the request a response.
		if b, ok = appendPlainString(append(b, `,"method":`...), m.Method); !ok {
			return b, false
		}
		if len(m.Params) > 0 {
			if !onOneLine(m.Params) {
				return b, false
			}
			b = append(append(b, `,"params":`...), m.Params...)
		}
	case *jsonrpc.Response:
		if m.Error != nil {
			return b, false
		}
		if m.ID.IsValid() {
			if b, ok = appendID(append(b, `,"id":`...), m.ID); !ok {
				return b, false
			}
		}
		if len(m.Result) > 0 {
			if !onOneLine(m.Result) {
				return b, false
			}
			b = append(append(b, `,"result":`...), m.Result...)
		}
	default:
		return b, false
	}
	return append(b, "}\n"...), true
}

func appendID(b []byte, id jsonrpc.ID) ([]byte, bool) {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case string:
		return appendPlainString(b, v)
	}
	return b, false
}

// appendPlainString appends s quoted, when no character of it needs an
// escape or could be written otherwise.
func appendPlainString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// onOneLine reports whether raw JSON holds no line break, which in JSON
// text can only be white space between tokens.
func onOneLine(raw []byte) bool {
	return bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0
}
