package httpapi

import (
	_ "embed" // the API's description is compiled into the binary
	"net/http"
)

// openAPI describes every endpoint under /api/v1 (OpenAPI 3.0); a test checks
// it against what the server answers.
//
//go:embed openapi.json
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPI)
}
