package project

import (
	"math"
	"reflect"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/jsonscan"
)

// validator checks a value against a JSON Schema, for the keywords that
// MCP tools use in outputSchema: types, properties, required,
// additionalProperties, items, enum, const, lengths, bounds, patterns,
// allOf/anyOf/oneOf/not and local $ref. A schema with any other keyword
// sets unsupported, and the answer must then not be trusted: the MCP
// projector keeps structuredContent whole rather than risk a result the
// client rejects.
type validator struct {
	root        any
	unsupported bool
	depth       int
}

// annotations are keywords that do not constrain values.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "readOnly": true, "writeOnly": true, "deprecated": true,
	"format": true, "contentMediaType": true, "contentEncoding": true, "$defs": true, "definitions": true,
}

var constraints = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true, "patternProperties": true,
	"items": true, "minItems": true, "maxItems": true, "uniqueItems": true, "minLength": true, "maxLength": true,
	"pattern": true, "enum": true, "const": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "multipleOf": true, "minProperties": true, "maxProperties": true,
	"allOf": true, "anyOf": true, "oneOf": true, "not": true, "$ref": true,
}

// valid reports whether v (as encoding/json decodes into any) is valid
// against schema s.
func (vd *validator) valid(v, s any) bool {
	vd.depth++
	defer func() { vd.depth-- }()
	if vd.depth > 64 {
		vd.unsupported = true
		return false
	}
	switch sc := s.(type) {
	case bool:
		return sc
	case map[string]any:
		for k := range sc {
			if !annotations[k] && !constraints[k] {
				vd.unsupported = true
				return false
			}
		}
		return vd.object(v, sc)
	}
	vd.unsupported = true
	return false
}

func (vd *validator) object(v any, s map[string]any) bool {
	if r, ok := s["$ref"]; ok {
		target, ok := vd.resolve(r)
		if !ok {
			vd.unsupported = true
			return false
		}
		if !vd.valid(v, target) {
			return false
		}
	}
	if t, ok := s["type"]; ok && !typeOK(v, t) {
		return false
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if reflect.DeepEqual(x, v) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if c, ok := s["const"]; ok && !reflect.DeepEqual(c, v) {
		return false
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, ok := s[k].([]any)
		if !ok {
			continue
		}
		n := 0
		for _, sub := range list {
			if vd.valid(v, sub) {
				n++
			}
		}
		switch {
		case k == "allOf" && n != len(list), k == "anyOf" && n == 0, k == "oneOf" && n != 1:
			return false
		}
	}
	if n, ok := s["not"]; ok && vd.valid(v, n) {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		return vd.members(x, s)
	case []any:
		return vd.elements(x, s)
	case string:
		n := float64(utf8.RuneCountInString(x))
		if m, ok := num(s["minLength"]); ok && n < m {
			return false
		}
		if m, ok := num(s["maxLength"]); ok && n > m {
			return false
		}
		if p, ok := s["pattern"].(string); ok {
			re, err := regexp.Compile(p)
			if err != nil {
				vd.unsupported = true
				return false
			}
			if !re.MatchString(x) {
				return false
			}
		}
	case float64:
		if m, ok := num(s["minimum"]); ok && x < m {
			return false
		}
		if m, ok := num(s["maximum"]); ok && x > m {
			return false
		}
		if m, ok := num(s["exclusiveMinimum"]); ok && x <= m {
			return false
		}
		if m, ok := num(s["exclusiveMaximum"]); ok && x >= m {
			return false
		}
		if m, ok := num(s["multipleOf"]); ok && m > 0 {
			if q := x / m; math.Abs(q-math.Round(q)) > 1e-9 {
				return false
			}
		}
	}
	return true
}

func (vd *validator) members(x map[string]any, s map[string]any) bool {
	n := float64(len(x))
	if m, ok := num(s["minProperties"]); ok && n < m {
		return false
	}
	if m, ok := num(s["maxProperties"]); ok && n > m {
		return false
	}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			k, _ := r.(string)
			if _, ok := x[k]; !ok {
				return false
			}
		}
	}
	props, _ := s["properties"].(map[string]any)
	pats, _ := s["patternProperties"].(map[string]any)
	add, hasAdd := s["additionalProperties"]
	for k, e := range x {
		matched := false
		if p, ok := props[k]; ok {
			matched = true
			if !vd.valid(e, p) {
				return false
			}
		}
		for pat, ps := range pats {
			re, err := regexp.Compile(pat)
			if err != nil {
				vd.unsupported = true
				return false
			}
			if re.MatchString(k) {
				matched = true
				if !vd.valid(e, ps) {
					return false
				}
			}
		}
		if !matched && hasAdd && !vd.valid(e, add) {
			return false
		}
	}
	return true
}

func (vd *validator) elements(x []any, s map[string]any) bool {
	n := float64(len(x))
	if m, ok := num(s["minItems"]); ok && n < m {
		return false
	}
	if m, ok := num(s["maxItems"]); ok && n > m {
		return false
	}
	if it, ok := s["items"]; ok {
		if _, list := it.([]any); list {
			vd.unsupported = true // tuple form: prefixItems in newer drafts
			return false
		}
		for _, e := range x {
			if !vd.valid(e, it) {
				return false
			}
		}
	}
	if u, _ := s["uniqueItems"].(bool); u {
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if reflect.DeepEqual(x[i], x[j]) {
					return false
				}
			}
		}
	}
	return true
}

// resolve follows a local $ref ("#", "#/$defs/name").
func (vd *validator) resolve(r any) (any, bool) {
	ref, ok := r.(string)
	if !ok || !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	toks, err := jsonscan.ParsePointer(strings.TrimPrefix(ref, "#"))
	if err != nil {
		return nil, false
	}
	cur := vd.root
	for _, t := range toks {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[t]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

// typeOK checks the type keyword, a name or a list of names.
func typeOK(v, t any) bool {
	switch tt := t.(type) {
	case string:
		return isType(v, tt)
	case []any:
		for _, x := range tt {
			if s, ok := x.(string); ok && isType(v, s) {
				return true
			}
		}
	}
	return false
}

func isType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || t == "integer" && x == math.Trunc(x)
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}
