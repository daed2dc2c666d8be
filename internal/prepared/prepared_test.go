package prepared

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/review-loop/review-loop/internal/fix"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/secret"
)

const okPatch = `diff --git a/calc/calc.go b/calc/calc.go
index 1111111..2222222 100644
--- a/calc/calc.go
+++ b/calc/calc.go
@@ -3,3 +3,3 @@ package calc
 func Add(a, b int) int {
-	return a - b
+	return a + b
 }
`

func TestRule_TB1_ValidatePatch_acceptsAClaimedTextEdit(t *testing.T) {
	t.Parallel()
	files, err := ValidatePatch([]byte(okPatch), []string{"calc/calc.go"}, DefaultLimits)
	if err != nil || len(files) != 1 || files[0] != "calc/calc.go" {
		t.Fatalf("files %v, err %v", files, err)
	}
	// A removed line that reads like a header is hunk content, not a header.
	tricky := strings.Replace(okPatch, "-\treturn a - b", "--- a/.github/workflows/x.yml", 1)
	if _, err := ValidatePatch([]byte(tricky), []string{"calc/calc.go"}, DefaultLimits); err != nil {
		t.Fatalf("hunk content read as a header: %v", err)
	}
	newFile := "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n"
	if _, err := ValidatePatch([]byte(newFile), []string{"n.txt"}, DefaultLimits); err != nil {
		t.Fatalf("new file: %v", err)
	}
}

