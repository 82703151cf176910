//go:build ignore

// gen_o200k writes o200k_base.tok, the o200k_base vocabulary as a table that
// needs no work to load: run "go generate ./tokens". It reads the
// vocabulary from github.com/tiktoken-go/tokenizer, token by token.
//
// Layout, all integers little-endian uint32: n (tokens), slots (a power of
// two), then n+1 offsets into the token bytes (in rank order), then slots
// hash slots (rank+1 of the token that hashes there, 0 when empty; FNV-1a,
// linear probing), then the token bytes.
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log"
	"os"

	"github.com/tiktoken-go/tokenizer"
)

func main() {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		log.Fatal(err)
	}
	var toks []string
	for id := uint(0); ; id++ {
		s, err := c.Decode([]uint{id})
		if err != nil {
			break
		}
		toks = append(toks, s)
	}
	slots := uint32(1)
	for slots < uint32(len(toks))*2 {
		slots <<= 1
	}
	table := make([]uint32, slots)
	for rank, t := range toks {
		i := fnv(t) & (slots - 1)
		for table[i] != 0 {
			i = (i + 1) & (slots - 1)
		}
		table[i] = uint32(rank) + 1
	}
	var out bytes.Buffer
	put := func(v uint32) { binary.Write(&out, binary.LittleEndian, v) }
	put(uint32(len(toks)))
	put(slots)
	off := uint32(0)
	for _, t := range toks {
		put(off)
		off += uint32(len(t))
	}
	put(off)
	for _, v := range table {
		put(v)
	}
	for _, t := range toks {
		out.WriteString(t)
	}
	if err := os.WriteFile("o200k_base.tok", out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d tokens, %d slots, %d bytes\n", len(toks), slots, out.Len())
}

func fnv(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
