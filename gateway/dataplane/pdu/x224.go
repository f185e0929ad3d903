package pdu

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Security protocols of RDP_NEG_REQ / RDP_NEG_RSP (MS-RDPBCGR 2.2.1.1.1).
const (
	ProtocolRDP      uint32 = 0x00
	ProtocolSSL      uint32 = 0x01
	ProtocolHybrid   uint32 = 0x02
	ProtocolRDSTLS   uint32 = 0x04
	ProtocolHybridEx uint32 = 0x08
	ProtocolRDSAAD   uint32 = 0x10
)

// NegReqCorrelationInfoPresent is the RDP_NEG_REQ flag for a following RDP_CORRELATION_INFO.
const NegReqCorrelationInfoPresent = 0x08

// Confirm kinds.
const (
	ConfirmSuccess = "success" // RDP_NEG_RSP (TypeScript: "response")
	ConfirmFailure = "failure" // RDP_NEG_FAILURE
	ConfirmNone    = "none"    // no negotiation: legacy RDP security
)

const (
	tpduConnectionRequest  = 0xe0
	tpduConnectionConfirm  = 0xd0
	tpktHeader             = 4
	tpduCrCcHeader         = 7
	typeRdpNegReq          = 0x01
	typeRdpNegRsp          = 0x02
	typeRdpNegFailure      = 0x03
	typeRdpCorrelationInfo = 0x06
	negLength              = 8
	correlationInfoLength  = 36
	cookiePrefix           = "Cookie: mstshash="
)

// X224Error is a malformed Connection Request or Confirm (code x224-invalid).
type X224Error struct{ Message string }

func (e *X224Error) Error() string { return e.Message }

// Code is the kiosk protocol's code for it.
func (e *X224Error) Code() string { return "x224-invalid" }

func x224Errorf(format string, args ...any) *X224Error {
	return &X224Error{Message: fmt.Sprintf(format, args...)}
}

// ConnectionRequest is what the client's X.224 Connection Request says.
type ConnectionRequest struct {
	// RequestedProtocols: Protocol* bits; ProtocolRDP (0) without RDP_NEG_REQ.
	RequestedProtocols uint32
	// Negotiation: an RDP_NEG_REQ was present (a request without one is legacy RDP).
	Negotiation bool
	Flags       uint8
	// Cookie is the IDENTIFIER of "Cookie: mstshash=IDENTIFIER" (latin1 bytes as they came).
	Cookie *string
	// RoutingToken is any other token line, without its CR LF (a slice of the request).
	RoutingToken  []byte
	CorrelationID []byte
	SourceRef     uint16
}

// Confirm is what the server's X.224 Connection Confirm says.
type Confirm struct {
	Kind             string // ConfirmSuccess, ConfirmFailure or ConfirmNone
	SelectedProtocol uint32 // for ConfirmSuccess
	Flags            uint8  // RDP_NEG_RSP flags, for ConfirmSuccess
	FailureCode      uint32 // for ConfirmFailure
}

func readTpduHeader(pdu []byte, expectedCode byte, what string) (int, error) {
	if len(pdu) < tpktHeader+tpduCrCcHeader {
		return 0, x224Errorf("%s of %d bytes is shorter than %d", what, len(pdu), tpktHeader+tpduCrCcHeader)
	}
	if pdu[0] != 0x03 || pdu[1] != 0x00 {
		return 0, x224Errorf("%s does not start with a tpkt header (03 00), got %02x%02x", what, pdu[0], pdu[1])
	}
	length := int(binary.BigEndian.Uint16(pdu[2:]))
	if length != len(pdu) {
		return 0, x224Errorf("%s tpkt length %d does not match the %d bytes given", what, length, len(pdu))
	}
	if li := int(pdu[tpktHeader]); li != length-tpktHeader-1 {
		return 0, x224Errorf("%s length indicator %d does not match tpkt length %d (expected %d)", what, li, length, length-tpktHeader-1)
	}
	if code := pdu[tpktHeader+1]; code != expectedCode {
		return 0, x224Errorf("%s tpdu code is 0x%x, expected 0x%x", what, code, expectedCode)
	}
	return tpktHeader + tpduCrCcHeader, nil
}