// TestRule_TB1_ValidatePatch_refuses: each way a prepared patch could
// reach beyond the files the prepare job claims is refused with a reason.
func TestRule_TB1_ValidatePatch_refuses(t *testing.T) {
	t.Parallel()
	header := func(p string) string {
		return "diff --git a/" + p + " b/" + p + "\nindex 1111111..2222222 100644\n--- a/" + p + "\n+++ b/" + p + "\n@@ -1 +1 @@\n-a\n+b\n"
	}
	big := okPatch + "+" + strings.Repeat("x", DefaultLimits.MaxBytes) + "\n"
	many := ""
	var manyClaimed []string
	for i := 0; i <= DefaultLimits.MaxFiles; i++ {
		p := filepath.ToSlash(filepath.Join("d", strings.Repeat("f", 1+i%5)+string(rune('a'+i%26))+string(rune('a'+i/26))))
		many += header(p)
		manyClaimed = append(manyClaimed, p)
	}
	for _, tc := range []struct {
		name    string
		patch   string
		claimed []string
		want    string
	}{
		{"an unclaimed file", okPatch, []string{"other.go"}, "not claimed"},
		{"a workflow file", header(".github/workflows/ci.yml"), []string{".github/workflows/ci.yml"}, ".github/workflows"},
		{"a workflow file in other case", header(".GitHub/Workflows/ci.yml"), []string{".GitHub/Workflows/ci.yml"}, ".github/workflows"},
		{"a file in .git", header(".git/config"), []string{".git/config"}, ".git"},
		{"a nested .git", header("sub/.git/hooks/pre-push"), []string{"sub/.git/hooks/pre-push"}, ".git"},
		{"a parent path", header("../x"), []string{"../x"}, "outside"},
		{"an absolute path", "diff --git a//etc/passwd b//etc/passwd\n--- a//etc/passwd\n+++ b//etc/passwd\n@@ -1 +1 @@\n-a\n+b\n", []string{"/etc/passwd"}, "outside"},
		{"a new symlink", "diff --git a/l b/l\nnew file mode 120000\nindex 0000000..3333333\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+.git/config\n\\ No newline at end of file\n", []string{"l"}, "symlink"},
		{"a change on a symlink", "diff --git a/l b/l\nindex 1111111..2222222 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-a\n+.git/config\n", []string{"l"}, "symlink"},
		{"a mode change", "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n", []string{"x"}, "mode"},
		{"a submodule", "diff --git a/m b/m\nnew file mode 160000\nindex 0000000..3333333\n--- /dev/null\n+++ b/m\n@@ -0,0 +1 @@\n+Subproject commit 3333333\n", []string{"m"}, "submodule"},
		{"a rename", "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n", []string{"x", "y"}, "rename"},
		{"a binary patch", "diff --git a/x b/x\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 1\nIcmZo*00001\n\n", []string{"x"}, "binary"},
		{"a quoted path", "diff --git \"a/x\\ty\" \"b/x\\ty\"\n", []string{"x\ty"}, "quoted"},
		{"headers naming another file", "diff --git a/x b/x\nindex 1111111..2222222 100644\n--- a/x\n+++ b/.github/workflows/ci.yml\n@@ -1 +1 @@\n-a\n+b\n", []string{"x"}, "names"},
		{"an unknown header line", "diff --git a/x b/x\nGIT evil extension\n", []string{"x"}, "unexpected"},
		{"text outside any file", "hello\n" + okPatch, []string{"calc/calc.go"}, "outside a file"},
		{"a hunk longer than its header says", strings.Replace(okPatch, "@@ -3,3 +3,3 @@", "@@ -3,2 +3,2 @@", 1), []string{"calc/calc.go"}, "unexpected"},
		{"a patch over the size limit", big, []string{"calc/calc.go"}, "limit"},
		{"too many files", many, manyClaimed, "limit"},
		{"an empty patch with claimed files", "", []string{"calc/calc.go"}, "no change"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ValidatePatch([]byte(tc.patch), tc.claimed, DefaultLimits)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRule_TB1_WriteRead_roundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d := Decisions{Repo: "octo/app", PR: 1, HeadSHA: strings.Repeat("a", 40), Action: string(loop.ActionFix),
		Judges: map[string]loop.JudgeResult{"claude": {Verdict: loop.JudgeVerdict("CLEAN")}},
		Fix:    &Fix{Results: []fix.Result{{ID: "1", Outcome: fix.OutcomeFixed, Files: []string{"calc/calc.go"}}}, Changed: []string{"calc/calc.go"}, Commit: true}}
	if err := Write(dir, d, []byte(okPatch), nil); err != nil {
		t.Fatal(err)
	}
	got, patch, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.PR != 1 || got.Fix == nil || got.Fix.Results[0].Outcome != fix.OutcomeFixed || string(patch) != okPatch || got.Version != Version {
		t.Fatalf("got %+v", got)
	}
}

// TestRule_TB1_Read_refuses: the publish job trusts nothing in the
// artifact it has not checked.
func TestRule_TB1_Read_refuses(t *testing.T) {
	t.Parallel()
	good := Decisions{Repo: "octo/app", PR: 1, HeadSHA: strings.Repeat("a", 40), Action: string(loop.ActionFix),
		Fix: &Fix{Results: []fix.Result{{ID: "1", Outcome: fix.OutcomeFixed}}, Changed: []string{"calc/calc.go"}, Commit: true}}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"a missing decisions file", func(t *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, DecisionsFile)) }, "decisions"},
		{"a symlinked patch", func(t *testing.T, dir string) {
			_ = os.Remove(filepath.Join(dir, PatchFile))
			_ = os.Symlink("/etc/passwd", filepath.Join(dir, PatchFile))
		}, "regular file"},
		{"an unknown field", func(t *testing.T, dir string) {
			_ = os.WriteFile(filepath.Join(dir, DecisionsFile), []byte(`{"version":1,"repo":"octo/app","pr":1,"head_sha":"`+strings.Repeat("a", 40)+`","action":"fix","push_token":"x"}`), 0o600)
		}, "unknown field"},
		{"another version", func(t *testing.T, dir string) { rewrite(t, dir, func(d *Decisions) { d.Version = 9 }) }, "version"},
		{"a bad head", func(t *testing.T, dir string) { rewrite(t, dir, func(d *Decisions) { d.HeadSHA = "main" }) }, "head"},
		{"an unknown action", func(t *testing.T, dir string) { rewrite(t, dir, func(d *Decisions) { d.Action = "merge" }) }, "action"},
		{"an unknown outcome", func(t *testing.T, dir string) {
			rewrite(t, dir, func(d *Decisions) { d.Fix.Results[0].Outcome = "pwned" })
		}, "outcome"},
		{"a claimed workflow", func(t *testing.T, dir string) {
			rewrite(t, dir, func(d *Decisions) { d.Fix.Changed = []string{".github/workflows/ci.yml"} })
		}, ".github/workflows"},
		{"a patch for an unclaimed file", func(t *testing.T, dir string) {
			rewrite(t, dir, func(d *Decisions) { d.Fix.Changed = []string{"other.go"} })
		}, "not claimed"},
		{"a patch without a fix", func(t *testing.T, dir string) { rewrite(t, dir, func(d *Decisions) { d.Fix = nil }) }, "no fix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := Write(dir, good, []byte(okPatch), nil); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func rewrite(t *testing.T, dir string, edit func(*Decisions)) {
	t.Helper()
	d, err := decode(filepath.Join(dir, DecisionsFile))
	if err != nil {
		t.Fatal(err)
	}
	edit(&d)
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, DecisionsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRule_TB1_CheckTree_refusesSymlinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(root, "real", "f"), []byte("x"), 0o644)
	_ = os.Symlink("real", filepath.Join(root, "link"))
	_ = os.Symlink("real/f", filepath.Join(root, "cfg"))
	if err := CheckTree(root, []string{"real/f", "gone"}); err != nil {
		t.Fatalf("plain files: %v", err)
	}
	for _, p := range []string{"link/f", "cfg"} {
		if err := CheckTree(root, []string{p}); err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Errorf("%s: err = %v, want a symlink refusal", p, err)
		}
	}
}

