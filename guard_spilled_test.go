package crumb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// TestSpilledReceiptCounts: the receipt of an MCP result whose text was
// stored apart (Result.Spilled) counts the whole result as the tool
// returned it, the text in place of the note that stands for it: its bytes
// always, its tokens when the caller measured the text (project.Spill), and
// no token count at all, rather than the skeleton's, when it did not.
func TestSpilledReceiptCounts(t *testing.T) {
	ctx := context.Background()
	text := string(logLines(3000))
	quoted, _ := json.Marshal(text) // the string as the result holds it
	whole, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	for _, tt := range []struct {
		name     string
		measured bool
	}{{"measured", true}, {"not measured", false}} {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t)
			g := newGuard(t, crumb.Config{Store: st})
			info, err := st.Put(ctx, bytes.NewReader([]byte(text)), store.Meta{Tool: "read_text_file"})
			if err != nil {
				t.Fatal(err)
			}
			obj, err := st.Open(ctx, info.Ref)
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			note, _ := json.Marshal("[stored apart as ref " + string(info.Ref) + "]")
			skel := bytes.Replace(whole, quoted, note, 1)
			sp := project.Spill{Ref: info.Ref, Source: obj}
			if tt.measured {
				sp.Bytes, sp.Tokens = int64(len(quoted)), tokens.Estimate(string(quoted))
			}
			v, err := g.Project(ctx, crumb.Result{Tool: "read_text_file", Kind: crumb.KindMCP, Body: skel,
				Spilled: map[string]project.Spill{"/content/0/text": sp}})
			if err != nil {
				t.Fatal(err)
			}
			rc := v.Receipt
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
	ctx := context.Background()
	text := string(logLines(3000))
	quoted, _ := json.Marshal(text)
	whole, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	st := newStore(t)
	g := newGuard(t, crumb.Config{Store: st})
	info, err := st.Put(ctx, bytes.NewReader([]byte(text)), store.Meta{Tool: "read_text_file"})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := st.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	note, _ := json.Marshal("[stored apart as ref " + string(info.Ref) + "]")
	skel := bytes.Replace(whole, quoted, note, 1)
	sp := project.Spill{Ref: info.Ref, Source: obj, Bytes: int64(len(quoted)), Tokens: tokens.Estimate(string(quoted))}
	v, err := g.Project(ctx, crumb.Result{Tool: "read_text_file", Kind: crumb.KindMCP, Body: skel,
		Spilled: map[string]project.Spill{"/content/0/text": sp}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := st.Stat(ctx, v.Ref)
	if err != nil {
		t.Fatal(err)
	}
	var s wire.Stats
	s.Add([]store.Info{rec})
	if want := int64(len(whole)) - int64(v.Receipt.ViewBytes); s.SavedBytes != want {
		t.Errorf("saved bytes %d, want %d (whole %d, view %d, skeleton stored %d)", s.SavedBytes, want, len(whole), v.Receipt.ViewBytes, rec.Size)
	}
}