func indexOfCrLf(pdu []byte, from int) int {
	for i := from; i+1 < len(pdu); i++ {
		if pdu[i] == '\r' && pdu[i+1] == '\n' {
			return i
		}
	}
	return -1
}

// ParseConnectionRequest reads the requested protocols of the client's X.224
// Connection Request (one whole TPKT); the error is an *X224Error.
func ParseConnectionRequest(b []byte) (requestedProtocols uint32, err error) {
	request, err := ParseConnectionRequestFields(b)
	if err != nil {
		return 0, err
	}
	return request.RequestedProtocols, nil
}

// ParseConnectionRequestFields is parseConnectionRequest: every field of the request.
func ParseConnectionRequestFields(pdu []byte) (ConnectionRequest, error) {
	offset, err := readTpduHeader(pdu, tpduConnectionRequest, "connection request")
	if err != nil {
		return ConnectionRequest{}, err
	}
	request := ConnectionRequest{SourceRef: binary.BigEndian.Uint16(pdu[tpktHeader+4:])}
	rest := len(pdu) - offset
	negotiationOnly := rest > 0 && pdu[offset] == typeRdpNegReq && (rest == negLength || rest == negLength+correlationInfoLength)
	if rest > 0 && !negotiationOnly {
		end := indexOfCrLf(pdu, offset)
		if end < 0 {
			return ConnectionRequest{}, x224Errorf("connection request routing token or cookie is not terminated by CR LF")
		}
		line := pdu[offset:end]
		if text := string(line); strings.HasPrefix(text, cookiePrefix) {
			cookie := text[len(cookiePrefix):]
			request.Cookie = &cookie
		} else {
			request.RoutingToken = line
		}
		offset = end + 2
	}
	if offset < len(pdu) {
		if len(pdu)-offset < negLength {
			return ConnectionRequest{}, x224Errorf("connection request has %d bytes after the cookie, too few for RDP_NEG_REQ", len(pdu)-offset)
		}
		if kind := pdu[offset]; kind != typeRdpNegReq {
			return ConnectionRequest{}, x224Errorf("connection request negotiation type is %d, expected 1 (RDP_NEG_REQ)", kind)
		}
		request.Flags = pdu[offset+1]
		if length := binary.LittleEndian.Uint16(pdu[offset+2:]); length != negLength {
			return ConnectionRequest{}, x224Errorf("RDP_NEG_REQ length is %d, expected 8", length)
		}
		request.RequestedProtocols = binary.LittleEndian.Uint32(pdu[offset+4:])
		request.Negotiation = true
		offset += negLength
		if request.Flags&NegReqCorrelationInfoPresent != 0 {
			if len(pdu)-offset != correlationInfoLength {
				return ConnectionRequest{}, x224Errorf("RDP_CORRELATION_INFO needs 36 bytes, %d follow", len(pdu)-offset)
			}
			infoType := pdu[offset]
			infoLength := binary.LittleEndian.Uint16(pdu[offset+2:])
			if infoType != typeRdpCorrelationInfo || infoLength != correlationInfoLength {
				return ConnectionRequest{}, x224Errorf("RDP_CORRELATION_INFO has type %d and length %d, expected 6 and 36", infoType, infoLength)
			}
			request.CorrelationID = pdu[offset+4 : offset+20]
			offset += correlationInfoLength
		}
	}
	if offset != len(pdu) {
		return ConnectionRequest{}, x224Errorf("connection request has %d unexpected trailing bytes", len(pdu)-offset)
	}
	return request, nil
}

