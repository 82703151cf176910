package recall

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/crumb-dev/crumb/store"
)

// Attributes of a stored result's record that count what was read back of
// it into a model's context, for crumb stats: the savings of a projection
// are net of them.
const (
	// AttrReadTokens is the sum of the tokens of the pages read back.
	AttrReadTokens = "read_tokens"
	// AttrReads is the number of pages read back.
	AttrReads = "reads"
)

// chargeMu serializes the charges of one process, so that concurrent reads
// through one proxy all count. Charges from processes running at the same
// instant may still lose one of them: the figures are statistics.
var chargeMu sync.Mutex

// Charge records in st that a page of tokens tokens was read back from the
// result ref names: the result's AttrReadTokens grows by tokens and its
// AttrReads by one. Every surface that reads a page back into a model's
// context (crumb read and grep, the MCP proxy's tools) charges it. A store
// that is not a store.Annotator records nothing. Charging does not count as
// a use of the result.
//
// A store that is a store.Tallier adds the figures in one step of its own,
// which a crash may undo but never lets damage the record: a read pays for
// no more than that.
func Charge(ctx context.Context, st store.Store, ref store.Ref, tokens int) error {
	if t, ok := st.(store.Tallier); ok {
		err := t.Tally(ctx, ref, map[string]int64{AttrReadTokens: int64(max(0, tokens)), AttrReads: 1})
		if err != nil {
			return fmt.Errorf("recall: charging a read of %s: %w", ref, err)
		}
		return nil
	}
	a, ok := st.(store.Annotator)
	if !ok {
		return nil
	}
	chargeMu.Lock()
	defer chargeMu.Unlock()
	info, err := st.Stat(ctx, ref)
	if err != nil {
		return fmt.Errorf("recall: charging a read of %s: %w", ref, err)
	}
	sum, _ := strconv.ParseInt(info.Attrs[AttrReadTokens], 10, 64)
	reads, _ := strconv.ParseInt(info.Attrs[AttrReads], 10, 64)
	attrs := map[string]string{
		AttrReadTokens: strconv.FormatInt(max(0, sum)+int64(max(0, tokens)), 10),
		AttrReads:      strconv.FormatInt(max(0, reads)+1, 10),
	}
	if err := a.Annotate(ctx, ref, attrs); err != nil {
		return fmt.Errorf("recall: charging a read of %s: %w", ref, err)
	}
	return nil
}
