package rank

import "strings"

// Options returns the short options an intent names, as written: a dash
// and one letter or digit ("-X", "-u", "-0"). Too short to be words or keys,
// they are names all the same, told apart by their case ("-x" is not "-X").
func (it *Intent) Options() []string {
	if it == nil {
		return nil
	}
	var out []string
	for _, f := range strings.Fields(it.Raw) {
		tok := strings.TrimRight(strings.Trim(f, "\"'`()[]{}<>,;:!?"), ".")
		if len(tok) == 2 && tok[0] == '-' && (IsUpper(tok[1]) || IsLower(tok[1]) || IsDigit(tok[1])) && !contains(out, tok) {
			out = append(out, tok)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ExactOption counts, for a unit whose name is a short option the intent
// names (see Intent.Options), a key met whole: it weighs as a name no other
// unit holds.
func (t *Fields) ExactOption() { t.options++ }
