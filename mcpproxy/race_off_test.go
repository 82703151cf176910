//go:build !race

package mcpproxy

// hugeMB is the size of TestHugeResult's result in MB (see race_on_test.go).
const hugeMB = 50
