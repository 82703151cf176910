package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/crumb-dev/crumb"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print crumb's version",
		usage: `Usage: crumb version

Prints crumb's version, the Go version it was built with and its commit.

Examples:
  crumb version
  crumb --version`,
		run: func(e *env, args []string) error {
			c := commands["version"]
			fs := newFlags(e, c)
			if _, err := parse(e, c, fs, args); err != nil {
				return err
			}
			commit := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						commit = " " + s.Value[:12]
					}
				}
			}
			fmt.Fprintf(e.stdout, "crumb %s%s (%s %s/%s)\n", crumb.Version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	})
}
