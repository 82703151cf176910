package redisstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

// toLegacy moves a stored result to the layout of crumb before buckets,
// as its publish script left it: crumb:{NS}:r:<ref>, with its entries in
// crumb:{NS}:lru, crumb:{NS}:sizes and crumb:{NS}:usage, and no
// namespace total.
func toLegacy(t *testing.T, s *Store, info store.Info) {
	t.Helper()
	ctx := context.Background()
	b, l := s.bucketOf(info.Ref), s.legacy()
	score := s.c.ZScore(ctx, b.lru(), string(info.Ref)).Val()
	for _, err := range []error{
		s.c.Rename(ctx, b.data(info.Ref), l.data(info.Ref)).Err(),
		s.c.ZAdd(ctx, l.lru(), redisZ(score, info.Ref)).Err(),
		s.c.HSet(ctx, l.sizes(), string(info.Ref), info.Size).Err(),
		s.c.IncrBy(ctx, l.usage(), info.Size).Err(),
		s.c.Del(ctx, b.lru(), b.sizes(), b.usage(), s.totalKey()).Err(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestLegacyNamespace opens a namespace whose results are in the layout of
// earlier versions (every key under {NS}): they read exact, list, count
// toward the cap and delete; new results go to their buckets, and a legacy
// result stored again moves to its bucket.
func TestLegacyNamespace(t *testing.T) {
	srv := sharedServer(t)
	ctx := context.Background()
	ns := redistest.Namespace()
	old := openTest(t, srv, Options{Namespace: ns})
	var datas [][]byte
	var infos []store.Info
	for i := range 3 {
		data := storetest.Content(uint64(900+i), (i+1)*store.ChunkSize/2)
		info, err := old.Put(ctx, bytes.NewReader(data), store.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		toLegacy(t, old, info)
		datas, infos = append(datas, data), append(infos, info)
	}
	if n := len(keysOf(ctx, srv.Client(t), old, "*").Val()); n != 3+3 {
		t.Fatalf("%d keys in the legacy layout; want 3 results and 3 index keys", n)
	}
	s := openTest(t, srv, Options{Namespace: ns})
	for i, info := range infos {
		obj, err := s.Open(ctx, info.Ref)
		if err != nil {
			t.Fatalf("Open of legacy result %d: %v", i, err)
		}
		got, err := io.ReadAll(io.NewSectionReader(obj, 0, obj.Size()))
		obj.Close()
		if err != nil || !bytes.Equal(got, datas[i]) {
			t.Fatalf("legacy result %d read %d bytes, %v; want its %d bytes exact", i, len(got), err, len(datas[i]))
		}
	}
	if err := s.Annotate(ctx, infos[0].Ref, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	if list, err := s.List(ctx); err != nil || len(list) != 3 {
		t.Fatalf("List = %d results, %v; want the 3 legacy ones", len(list), err)
	}
	var want int64
	for _, info := range infos {
		want += info.Size
	}
	if u, err := s.usage(ctx); err != nil || u != want {
		t.Errorf("usage = %d, %v; want the legacy results' %d bytes", u, err, want)
	}
	// Stored again: moves to its bucket.
	if _, err := s.Put(ctx, bytes.NewReader(datas[1]), store.Meta{}); err != nil {
		t.Fatal(err)
	}
	if n := s.c.Exists(ctx, s.legacy().data(infos[1].Ref)).Val(); n != 0 {
		t.Errorf("the legacy copy of a result stored again is kept")
	}
	if info, b, err := s.lookup(ctx, infos[1].Ref); err != nil || b != s.bucketOf(infos[1].Ref) || !info.Created.Equal(infos[1].Created) {
		t.Errorf("result stored again: in %s, %v (created %v); want in its bucket, created %v", b, err, info.Created, infos[1].Created)
	}
	if err := s.Delete(ctx, infos[2].Ref); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(ctx, infos[2].Ref); !errors.Is(err, store.ErrMissing) {
		t.Errorf("Stat of a deleted legacy result: %v; want ErrMissing", err)
	}
	st, err := s.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.ResultsKept != 2 || st.BytesKept != infos[0].Size+infos[1].Size {
		t.Errorf("GC = %+v; want the 2 results left kept", st)
	}
	if info, err := s.Stat(ctx, infos[0].Ref); err != nil || info.Attrs["k"] != "v" {
		t.Errorf("Stat of the annotated legacy result = %v, %v; want its attribute", info.Attrs, err)
	}
}

func redisZ(score float64, ref store.Ref) redis.Z { return redis.Z{Score: score, Member: string(ref)} }
