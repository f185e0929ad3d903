package pdu

// The input gate (protocol/src/inputPdus.ts, the specification, and its
// reasons): while the presenter has not allowed people at the display to
// control the computer, the relay drops every input PDU the display sends —
// every client fast-path PDU and every slow-path Input Event PDU — from
// frames of whole client-to-server PDUs in rdp mode. Held to the same
// vectors as the TypeScript (testdata/input-pdus.json).

const (
	tpktVersion            = 0x03
	x224Data               = 0xf0
	mcsSendDataRequest     = 25
	pduTypeData            = 0x7
	pduType2Input          = 0x1c
	shareDataPduType2Index = 14
)

// inputPduLength is the whole PDU's length at frame[0] (TPKT or fast-path), or -1 when its header is cut.
func inputPduLength(frame []byte) int {
	if len(frame) < 2 {
		return -1
	}
	if frame[0] == tpktVersion {
		if len(frame) < 4 {
			return -1
		}
		return int(frame[2])<<8 | int(frame[3])
	}
	if frame[1]&0x80 == 0 {
		return int(frame[1])
	}
	if len(frame) < 3 {
		return -1
	}
	return int(frame[1]&0x7f)<<8 | int(frame[2])
}

// isSlowPathInput: TPKT, X.224 Data, MCS Send Data Request whose user data
// is a Share Data PDU of pduType2 PDUTYPE2_INPUT filling all of it.
func isSlowPathInput(p []byte) bool {
	at := 4
	if at+3 > len(p) || p[at] != 2 || p[at+1] != x224Data {
		return false
	}
	at += 3
	if at+6 > len(p) || p[at]>>2 != mcsSendDataRequest {
		return false
	}
	at += 6
	var userLength int
	if p[at]&0x80 == 0 {
		userLength = int(p[at])
		at++
	} else {
		if at+2 > len(p) {
			return false
		}
		userLength = int(p[at]&0x3f)<<8 | int(p[at+1])
		at += 2
	}
	if at+userLength != len(p) || userLength < shareDataPduType2Index+1 {
		return false
	}
	totalLength := int(p[at]) | int(p[at+1])<<8
	return totalLength == userLength && p[at+2]&0x0f == pduTypeData && p[at+shareDataPduType2Index] == pduType2Input
}

// IsInput reports whether the whole PDU p is input toward the server.
func IsInput(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	if p[0] != tpktVersion {
		return true // a client's fast-path PDU is input
	}
	return isSlowPathInput(p)
}

// DropInput returns frame without its input PDUs (frame itself when none
// was dropped, else a new slice, maybe empty) and how many it dropped. A
// frame whose PDUs do not add up is dropped whole.
func DropInput(frame []byte) ([]byte, int) {
	dropped := 0
	var kept []byte
	position := 0
	for position < len(frame) {
		length := inputPduLength(frame[position:])
		if length <= 0 || position+length > len(frame) {
			return frame[:0:0], dropped + 1
		}
		p := frame[position : position+length]
		if IsInput(p) {
			if dropped == 0 {
				kept = append(make([]byte, 0, len(frame)), frame[:position]...)
			}
			dropped++
		} else if dropped > 0 {
			kept = append(kept, p...)
		}
		position += length
	}
	if dropped == 0 {
		return frame, 0
	}
	return kept, dropped
}
