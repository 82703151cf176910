// Command nosdk is the smallest library user of crumb: crumb.New and
// Project, nothing else. TestLibraryLinksNoModelSDK lists what it links.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/crumb-dev/crumb"
)

func main() {
	g, err := crumb.New(crumb.Config{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer g.Close()
	v, err := g.Project(context.Background(), crumb.Result{Tool: "bash", Body: []byte("hello\n")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(v.Text)
}
