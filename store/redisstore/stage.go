package redisstore

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/crumb-dev/crumb/store"
)

var _ store.Stager = (*Store)(nil)

// Stage streams r in under a staging key, as Put does, and returns it
// unpublished with an Object that reads it: a Stat or Open of its ref does
// not find it until Commit returns. See store.Stager.
func (s *Store) Stage(ctx context.Context, r io.Reader, meta store.Meta) (store.Staged, error) {
	st, err := s.stage(ctx, r, meta)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		st.abort()
		return nil, store.ErrClosed
	}
	s.open++
	s.mu.Unlock()
	sg := &stagedResult{st: st}
	sg.obj = &object{s: s, key: s.dataKey(st.info.Ref), info: st.info, cached: -1, stagingKey: sg.stagingKey, onClose: sg.objectClosed}
	return sg, nil
}

// stagedResult is a staged result and the object that reads it: from the
// staging key until Commit returns, and from the result's key once the
// staging key is gone (Commit renamed it) or Commit has returned.
type stagedResult struct {
	st  *staged
	obj *object

	mu        sync.Mutex
	done      bool // committed or aborted
	published bool
	objClosed bool
}

func (sg *stagedResult) Info() store.Info     { return sg.st.info }
func (sg *stagedResult) Object() store.Object { return sg.obj }

// stagingKey returns the staging key while Commit has not returned
// success, and "" after: the staged bytes are under the result's key then.
func (sg *stagedResult) stagingKey() string {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	if sg.published {
		return ""
	}
	return sg.st.key
}

// Commit publishes the result, as Put does, and returns its Info. The object
// stays readable, from the published result.
func (sg *stagedResult) Commit(ctx context.Context) (store.Info, error) {
	sg.mu.Lock()
	if sg.done {
		sg.mu.Unlock()
		return store.Info{}, errors.New("store: staged result already committed or aborted")
	}
	sg.done = true
	sg.mu.Unlock()
	info, err := sg.st.commit(ctx)
	if err == nil {
		sg.mu.Lock()
		sg.published = true
		sg.mu.Unlock()
	}
	return info, err
}

// Abort discards the staged result. Its object stays readable until it is
// closed, so the staging key goes then (or when it expires). It is a no-op
// after Commit.
func (sg *stagedResult) Abort() error {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	if sg.done {
		return nil
	}
	sg.done = true
	if sg.objClosed {
		sg.st.abort()
	}
	return nil
}

// objectClosed deletes the staging key of an aborted result once its
// object is closed.
func (sg *stagedResult) objectClosed() {
	sg.mu.Lock()
	defer sg.mu.Unlock()
	sg.objClosed = true
	if sg.done && !sg.published {
		sg.st.abort()
	}
}
