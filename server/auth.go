package server

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/internal/netaddr"
	"io"
	"strings"
)

// ErrTokens means a token list could not be read: a malformed line, a bad
// namespace name or a token given twice.
var ErrTokens = errors.New("server: bad token list")

// Tokens maps bearer tokens to the namespaces they may use. The zero value
// holds no tokens. Tokens are kept only as SHA-256 digests.
type Tokens struct {
	ns map[[sha256.Size]byte]string
}

// namespaceName is what a namespace may be called: it names a directory of
// the disk store and a key prefix of a Redis store.
var namespaceName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidNamespace reports whether name may name a namespace: 1 to 64
// letters, digits, '_', '.' or '-', starting with a letter or a digit.
func ValidNamespace(name string) bool { return namespaceName.MatchString(name) }

// Len is the number of tokens.
func (t *Tokens) Len() int { return len(t.ns) }

// Add binds token to namespace ns.
func (t *Tokens) Add(token, ns string) error {
	if err := t.add(token, ns); err != nil {
		return fmt.Errorf("%w: %v", ErrTokens, err)
	}
	return nil
}

func (t *Tokens) add(token, ns string) error {
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return errors.New("a token must be one word without spaces")
	}
	if !ValidNamespace(ns) {
		return fmt.Errorf("namespace %q: want 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit", ns)
	}
	if t.ns == nil {
		t.ns = map[[sha256.Size]byte]string{}
	}
	k := sha256.Sum256([]byte(token))
	if _, dup := t.ns[k]; dup {
		return errors.New("a token is given twice")
	}
	t.ns[k] = ns
	return nil
}

// Namespace returns the namespace token is bound to.
func (t *Tokens) Namespace(token string) (string, bool) {
	ns, ok := t.ns[sha256.Sum256([]byte(token))]
	return ns, ok
}

// ReadTokens adds the tokens of a token file: one "TOKEN NAMESPACE" per
// line; blank lines and lines starting with # are ignored.
func (t *Tokens) ReadTokens(r io.Reader) error {
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return fmt.Errorf("%w: line %d: want TOKEN NAMESPACE", ErrTokens, n)
		}
		if err := t.add(f[0], f[1]); err != nil {
			return fmt.Errorf("%w: line %d: %v", ErrTokens, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrTokens, err)
	}
	return nil
}

// ParseTokens adds the tokens of a list in the form of CRUMB_TOKENS:
// "token1:ns1,token2:ns2".
func (t *Tokens) ParseTokens(list string) error {
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		tok, ns, ok := strings.Cut(item, ":")
		if !ok {
			return fmt.Errorf("%w: item %d: want TOKEN:NAMESPACE", ErrTokens, i+1)
		}
		if err := t.add(strings.TrimSpace(tok), strings.TrimSpace(ns)); err != nil {
			return fmt.Errorf("%w: item %d: %v", ErrTokens, i+1, err)
		}
	}
	return nil
}

// IsLoopback reports whether addr (host or host:port) names only loopback
// addresses. An empty host, which listens on every interface, is not.
func IsLoopback(addr string) bool { return netaddr.IsLoopback(addr) }
