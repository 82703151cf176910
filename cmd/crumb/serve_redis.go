package main

import (
	"context"

	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
)

func init() {
	storeSchemes["redis"] = redisOpener
	storeSchemes["rediss"] = redisOpener
}

// redisOpener serves every namespace from the Redis store at rawURL: each
// namespace (the token's) is a store namespace of its own, whatever
// namespace the URL names. It checks at once that Redis answers.
func redisOpener(rawURL string) (server.Opener, error) {
	probe, err := redisstore.Open(context.Background(), rawURL, redisstore.Options{})
	if err != nil {
		return nil, withHint(err, "check that Redis runs at the --store URL (redis://HOST:PORT/DB, or rediss://USER:PASSWORD@HOST:PORT/DB)")
	}
	probe.Close()
	return func(ns string) (store.Store, error) {
		return redisstore.Open(context.Background(), rawURL, redisstore.Options{Namespace: ns})
	}, nil
}
