package main

import (
	"context"
	"errors"

	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
)

func init() {
	for _, sc := range redisstore.Schemes {
		storeSchemes[sc] = redisOpener
	}
}

// redisOpener serves every namespace from the Redis store at rawURL: each
// namespace (the token's) is a store namespace of its own, whatever
// namespace the URL names. A URL the store cannot use is an error; a Redis
// that does not answer is not (crumb serve says so as it starts, and
// /healthz tells while it lasts).
func redisOpener(rawURL string) (server.Opener, error) {
	probe, err := redisstore.Open(context.Background(), rawURL, redisstore.Options{})
	if errors.Is(err, redisstore.ErrBadURL) {
		return nil, withHint(err, "give the --store URL as redis://HOST:PORT/DB (rediss:// for TLS), redis+cluster://HOST:PORT?addr=HOST2:PORT2 for a Redis Cluster, or redis+sentinel://HOST:PORT?master=NAME")
	}
	if err == nil {
		probe.Close()
	}
	return func(ns string) (store.Store, error) {
		return redisstore.Open(context.Background(), rawURL, redisstore.Options{Namespace: ns})
	}, nil
}
