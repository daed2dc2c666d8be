package ghfake

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
)

// Labels on pull requests. A PR's labels are its issue's labels: REST
// adds and removes them through the issues API, GraphQL reads them as
// PullRequest.labels and filters Repository.pullRequests(labels:) by name,
// case-insensitively, matching any of the names given.
// https://docs.github.com/en/rest/issues/labels

func hasLabel(labels []string, name string) bool {
	return slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, name) })
}

// AddLabel adds a label to a PR, as a human would in the UI.
func (f *Fake) AddLabel(owner, repo string, number int, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return err
	}
	if !hasLabel(p.Labels, name) {
		p.Labels = append(p.Labels, name)
	}
	return nil
}

// RemoveLabel removes a label from a PR, as a human would in the UI.
func (f *Fake) RemoveLabel(owner, repo string, number int, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.prLocked(owner, repo, number)
	if err != nil {
		return err
	}
	p.Labels = slices.DeleteFunc(p.Labels, func(l string) bool { return strings.EqualFold(l, name) })
	return nil
}

func labelsJSON(labels []string) []any {
	out := make([]any, 0, len(labels))
	for _, l := range labels {
		out = append(out, map[string]any{"name": l, "color": "ededed", "default": false})
	}
	return out
}

// https://docs.github.com/en/rest/issues/labels#add-labels-to-an-issue
// The body is {"labels": [...]} or, as go-github sends it, a bare array
// of names (the docs accept both); answers 200 with every label of the
// issue. A label the repository does not have yet is created on the way.
func addLabels(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Labels []string `json:"labels"`
	}
	raw, _ := io.ReadAll(r.Body)
	if json.Unmarshal(raw, &in.Labels) != nil {
		in.Labels = nil
		_ = json.Unmarshal(raw, &in)
	}
	if len(in.Labels) == 0 {
		unprocessable(w, "labels: must name at least one label")
		return
	}
	f.mu.Lock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		f.mu.Unlock()
		return
	}
	for _, l := range in.Labels {
		if !hasLabel(p.Labels, l) {
			p.Labels = append(p.Labels, l)
		}
	}
	out := labelsJSON(p.Labels)
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// https://docs.github.com/en/rest/issues/labels#remove-a-label-from-an-issue
// Answers 200 with the remaining labels, or 404 "Label does not exist"
// when the issue does not carry it.
func removeLabel(f *Fake, _ Identity, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	p, ok := f.prFromPath(w, r)
	if !ok {
		f.mu.Unlock()
		return
	}
	name := r.PathValue("name")
	if !hasLabel(p.Labels, name) {
		f.mu.Unlock()
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Label does not exist", "documentation_url": "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue"})
		return
	}
	p.Labels = slices.DeleteFunc(p.Labels, func(l string) bool { return strings.EqualFold(l, name) })
	out := labelsJSON(p.Labels)
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (e *gqlExec) labelConnection(p *pr, args map[string]any) (any, error) {
	items := make([]*obj, len(p.Labels))
	for i, l := range p.Labels {
		items[i] = &obj{typ: "Label", get: func(field string, _ map[string]any) (any, error) {
			switch field {
			case "name":
				return l, nil
			case "id":
				return "LA_" + l, nil
			}
			return nil, notImplemented("Label", field)
		}}
	}
	return connection("LabelConnection", items, args)
}

// labelsMatch is pullRequests(labels:): any of the names, or no filter.
func labelsMatch(p *pr, args map[string]any) bool {
	want, _ := args["labels"].([]any)
	if len(want) == 0 {
		return true
	}
	for _, w := range want {
		if s, ok := w.(string); ok && hasLabel(p.Labels, s) {
			return true
		}
	}
	return false
}
