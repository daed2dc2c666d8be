// Package judgetest is a local fake of the Anthropic Messages API, enough
// of it for the official SDK: the judge's tests and the demo's world both
// answer the built-in judge through it.
package judgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// MessagesServer answers POST /v1/messages with one text block.
type MessagesServer struct {
	// APIKey is the X-Api-Key every request must carry.
	APIKey string
	// Reply is the text answered when Answer is nil.
	Reply string
	// Answer, when set, computes the text from the request body.
	Answer func(body []byte) string
	// Status, when not 0, makes every request fail with that API error.
	Status int

	mu     sync.Mutex
	bodies []string
}

// Bodies returns the request bodies received so far.
func (s *MessagesServer) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// ServeHTTP implements http.Handler.
//
// API: POST /v1/messages, answered in the Messages API's response shape.
func (s *MessagesServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	s.mu.Unlock()
	if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != s.APIKey {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if s.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(s.Status)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"api_error","message":"boom"}}`))
		return
	}
	reply := s.Reply
	if s.Answer != nil {
		reply = s.Answer(b)
	}
	text, _ := json.Marshal(reply)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`, text)
}
