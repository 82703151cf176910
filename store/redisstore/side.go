package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
)

// sideKey names the side entry under key: crumb:{NS:side:H}:v, with H the
// SHA-256 of key, so each entry is one key in one slot of a Redis Cluster
// and the entries of a namespace spread over every shard.
func (s *Store) sideKey(key string) string {
	return "crumb:{" + s.ns + ":side:" + store.SideName(key) + "}:v"
}

// GetSide returns the side entry under key, or an error wrapping
// store.ErrMissing when there is none or it expired.
func (s *Store) GetSide(ctx context.Context, key string) ([]byte, error) {
	v, err := s.c.Get(ctx, s.sideKey(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redisstore: side entry: %w", store.ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: reading side entry at %s: %w", s.where, err)
	}
	return v, nil
}

// PutSide stores value under key with one SET ... PX, to expire after ttl
// (the store's TTL when ttl is zero or less).
func (s *Store) PutSide(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := s.c.Set(ctx, s.sideKey(key), value, store.SideTTL(ttl, s.ttl)).Err(); err != nil {
		return fmt.Errorf("redisstore: writing side entry at %s: %w", s.where, err)
	}
	return nil
}

var _ store.SideStore = (*Store)(nil)