func FuzzValidatePatch(f *testing.F) {
	f.Add(okPatch, "calc/calc.go")
	f.Add("diff --git a/l b/l\nnew file mode 120000\n", "l")
	f.Fuzz(func(t *testing.T, patch, claimed string) {
		files, err := ValidatePatch([]byte(patch), []string{claimed}, DefaultLimits)
		if err != nil {
			return
		}
		for _, p := range files {
			if p != claimed || CheckPath(p) != nil {
				t.Fatalf("accepted %q (claimed %q)", p, claimed)
			}
		}
	})
}

// TB14: a hand-over that holds a secret — here a judge verdict quoting an
// environment secret — is written as a withheld hand-over that names the
// variable and the part that held it and holds nothing else; Read takes
// it, and refuses a withheld hand-over that also hands over a fix or
// verdicts, or names a part that is not on the allow-list.
func TestRule_TB14_AHandOverHoldingASecretIsWrittenAsWithheld(t *testing.T) {
	t.Parallel()
	const value = "dpl_tb14_handover_secret_0a9"
	secrets := secret.NewSet(secret.Named{Input: "DEPLOY_TOKEN", Value: value})
	d := Decisions{Repo: "octo/app", PR: 1, HeadSHA: strings.Repeat("a", 40), Action: string(loop.ActionHandBack),
		Judges: map[string]loop.JudgeResult{"claude": {Verdict: loop.JudgeNonBlocking, Reason: "the token is " + value}}}
	dir := t.TempDir()
	w, err := WriteOrWithhold(dir, d, nil, secrets)
	if err != nil || w == nil || w.Input != "DEPLOY_TOKEN" || w.What != WithheldJudges {
		t.Fatalf("withheld %+v, err %v", w, err)
	}
	got, _, err := Read(dir)
	if err != nil {
		t.Fatalf("reading the withheld hand-over: %v", err)
	}
	if got.Withheld == nil || got.Withheld.Input != "DEPLOY_TOKEN" || len(got.Judges) != 0 || got.Fix != nil {
		t.Errorf("read %+v", got)
	}
	if err := got.Match(d.HeadSHA, string(loop.ActionFix), []string{"fix"}); err != nil {
		t.Errorf("a withheld hand-over is handed back whatever the publish job plans: %v", err)
	}
	for name, bad := range map[string]Decisions{
		"with verdicts": {Withheld: w, Judges: map[string]loop.JudgeResult{"claude": {Verdict: loop.JudgeBlocking}}},
		"with a fix":    {Withheld: w, Action: string(loop.ActionFix), Fix: &Fix{}},
		"another part":  {Withheld: &Withheld{Input: "DEPLOY_TOKEN", What: "see https://evil.example"}},
	} {
		bad.Repo, bad.PR, bad.HeadSHA, bad.Version = d.Repo, d.PR, d.HeadSHA, Version
		if bad.Action == "" {
			bad.Action = d.Action
		}
		if err := bad.check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
