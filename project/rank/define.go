package rank

import "math/bits"

// Definitions: a line that defines a name the intent names ("func (d *Dir)
// gc(ctx context.Context)", "def parse_args(self, args=None):", "class
// Cookie:", "fn main()", "type Header map[string][]string") is where that
// name is, more than the lines that only use it. The words that open a
// definition are few and shared by most languages; the name follows them,
// after a Go method's receiver.

// defKeywords open a definition in common languages (Go, Python, Rust,
// JavaScript, TypeScript, C, Java, Ruby); words that prose uses as often
// ("record", "object") are left out.
var defKeywords = [][]byte{
	[]byte("func"), []byte("def"), []byte("class"), []byte("fn"), []byte("type"), []byte("struct"),
	[]byte("interface"), []byte("enum"), []byte("trait"), []byte("function"),
}

// Defines returns the words of the intent, as a bit set (bit i for word
// i), that text defines: words lv meets exactly (see Levels) that are the
// name following a definition keyword. It is 0 when lv meets no word
// exactly, without looking at text.
func (m *Matcher) Defines(text []byte, lv Levels) uint32 {
	var exact uint32
	for i := range m.it.Words {
		if lv.At(i) == Exact {
			exact |= 1 << i
		}
	}
	if exact == 0 {
		return 0
	}
	var out uint32
	eachIdent(text, func(i, j int) {
		if !isDefKeyword(text[i:j]) {
			return
		}
		if name := defName(text, j); name != nil {
			for set := exact; set != 0; set &= set - 1 {
				w := bits.TrailingZeros32(set)
				if equalFoldASCII(name, m.text[w]) {
					out |= 1 << w
				}
			}
		}
	})
	return out
}

// defName returns the name a definition keyword ending at k opens: the
// identifier after it, past white space and a Go method's receiver
// ("(d *Dir)"); nil when none follows, or the keyword is not followed by
// white space ("func(x int)" defines nothing).
func defName(text []byte, k int) []byte {
	skip := func() {
		for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
	}
	if k == len(text) || text[k] != ' ' && text[k] != '\t' {
		return nil
	}
	skip()
	if k == len(text) {
		return nil
	}
	if text[k] == '(' {
		depth := 0
		for ; k < len(text); k++ {
			if text[k] == '(' {
				depth++
			} else if text[k] == ')' {
				if depth--; depth == 0 {
					k++
					break
				}
			}
		}
		skip()
	}
	j := k
	for j < len(text) && IsIdentByte(text[j]) {
		j++
	}
	if j == k {
		return nil
	}
	return text[k:j]
}

func isDefKeyword(w []byte) bool {
	for _, k := range defKeywords {
		if string(w) == string(k) {
			return true
		}
	}
	return false
}

// equalFoldASCII reports whether a equals b, a lower-case word, without
// ASCII case.
func equalFoldASCII(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if lowerByte[a[i]] != b[i] {
			return false
		}
	}
	return true
}
