//go:build race

package tokens

// raceEnabled reports a -race build, which runs the tokenizer ten times
// slower: the comparisons with the library then sample less of the corpus.
const raceEnabled = true
