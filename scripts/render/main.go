// Command render writes the pages of the README's pictures (docs/img/*.html)
// from the report golden files, and finishes a screenshot of one of them.
//
//	go run ./scripts/render                      # write docs/img/*.html
//	go run ./scripts/render -finish RAW.png NAME # crop RAW.png, stamp it, write docs/img/NAME.png
//
// scripts/screenshots runs both around a headless Chromium.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/review-loop/review-loop/internal/docimg"
)

func main() {
	finish := flag.String("finish", "", "a raw screenshot to crop and stamp; the argument names the picture")
	flag.Parse()
	if err := run(*finish, flag.Args()); err != nil {
		slog.Error("render", "err", err)
		os.Exit(1)
	}
}

func run(raw string, args []string) error {
	if raw == "" {
		if len(args) != 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		return docimg.Write(".")
	}
	if len(args) != 1 {
		return fmt.Errorf("-finish needs the picture's name, one of %v", names())
	}
	name := args[0]
	page, err := os.ReadFile(filepath.Join(docimg.Dir, name+".html"))
	if err != nil {
		return fmt.Errorf("reading the page of %s: %w", name, err)
	}
	shot, err := os.ReadFile(raw)
	if err != nil {
		return fmt.Errorf("reading the screenshot: %w", err)
	}
	img, err := docimg.Finish(shot, page)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return os.WriteFile(filepath.Join(docimg.Dir, name+".png"), img, 0o644)
}

func names() []string {
	var n []string
	for _, p := range docimg.Pictures {
		n = append(n, p.Name)
	}
	return n
}
