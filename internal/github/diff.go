package github

import (
	"context"
	"errors"
	"fmt"
	"io"

	gh "github.com/google/go-github/v62/github"
)

// ErrDiffTooLarge is GitHub refusing to serve a pull request's diff over
// its own limits (406, error code too_large: more than 300 files or 20,000
// diff lines); it never serves such a diff truncated.
var ErrDiffTooLarge = errors.New("GitHub serves no diff this large")

// PullDiffChars reads the PR's diff (the diff media type: the changes
// from the merge base to the head, as engines read them) and counts its
// characters, streaming: the diff is never held in memory. One request.
// https://docs.github.com/en/rest/pulls/pulls#get-a-pull-request
func (c *Client) PullDiffChars(ctx context.Context, owner, repo string, number int) (int, error) {
	const op = "GET /repos/{owner}/{repo}/pulls/{pull_number}"
	req, err := c.rest.NewRequest("GET", fmt.Sprintf("repos/%s/%s/pulls/%d", owner, repo, number), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/vnd.github.diff")
	resp, err := c.rest.BareDo(withCall(ctx, "", true), req)
	if err != nil {
		var er *gh.ErrorResponse
		if errors.As(err, &er) {
			for _, e := range er.Errors {
				if e.Code == "too_large" {
					return 0, fmt.Errorf("reading the diff of %s/%s#%d: %w: %s", owner, repo, number, ErrDiffTooLarge, er.Message)
				}
			}
		}
		return 0, fmt.Errorf("reading the diff of %s/%s#%d: %w", owner, repo, number, restErr(op, resp, err))
	}
	defer resp.Body.Close()
	n, err := CountChars(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("reading the diff of %s/%s#%d: %w", owner, repo, number, err)
	}
	return n, nil
}

// CountChars counts the characters of what r yields, UTF-8 encoded (every
// byte that does not continue a multi-byte sequence), in constant memory.
func CountChars(r io.Reader) (int, error) {
	buf := make([]byte, 32<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		for _, b := range buf[:k] {
			// Every byte but a continuation byte (10xxxxxx) starts a character.
			if b&0xC0 != 0x80 {
				n++
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
