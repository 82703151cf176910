package crumb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// spilled is an MCP result whose text, real log lines, was stored apart
// (Result.Spilled), as the proxy stores a long string: whole is the result
// as the tool returned it, skel what is stored in its place and note the
// note that stands in it for the text.
type spilled struct {
	st                  store.Store
	g                   *crumb.Guard
	text, whole, quoted []byte
	skel, note          []byte
	spill               project.Spill
}

// spillResult stores the text of a result apart, measuring it when asked,
// as the proxy does.
func spillResult(t *testing.T, measured bool) *spilled {
	t.Helper()
	ctx := context.Background()
	s := &spilled{text: logLines(3000)}
	s.quoted, _ = json.Marshal(string(s.text)) // the string as the result holds it
	s.whole, _ = json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(s.text)}}})
	s.st = newStore(t)
	s.g = newGuard(t, crumb.Config{Store: s.st})
	info, err := s.st.Put(ctx, bytes.NewReader(s.text), store.Meta{Tool: "read_text_file"})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.st.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obj.Close() })
	s.note, _ = json.Marshal("[stored apart as ref " + string(info.Ref) + "]")
	s.skel = bytes.Replace(s.whole, s.quoted, s.note, 1)
	s.spill = project.Spill{Ref: info.Ref, Source: obj}
	if measured {
		s.spill.Bytes, s.spill.Tokens = int64(len(s.quoted)), tokens.Estimate(string(s.quoted))
	}
	return s
}

// project has the Guard project the skeleton.
func (s *spilled) project(t *testing.T) *crumb.View {
	t.Helper()
	v, err := s.g.Project(context.Background(), crumb.Result{Tool: "read_text_file", Kind: crumb.KindMCP, Body: s.skel,
		Spilled: map[string]project.Spill{"/content/0/text": s.spill}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSpilledReceiptCounts: the receipt of an MCP result whose text was
// stored apart (Result.Spilled) counts the whole result as the tool
// returned it, the text in place of the note that stands for it: its bytes
// always, its tokens when the caller measured the text (project.Spill), and
// no token count at all, rather than the skeleton's, when it did not.
func TestSpilledReceiptCounts(t *testing.T) {
	for _, tt := range []struct {
		name     string
		measured bool
	}{{"measured", true}, {"not measured", false}} {
		t.Run(tt.name, func(t *testing.T) {
			s := spillResult(t, tt.measured)
			whole, skel, note, text := s.whole, s.skel, s.note, s.text
			rc := s.project(t).Receipt
			wantBytes := int64(len(whole))
			if !tt.measured {
				wantBytes = int64(len(skel) - len(note) + len(text) + 2)
			}
			if rc.Bytes != wantBytes {
				t.Errorf("bytes %d, want %d (skeleton %d, whole %d)", rc.Bytes, wantBytes, len(skel), len(whole))
			}
			if !tt.measured {
				if rc.Tokens != nil {
					t.Errorf("tokens %d by %q for a text not measured, want none", *rc.Tokens, rc.TokensBy)
				}
				return
			}
			want := tokens.Estimate(string(whole))
			if rc.Tokens == nil {
				t.Fatalf("no tokens, want about %d", want)
			}
			if n := *rc.Tokens; rc.TokensBy != tokens.EstimateName || n < want*99/100 || n > want*101/100 {
				t.Errorf("tokens %d by %q, want about %d by %q", n, rc.TokensBy, want, tokens.EstimateName)
			}
			if *rc.Tokens < rc.ViewTokens {
				t.Errorf("the result counts %d tokens, under its view's %d", *rc.Tokens, rc.ViewTokens)
			}
		})
	}
}

// TestSpilledStats: the bytes a spilled result kept out of context, as
// crumb stats sums them from the store's records, are those of the whole
// result less its view's, not those of the skeleton that was stored.
func TestSpilledStats(t *testing.T) {
	s := spillResult(t, true)
	v := s.project(t)
	rec, err := s.st.Stat(context.Background(), v.Ref)
	if err != nil {
		t.Fatal(err)
	}
	var st wire.Stats
	st.Add([]store.Info{rec})
	if want := int64(len(s.whole)) - int64(v.Receipt.ViewBytes); st.SavedBytes != want {
		t.Errorf("saved bytes %d, want %d (whole %d, view %d, skeleton stored %d)", st.SavedBytes, want, len(s.whole), v.Receipt.ViewBytes, rec.Size)
	}
}

// lostSource is a Source whose reads fail, as a Redis object evicted after
// it was opened does.
type lostSource struct{ project.Source }

func (lostSource) ReadAt([]byte, int64) (int, error) {
	return 0, fmt.Errorf("evicted: %w", store.ErrMissing)
}

// TestSpilledLostWhileProjecting: when the text an MCP result stored apart
// cannot be read back while the view is built (evicted after it was
// opened), the receipt says the result was not kept and why, as when the
// result itself is lost; the view is never the skeleton projected as if the
// note in the text's place were the text.
func TestSpilledLostWhileProjecting(t *testing.T) {
	s := spillResult(t, true)
	s.spill.Source = lostSource{s.spill.Source}
	v := s.project(t)
	rc := v.Receipt
	if rc.StoreError == "" || rc.Stored || rc.Output != crumb.OutputFallback {
		t.Errorf("receipt: stored %v, output %q, store error %q; want not stored, fallback, and why", rc.Stored, rc.Output, rc.StoreError)
	}
	if rc.ProjectError != "" {
		t.Errorf("a lost text is not a projector's error: %q", rc.ProjectError)
	}
}
