package check

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Prometheus is a client of a Prometheus server's HTTP API, for the few
// calls the checks make: instant queries and the loaded rules.
type Prometheus struct {
	URL  string // e.g. http://127.0.0.1:9090
	HTTP *http.Client
}

// apiResponse is the envelope of every answer of Prometheus' API.
type apiResponse struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

// get calls the API path with the query parameters q and decodes the data
// of a successful answer into v.
func (p Prometheus) get(ctx context.Context, path string, q url.Values, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	client := p.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	var r apiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return fmt.Errorf("%s: HTTP %d, not an API answer: %.200s", path, resp.StatusCode, body)
	}
	if r.Status != "success" {
		return fmt.Errorf("%s: %s: %s", path, r.ErrorType, r.Error)
	}
	return json.Unmarshal(r.Data, v)
}

// Query evaluates expr at the time at (the server's now when zero) and
// returns how many series or samples it gave.
func (p Prometheus) Query(ctx context.Context, expr string, at time.Time) (int, error) {
	q := url.Values{"query": {expr}}
	if !at.IsZero() {
		q.Set("time", strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64))
	}
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := p.get(ctx, "/api/v1/query", q, &data); err != nil {
		return 0, err
	}
	switch data.ResultType {
	case "vector", "matrix":
		var series []json.RawMessage
		if err := json.Unmarshal(data.Result, &series); err != nil {
			return 0, err
		}
		return len(series), nil
	default: // scalar or string: one value
		return 1, nil
	}
}

// LoadedRule is one rule as the server holds it.
type LoadedRule struct {
	Group          string
	Name           string    `json:"name"`
	Type           string    `json:"type"`  // "alerting" or "recording"
	State          string    `json:"state"` // alerting: inactive, pending, firing
	Health         string    `json:"health"`
	LastError      string    `json:"lastError"`
	LastEvaluation time.Time `json:"lastEvaluation"`
}

// Rules returns every rule the server has loaded, with its group's name.
func (p Prometheus) Rules(ctx context.Context) ([]LoadedRule, error) {
	var data struct {
		Groups []struct {
			Name  string       `json:"name"`
			Rules []LoadedRule `json:"rules"`
		} `json:"groups"`
	}
	if err := p.get(ctx, "/api/v1/rules", nil, &data); err != nil {
		return nil, err
	}
	var rules []LoadedRule
	for _, g := range data.Groups {
		for _, r := range g.Rules {
			r.Group = g.Name
			rules = append(rules, r)
		}
	}
	return rules, nil
}
