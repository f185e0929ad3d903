package rdpwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The X.224 handshake before TLS (MS-RDPBCGR 2.2.1.1, 2.2.1.2), as far as the
// load test's ends need it; protocol/src/x224.ts is the full codec.

// ProtocolSSL is PROTOCOL_SSL: the one security protocol the load test negotiates.
const ProtocolSSL = 1

const (
	tpktHeader            = 4
	crCcHeader            = 7 // LI, code, DST-REF (2), SRC-REF (2), class
	codeConnectionRequest = 0xe0
	codeConnectionConfirm = 0xd0
	negLength             = 8
	typeNegReq            = 0x01
	typeNegRsp            = 0x02
	typeNegFailure        = 0x03
	typeCorrelationInfo   = 0x06
	correlationInfoLength = 36
	flagCorrelationInfo   = 0x08
)

// ParseRequestedProtocols reads the PROTOCOL bits of a Connection Request (one
// whole TPKT), checking lengths as protocol/src/x224.ts parseConnectionRequest
// does; 0 (standard RDP security) when it carries no RDP_NEG_REQ.
func ParseRequestedProtocols(pdu []byte) (uint32, error) {
	if len(pdu) < tpktHeader+crCcHeader {
		return 0, fmt.Errorf("connection request of %d bytes is shorter than %d", len(pdu), tpktHeader+crCcHeader)
	}
	if pdu[0] != 0x03 || pdu[1] != 0x00 {
		return 0, fmt.Errorf("connection request does not start with a tpkt header (03 00), got %02x%02x", pdu[0], pdu[1])
	}
	length := int(binary.BigEndian.Uint16(pdu[2:4]))
	if length != len(pdu) {
		return 0, fmt.Errorf("connection request tpkt length %d does not match the %d bytes given", length, len(pdu))
	}
	if int(pdu[4]) != length-tpktHeader-1 {
		return 0, fmt.Errorf("connection request length indicator %d does not match tpkt length %d", pdu[4], length)
	}
	if pdu[5] != codeConnectionRequest {
		return 0, fmt.Errorf("connection request tpdu code is 0x%x, expected 0xe0", pdu[5])
	}
	offset := tpktHeader + crCcHeader
	rest := len(pdu) - offset
	negotiationOnly := rest > 0 && pdu[offset] == typeNegReq && (rest == negLength || rest == negLength+correlationInfoLength)
	if rest > 0 && !negotiationOnly {
		end := bytes.Index(pdu[offset:], []byte("\r\n"))
		if end < 0 {
			return 0, errors.New("connection request routing token or cookie is not terminated by CR LF")
		}
		offset += end + 2
	}
	if offset == len(pdu) {
		return 0, nil
	}
	if len(pdu)-offset < negLength {
		return 0, fmt.Errorf("connection request has %d bytes after the cookie, too few for RDP_NEG_REQ", len(pdu)-offset)
	}
	if pdu[offset] != typeNegReq {
		return 0, fmt.Errorf("connection request negotiation type is %d, expected 1 (RDP_NEG_REQ)", pdu[offset])
	}
	flags := pdu[offset+1]
	if got := binary.LittleEndian.Uint16(pdu[offset+2:]); got != negLength {
		return 0, fmt.Errorf("RDP_NEG_REQ length is %d, expected 8", got)
	}
	requested := binary.LittleEndian.Uint32(pdu[offset+4:])
	offset += negLength
	if flags&flagCorrelationInfo != 0 {
		if len(pdu)-offset != correlationInfoLength {
			return 0, fmt.Errorf("RDP_CORRELATION_INFO needs 36 bytes, %d follow", len(pdu)-offset)
		}
		if pdu[offset] != typeCorrelationInfo || binary.LittleEndian.Uint16(pdu[offset+2:]) != correlationInfoLength {
			return 0, errors.New("RDP_CORRELATION_INFO has the wrong type or length")
		}
		offset += correlationInfoLength
	}
	if offset != len(pdu) {
		return 0, fmt.Errorf("connection request has %d unexpected trailing bytes", len(pdu)-offset)
	}
	return requested, nil
}

// BuildConnectionConfirm: a Connection Confirm with RDP_NEG_RSP selecting
// `selected`, source reference 0x1234 (as buildConnectionConfirm's default).
func BuildConnectionConfirm(selected uint32, flags byte) []byte {
	pdu := make([]byte, tpktHeader+crCcHeader+negLength)
	pdu[0] = 0x03
	binary.BigEndian.PutUint16(pdu[2:], uint16(len(pdu)))
	pdu[4] = byte(len(pdu) - tpktHeader - 1)
	pdu[5] = codeConnectionConfirm
	binary.BigEndian.PutUint16(pdu[8:], 0x1234)
	neg := pdu[tpktHeader+crCcHeader:]
	neg[0] = typeNegRsp
	neg[1] = flags
	binary.LittleEndian.PutUint16(neg[2:], negLength)
	binary.LittleEndian.PutUint32(neg[4:], selected)
	return pdu
}

// ExpectTLSConfirm checks an X.224 Connection Confirm that selects TLS
// (MS-RDPBCGR 2.2.1.2): the load test's only accepted answer.
func ExpectTLSConfirm(pdu []byte, peer string) error {
	if len(pdu) < 11 || pdu[0] != 0x03 || int(binary.BigEndian.Uint16(pdu[2:4])) != len(pdu) || pdu[5]&0xf0 != codeConnectionConfirm {
		return fmt.Errorf("%s sent no connection confirm", peer)
	}
	if len(pdu) < 19 {
		return fmt.Errorf("%s selected protocol 0, not ssl", peer)
	}
	kind := pdu[11]
	value := binary.LittleEndian.Uint32(pdu[15:19])
	switch kind {
	case typeNegRsp:
		if value != ProtocolSSL {
			return fmt.Errorf("%s selected protocol %d, not ssl", peer, value)
		}
		return nil
	case typeNegFailure:
		return fmt.Errorf("%s refused the negotiation with code %d", peer, value)
	default:
		return fmt.Errorf("%s sent negotiation type %d", peer, kind)
	}
}
