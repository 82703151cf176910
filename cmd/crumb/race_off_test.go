//go:build !race

package main

// rssLimit is the most memory a crumb process may use in the tests for a
// result of tens of MB.
const rssLimit = 200 << 20
