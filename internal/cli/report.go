package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/review-loop/review-loop/internal/config"
	"github.com/review-loop/review-loop/internal/github"
	"github.com/review-loop/review-loop/internal/loop"
	"github.com/review-loop/review-loop/internal/observe"
	"github.com/review-loop/review-loop/internal/report"
	"github.com/review-loop/review-loop/internal/state"
)

// This file is `review-loop report`: which reviewer earns its cost, a
// per-engine scorecard across a repository's recent pull requests (EQ2),
// read-only and within a request budget it states and keeps.

// defaultStateAuthor is the account whose state comments the report
// reads: the Actions token's, as the example workflows run review-loop.
const defaultStateAuthor = "github-actions[bot]"

var reportSpec = &spec{
	name:  "report",
	short: "which reviewer earns its cost: a per-engine scorecard of recent pull requests, read-only",
	long: `Print a per-engine scorecard of the repository's recent pull requests, read
from their loop states (the hidden state in review-loop's status comments):
per engine the findings raised, the acceptance rate (fixed ÷ raised), the
fix-induced rate, the median time to review, quota hits, billed reviews and
the cost per accepted finding (with ` + "`prices`" + ` in .github/review-loop.yml).
Engines are ranked by acceptance, then by the lower fix-induced rate.

It writes nothing to GitHub and states its request budget: batched GraphQL,
one page per 25 pull requests (their first 100 comments with it), one more
page to see where the window ends, and for pull requests whose state lies
further down at most two more batched pages per 25 of them; nothing per
finding. The token comes from GH_TOKEN or GITHUB_TOKEN (read access).`,
	args: []positional{{name: "<owner/repo>", kind: argRepo}},
	example: []string{
		"review-loop report octo/app",
		"review-loop report octo/app --since 7d --json",
		"review-loop report octo/app --svg > scorecard.svg",
	},
	flags: func(fs *flag.FlagSet) {
		fs.String("since", "30d", "read pull requests updated in the last `AGE` (30d, 12h, 2w) or since a date (2026-11-01)")
		fs.Bool("json", false, "print the scorecard as JSON")
		fs.Bool("svg", false, "print the scorecard as an SVG chart, one bar group per engine")
		fs.Int("max-prs", 500, "read at most `N` pull requests, most recently updated first")
		fs.String("author", defaultStateAuthor, "read the state comments of `LOGIN` only (the account review-loop runs as)")
	},
}

