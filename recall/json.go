package recall

import (
	"context"
	"fmt"

	"github.com/crumb-dev/crumb/store"
)

// readSelection answers a JSON pointer or jq request. (Being written: see
// issue 3; until then it reports that it cannot.)
func readSelection(ctx context.Context, st store.Store, obj store.Object, req Request, opts Options) (Page, error) {
	return Page{}, fmt.Errorf("%w: JSON pointer and jq reads are not available yet", ErrBadRequest)
}