// ParseConnectionConfirm reads the server's X.224 Connection Confirm (one
// whole TPKT); the error is an *X224Error. A well-formed RDP_NEG_FAILURE is
// a Confirm of kind failure, not an error.
func ParseConnectionConfirm(b []byte) (Confirm, error) {
	offset, err := readTpduHeader(b, tpduConnectionConfirm, "connection confirm")
	if err != nil {
		return Confirm{}, err
	}
	rest := len(b) - offset
	if rest == 0 {
		return Confirm{Kind: ConfirmNone}, nil
	}
	if rest != negLength {
		return Confirm{}, x224Errorf("connection confirm carries %d bytes of negotiation data, expected 0 or 8", rest)
	}
	kind := b[offset]
	flags := b[offset+1]
	length := binary.LittleEndian.Uint16(b[offset+2:])
	value := binary.LittleEndian.Uint32(b[offset+4:])
	if length != negLength {
		what := "response"
		if kind == typeRdpNegFailure {
			what = "failure"
		}
		return Confirm{}, x224Errorf("negotiation %s length is %d, expected 8", what, length)
	}
	switch kind {
	case typeRdpNegRsp:
		return Confirm{Kind: ConfirmSuccess, SelectedProtocol: value, Flags: flags}, nil
	case typeRdpNegFailure:
		return Confirm{Kind: ConfirmFailure, FailureCode: value}, nil
	}
	return Confirm{}, x224Errorf("connection confirm negotiation type is %d, expected 2 (RDP_NEG_RSP) or 3 (RDP_NEG_FAILURE)", kind)
}

// RelayedProtocolName is the kiosk protocol's name for a selected protocol
// the gateway relays (ssl, hybrid, hybrid-ex); false for any other.
func RelayedProtocolName(selected uint32) (string, bool) {
	switch selected {
	case ProtocolSSL:
		return "ssl", true
	case ProtocolHybrid:
		return "hybrid", true
	case ProtocolHybridEx:
		return "hybrid-ex", true
	}
	return "", false
}

func x224Tpkt(code byte, sourceRef uint16, variable ...[]byte) []byte {
	length := tpktHeader + tpduCrCcHeader
	for _, part := range variable {
		length += len(part)
	}
	pdu := make([]byte, tpktHeader+tpduCrCcHeader, length)
	pdu[0] = 0x03
	binary.BigEndian.PutUint16(pdu[2:], uint16(length))
	pdu[4] = byte(length - tpktHeader - 1)
	pdu[5] = code
	binary.BigEndian.PutUint16(pdu[8:], sourceRef)
	for _, part := range variable {
		pdu = append(pdu, part...)
	}
	return pdu
}

func negotiationBlock(kind, flags byte, value uint32) []byte {
	block := make([]byte, negLength)
	block[0], block[1] = kind, flags
	binary.LittleEndian.PutUint16(block[2:], negLength)
	binary.LittleEndian.PutUint32(block[4:], value)
	return block
}

// BuildConnectionRequest makes a Connection Request with RDP_NEG_REQ asking
// for protocols, and the cookie line when cookie is not empty (for tests and
// test servers).
func BuildConnectionRequest(protocols uint32, cookie string) []byte {
	var parts [][]byte
	if cookie != "" {
		parts = append(parts, []byte(cookiePrefix+cookie+"\r\n"))
	}
	parts = append(parts, negotiationBlock(typeRdpNegReq, 0, protocols))
	return x224Tpkt(tpduConnectionRequest, 0, parts...)
}

// BuildLegacyConnectionRequest makes a Connection Request without RDP_NEG_REQ.
func BuildLegacyConnectionRequest() []byte {
	return x224Tpkt(tpduConnectionRequest, 0)
}

// BuildConnectionConfirm makes a Connection Confirm (for tests and test servers).
func BuildConnectionConfirm(confirm Confirm) []byte {
	switch confirm.Kind {
	case ConfirmSuccess:
		return x224Tpkt(tpduConnectionConfirm, 0x1234, negotiationBlock(typeRdpNegRsp, confirm.Flags, confirm.SelectedProtocol))
	case ConfirmFailure:
		return x224Tpkt(tpduConnectionConfirm, 0x1234, negotiationBlock(typeRdpNegFailure, 0, confirm.FailureCode))
	}
	return x224Tpkt(tpduConnectionConfirm, 0x1234)
}
