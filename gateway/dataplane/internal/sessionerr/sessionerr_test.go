package sessionerr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// The codes and phases must be the protocol package's, in its order: read them from its source.
func TestCodesAndPhasesAreTheProtocolPackages(t *testing.T) {
	source, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "protocol", "src", "sessionErrors.ts"))
	if err != nil {
		t.Fatalf("the protocol package's table: %v", err)
	}
	table := regexp.MustCompile(`(?s)const table = \{(.*?)\n\} as const`).FindSubmatch(source)
	if table == nil {
		t.Fatal("no table in sessionErrors.ts")
	}
	var codes []string
	for _, match := range regexp.MustCompile(`(?m)^  '?([a-z0-9-]+)'?: \{`).FindAllSubmatch(table[1], -1) {
		codes = append(codes, string(match[1]))
	}
	if !reflect.DeepEqual(codes, Codes) {
		t.Errorf("codes differ:\n ts %v\n go %v", codes, Codes)
	}
	phases := regexp.MustCompile(`SESSION_PHASES = \[([^\]]*)\]`).FindSubmatch(source)
	var names []string
	for _, match := range regexp.MustCompile(`'([a-z0-9]+)'`).FindAllSubmatch(phases[1], -1) {
		names = append(names, string(match[1]))
	}
	if !reflect.DeepEqual(names, Phases) {
		t.Errorf("phases differ:\n ts %v\n go %v", names, Phases)
	}
	for _, code := range codes {
		if !IsCode(code) {
			t.Errorf("IsCode(%s)", code)
		}
	}
	if IsCode("nonsense") || IsPhase("nonsense") || !IsPhase(PhaseTLS) {
		t.Error("IsCode/IsPhase")
	}
}

func TestNewAndHelpers(t *testing.T) {
	e := New(PhaseConnect, CodeTimeout, "").WithDetail("phase", "connect").WithInternal("address", "10.0.0.1")
	if e.Error() != "connect timeout" || e.Detail["phase"] != "connect" || e.Internal["address"] != "10.0.0.1" {
		t.Fatalf("%v %+v", e, e)
	}
	if got := New(PhaseX224, CodeX224Invalid, "no rdp here").Error(); got != "x224 x224-invalid: no rdp here" {
		t.Fatal(got)
	}
	var bare Error
	bare.WithDetail("a", 1).WithInternal("b", 2)
	if bare.Detail["a"] != 1 || bare.Internal["b"] != 2 {
		t.Fatal("helpers on a zero Error")
	}
}

func TestAborted(t *testing.T) {
	// a context cancelled with a session's error ends the phase with that error
	cause := New(PhaseHello, CodeBadMessage, "the display spoke during the handshake")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("wrapped: %w", cause))
	if got := Aborted(ctx, PhaseTLS); got != cause {
		t.Fatalf("with a session's error as the cause: %v", got)
	}
	// any other cancellation is the gateway's shutdown, in the phase under way
	plain, stop := context.WithCancel(context.Background())
	stop()
	if got := Aborted(plain, PhaseX224); got.Phase != PhaseX224 || got.Code != CodeGatewayShutdown || got.Message != "" {
		t.Fatalf("with a plain cancellation: %v", got)
	}
}
