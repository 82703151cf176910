package summarize

import (
	"container/list"
	"sync"
	"time"
)

// cache keeps valid summaries, least recently used first out, each for at
// most ttl.
type cache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	order *list.List // of *entry, most recent first
	byKey map[string]*list.Element
	now   func() time.Time
}

type entry struct {
	key  string
	sum  *Summary
	made time.Time
}

func newCache(size int, ttl time.Duration) *cache {
	return &cache{size: size, ttl: ttl, order: list.New(), byKey: map[string]*list.Element{}, now: time.Now}
}

func (c *cache) get(key string) (*Summary, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if c.now().Sub(e.made) > c.ttl {
		c.order.Remove(el)
		delete(c.byKey, key)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.sum, true
}

func (c *cache) put(key string, sum *Summary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		el.Value = &entry{key: key, sum: sum, made: c.now()}
		c.order.MoveToFront(el)
		return
	}
	c.byKey[key] = c.order.PushFront(&entry{key: key, sum: sum, made: c.now()})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*entry).key)
	}
}
