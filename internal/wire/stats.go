package wire

import (
	"strconv"

	"github.com/crumb-dev/crumb/store"
)

// Stats sums up a store's results as "crumb stats --json" prints them and
// the sidecar's GET /v1/stats answers: how many are kept, how many were
// projected, and the bytes and tokens that stayed out of context (each
// result's size less its view's).
type Stats struct {
	Results     int    `json:"results"`
	Bytes       int64  `json:"bytes"`
	Projected   int    `json:"projected"`
	ViewTokens  int64  `json:"view_tokens"`
	SavedBytes  int64  `json:"saved_bytes"`
	SavedTokens int64  `json:"saved_tokens"`
	EstimatedIn int    `json:"estimated,omitempty"`
	StorePath   string `json:"store,omitempty"`
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
		vt, err1 := strconv.ParseInt(in.Attrs["view_tokens"], 10, 64)
		vb, err2 := strconv.ParseInt(in.Attrs["view_bytes"], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		s.Projected++
		s.ViewTokens += vt
		s.SavedBytes += max(0, in.Size-vb)
		if t, err := strconv.ParseInt(in.Attrs["tokens"], 10, 64); err == nil {
			s.SavedTokens += max(0, t-vt)
			if in.Attrs["tokens_by"] == "estimate" {
				s.EstimatedIn++
			}
		}
	}
}
