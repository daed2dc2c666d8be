package ghfake_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/review-loop/review-loop/internal/ghfake"
)

// BenchmarkFake_aLoopsGitWork is a scenario's git work on the fake: a
// repository with its base files, a PR, then three cycles of the reads a
// cycle makes (configuration lookups, the PR as JSON and as a diff, a
// file at the head, a check run on it, a dispatch) and a pushed fix. It
// reports the git processes the fake started and the CPU they used, per
// scenario (children's rusage, so other load on the machine does not
// count).
func BenchmarkFake_aLoopsGitWork(b *testing.B) {
	const q = `{"query":"{ repository(owner: \"octo\", name: \"demo\") { ` +
		`w: object(expression: \"main:.github/workflows\") { ... on Tree { entries { name } } } ` +
		`c: object(expression: \"main:.github/review-loop.yml\") { ... on Blob { text } } } }"}`
	var procs int64
	before := childCPU()
	for i := 0; i < b.N; i++ {
		f := ghfake.New(ghfake.Options{})
		f.AddToken("ghs_app", ghfake.Identity{Login: "github-actions", Bot: true})
		must := func(err error) {
			if err != nil {
				b.Fatal(err)
			}
		}
		must(f.AddRepo("octo", "demo", "main"))
		must(f.SetProtected("octo", "demo", "main", false))
		_, err := f.PushCommit("octo", "demo", "main", map[string]string{".github/review-loop.yml": "max_cycles: 3\n", "calc/calc.go": "package calc\n"}, "base")
		must(err)
		_, err = f.CreatePR("octo", "demo", ghfake.PROptions{Head: "feature", Files: map[string]string{"calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"}})
		must(err)
		for cycle := range 3 {
			head := f.HeadSHA("octo", "demo", 1)
			for _, r := range [][4]string{
				{"POST", "/graphql", "", q},
				{"GET", "/repos/octo/demo/pulls/1", "", ""},
				{"GET", "/repos/octo/demo/pulls/1", "application/vnd.github.diff", ""},
				{"GET", "/repos/octo/demo/contents/calc/calc.go?ref=" + head, "", ""},
				{"POST", "/repos/octo/demo/check-runs", "", `{"name":"gate","head_sha":"` + head + `"}`},
				{"POST", "/repos/octo/demo/actions/workflows/review-loop.yml/dispatches", "", `{"ref":"main"}`},
				{"GET", "/repos/octo/demo/pulls/1", "", ""},
			} {
				if st, body := requestB(b, f, r[0], r[1], r[2], r[3]); st >= 300 {
					b.Fatalf("%s %s: %d %s", r[0], r[1], st, body)
				}
			}
			_, err := f.PushCommit("octo", "demo", "feature", map[string]string{"calc/calc.go": fmt.Sprintf("package calc\n\n// fix %d\nfunc Add(a, b int) int { return a + b }\n", cycle)}, "fix")
			must(err)
		}
		procs += ghfake.GitRuns(f, "octo", "demo")
		f.Close()
	}
	b.ReportMetric(float64(procs)/float64(b.N), "git-processes/op")
	b.ReportMetric(float64((childCPU()-before).Microseconds())/1000/float64(b.N), "git-cpu-ms/op")
}

// childCPU is the user and system time of the process's waited-for
// children.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
