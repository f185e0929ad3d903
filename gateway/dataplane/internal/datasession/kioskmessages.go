package datasession

import (
	"encoding/json"
	"math"
	"strconv"

	"lanterna/dataplane/internal/targetconn"
)

// kioskMessage is a data socket's JSON message from the display, read as
// protocol/src/kioskMessages.ts's parseKioskDataMessage reads it: an object
// with a string type among open, ping and close, their fields typed, other
// fields ignored. Keys are matched exactly (encoding/json's struct decoding
// would also take "TYPE").
type kioskMessage struct {
	kind  string
	token string
	t     float64
}

// parseKioskMessage returns ok false for anything parseKioskDataMessage refuses.
func parseKioskMessage(text []byte) (kioskMessage, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil || fields == nil {
		return kioskMessage{}, false
	}
	var message kioskMessage
	if err := json.Unmarshal(fields["type"], &message.kind); err != nil || fields["type"] == nil {
		return kioskMessage{}, false
	}
	switch message.kind {
	case "open":
		raw, present := fields["token"]
		if !present || json.Unmarshal(raw, &message.token) != nil || string(raw) == "null" {
			return kioskMessage{}, false
		}
	case "ping":
		raw, present := fields["t"]
		if !present || json.Unmarshal(raw, &message.t) != nil || string(raw) == "null" || math.IsInf(message.t, 0) || math.IsNaN(message.t) {
			return kioskMessage{}, false
		}
	case "close":
	default:
		return kioskMessage{}, false
	}
	return message, true
}

// isCloseMessage: the display's polite close.
func isCloseMessage(text []byte) bool {
	message, ok := parseKioskMessage(text)
	return ok && message.kind == "close"
}

// pongMessage echoes only the ping's number, as JSON.stringify writes it.
func pongMessage(t float64) []byte {
	line := make([]byte, 0, 40)
	line = append(line, `{"type":"pong","t":`...)
	line = appendNumber(line, t)
	return append(line, '}')
}

// appendNumber writes a float as JavaScript does for the usual range (encoding/json's rule).
func appendNumber(line []byte, value float64) []byte {
	if value == 0 {
		return append(line, '0')
	}
	abs := math.Abs(value)
	format := byte('f')
	if abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	return strconv.AppendFloat(line, value, format, -1, 64)
}

type endedMessage struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

func endedJSON(reason string) []byte {
	body, _ := json.Marshal(endedMessage{Type: "ended", Reason: reason})
	return body
}

type errorMessage struct {
	Type    string         `json:"type"`
	Phase   string         `json:"phase"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Detail  map[string]any `json:"detail"`
}

type securedMessage struct {
	Type         string   `json:"type"`
	Protocol     string   `json:"protocol"`
	TLSVersion   string   `json:"tlsVersion"`
	Cipher       string   `json:"cipher"`
	Certificates []string `json:"certificates"`
	PublicKey    string   `json:"publicKey"`
	Fingerprint  string   `json:"fingerprint"`
	Trust        string   `json:"trust"`
}

func securedJSON(secured targetconn.Secured) []byte {
	certificates := secured.Certificates
	if certificates == nil {
		certificates = []string{}
	}
	body, _ := json.Marshal(securedMessage{
		Type: "secured", Protocol: secured.Protocol, TLSVersion: secured.TLSVersion, Cipher: secured.Cipher,
		Certificates: certificates, PublicKey: secured.PublicKey, Fingerprint: secured.Fingerprint, Trust: secured.Trust,
	})
	return body
}
