// token-sim in a container: a token, a sale with it, the virtual clock, a scenario. Run: go test -v ./...
package tokensim_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

const (
	start        = "2030-01-01T00:00:00Z"
	tokens       = "application/vnd.service.tokens-v1.hal+json"
	saleRequest  = "application/vnd.service.payments-v5+json"
	saleResponse = "application/vnd.service.payments-v5.hal+json"
)

var card = map[string]any{
	"paymentInstrument": map[string]any{
		"type":           "card/front",
		"cardHolderName": "Ada Lovelace",
		"cardNumber":     "4444333322221111",
		"cardExpiryDate": map[string]any{"month": 5, "year": 2035},
	},
	"merchant": map[string]any{"entity": "default"},
}

var refuseLargeSales = map[string]any{
	"name": "refuse-large-sales",
	"rules": []any{map[string]any{
		"id":   "large-sale-refused",
		"when": map[string]any{"operation": "sale", "amount": map[string]any{"min": 5000}},
		"then": map[string]any{"outcome": map[string]any{"outcome": "refused", "refusalCode": "51"}},
	}},
}

type link struct {
	Href string `json:"href"`
}

type token struct {
	TokenID                string `json:"tokenId"`
	TokenExpiryDateTime    string `json:"tokenExpiryDateTime"`
	TokenPaymentInstrument link   `json:"tokenPaymentInstrument"`
	PaymentInstrument      struct {
		CardNumber string `json:"cardNumber"`
	} `json:"paymentInstrument"`
	Links struct {
		Token link `json:"tokens:token"`
	} `json:"_links"`
}

type sale struct {
	Outcome            string `json:"outcome"`
	RefusalCode        string `json:"refusalCode"`
	RefusalDescription string `json:"refusalDescription"`
	Issuer             struct {
		AuthorizationCode string `json:"authorizationCode"`
	} `json:"issuer"`
	Links struct {
		Refund *link `json:"payments:refund"`
		Events link  `json:"payments:events"`
	} `json:"_links"`
}

type apiError struct {
	ErrorName        string `json:"errorName"`
	ValidationErrors []struct {
		ErrorName string `json:"errorName"`
		JSONPath  string `json:"jsonPath"`
	} `json:"validationErrors"`
}

// sim is one running token-sim: its base URL.
type sim struct{ base string }

// startTokenSim starts the image of token-sim's Dockerfile (docker build -t token-sim .) for one test and
// removes it when the test ends.
func startTokenSim(t *testing.T) *sim {
	ctx := context.Background()
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        "token-sim",
			ExposedPorts: []string{"8080/tcp"},
			Env:          map[string]string{"TOKEN_SIM_FROZEN": "true", "TOKEN_SIM_NOW": start, "TOKEN_SIM_SEED": "go-example"},
			WaitingFor:   wait.ForHTTP("/_sim/health").WithPort("8080/tcp"),
		},
		Started: true,
	})
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatal(err)
	}
	base, err := ctr.PortEndpoint(ctx, "8080/tcp", "http")
	if err != nil {
		t.Fatal(err)
	}
	return &sim{base: base}
}

// send makes one request and decodes a JSON answer into out (when not nil); it returns the answer.
func send(t *testing.T, method, url string, body any, headers map[string]string, out any) *http.Response {
	t.Helper()
	var payload bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&payload).Encode(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, url, &payload)
	if err != nil {
		t.Fatal(err)
	}
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, url, err)
		}
	}
	return res
}

// api calls the simulated API: a path of the simulator ("/tokens") or an href it answered, with Basic auth.
func (s *sim) api(t *testing.T, method, target string, body any, contentType, accept string, out any) *http.Response {
	t.Helper()
	credentials := base64.StdEncoding.EncodeToString([]byte("merchant:secret"))
	headers := map[string]string{"Authorization": "Basic " + credentials, "Accept": accept}
	if body != nil {
		headers["Content-Type"] = contentType
	}
	if !strings.HasPrefix(target, "http") {
		target = s.base + target
	}
	return send(t, method, target, body, headers, out)
}

// control calls token-sim's own control API under /_sim: JSON, no credentials (none are set by default).
func (s *sim) control(t *testing.T, method, path string, body any, out any) *http.Response {
	t.Helper()
	headers := map[string]string{}
	if body != nil {
		headers["Content-Type"] = "application/json"
	}
	return send(t, method, s.base+path, body, headers, out)
}

func (s *sim) createToken(t *testing.T) token {
	t.Helper()
	var created token
	if res := s.api(t, "POST", "/tokens", card, tokens, tokens, &created); res.StatusCode != 201 {
		t.Fatalf("POST /tokens answered %d", res.StatusCode)
	}
	return created
}

func (s *sim) sale(t *testing.T, tokenHref string, amount int, reference string, out any) *http.Response {
	t.Helper()
	return s.api(t, "POST", "/payments/sales/migrateCardOnFile", map[string]any{
		"transactionReference": reference,
		"merchant":             map[string]any{"entity": "default"},
		"instruction": map[string]any{
			"narrative":         map[string]any{"line1": "Shop"},
			"value":             map[string]any{"currency": "GBP", "amount": amount},
			"paymentInstrument": map[string]any{"type": "card/token", "href": tokenHref},
		},
	}, saleRequest, saleResponse, out)
}

// clean gives each subtest a clean simulator: no tokens, payments or scenarios, the clock frozen at start.
func (s *sim) clean(t *testing.T) {
	t.Helper()
	for _, step := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"POST", "/_sim/reset", nil, 204},
		{"DELETE", "/_sim/scenarios", nil, 204},
		{"PUT", "/_sim/clock", map[string]any{"now": start, "frozen": true}, 200},
	} {
		if res := s.control(t, step.method, step.path, step.body, nil); res.StatusCode != step.status {
			t.Fatalf("%s %s answered %d", step.method, step.path, res.StatusCode)
		}
	}
}

