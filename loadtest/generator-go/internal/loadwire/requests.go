package loadwire

import (
	"encoding/binary"
	"fmt"
)

// The load test's own PDUs (loadtest/src/tpktPdu.ts, sizedRequest.ts).

const (
	// MinPduBytes: TPKT + the 3-byte X.224 Data TPDU header an RDP PDU carries.
	MinPduBytes = 7
	// MaxPduBytes: the most a TPKT length can say.
	MaxPduBytes = 0xffff
	// sizeOffset: where a sized request names its answer's size (two bytes, big-endian).
	sizeOffset = MinPduBytes
)

// BuildTpktPdu: a TPKT PDU of exactly totalBytes carrying an X.224 Data
// TPDU, filled with 0x5a so a corrupted echo shows in a hexdump.
func BuildTpktPdu(totalBytes int) ([]byte, error) {
	if totalBytes < MinPduBytes || totalBytes > MaxPduBytes {
		return nil, fmt.Errorf("pdu size must be an integer in %d..%d, got %d", MinPduBytes, MaxPduBytes, totalBytes)
	}
	pdu := make([]byte, totalBytes)
	for i := range pdu {
		pdu[i] = 0x5a
	}
	pdu[0], pdu[1] = 0x03, 0x00
	binary.BigEndian.PutUint16(pdu[2:], uint16(totalBytes))
	pdu[4], pdu[5], pdu[6] = 0x02, 0xf0, 0x80
	return pdu, nil
}

// RequestedReplyBytes: the answer size a sized request names; 0 (echo) when
// the PDU is too short to carry one.
func RequestedReplyBytes(pdu []byte) int {
	if len(pdu) < sizeOffset+2 {
		return 0
	}
	return int(binary.BigEndian.Uint16(pdu[sizeOffset:]))
}
