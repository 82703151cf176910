package wire

import (
	"strconv"

	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// Stats sums up a store's results as "crumb stats --json" prints them and
// the sidecar's GET /v1/stats answers: how many are kept, how many were
// projected, and the bytes and tokens that stayed out of context (each
// result's size less its view's), gross and net of the pages read back.
type Stats struct {
	Results    int   `json:"results"`
	Bytes      int64 `json:"bytes"`
	Projected  int   `json:"projected"`
	ViewTokens int64 `json:"view_tokens"`
	SavedBytes int64 `json:"saved_bytes"`
	// SavedTokens is the gross figure: the tokens of the projected
	// results less those of their first views.
	SavedTokens int64 `json:"saved_tokens"`
	// Reads and ReadTokens count the pages read back (recall.Charge) and
	// their tokens.
	Reads      int64 `json:"reads"`
	ReadTokens int64 `json:"read_tokens"`
	// NetSavedTokens is SavedTokens less ReadTokens.
	NetSavedTokens int64  `json:"net_saved_tokens"`
	EstimatedIn    int    `json:"estimated,omitempty"`
	StorePath      string `json:"store,omitempty"`
	// Leftovers are files that hold no readable result (interrupted or
	// running writes, expired or damaged results) but take space.
	Leftovers     int   `json:"leftovers"`
	LeftoverBytes int64 `json:"leftover_bytes"`
}

// Add counts the results infos describes, by the view sizes the Guard
// recorded with each projected one.
func (s *Stats) Add(infos []store.Info) {
	for _, in := range infos {
		s.Results++
		s.Bytes += in.Size
		s.Reads += attrInt(in, recall.AttrReads)
		s.ReadTokens += attrInt(in, recall.AttrReadTokens)
		vt, err1 := strconv.ParseInt(in.Attrs["view_tokens"], 10, 64)
		vb, err2 := strconv.ParseInt(in.Attrs["view_bytes"], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		s.Projected++
		s.ViewTokens += vt
		size := in.Size
		if b, err := strconv.ParseInt(in.Attrs["bytes"], 10, 64); err == nil && b > size {
			size = b // what the tool returned, of which the store holds a part
		}
		s.SavedBytes += max(0, size-vb)
		if t, err := strconv.ParseInt(in.Attrs["tokens"], 10, 64); err == nil {
			s.SavedTokens += max(0, t-vt)
			if in.Attrs["tokens_by"] == "estimate" {
				s.EstimatedIn++
			}
		}
	}
	s.NetSavedTokens = s.SavedTokens - s.ReadTokens
}

// attrInt returns a whole-number attribute of a record, 0 when absent or
// malformed (a record is data, and a bad figure must not count).
func attrInt(in store.Info, key string) int64 {
	n, err := strconv.ParseInt(in.Attrs[key], 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
