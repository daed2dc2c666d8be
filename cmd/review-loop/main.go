// Command review-loop drives a bounded review → fix → re-review loop on one
// pull request across several AI review engines. One invocation of `cycle`
// is one loop cycle; see README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/review-loop/review-loop/internal/action"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := action.Main(ctx, os.Args[1:], action.Env{
		Getenv:  os.Getenv,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Version: version,
	})
	stop()
	os.Exit(int(code))
}
