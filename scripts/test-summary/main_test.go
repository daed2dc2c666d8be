package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestSummarize_printsFailuresAndOneSkipLine(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: GitHub reference data not found\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: GitHub reference data not found\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:4: git is not installed\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Test":"TestD","Output":"    d_test.go:5: got 1, want 2\n"}`,
		`{"Action":"output","Package":"p","Test":"TestD","Output":"--- FAIL: TestD (0.00s)\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestD"}`,
		`{"Action":"output","Package":"p","Test":"TestE","Output":"    e_test.go:5: quiet when it passes\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestE"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	var out strings.Builder
	failed, err := summarize(strings.NewReader(in), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v err %v", failed, err)
	}
	got := out.String()
	for _, want := range []string{"d_test.go:5: got 1, want 2", "--- FAIL: TestD", "FAIL\tp\t0.1s",
		"skipped: 3 tests (2× GitHub reference data not found; 1× git is not installed)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quiet when it passes") || strings.Contains(got, "=== RUN") {
		t.Errorf("a passing test's output was printed:\n%s", got)
	}
}

func TestSummarize_saysWhenNothingSkipped(t *testing.T) {
	var out strings.Builder
	failed, err := summarize(strings.NewReader(`{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}`+"\n"+`{"Action":"pass","Package":"p"}`), &out)
	if err != nil || failed || out.String() != "ok  \tp\t0.1s\nskipped: none\n" {
		t.Fatalf("failed %v err %v out %q", failed, err, out.String())
	}
}

func TestSummarize_listsTheTenSlowestTopLevelTests(t *testing.T) {
	var in strings.Builder
	for i := range 12 {
		fmt.Fprintf(&in, `{"Action":"pass","Package":"github.com/review-loop/review-loop/internal/p","Test":"Test%02d","Elapsed":%d}`+"\n", i, i)
	}
	in.WriteString(`{"Action":"pass","Package":"github.com/review-loop/review-loop/internal/p","Test":"Test11/sub","Elapsed":99}` + "\n")
	var out strings.Builder
	if _, err := summarize(strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	want := "slowest 10 tests:\n    11.00s  Test11 internal/p\n    10.00s  Test10 internal/p\n"
	if !strings.Contains(got, want) || strings.Contains(got, "Test01 ") || strings.Contains(got, "sub") || strings.Count(got, "internal/p\n") != 10 {
		t.Errorf("summary:\n%s\nwant it to start the list with\n%s", got, want)
	}
}