func TestTokenSim(t *testing.T) {
	s := startTokenSim(t)

	t.Run("create a token", func(t *testing.T) {
		s.clean(t)
		var created token
		res := s.api(t, "POST", "/tokens", card, tokens, tokens, &created)
		href := created.TokenPaymentInstrument.Href
		if res.StatusCode != 201 || res.Header.Get("Location") != href || res.Header.Get("Content-Type") != tokens {
			t.Fatalf("POST /tokens: %d, Location %q, Content-Type %q", res.StatusCode, res.Header.Get("Location"), res.Header.Get("Content-Type"))
		}
		if created.PaymentInstrument.CardNumber != "4444********1111" || created.Links.Token.Href != href {
			t.Fatalf("unexpected token %+v", created)
		}
		if created.TokenExpiryDateTime != "2030-01-08T00:00:00Z" { // 7 days of virtual time
			t.Fatalf("tokenExpiryDateTime %s", created.TokenExpiryDateTime)
		}
		var read token
		if res := s.api(t, "GET", href, nil, "", tokens, &read); res.StatusCode != 200 || read.TokenID != created.TokenID {
			t.Fatalf("GET the token: %d, %s", res.StatusCode, read.TokenID)
		}
	})

	t.Run("sale with the token settles a day later", func(t *testing.T) {
		s.clean(t)
		var sold sale
		res := s.sale(t, s.createToken(t).TokenPaymentInstrument.Href, 1250, "order-1", &sold)
		if res.StatusCode != 201 || res.Header.Get("Content-Type") != saleResponse || sold.Outcome != "sentForSettlement" {
			t.Fatalf("sale: %d, %s, %+v", res.StatusCode, res.Header.Get("Content-Type"), sold)
		}
		if len(sold.Issuer.AuthorizationCode) != 6 {
			t.Fatalf("authorizationCode %q", sold.Issuer.AuthorizationCode)
		}
		var events struct {
			LastEvent string `json:"lastEvent"`
		}
		s.api(t, "GET", sold.Links.Events.Href, nil, "", saleResponse, &events)
		if events.LastEvent != "sentForSettlement" {
			t.Fatalf("lastEvent %s", events.LastEvent)
		}
		var clock struct {
			Now    string `json:"now"`
			Frozen bool   `json:"frozen"`
		}
		s.control(t, "POST", "/_sim/clock/advance", map[string]any{"by": "P1D"}, &clock)
		if clock.Now != "2030-01-02T00:00:00Z" || !clock.Frozen {
			t.Fatalf("clock %+v", clock)
		}
		s.api(t, "GET", sold.Links.Events.Href, nil, "", saleResponse, &events)
		if events.LastEvent != "settled" {
			t.Fatalf("lastEvent %s", events.LastEvent)
		}
	})

	t.Run("the token expires after 7 days", func(t *testing.T) {
		s.clean(t)
		href := s.createToken(t).TokenPaymentInstrument.Href
		if res := s.control(t, "POST", "/_sim/clock/advance", map[string]any{"by": "P8D"}, nil); res.StatusCode != 200 {
			t.Fatalf("advance: %d", res.StatusCode)
		}
		var gone apiError
		if res := s.api(t, "GET", href, nil, "", tokens, &gone); res.StatusCode != 404 || gone.ErrorName != "resourceNotFound" {
			t.Fatalf("GET the expired token: %d %s", res.StatusCode, gone.ErrorName)
		}
		var refused apiError
		res := s.sale(t, href, 1250, "order-2", &refused)
		if res.StatusCode != 400 || refused.ErrorName != "bodyDoesNotMatchSchema" || len(refused.ValidationErrors) != 1 {
			t.Fatalf("sale with the expired token: %d %+v", res.StatusCode, refused)
		}
		if item := refused.ValidationErrors[0]; item.ErrorName != "fieldHasInvalidValue" || item.JSONPath != "$.instruction.paymentInstrument.href" {
			t.Fatalf("validation error %+v", item)
		}
	})

	t.Run("a scenario refuses large sales", func(t *testing.T) {
		s.clean(t)
		var loaded struct {
			Scenarios []struct {
				Name string `json:"name"`
			} `json:"scenarios"`
		}
		res := s.control(t, "PUT", "/_sim/scenarios", refuseLargeSales, &loaded)
		if res.StatusCode != 200 || len(loaded.Scenarios) != 1 || loaded.Scenarios[0].Name != "refuse-large-sales" {
			t.Fatalf("PUT /_sim/scenarios: %d %+v", res.StatusCode, loaded)
		}
		href := s.createToken(t).TokenPaymentInstrument.Href

		var refused, approved sale
		s.sale(t, href, 6000, "order-3", &refused)
		if refused.Outcome != "refused" || refused.RefusalCode != "51" || refused.RefusalDescription != "LIMIT EXCEEDED" || refused.Links.Refund != nil {
			t.Fatalf("large sale %+v", refused)
		}
		s.sale(t, href, 1250, "order-4", &approved)
		if approved.Outcome != "sentForSettlement" {
			t.Fatalf("small sale %+v", approved)
		}

		var journal struct {
			Requests []struct {
				Rule *string `json:"rule"`
			} `json:"requests"`
		}
		s.control(t, "GET", "/_sim/requests?operation=sale", nil, &journal)
		if len(journal.Requests) != 2 || journal.Requests[0].Rule == nil || *journal.Requests[0].Rule != "large-sale-refused" || journal.Requests[1].Rule != nil {
			t.Fatalf("journal %+v", journal)
		}
	})
}
