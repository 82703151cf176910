//go:build race

package main

// rssLimit is the most memory a crumb process may use in the tests for a
// result of tens of MB. A -race build keeps shadow memory for every byte
// the program touches and its sync.Pools drop items at random, so it gets
// twice the room; the bound itself is measured by crumb bench --speed.
const rssLimit = 400 << 20
