// Package pdu holds the protocol package's PDU rules in Go: whole-PDU framing
// in the three modes (protocol/src/pduFramer.ts, wholePdus.ts, pduHeader.ts,
// framingMode.ts), the X.224 handshake's parsers (x224.ts) and the
// certificate facts Node computes (gateway/src/rdp/subjectPublicKey.ts).
// Error codes and messages are the TypeScript ones, byte for byte, so the
// two engines refuse the same inputs in the same words; a differential test
// (gateway/test/dataplane/framerParity.test.ts) holds them to it.
package pdu

// Mode says which PDU kinds may appear on one direction of a session. During
// NLA the byte 0x30 starts a DER TSRequest, while after it the same byte is a
// fast-path header, so the framer must know the phase.
type Mode uint8

const (
	// ModeRDP: TPKT and fast-path (TLS security, or after NLA).
	ModeRDP Mode = iota
	// ModeNLA: TPKT and DER TSRequest (HYBRID/HYBRID_EX before the first TPKT).
	ModeNLA
	// ModeNLAEx: as ModeNLA, plus the server's 4-byte Early User
	// Authorization Result (HYBRID_EX, server to client).
	ModeNLAEx
)

// TpktVersion is the first byte of every TPKT.
const TpktVersion = 0x03

// String is the TypeScript FramingMode's name: rdp, nla, nla-ex.
func (m Mode) String() string {
	switch m {
	case ModeRDP:
		return "rdp"
	case ModeNLA:
		return "nla"
	case ModeNLAEx:
		return "nla-ex"
	}
	return "unknown"
}

// ParseMode reads a TypeScript FramingMode name.
func ParseMode(name string) (Mode, bool) {
	switch name {
	case "rdp":
		return ModeRDP, true
	case "nla":
		return ModeNLA, true
	case "nla-ex":
		return ModeNLAEx, true
	}
	return ModeRDP, false
}

func (m Mode) valid() bool { return m <= ModeNLAEx }

// ModeFor is the mode a direction starts in right after the TLS handshake
// (framingModeFor): protocol is ssl, hybrid or hybrid-ex; toClient is the
// server-to-client direction.
func ModeFor(protocol string, toClient bool) Mode {
	if protocol == "ssl" {
		return ModeRDP
	}
	if protocol == "hybrid-ex" && toClient {
		return ModeNLAEx
	}
	return ModeNLA
}

// ModeAfter is the mode after a PDU starting with firstByte passed. NLA ends
// with the client's first TPKT (MCS Connect-Initial), and the server sends
// no TPKT before answering it, so the first TPKT in either direction ends
// NLA there.
func ModeAfter(mode Mode, firstByte byte) Mode {
	if mode != ModeRDP && firstByte == TpktVersion {
		return ModeRDP
	}
	return mode
}
