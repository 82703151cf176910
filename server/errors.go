package server

import (
	"errors"
	"net/http"

	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// The stable error codes of the API's error answers
// ({"error": {"code", "message", "hint"}}). Clients branch on the code; the
// message and the hint are for people.
const (
	CodeBadRequest   = "bad_request"  // 400 (405 for a method a path does not take)
	CodeUnauthorized = "unauthorized" // 401
	CodeMissing      = "missing"      // 404: never stored, expired, evicted, or another namespace's
	CodeBroken       = "broken"       // 500: the stored copy does not match its digest
	CodeOutOfRange   = "out_of_range" // 416
	CodeTooLarge     = "too_large"    // 413
	CodeRevision     = "revision"     // 409: the content changed since the continuation was made
	CodeBinary       = "binary"       // 422: a text read of binary content
	CodeInternal     = "internal"     // 500
	CodeUnavailable  = "unavailable"  // 503: the namespace's store cannot be opened or reached
)

// apiError is an error answer.
type apiError struct {
	status        int
	code, message string
	hint          string
}

func (e *apiError) Error() string { return e.message }

func badRequest(msg, hint string) *apiError {
	return &apiError{status: http.StatusBadRequest, code: CodeBadRequest, message: msg, hint: hint}
}

// classify maps an error to its answer.
func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		return &apiError{http.StatusRequestEntityTooLarge, CodeTooLarge, err.Error(), "send less, or raise the server's limit (crumb serve --max-result or --max-request)"}
	case errors.Is(err, store.ErrMissing):
		return &apiError{http.StatusNotFound, CodeMissing, err.Error(), "the result expired or was evicted, or was never stored in this namespace; run the tool again"}
	case errors.Is(err, store.ErrUnavailable):
		return &apiError{http.StatusServiceUnavailable, CodeUnavailable, err.Error(), "the store cannot be used now (GET /healthz says why); POST /v1/results still answers views, of results it cannot keep"}
	case errors.Is(err, store.ErrBroken):
		return &apiError{http.StatusInternalServerError, CodeBroken, err.Error(), "the stored copy is damaged; run the tool again to store a fresh one"}
	case errors.Is(err, recall.ErrOutOfRange):
		return &apiError{http.StatusRequestedRangeNotSatisfiable, CodeOutOfRange, err.Error(), "ask for a range inside the result; the first page's header gives its size"}
	case errors.Is(err, recall.ErrRevision):
		return &apiError{http.StatusConflict, CodeRevision, err.Error(), "the content changed; start again from its newest view"}
	case errors.Is(err, recall.ErrBinary):
		return &apiError{http.StatusUnprocessableEntity, CodeBinary, err.Error(), "GET /v1/results/{ref}/raw returns the exact bytes"}
	case errors.Is(err, store.ErrBadRef):
		return badRequest(err.Error(), "a ref is the 16 hex digits a view names")
	case errors.Is(err, recall.ErrNotJSON):
		return badRequest(err.Error(), "read it by lines: GET /v1/results/{ref}?lines=1:200")
	case errors.Is(err, recall.ErrBadRequest), errors.Is(err, history.ErrInput):
		return badRequest(err.Error(), "")
	}
	return &apiError{http.StatusInternalServerError, CodeInternal, err.Error(), ""}
}