// parseSince is --since: an age (Nd, Nh, Nw) before now, or a date.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if len(s) >= 2 {
		n, err := strconv.Atoi(s[:len(s)-1])
		if err == nil && n > 0 && n <= 3650 {
			switch s[len(s)-1] {
			case 'h':
				return now.Add(-time.Duration(n) * time.Hour), nil
			case 'd':
				return now.AddDate(0, 0, -n), nil
			case 'w':
				return now.AddDate(0, 0, -7*n), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("--since %q is neither an age (30d, 12h, 2w) nor a date (2026-11-01)", s)
}

// runReportCommand is `review-loop report <owner/repo> [--since 30d]`.
func runReportCommand(ctx context.Context, inv *invocation, env Env, logger *slog.Logger) error {
	now := env.now()
	since, err := parseSince(inv.string("since"), now)
	if err != nil {
		return inv.spec.usageErr("%v", err)
	}
	if inv.bool("json") && inv.bool("svg") {
		return inv.spec.usageErr("--json and --svg are two outputs; choose one")
	}
	maxPRs := inv.int("max-prs")
	if maxPRs <= 0 || maxPRs > 10000 {
		return inv.spec.usageErr("--max-prs %d is out of range (1 to 10000)", maxPRs)
	}
	token, err := tokenFrom(env, "report")
	if err != nil {
		return err
	}
	gh, err := github.New(github.Options{Token: token, APIURL: env.Getenv("GITHUB_API_URL"), GraphQLURL: env.Getenv("GITHUB_GRAPHQL_URL"), Logger: logger})
	if err != nil {
		return fail(env, err)
	}
	sc, err := RepoScorecard(ctx, gh, inv.repo.Owner, inv.repo.Repo, since, now, maxPRs, inv.string("author"))
	if err != nil {
		return fail(env, err)
	}
	var out string
	switch {
	case inv.bool("json"):
		b, err := report.ScorecardJSON(sc)
		if err != nil {
			return fail(env, err)
		}
		out = string(b)
	case inv.bool("svg"):
		out = report.ScorecardSVG(sc)
	default:
		out = report.ScorecardMarkdown(sc)
	}
	_, err = io.WriteString(env.Stdout, out)
	return err
}

// now is the clock of the commands that need one.
func (env Env) now() time.Time {
	if env.Now != nil {
		return env.Now()
	}
	return time.Now()
}

// RepoScorecard reads the loop states of owner/repo's pull requests
// updated since since (at most maxPRs) and folds them into one line per
// engine (EQ2). Only state comments by author count, the earliest on
// each pull request (SC4); the prices come from the repository's config
// file on its default branch. It makes at most
// github.LoopStateBudget(PRs read) requests, and says so.
func RepoScorecard(ctx context.Context, gh *github.Client, owner, repo string, since, now time.Time, maxPRs int, author string) (report.RepoScorecard, error) {
	res, err := gh.LoopStates(ctx, owner, repo, state.Marker, since, maxPRs, "")
	sc := report.RepoScorecard{Repo: owner + "/" + repo, Since: since, Until: now, PRs: len(res.PRs), Requests: res.Requests,
		Budget: github.LoopStateBudget(len(res.PRs))}
	if err != nil {
		return sc, err
	}
	var prices map[string]float64
	if res.Config != "" {
		rc, err := config.ParseRepo([]byte(res.Config), github.DefaultConfigFile)
		if err != nil {
			sc.Skipped = append(sc.Skipped, "the prices: "+firstLine(err.Error()))
		} else {
			prices = rc.Prices.Review
		}
	}
	sc.PricesSet = len(prices) > 0
	var loops [][]loop.EngineScore
	for _, p := range res.PRs {
		st, ok, why := loopStateOf(p, author)
		if why != "" {
			sc.Skipped = append(sc.Skipped, fmt.Sprintf("#%d: %s", p.Number, why))
		}
		if !ok {
			continue
		}
		card := loop.Scorecard(st, prices)
		if len(card) == 0 {
			continue
		}
		sc.Loops++
		loops = append(loops, card)
	}
	sc.Engines = loop.Rank(loops)
	if res.Truncated {
		sc.Skipped = append(sc.Skipped, fmt.Sprintf("more pull requests were updated in the window than --max-prs %d; the oldest were not read", maxPRs))
	}
	return sc, nil
}

// loopStateOf is a pull request's loop state: its earliest state comment
// written by author. why names a state that could not be read.
func loopStateOf(p github.PRStates, author string) (state.State, bool, string) {
	cs := slices.Clone(p.Comments)
	slices.SortStableFunc(cs, func(a, b github.StateComment) int { return a.CreatedAt.Compare(b.CreatedAt) })
	for _, c := range cs {
		if !observe.SameLogin(c.Author, author) {
			continue
		}
		st, _, err := state.Decode(c.Body)
		if err != nil {
			return st, false, fmt.Sprintf("the state in comment %d cannot be read (%s)", c.ID, firstLine(err.Error()))
		}
		return st, true, ""
	}
	if p.Incomplete {
		return state.State{}, false, "no state among its first comments, and not every comment was read"
	}
	return state.State{}, false, ""
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// scorecardDays is the window of the scorecard `plan` and `doctor` show.
const scorecardDays = 30

// scorecardMaxPRs bounds the pull requests `plan` and `doctor` read for
// it: at most github.LoopStateBudget(100) requests.
const scorecardMaxPRs = 100

// recentScorecard is the last 30 days' scorecard of owner/repo in a few
// lines for `plan` and `doctor` (EQ2), "" when no loop state is found; a
// failure to read it is one line, never the command's failure.
func recentScorecard(ctx context.Context, gh *github.Client, owner, repo string, now time.Time) string {
	sc, err := RepoScorecard(ctx, gh, owner, repo, now.AddDate(0, 0, -scorecardDays), now, scorecardMaxPRs, defaultStateAuthor)
	if err != nil {
		return "scorecard: not read (" + firstLine(describe(err)) + ")\n"
	}
	return report.ScorecardLines(sc, scorecardDays)
}
